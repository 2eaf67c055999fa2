package io.nicbridge.bench.jmh;

import static io.nicbridge.contract.Medusa.*;

import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.medusa.MedusaBufferRam;
import io.nicbridge.sim.medusa.MedusaCard;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import java.lang.foreign.MemorySegment;
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
import org.openjdk.jmh.annotations.TearDown;

/**
 * Per-operation costs of the emulated Medusa's host interface (inline engine, card in LOOPBACK so no ring is
 * involved):
 * <ul>
 *   <li>{@code fifoLevelRead}, {@code rxFifoPopEmpty}: one hooked register read;</li>
 *   <li>{@code txPushTxdonePop}: push a 13-byte frame into TX_FIFO (the card copies it, appends the FCS, loops
 *       it back, nobody recognises it) and pop its TXDONE entry - the FIFO doorbell round trip;</li>
 *   <li>{@code loopbackRoundTrip}: the same frame addressed to the card itself with RX on: TX push, receive into
 *       a FREE buffer, pop TXDONE, pop RX, push the buffer back to FREE - four FIFO operations and a frame;</li>
 *   <li>{@code pioWriteInt}: one PIO word write with its checksum accumulation (4 bytes);</li>
 *   <li>{@code pioWriteBulk4KiB}: a 4096-byte PIO copy into buffer RAM with the accumulator (divide by 1024 for
 *       the cost per 4 bytes);</li>
 *   <li>{@code registerWordWrite}: a word write to buffer RAM through the Registers window (hooked).</li>
 * </ul>
 * All must allocate nothing (-prof gc: ~0 B/op).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MedusaCardBench {
    private static final int R = REGS_OFS;
    private static final byte[] SELF = {0x02, 0, 0, 0, 0, 0x01};
    private static final byte[] OTHER = {0x02, 0, 0, 0, 0, 0x09};

    private EmulatedTestbed bed;
    private Registers regs;
    private MedusaBufferRam ram;
    private MemorySegment source;
    private int address;
    private int value;

    @Setup(Level.Trial)
    public void setUp() {
        bed = EmulatedTestbed.create(EngineMode.INLINE, 0);
        MedusaCard card = bed.medusa("bench", bed.fddiRing("fddi0"), SELF);
        regs = card.registers();
        ram = card.bufferRam();
        regs.write(R + REG_CTRL, CTRL_RESET);
        regs.write(R + REG_FREE_FIFO, 100);
        regs.write(R + REG_CTRL, CTRL_TX_EN | CTRL_RX_EN | CTRL_LOOPBACK | CTRL_FRAME_OFS3);
        frame(0, OTHER);
        frame(1, SELF);
        source = MemorySegment.ofArray(new byte[4096]);
    }

    private void frame(int n, byte[] da) {
        int at = n * BUF_SIZE + FRAME_OFS_DEFAULT;
        ram.writeByte(at, FC_LLC_ASYNC_DEFAULT);
        for (int i = 0; i < 6; i++) {
            ram.writeByte(at + 1 + i, da[i]);
            ram.writeByte(at + 7 + i, SELF[i]);
        }
        regs.write(BUF_STATUS_OFS + n * BUF_STATUS_ENTRY_SIZE + BUF_STATUS_LEN_OFS, FDDI_MAC_HEADER_LEN);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        bed.close();
    }

    @Benchmark
    public int fifoLevelRead() {
        return regs.read(R + REG_FIFO_LEVEL);
    }

    @Benchmark
    public int rxFifoPopEmpty() {
        return regs.read(R + REG_RX_FIFO);
    }

    @Benchmark
    public int txPushTxdonePop() {
        regs.writeRelease(R + REG_TX_FIFO, 0);
        return regs.readAcquire(R + REG_TXDONE_FIFO);
    }

    @Benchmark
    public int loopbackRoundTrip() {
        regs.writeRelease(R + REG_TX_FIFO, 1);
        int done = regs.readAcquire(R + REG_TXDONE_FIFO);
        int rx = regs.readAcquire(R + REG_RX_FIFO);
        regs.writeRelease(R + REG_FREE_FIFO, rx & FIFO_BUF_MASK);
        return done ^ rx;
    }

    @Benchmark
    public int pioWriteInt() {
        address = (address + 4) & (BUF_SIZE - 4);
        ram.writeInt(BUF_SIZE * 8 + address, ++value);
        return address;
    }

    @Benchmark
    public int pioWriteBulk4KiB() {
        ram.write(BUF_SIZE * 9, source, 0, 4096);
        return ram.checksum();
    }

    @Benchmark
    public int registerWordWrite() {
        address = (address + 4) & (BUF_SIZE - 4);
        regs.writePlain(BUF_SIZE * 10 + address, ++value);
        return address;
    }
}
