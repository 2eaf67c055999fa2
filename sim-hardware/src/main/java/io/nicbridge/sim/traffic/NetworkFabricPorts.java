package io.nicbridge.sim.traffic;

import io.nicbridge.sim.fabric.DropReason;
import io.nicbridge.sim.fabric.Endpoint;
import io.nicbridge.sim.fabric.FabricListener;
import io.nicbridge.sim.fabric.Network;
import io.nicbridge.sim.fabric.NodePort;
import io.nicbridge.sim.fabric.PacketRecord;

/**
 * {@link FabricPorts} over the flit-level {@link Network}: offers go to the node's
 * {@link NodePort#inject}, and an endpoint behind every port copies each delivered packet's tag and
 * hops into a per-node, per-class FIFO that {@link #poll} drains. The network's two message classes
 * are the request and reply logical networks. Tags must fit in 31 bits (slot and message indices do).
 */
public final class NetworkFabricPorts implements FabricPorts {
    private final Network network;
    private final IntRingQueues[] tags = new IntRingQueues[2];
    private final IntRingQueues[] hops = new IntRingQueues[2];
    private final IntRingQueues[] networkLatency = new IntRingQueues[2];
    private int polledHops;
    private int polledNetworkLatency;
    private DropListener dropListener = (n, t) -> { };

    public NetworkFabricPorts(Network network) {
        this.network = network;
        int nodes = network.nodes();
        for (int c = 0; c < 2; c++) {
            tags[c] = new IntRingQueues(nodes, 8);
            hops[c] = new IntRingQueues(nodes, 8);
            networkLatency[c] = new IntRingQueues(nodes, 8);
        }
        Endpoint collector = new Endpoint() {
            @Override
            public void wake(NodePort port, long cycle) {
                // Never asks for wake-ups: the harness drives sending from outside step().
            }

            @Override
            public void deliver(NodePort port, PacketRecord packet, long cycle) {
                int c = packet.packetClass();
                tags[c].push(port.node(), (int) packet.payloadId());
                hops[c].push(port.node(), packet.hops());
                long injected = packet.injectedCycle();
                networkLatency[c].push(port.node(), injected < 0 ? -1 : (int) Math.min(Integer.MAX_VALUE, cycle - injected));
            }
        };
        for (int n = 0; n < nodes; n++) {
            network.attach(n, collector);
        }
        network.listener(new FabricListener() {
            @Override
            public void delivered(PacketRecord packet, long cycle) {
            }

            @Override
            public void dropped(PacketRecord packet, DropReason reason, long cycle) {
                dropListener.dropped(packet.packetClass(), packet.payloadId());
            }
        });
    }

    /** @return the network underneath (counters, topology, config) */
    public Network network() {
        return network;
    }

    @Override
    public int nodeCount() {
        return network.nodes();
    }

    @Override
    public int networkCount() {
        return 2;
    }

    @Override
    public long cycle() {
        return network.cycle();
    }

    @Override
    public boolean offer(int net, int source, int destination, int flits, long tag) {
        if (tag < 0 || tag > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("tag must be in [0, 2^31), got " + tag);
        }
        return network.port(source).inject(destination, flits, net, network.cycle(), tag);
    }

    @Override
    public long poll(int net, int node) {
        IntRingQueues q = tags[net];
        if (q.isEmpty(node)) {
            return NO_PACKET;
        }
        polledHops = hops[net].pop(node);
        polledNetworkLatency = networkLatency[net].pop(node);
        return q.pop(node);
    }

    @Override
    public int polledHops() {
        return polledHops;
    }

    @Override
    public int polledNetworkLatency() {
        return polledNetworkLatency;
    }

    @Override
    public void receiving(int node, boolean on) {
        network.port(node).receiving(on);
    }

    @Override
    public void step() {
        network.step();
    }

    @Override
    public void dropListener(DropListener listener) {
        this.dropListener = listener;
    }
}
