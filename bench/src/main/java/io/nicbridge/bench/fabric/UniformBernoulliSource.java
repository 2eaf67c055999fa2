package io.nicbridge.bench.fabric;

import io.nicbridge.sim.fabric.Endpoint;
import io.nicbridge.sim.fabric.Network;
import io.nicbridge.sim.fabric.NodePort;
import io.nicbridge.sim.fabric.PacketRecord;
import java.util.SplittableRandom;

/**
 * Minimal load for the speed benchmark: Bernoulli packet creation with probability {@code load / flits} per node
 * per cycle, uniform destinations (self included), drawn as geometric gaps so a node is woken only when it has
 * something to do. Packets the NI queue cannot take wait in a per-node backlog (latency from creation includes
 * that wait). Allocation-free after the backlog has grown to its working size.
 */
final class UniformBernoulliSource implements Endpoint {
    private final double logMiss;
    private final int flits;
    private final int nodes;
    private final SplittableRandom random;
    private long nextCreation;
    private long[] backlog = new long[16];
    private int head;
    private int count;
    long delivered;
    long latencySum;

    UniformBernoulliSource(double load, int flits, int nodes, long seed) {
        double p = load / flits;
        if (!(p > 0 && p <= 1)) {
            throw new IllegalArgumentException("load/flits must be in (0, 1], got " + p);
        }
        this.logMiss = p >= 1 ? Double.NEGATIVE_INFINITY : Math.log1p(-p);
        this.flits = flits;
        this.nodes = nodes;
        this.random = new SplittableRandom(seed);
    }

    static UniformBernoulliSource[] attachAll(Network net, double load, int flits, long seed) {
        SplittableRandom seeds = new SplittableRandom(seed);
        UniformBernoulliSource[] sources = new UniformBernoulliSource[net.nodes()];
        for (int n = 0; n < sources.length; n++) {
            sources[n] = new UniformBernoulliSource(load, flits, net.nodes(), seeds.nextLong());
            net.attach(n, sources[n]);
        }
        return sources;
    }

    private long gap() {
        if (logMiss == Double.NEGATIVE_INFINITY) {
            return 1;
        }
        // cycles until the next success of a Bernoulli(p) trial sequence, >= 1
        return 1 + (long) (Math.log(1.0 - random.nextDouble()) / logMiss);
    }

    @Override
    public void attached(NodePort port) {
        nextCreation = port.cycle() + gap() - 1;
        port.wakeAt(nextCreation);
    }

    @Override
    public void wake(NodePort port, long cycle) {
        while (nextCreation <= cycle) {
            if (count == backlog.length) {
                long[] b = new long[backlog.length * 2];
                for (int i = 0; i < count; i++) {
                    b[i] = backlog[(head + i) & (backlog.length - 1)];
                }
                backlog = b;
                head = 0;
            }
            backlog[(head + count++) & (backlog.length - 1)] = nextCreation;
            nextCreation += gap();
        }
        while (count > 0 && port.inject(random.nextInt(nodes), flits, Network.REQUEST, backlog[head], 0)) {
            head = (head + 1) & (backlog.length - 1);
            count--;
        }
        port.wakeAt(count > 0 ? cycle + 1 : nextCreation);
    }

    @Override
    public void deliver(NodePort port, PacketRecord packet, long cycle) {
        delivered++;
        latencySum += cycle - packet.createdCycle();
    }
}
