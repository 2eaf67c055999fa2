package io.nicbridge.bench.jmh;

import io.nicbridge.bench.fabric.UniformBernoulliSource;
import io.nicbridge.sim.fabric.FabricConfig;
import io.nicbridge.sim.fabric.Network;
import io.nicbridge.sim.fabric.Topologies;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One simulated cycle of a k x k wormhole mesh under uniform Bernoulli load; the {@code flitHops} auxiliary
 * counter is the simulator speed in flit-hops per second. {@code -prof gc} shows the cycle loop's allocation
 * (expected ~0 B/op once the sources' backlogs reached their working size during warm-up).
 * <pre>./nic bench FabricStepBench -prof gc</pre>
 */
@State(Scope.Thread)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class FabricStepBench {
    @Param({"8:0.3", "32:0.1"})
    public String meshAndLoad;

    private Network network;

    /** Flit-hops simulated, reported by JMH as a rate. */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class FlitHops {
        public long flitHops;
    }

    @Setup(Level.Trial)
    public void setUp() {
        String[] p = meshAndLoad.split(":");
        int k = Integer.parseInt(p[0]);
        network = new Network(Topologies.mesh(k, k), FabricConfig.defaults().withVcsPerClass(2).withBufferDepth(8),
            42);
        UniformBernoulliSource.attachAll(network, Double.parseDouble(p[1]), 4, 4242);
        network.run(2_000); // past the empty-network transient
    }

    @Benchmark
    public void cycle(FlitHops counter) {
        long before = network.flitHops();
        network.step();
        counter.flitHops += network.flitHops() - before;
    }
}
