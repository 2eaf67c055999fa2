package io.nicbridge.bench.fabric;

import io.nicbridge.sim.fabric.Allocator;
import io.nicbridge.sim.fabric.FabricConfig;
import io.nicbridge.sim.fabric.Network;
import io.nicbridge.sim.fabric.Topologies;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;

/**
 * Speed of the flit-level fabric core in flit-hops per second of wall time (a flit-hop = one flit through one
 * router switch), on k x k meshes with uniform Bernoulli traffic, one simulation thread.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar io.nicbridge.bench.fabric.FabricSpeedBench [k load flits cycles] ...
 * default: 8 0.3 4 200000   32 0.1 4 20000
 * -Dfabric.allocator=rotating_priority   the old allocator (default separable_input_first)
 * </pre>
 * Each case runs a warm-up of the same length first (JIT), then the measured run on a fresh network. The rate
 * is given per second of the simulation thread's CPU time (the machine is shared, so wall time also counts
 * other processes' time slices) and per second of wall time, with the load average at the start.
 */
public final class FabricSpeedBench {
    /** BookSim-like router: 2 VCs per class (4 per port), 8-flit buffers, 1-cycle links and router delay. */
    static final FabricConfig CONFIG = FabricConfig.defaults().withVcsPerClass(2).withBufferDepth(8)
        .withAllocator(Allocator.parse(System.getProperty("fabric.allocator",
            Allocator.SEPARABLE_INPUT_FIRST.configName())));

    private FabricSpeedBench() {
    }

    public static void main(String[] args) {
        String[] spec = args.length == 0 ? new String[] {"8", "0.3", "4", "200000", "32", "0.1", "4", "20000"} : args;
        if (spec.length % 4 != 0) {
            throw new IllegalArgumentException("arguments come in groups of four: k load flits cycles");
        }
        System.out.println("fabric speed: wormhole, buffered, " + CONFIG + "; "
            + "uniform Bernoulli; single thread; JDK " + Runtime.version());
        for (int i = 0; i < spec.length; i += 4) {
            int k = Integer.parseInt(spec[i]);
            double load = Double.parseDouble(spec[i + 1]);
            int flits = Integer.parseInt(spec[i + 2]);
            long cycles = Long.parseLong(spec[i + 3]);
            run(k, load, flits, cycles, true);
            run(k, load, flits, cycles, false);
        }
    }

    private static void run(int k, double load, int flits, long cycles, boolean warmup) {
        Network net = new Network(Topologies.mesh(k, k), CONFIG, 42);
        UniformBernoulliSource[] sources = UniformBernoulliSource.attachAll(net, load, flits, 4242);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long c0 = threads.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        net.run(cycles);
        long ns = System.nanoTime() - t0;
        long cpuNs = threads.getCurrentThreadCpuTime() - c0;
        if (warmup) {
            return;
        }
        long delivered = 0;
        long latency = 0;
        for (UniformBernoulliSource s : sources) {
            delivered += s.delivered;
            latency += s.latencySum;
        }
        double seconds = ns / 1e9;
        double cpu = cpuNs / 1e9;
        System.out.printf(Locale.ROOT,
            "%dx%d mesh load %.2f flits/node/cycle, %d-flit packets, %d cycles, %d flit-hops: cpu %.2f s -> %.2f M "
                + "flit-hops/s (%.0f cycles/s); wall %.2f s -> %.2f M flit-hops/s; accepted %.3f flits/node/cycle,"
                + " mean latency %.1f cycles; load average %.1f%n",
            k, k, load, flits, cycles, net.flitHops(), cpu, net.flitHops() / cpu / 1e6, cycles / cpu, seconds,
            net.flitHops() / seconds / 1e6,
            (double) net.flitsEjected() / cycles / net.nodes(), delivered == 0 ? 0.0 : (double) latency / delivered,
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
}
