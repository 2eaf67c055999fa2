package io.nicbridge.bench.jmh;

import io.nicbridge.bench.medusa.MedusaRingWorld;
import io.nicbridge.bridge.driver.medusa.MedusaDriver;
import io.nicbridge.contract.Medusa;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The Medusa driver's own send and receive paths without the card's and ring's work in the timed region: the
 * cards run in virtual time, so a TX_FIFO push only makes the card ask for the token, and frames move only when the
 * (untimed) per-invocation setup runs simulated time. Each invocation does {@value #BATCH} operations.
 * <ul>
 *   <li>{@code send}: {@link MedusaDriver#send} - claim, PIO_CKSUM clear, PIO copy of the payload, PIO_CKSUM read,
 *       header PIO, LEN, TX_FIFO doorbell;</li>
 *   <li>{@code receiveInPlace}: poll (RX_FIFO pop, LEN, STAT), read the last payload byte in place, release
 *       (FREE_FIFO push);</li>
 *   <li>{@code receiveCopyOut}: poll, PIO copy of the payload to host memory with its checksum, release.</li>
 * </ul>
 */
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MedusaDriverPathBench {
    static final int BATCH = 48;

    /** Two cards on a virtual-time ring, their drivers and the buffers. */
    @State(Scope.Thread)
    public static class World {
        @Param({"64", "1500", "4000"})
        public int size;

        MedusaRingWorld world;
        VirtualTimeBase time;
        MedusaDriver a;
        MedusaDriver b;
        MemorySegment header;
        MemorySegment payload;
        MemorySegment host;
        long macB;

        @Setup(Level.Trial)
        public void setUp() {
            world = new MedusaRingWorld(2, EngineMode.VIRTUAL, 1, 64, false);
            time = world.virtualTime();
            a = world.drivers().get(0);
            b = world.drivers().get(1);
            macB = b.stationAddress();
            header = MemorySegment.ofArray(new byte[35]);
            payload = MemorySegment.ofArray(new byte[size]);
            host = MemorySegment.ofArray(new byte[size]);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            world.close();
        }

        /** Untimed: deliver what was sent, drain B, reclaim A's transmit buffers. */
        void settle() {
            time.runUntilIdle();
            for (int h = b.poll(); h != MedusaDriver.NONE; h = b.poll()) {
                b.release(h);
            }
            a.reclaim();
        }

        int send() {
            return a.send(macB, Medusa.FC_LLC_ASYNC_DEFAULT, header, 0, 35, payload, 0, size);
        }
    }

    /*
     * The benchmark methods reach the World only through these per-invocation states: a World injected both into a
     * benchmark method and into another state's setup would be two instances in JMH's generated code.
     */

    /** Per invocation: A has a full transmit pool and the ring is idle. */
    @State(Scope.Thread)
    public static class Idle {
        World w;

        @Setup(Level.Invocation)
        public void settle(World world) {
            w = world;
            world.settle();
        }
    }

    /** Per invocation: {@value #BATCH} frames wait in B's RX FIFO. */
    @State(Scope.Thread)
    public static class Loaded {
        World w;

        @Setup(Level.Invocation)
        public void load(World world) {
            this.w = world;
            World w = world;
            w.settle();
            for (int i = 0; i < BATCH; i++) {
                if (w.send() < 0) {
                    throw new IllegalStateException("no transmit buffer while loading the receive batch");
                }
            }
            w.time.runUntilIdle();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int send(Idle idle) {
        World w = idle.w;
        int sum = 0;
        for (int i = 0; i < BATCH; i++) {
            sum += w.send();
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int receiveInPlace(Loaded loaded) {
        World w = loaded.w;
        MedusaDriver b = w.b;
        int v = 0;
        for (int i = 0; i < BATCH; i++) {
            int h = b.poll();
            v += b.rxBuffer(h).get(ValueLayout.JAVA_BYTE, 48 + w.size - 1) + b.rxLength(h);
            b.release(h);
        }
        return v;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int receiveCopyOut(Loaded loaded) {
        World w = loaded.w;
        MedusaDriver b = w.b;
        int v = 0;
        for (int i = 0; i < BATCH; i++) {
            int h = b.poll();
            v += b.copyOut(h, 48, w.host, 0, w.size);
            b.release(h);
        }
        return v;
    }
}
