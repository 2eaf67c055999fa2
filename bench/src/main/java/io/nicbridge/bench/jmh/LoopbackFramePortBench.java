package io.nicbridge.bench.jmh;

import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.LoopbackFramePort;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One frame through the {@link FramePort} contract on one thread: claim, fill the first bytes, commit,
 * poll on the other end, read, release. Measures the port machinery (ring, pool, counters, interrupt
 * line), not a card; must allocate nothing.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LoopbackFramePortBench {
    @Param({"64", "1514"})
    public int length;

    private CommSegment comm;
    private LoopbackFramePort.Pair pair;
    private int seq;

    @Setup(Level.Trial)
    public void setUp() {
        comm = CommSegment.allocate("bench loopback", LoopbackFramePort.requiredBytes(16, 1514));
        pair = LoopbackFramePort.pair("bench", comm, 16, 1514);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pair.close();
        comm.close();
    }

    @Benchmark
    public int sendAndReceiveOneFrame() {
        FramePort a = pair.a();
        FramePort b = pair.b();
        int h = a.claim();
        MemorySegment tx = a.txBuffer(h);
        tx.set(ValueLayout.JAVA_INT, 0, ++seq);
        a.commit(h, length);
        int r = b.poll();
        int value = b.rxBuffer(r).get(ValueLayout.JAVA_INT, 0) + b.rxLength(r);
        b.release(r);
        return value;
    }
}
