package io.nicbridge.bench.jmh;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What a charge to a node's {@link HostCpu} costs the simulator itself: one per-call item and one per-byte item, on a
 * virtual-time CPU priced by the measured table. Must allocate nothing ({@code -prof gc} ~0 B/op).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HostCpuChargeBench {
    private HostCpu cpu;

    @Setup(Level.Trial)
    public void setUp() {
        cpu = HostCpu.on(new VirtualTimeBase(1), CostTable.measured(), "bench");
    }

    @Benchmark
    public long chargeCall() {
        cpu.charge(CostItem.HANDLER_DISPATCH);
        return cpu.busyUntil();
    }

    @Benchmark
    public long chargeBytes() {
        cpu.charge(CostItem.COPY, 1500);
        return cpu.busyUntil();
    }
}
