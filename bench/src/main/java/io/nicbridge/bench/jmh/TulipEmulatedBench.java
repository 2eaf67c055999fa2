package io.nicbridge.bench.jmh;

import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipConfig.InterruptMode;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.testbed.TulipTestbed;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Two Tulip drivers on two emulated 21140s on one segment, all inline on the benchmark thread (polling drivers):
 * <ul>
 *   <li>{@code sendReceive}: one frame from driver A to driver B - claim, write the header in place, commit (CSR1
 *   doorbell: the card fetches the descriptor, DMAs the frame, computes the FCS, puts it on the wire; B's card
 *   filters it, DMAs it into B's ring), B polls it, reads it in place and releases it;</li>
 *   <li>{@code roundTrip}: A to B and back, the in-process RTT to compare with {@link TcpLoopbackBench};</li>
 *   <li>{@code ringWalkPerDescriptor}: a burst of 16 frames queued on A's TX ring before B takes any, so both cards
 *   walk 16 consecutive descriptors; the time is per descriptor (per frame).</li>
 * </ul>
 * Everything is set up once per trial; a frame allocates nothing (check with {@code -prof gc}).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TulipEmulatedBench {
    private static final int BURST = 16;

    @Param({"64", "1514"})
    public int length;

    private TulipTestbed bed;
    private TulipDriver a;
    private TulipDriver b;
    private long macA;
    private long macB;
    private int seq;

    @Setup(Level.Trial)
    public void setUp() {
        bed = TulipTestbed.builder().mode(EngineMode.INLINE)
            .config(TulipConfig.builder().interruptMode(InterruptMode.POLLING).build()).build();
        bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
        a = bed.driver(0);
        b = bed.driver(1);
        macA = a.stationAddress().value();
        macB = b.stationAddress().value();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        bed.close();
    }

    @Benchmark
    public int sendReceive() {
        send(a, macB, macA);
        return take(b);
    }

    @Benchmark
    public int roundTrip() {
        send(a, macB, macA);
        int x = take(b);
        send(b, macA, macB);
        return x + take(a);
    }

    @Benchmark
    @OperationsPerInvocation(BURST)
    public int ringWalkPerDescriptor() {
        for (int i = 0; i < BURST; i++) {
            send(a, macB, macA);
        }
        int x = 0;
        for (int i = 0; i < BURST; i++) {
            x += take(b);
        }
        return x;
    }

    private void send(TulipDriver port, long dst, long src) {
        int h = port.claim();
        if (h == FramePort.NONE) {
            throw new IllegalStateException("back-pressure in an inline benchmark: " + port.counters());
        }
        MemorySegment buf = port.txBuffer(h);
        TulipHeader.write(buf, dst, src, ++seq);
        port.commit(h, length);
    }

    private static int take(TulipDriver port) {
        int h = port.poll();
        if (h == FramePort.NONE) {
            throw new IllegalStateException("inline delivery missed a frame: " + port.counters());
        }
        int v = port.rxBuffer(h).get(ValueLayout.JAVA_INT_UNALIGNED, 14) + port.rxLength(h);
        port.release(h);
        return v;
    }

    /** Destination, source, sequence number: the bytes a sender writes per frame. */
    static final class TulipHeader {
        private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

        private TulipHeader() {
        }

        static void write(MemorySegment buf, long dst, long src, int seq) {
            io.nicbridge.bridge.driver.tulip.MacAddress.write(dst, buf, 0);
            io.nicbridge.bridge.driver.tulip.MacAddress.write(src, buf, 6);
            buf.set(ValueLayout.JAVA_INT_UNALIGNED, 14, seq);
        }
    }
}
