package io.nicbridge.sim.fabric;

import java.util.SplittableRandom;

/**
 * Minimal test/bench load: every node, every cycle, creates a packet with probability {@code rate / flits}
 * (offered load {@code rate} flits/node/cycle) to a uniformly random destination (self included) and queues it
 * in its own unbounded source queue, so offered load is not throttled by the NI queue (latency from creation
 * includes source queueing). Counts delivered packets and their latency.
 */
final class BernoulliUniform implements Endpoint {
    private final double probability;
    private final int flits;
    private final int nodes;
    private final SplittableRandom random;
    private final boolean avoidSelf;
    private long[] backlog = new long[64]; // created cycles waiting for the NI queue
    private int backlogHead;
    private int backlogCount;
    long created;
    long delivered;
    long latencySum;
    long hopsSum;

    BernoulliUniform(double rate, int flits, int nodes, long seed, boolean avoidSelf) {
        this.probability = rate / flits;
        this.flits = flits;
        this.nodes = nodes;
        this.random = new SplittableRandom(seed);
        this.avoidSelf = avoidSelf;
    }

    static BernoulliUniform[] attachAll(Network net, double rate, int flits, long seed) {
        BernoulliUniform[] eps = new BernoulliUniform[net.nodes()];
        SplittableRandom seeds = new SplittableRandom(seed);
        for (int n = 0; n < eps.length; n++) {
            eps[n] = new BernoulliUniform(rate, flits, net.nodes(), seeds.nextLong(), false);
            net.attach(n, eps[n]);
        }
        return eps;
    }

    @Override
    public void attached(NodePort port) {
        port.wakeAt(port.cycle());
    }

    @Override
    public void wake(NodePort port, long cycle) {
        if (random.nextDouble() < probability) {
            if (backlogCount == backlog.length) {
                long[] b = new long[backlog.length * 2];
                for (int i = 0; i < backlogCount; i++) {
                    b[i] = backlog[(backlogHead + i) % backlog.length];
                }
                backlog = b;
                backlogHead = 0;
            }
            backlog[(backlogHead + backlogCount++) % backlog.length] = cycle;
            created++;
        }
        while (backlogCount > 0) {
            int dst = random.nextInt(nodes);
            if (avoidSelf && dst == port.node()) {
                dst = (dst + 1) % nodes;
            }
            if (!port.inject(dst, flits, Network.REQUEST, backlog[backlogHead], created)) {
                break;
            }
            backlogHead = (backlogHead + 1) % backlog.length;
            backlogCount--;
        }
        port.wakeAt(cycle + 1);
    }

    @Override
    public void deliver(NodePort port, PacketRecord packet, long cycle) {
        delivered++;
        latencySum += cycle - packet.createdCycle();
        hopsSum += packet.hops();
    }

    int backlog() {
        return backlogCount;
    }
}
