package io.nicbridge.sim.medusa;

import io.nicbridge.bridge.driver.medusa.MedusaPio;
import io.nicbridge.contract.Medusa;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The host's programmed-I/O path into the Medusa's 1 MiB buffer RAM, with the PIO checksum accumulator that
 * every access feeds (medusa.h {@code MEDUSA_REG_PIO_CKSUM}): the card has no DMA, so the host CPU makes the one
 * copy, and the hardware sums the data as it goes by.
 *
 * <pre>
 *  buffer RAM (window offset 0x000000, 1 MiB, big-endian)
 *  +-----------+-----------+-- ... --+-----------+
 *  | buffer 0  | buffer 1  |         | buffer 127|   buffer n at n x 0x2000, 8 KiB each
 *  +-----------+-----------+-- ... --+-----------+
 *
 *  accumulator: ones'-complement sum of big-endian halfwords. A byte at an even address adds (b &lt;&lt; 8),
 *  at an odd address adds b; a halfword adds itself; a word adds its two halves. So a copy gives the same
 *  sum whether it is done by bytes, halfwords, words or {@link #write(int, MemorySegment, long, int) in bulk},
 *  and the sum of a region that starts at an even address is its Internet checksum sum.
 * </pre>
 *
 * <p>Every method here - byte, halfword, word and bulk, reads and writes - updates the accumulator, as do host
 * word accesses to buffer RAM through the card's {@link io.nicbridge.bridge.regs.Registers}. Raw access to
 * {@link #segment()} (or to the register window's segment) BYPASSES the accumulator: it is there for the card
 * model, for tests and for tools, not for a driver that wants the checksum.
 *
 * <p>Addresses are byte offsets in buffer RAM ({@code [0, 0x100000)}); a halfword access needs an even address,
 * a word access one divisible by 4 (the bus has no unaligned cycles); anything else is host-driver misuse and
 * throws {@link IllegalArgumentException} without touching memory. Like the hardware, there is one accumulator:
 * it is meant for one host thread at a time (plain field, no atomics on the hot path); concurrent copies mix
 * their sums. Allocation-free.
 */
public final class MedusaBufferRam implements MedusaPio {
    /** Bytes of buffer RAM. */
    public static final int SIZE = Medusa.BUF_RAM_SIZE;

    private static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final MemorySegment ram;
    /** Unfolded sum of 16-bit lanes; folded (end-around carry) when read. Cannot overflow in 2^46 words. */
    private long sum;

    MedusaBufferRam(MemorySegment window) {
        this.ram = window.asSlice(Medusa.BUF_RAM_OFS, SIZE);
    }

    /** @return the window offset of buffer {@code n} (0..127) */
    public static int bufferOffset(int n) {
        if (n < 0 || n >= Medusa.BUF_COUNT) {
            throw new IllegalArgumentException("buffer number " + n + " is out of range [0, " + Medusa.BUF_COUNT + ")");
        }
        return n * Medusa.BUF_SIZE;
    }

    /** The raw buffer RAM: access through it bypasses the PIO checksum accumulator. */
    public MemorySegment segment() {
        return ram;
    }

    // ------------------------------------------------------------------ single accesses

    public int readByte(int address) {
        check(address, 1);
        int b = ram.get(ValueLayout.JAVA_BYTE, address) & 0xFF;
        sum += (address & 1) == 0 ? b << 8 : b;
        return b;
    }

    public void writeByte(int address, int value) {
        check(address, 1);
        int b = value & 0xFF;
        ram.set(ValueLayout.JAVA_BYTE, address, (byte) b);
        sum += (address & 1) == 0 ? b << 8 : b;
    }

    /** @return the big-endian halfword at an even address, 0..65535 */
    public int readShort(int address) {
        check(address, 2);
        int h = ram.get(SHORT_BE, address) & 0xFFFF;
        sum += h;
        return h;
    }

    public void writeShort(int address, int value) {
        check(address, 2);
        ram.set(SHORT_BE, address, (short) value);
        sum += value & 0xFFFF;
    }

    /** @return the big-endian word at an address divisible by 4 */
    public int readInt(int address) {
        check(address, 4);
        int w = ram.get(INT_BE, address);
        sum += (w >>> 16) + (w & 0xFFFF);
        return w;
    }

    public void writeInt(int address, int value) {
        check(address, 4);
        ram.set(INT_BE, address, value);
        sum += (value >>> 16) + (value & 0xFFFF);
    }

    // ------------------------------------------------------------------ bulk copies (the single copy)

    /**
     * PIO copy into buffer RAM: {@code length} bytes from {@code src} at {@code srcOffset} to {@code address},
     * summed into the accumulator as if written byte by byte (any alignment).
     */
    public void write(int address, MemorySegment src, long srcOffset, int length) {
        checkRange(address, length);
        MemorySegment.copy(src, srcOffset, ram, address, length);
        sum += laneSum(ram, address, length);
    }

    /** PIO copy out of buffer RAM into {@code dst}, summed into the accumulator as if read byte by byte. */
    public void read(int address, MemorySegment dst, long dstOffset, int length) {
        checkRange(address, length);
        MemorySegment.copy(ram, address, dst, dstOffset, length);
        sum += laneSum(ram, address, length);
    }

    // ------------------------------------------------------------------ the accumulator

    /** @return the folded 16-bit ones'-complement sum (what a host read of PIO_CKSUM returns) */
    public int checksum() {
        return fold(sum);
    }

    /** Sets the accumulator (a host write of PIO_CKSUM; 0 clears it). */
    public void checksum(int value) {
        sum = value & 0xFFFF;
    }

    /** Adds a word the register window carried to buffer RAM (host word access through Registers). */
    void accumulateWord(int word) {
        sum += (word >>> 16) + (word & 0xFFFF);
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Sum of the 16-bit lanes of {@code length} bytes at {@code offset}, lanes by address parity (even address =
     * high byte), unfolded. Also the receive checksum unit's sum when {@code offset} is even.
     */
    static long laneSum(MemorySegment seg, long offset, int length) {
        long s = 0;
        long i = offset;
        long end = offset + length;
        if ((i & 1) != 0 && i < end) {
            s += seg.get(ValueLayout.JAVA_BYTE, i) & 0xFF;
            i++;
        }
        for (; i + 8 <= end; i += 8) {
            long v = seg.get(LONG_BE, i);
            s += (v >>> 48) + ((v >>> 32) & 0xFFFF) + ((v >>> 16) & 0xFFFF) + (v & 0xFFFF);
        }
        for (; i + 2 <= end; i += 2) {
            s += seg.get(SHORT_BE, i) & 0xFFFF;
        }
        if (i < end) {
            s += (seg.get(ValueLayout.JAVA_BYTE, i) & 0xFF) << 8;
        }
        return s;
    }

    /** Sum of {@code length} bytes at {@code offset} as big-endian halfwords paired from {@code offset} on. */
    static long pairSum(MemorySegment seg, long offset, int length) {
        if ((offset & 1) == 0) {
            return laneSum(seg, offset, length);
        }
        long s = 0;
        long i = offset;
        long end = offset + length;
        for (; i + 2 <= end; i += 2) {
            s += ((seg.get(ValueLayout.JAVA_BYTE, i) & 0xFF) << 8) | (seg.get(ValueLayout.JAVA_BYTE, i + 1) & 0xFF);
        }
        if (i < end) {
            s += (seg.get(ValueLayout.JAVA_BYTE, i) & 0xFF) << 8;
        }
        return s;
    }

    static int fold(long s) {
        while ((s >>> 16) != 0) {
            s = (s & 0xFFFF) + (s >>> 16);
        }
        return (int) s;
    }

    private static void check(int address, int size) {
        if (address < 0 || address > SIZE - size || (address & (size - 1)) != 0) {
            throw misuse(address, size);
        }
    }

    private static void checkRange(int address, int length) {
        if (length < 0 || address < 0 || address > SIZE - length) {
            throw new IllegalArgumentException("PIO copy of " + length + " bytes at 0x" + Integer.toHexString(address)
                + " does not fit in buffer RAM [0, 0x" + Integer.toHexString(SIZE) + ")");
        }
    }

    private static IllegalArgumentException misuse(int address, int size) {
        if (address >= 0 && address <= SIZE - size) {
            return new IllegalArgumentException("PIO " + size + "-byte access at 0x" + Integer.toHexString(address)
                + " is not aligned to " + size + " bytes");
        }
        return new IllegalArgumentException("PIO " + size + "-byte access at " + address
            + " is outside buffer RAM [0, 0x" + Integer.toHexString(SIZE) + ")");
    }

    @Override
    public String toString() {
        return "MedusaBufferRam[1 MiB, PIO checksum 0x" + Integer.toHexString(checksum()) + "]";
    }

    // ------------------------------------------------------------------ the driver's PIO path (MedusaPio)

    /** The driver's single copy into buffer RAM: {@link #write}, summed into PIO_CKSUM. */
    @Override
    public void copyToCard(MemorySegment src, long srcOffset, int windowOffset, int length) {
        write(windowOffset, src, srcOffset, length);
    }

    /** The driver's copy out of buffer RAM: {@link #read}, summed into PIO_CKSUM. */
    @Override
    public void copyFromCard(int windowOffset, MemorySegment dst, long dstOffset, int length) {
        read(windowOffset, dst, dstOffset, length);
    }

    @Override
    public void putByte(int windowOffset, byte value) {
        writeByte(windowOffset, value & 0xFF);
    }
}
