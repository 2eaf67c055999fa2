package io.nicbridge.sim.traffic;

import java.util.ArrayDeque;

/**
 * A test double for {@link FabricPorts}: an output-queued crossbar. A port accepts a packet when its
 * injection queue has room, serialises it at one flit per cycle, the packet then flies for
 * {@code latency} cycles into its destination's output queue, which ejects one flit every
 * {@code ejectCyclesPerFlit} cycles. Uniform traffic therefore saturates at
 * 1 / ejectCyclesPerFlit flits/node/cycle. With {@code dropAbove} >= 0 a packet arriving at an output
 * queue already holding that many packets is dropped. Hops are always 1.
 */
public final class IdealFabric implements FabricPorts {
    private final int nodes;
    private final int latency;
    private final int ejectCyclesPerFlit;
    private final int injectQueuePackets;
    private final int dropAbove;
    private long cycle;
    private final ArrayDeque<long[]>[][] injectQ;
    private final ArrayDeque<long[]> flying = new ArrayDeque<>();
    private final ArrayDeque<long[]>[][] outQ;
    private final long[][] injectBusyUntil;
    private final long[][] ejectBusyUntil;
    private final ArrayDeque<Long>[][] ready;
    private final boolean[] receiving;
    private DropListener dropListener = (n, t) -> { };
    private long delivered;

    @SuppressWarnings("unchecked")
    public IdealFabric(int nodes, int latency, int ejectCyclesPerFlit, int injectQueuePackets, int dropAbove) {
        this.nodes = nodes;
        this.latency = latency;
        this.ejectCyclesPerFlit = ejectCyclesPerFlit;
        this.injectQueuePackets = injectQueuePackets;
        this.dropAbove = dropAbove;
        injectQ = new ArrayDeque[2][nodes];
        outQ = new ArrayDeque[2][nodes];
        ready = new ArrayDeque[2][nodes];
        injectBusyUntil = new long[2][nodes];
        ejectBusyUntil = new long[2][nodes];
        receiving = new boolean[nodes];
        for (int net = 0; net < 2; net++) {
            for (int n = 0; n < nodes; n++) {
                injectQ[net][n] = new ArrayDeque<>();
                outQ[net][n] = new ArrayDeque<>();
                ready[net][n] = new ArrayDeque<>();
                receiving[n] = true;
            }
        }
    }

    public long delivered() {
        return delivered;
    }

    @Override
    public int nodeCount() {
        return nodes;
    }

    @Override
    public int networkCount() {
        return 2;
    }

    @Override
    public long cycle() {
        return cycle;
    }

    @Override
    public boolean offer(int network, int source, int destination, int flits, long tag) {
        if (injectQ[network][source].size() >= injectQueuePackets) {
            return false;
        }
        injectQ[network][source].add(new long[] {destination, flits, tag, 0, network});
        return true;
    }

    @Override
    public long poll(int network, int node) {
        Long t = ready[network][node].poll();
        return t == null ? NO_PACKET : t;
    }

    @Override
    public int polledHops() {
        return 1;
    }

    @Override
    public void receiving(int node, boolean on) {
        receiving[node] = on;
    }

    @Override
    public void step() {
        cycle++;
        for (int net = 0; net < 2; net++) {
            for (int n = 0; n < nodes; n++) {
                if (!injectQ[net][n].isEmpty() && injectBusyUntil[net][n] <= cycle) {
                    long[] p = injectQ[net][n].poll();
                    injectBusyUntil[net][n] = cycle + p[1];
                    p[3] = cycle + p[1] + latency;
                    flying.add(p);
                }
            }
        }
        // Packets all fly the same time, so the flying queue stays in arrival order.
        while (!flying.isEmpty() && flying.peek()[3] <= cycle) {
            long[] p = flying.poll();
            int net = (int) p[4];
            int dst = (int) p[0];
            if (dropAbove >= 0 && outQ[net][dst].size() >= dropAbove) {
                dropListener.dropped(net, p[2]);
                continue;
            }
            outQ[net][dst].add(p);
        }
        for (int net = 0; net < 2; net++) {
            for (int n = 0; n < nodes; n++) {
                if (receiving[n] && !outQ[net][n].isEmpty() && ejectBusyUntil[net][n] <= cycle) {
                    long[] p = outQ[net][n].poll();
                    ejectBusyUntil[net][n] = cycle + p[1] * ejectCyclesPerFlit;
                    ready[net][n].add(p[2]);
                    delivered++;
                }
            }
        }
    }

    @Override
    public void dropListener(DropListener listener) {
        this.dropListener = listener;
    }
}
