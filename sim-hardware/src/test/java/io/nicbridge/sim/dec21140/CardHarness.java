package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;

import io.nicbridge.bridge.memory.DmaView;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.sim.testing.ManualVirtualTime;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.function.UnaryOperator;
import java.util.zip.CRC32;

/**
 * One emulated 21140 with 256 KiB of registered host memory, an inline work signal and a recording wire port.
 * Offsets below are into {@link #mem}; {@link #bus(long)} turns them into bus addresses for descriptors and CSRs.
 */
final class CardHarness implements AutoCloseable {
    static final ValueLayout.OfInt LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final byte[] MAC = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
    static final byte[] PEER = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
    static final byte[] BROADCAST = {-1, -1, -1, -1, -1, -1};
    static final long MEM_BYTES = 256 * 1024;
    static final long TX_RING = 0x0000;
    static final long RX_RING = 0x1000;
    static final long TX_BUF = 0x4000;
    static final long RX_BUF = 0x20000;

    final Arena arena = Arena.ofShared();
    final MemorySegment mem = arena.allocate(MEM_BYTES, 4096);
    final ManualVirtualTime time;
    final RecordingPort wire;
    final Dec21140Model card;
    final Registers csr;
    final long busBase;

    CardHarness() {
        this(false, Dec21140Timing.ZERO);
    }

    CardHarness(boolean virtual, Dec21140Timing timing) {
        this(virtual, timing, UnaryOperator.identity());
    }

    /**
     * A card whose DMA master port is {@code busTap} applied to its DMA space (e.g. a
     * {@link io.nicbridge.sim.testing.RecordingDmaView}).
     */
    CardHarness(boolean virtual, Dec21140Timing timing, UnaryOperator<DmaView> busTap) {
        time = new ManualVirtualTime(virtual);
        wire = new RecordingPort();
        card = new Dec21140Model("dec21140#test", MAC, time, timing, busTap);
        card.connect(card::service, wire);
        busBase = card.dma().register("host", mem);
        csr = card.registers();
    }

    /** Host memory and helpers for a card that lives elsewhere (a testbed): no manual time, no recording port. */
    CardHarness(Dec21140Model model) {
        time = null;
        wire = null;
        card = model;
        busBase = card.dma().register("host", mem);
        csr = card.registers();
    }

    long bus(long offset) {
        return busBase + offset;
    }

    int bus32(long offset) {
        return (int) bus(offset);
    }

    void desc(long off, int w0, int w1, long w2, long w3) {
        mem.set(LE, off + 4, w1);
        mem.set(LE, off + 8, (int) w2);
        mem.set(LE, off + 12, (int) w3);
        mem.set(LE, off, w0);
    }

    int word(long off) {
        return mem.get(LE, off);
    }

    void put(long off, byte[] data) {
        MemorySegment.copy(data, 0, mem, ValueLayout.JAVA_BYTE, off, data.length);
    }

    byte[] get(long off, int n) {
        byte[] b = new byte[n];
        MemorySegment.copy(mem, ValueLayout.JAVA_BYTE, off, b, 0, n);
        return b;
    }

    int read(int offset) {
        return csr.read(offset);
    }

    void write(int offset, int value) {
        csr.write(offset, value);
    }

    int ts() {
        return (csr.read(CSR5) & CSR5_TS_MASK) >>> CSR5_TS_SHIFT;
    }

    int rs() {
        return (csr.read(CSR5) & CSR5_RS_MASK) >>> CSR5_RS_SHIFT;
    }

    /** Points CSR3/CSR4 at the rings and starts both processes with the given extra CSR6 bits. */
    void start(int csr6Extra) {
        write(CSR3, bus32(RX_RING));
        write(CSR4, bus32(TX_RING));
        write(CSR6, CSR6_MBO | CSR6_PS | CSR6_SF | CSR6_SR | CSR6_ST | csr6Extra);
    }

    void arrive(byte[] frame) {
        card.frameArrived(MemorySegment.ofArray(frame), 0, frame.length);
    }

    /** A frame without FCS: dst, src, type, then {@code payload} bytes counting 0, 1, 2, ... */
    static byte[] frame(byte[] dst, byte[] src, int type, int payload) {
        byte[] f = new byte[ETH_HEADER_LEN + payload];
        System.arraycopy(dst, 0, f, 0, 6);
        System.arraycopy(src, 0, f, 6, 6);
        f[12] = (byte) (type >>> 8);
        f[13] = (byte) type;
        for (int i = 0; i < payload; i++) {
            f[ETH_HEADER_LEN + i] = (byte) (i * 7 + 3);
        }
        return f;
    }

    /** Appends the FCS, least significant byte first. */
    static byte[] withFcs(byte[] f) {
        CRC32 c = new CRC32();
        c.update(f);
        long v = c.getValue();
        byte[] out = java.util.Arrays.copyOf(f, f.length + 4);
        for (int i = 0; i < 4; i++) {
            out[f.length + i] = (byte) (v >>> (8 * i));
        }
        return out;
    }

    /** A perfect-filter setup frame with the given addresses (slots repeat the last one). */
    static byte[] perfectSetup(byte[]... addresses) {
        byte[] s = new byte[SETUP_FRAME_SIZE];
        for (int n = 0; n < SETUP_PERFECT_ENTRIES; n++) {
            byte[] a = addresses[Math.min(n, addresses.length - 1)];
            int e = n * SETUP_PERFECT_ENTRY_SIZE;
            s[e] = a[0];
            s[e + 1] = a[1];
            s[e + 4] = a[2];
            s[e + 5] = a[3];
            s[e + 8] = a[4];
            s[e + 9] = a[5];
        }
        return s;
    }

    /** A hash setup frame: the given multicast addresses hashed, {@code physical} at byte 156. */
    static byte[] hashSetup(byte[] physical, byte[]... hashed) {
        byte[] s = new byte[SETUP_FRAME_SIZE];
        for (byte[] a : hashed) {
            int i = Dec21140AddressFilter.hashIndexOf(a);
            int lw = i >>> 4;
            int bit = i & 15;
            int at = 4 * lw + (bit >>> 3);
            s[at] |= (byte) (1 << (bit & 7));
        }
        int p = SETUP_HASH_PHYS_OFS;
        s[p] = physical[0];
        s[p + 1] = physical[1];
        s[p + 4] = physical[2];
        s[p + 5] = physical[3];
        s[p + 8] = physical[4];
        s[p + 9] = physical[5];
        return s;
    }

    @Override
    public void close() {
        card.close();
        arena.close();
    }
}
