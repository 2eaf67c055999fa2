package io.nicbridge.sim.fabric;

import java.util.SplittableRandom;

/**
 * Minimal test load: each node, each cycle, creates a packet with probability {@code rate / flits} (offered load
 * {@code rate} flits/node/cycle), to a uniformly random destination (self included) or to {@code permutation[src]},
 * queued in an unbounded source backlog so offered load is not throttled by the NI queue. Counts what it sees.
 */
class TestLoad implements Endpoint {
    private final double probability;
    private final int flits;
    private final int nodes;
    private final int[] permutation;
    private final SplittableRandom random;
    private long[] backlog = new long[64];
    private int backlogHead;
    private int backlogCount;
    private boolean stopped;
    /** Class of the packets this node sends. */
    int packetClass = Network.REQUEST;
    long created;
    long delivered;
    long latencySum;
    long networkLatencySum;
    long hopsSum;

    TestLoad(double rate, int flits, int nodes, int[] permutation, long seed) {
        this.probability = Math.min(1.0, rate / flits);
        this.flits = flits;
        this.nodes = nodes;
        this.permutation = permutation;
        this.random = new SplittableRandom(seed);
    }

    /** Creation cycle of the oldest packet not yet accepted by the NI, or -1. */
    long oldestWaitingSince() {
        return backlogCount == 0 ? -1 : backlog[backlogHead];
    }

    static TestLoad[] attachAll(Network net, double rate, int flits, int[] permutation, long seed) {
        TestLoad[] loads = new TestLoad[net.nodes()];
        SplittableRandom seeds = new SplittableRandom(seed);
        for (int n = 0; n < loads.length; n++) {
            loads[n] = new TestLoad(rate, flits, net.nodes(), permutation, seeds.nextLong());
            net.attach(n, loads[n]);
        }
        return loads;
    }

    static void stopAll(TestLoad[] loads) {
        for (TestLoad l : loads) {
            l.stopped = true;
        }
    }

    static long sum(TestLoad[] loads, java.util.function.ToLongFunction<TestLoad> f) {
        long s = 0;
        for (TestLoad l : loads) {
            s += f.applyAsLong(l);
        }
        return s;
    }

    @Override
    public void attached(NodePort port) {
        port.wakeAt(port.cycle());
    }

    @Override
    public void wake(NodePort port, long cycle) {
        if (stopped) {
            return;
        }
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
            int dst = permutation == null ? random.nextInt(nodes) : permutation[port.node()];
            if (!port.inject(dst, flits, packetClass, backlog[backlogHead], created)) {
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
        networkLatencySum += cycle - packet.injectedCycle();
        hopsSum += packet.hops();
    }
}
