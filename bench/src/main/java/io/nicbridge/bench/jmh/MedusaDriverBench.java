package io.nicbridge.bench.jmh;

import io.nicbridge.bench.medusa.MedusaRingWorld;
import io.nicbridge.bridge.driver.medusa.MedusaDriver;
import io.nicbridge.bridge.driver.medusa.MedusaPio;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.contract.Medusa;
import io.nicbridge.sim.engine.EngineMode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Per-operation costs of the Medusa driver on two emulated cards on an inline (real-time) FDDI ring, one thread:
 * <ul>
 *   <li>{@code pioCopyIn}/{@code pioCopyOut}: the single copy alone - PIO of {@code size} bytes into / out of
 *       buffer RAM through the card's checksum path, then the PIO_CKSUM read;</li>
 *   <li>{@code sendReceiveInPlace}: {@link MedusaDriver#send} (PIO copy + checksum + LEN + TX_FIFO; the inline
 *       ring delivers at once), then on the other card poll (RX_FIFO pop + status), read in place, release
 *       (FREE_FIFO push), and reclaim (TXDONE pop);</li>
 *   <li>{@code sendReceiveCopyOut}: the same, with the payload copied out to host memory by PIO;</li>
 *   <li>{@code forwardInPlace}: a received buffer sent on without a copy, received, released, reclaimed;</li>
 *   <li>{@code pollEmptyRxFifo}, {@code reclaimEmptyTxDone}, {@code readFifoLevel}: the FIFO register operations
 *       the driver does when there is nothing to do.</li>
 * </ul>
 * All must allocate nothing ({@code -prof gc}).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MedusaDriverBench {
    @Param({"64", "1500", "4000"})
    public int size;

    private MedusaRingWorld world;
    private MedusaDriver a;
    private MedusaDriver b;
    private MedusaPio pioA;
    private Registers regsA;
    private MemorySegment header;
    private MemorySegment payload;
    private MemorySegment host;
    private long macB;
    private long macA;
    private int bufferOffset;

    @Setup(Level.Trial)
    public void setUp() {
        world = new MedusaRingWorld(2, EngineMode.INLINE, 1, 64, false);
        a = world.drivers().get(0);
        b = world.drivers().get(1);
        macA = a.stationAddress();
        macB = b.stationAddress();
        pioA = world.cards().get(0);
        regsA = world.cards().get(0).registers();
        header = MemorySegment.ofArray(new byte[35]);
        payload = MemorySegment.ofArray(new byte[size]);
        host = MemorySegment.ofArray(new byte[size]);
        for (int i = 0; i < size; i++) {
            payload.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        // A transmit buffer of A's that the driver never claims while pioCopy* runs: the last one.
        bufferOffset = (Medusa.BUF_COUNT - 1) * Medusa.BUF_SIZE + Medusa.FRAME_OFS_DEFAULT + 48;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        world.close();
    }

    @Benchmark
    public int pioCopyIn() {
        regsA.write(Medusa.REGS_OFS + Medusa.REG_PIO_CKSUM, 0);
        pioA.copyToCard(payload, 0, bufferOffset, size);
        return regsA.read(Medusa.REGS_OFS + Medusa.REG_PIO_CKSUM);
    }

    @Benchmark
    public int pioCopyOut() {
        regsA.write(Medusa.REGS_OFS + Medusa.REG_PIO_CKSUM, 0);
        pioA.copyFromCard(bufferOffset, host, 0, size);
        return regsA.read(Medusa.REGS_OFS + Medusa.REG_PIO_CKSUM);
    }

    @Benchmark
    public int sendReceiveInPlace() {
        int sum = a.send(macB, Medusa.FC_LLC_ASYNC_DEFAULT, header, 0, 35, payload, 0, size);
        int h = b.poll();
        int v = b.rxBuffer(h).get(ValueLayout.JAVA_BYTE, 48 + size - 1) + b.rxLength(h);
        b.release(h);
        a.reclaim();
        return sum + v;
    }

    @Benchmark
    public int sendReceiveCopyOut() {
        int sum = a.send(macB, Medusa.FC_LLC_ASYNC_DEFAULT, header, 0, 35, payload, 0, size);
        int h = b.poll();
        int v = b.copyOut(h, 48, host, 0, size);
        b.release(h);
        a.reclaim();
        return sum + v;
    }

    @Benchmark
    public int forwardInPlace() {
        a.send(macB, Medusa.FC_LLC_ASYNC_DEFAULT, header, 0, 35, payload, 0, size);
        int h = b.poll();
        b.forward(h, macA); // B passes A's frame back without a copy
        int r = a.poll();
        int v = a.rxLength(r);
        a.release(r);
        a.reclaim();
        b.reclaim();
        return v;
    }

    @Benchmark
    public int pollEmptyRxFifo() {
        return b.poll();
    }

    @Benchmark
    public int reclaimEmptyTxDone() {
        return a.reclaim();
    }

    @Benchmark
    public int readFifoLevel() {
        return regsA.read(Medusa.REGS_OFS + Medusa.REG_FIFO_LEVEL);
    }
}
