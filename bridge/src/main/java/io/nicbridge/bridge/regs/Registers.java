package io.nicbridge.bridge.regs;

import io.nicbridge.bridge.spi.CardFailedException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * A card's register window: the one place every host access with side effects goes through.
 *
 * <pre>
 *  window (byteSize() bytes, byte order per card: 21140 little-endian, SBA-200/Medusa big-endian)
 *  +--------+--------+--------+--------+-- ... --+
 *  | +0x00  | +0x04  | +0x08  | +0x0C  |         |   32-bit registers at 4-byte aligned offsets
 *  +--------+--------+--------+--------+-- ... --+
 *  hooked   bitmap: one bit per 32-bit word; 1 = the backend's RegisterSideEffects sees the access
 * </pre>
 *
 * <p>Host accesses ({@link #read}, {@link #write} and their access-mode variants) check the offset
 * (4-byte aligned, inside the window; a bad offset is host-driver misuse and throws), then test one bit:
 * plain registers cost one memory access, hooked ones dispatch to the backend's hook exactly once.
 * Access modes follow {@link VarHandle}: plain, opaque, acquire (reads), release (writes), volatile.
 * {@link #read(int)} and {@link #write(int, int)} are volatile, the safe default for device registers.
 * For a hooked register the mode's ordering is applied around the hook by fences, since the hook, not
 * this class, performs the store.
 *
 * <p>Device-side accessors ({@code ...Raw}) are for the backend: they read and modify the register
 * contents atomically (volatile semantics) and never dispatch hooks.
 *
 * <p>When the card can do no more work the backend {@linkplain #fail fails} the window: every host access then
 * throws {@link CardFailedException} with the card's error as the cause (a doorbell rung into a dead card would
 * otherwise be accepted and never answered). The check is one volatile read per host access.
 */
public final class Registers {
    private static final VarHandle INT_LE = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN).varHandle();
    private static final VarHandle INT_BE = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN).varHandle();

    private final String name;
    private final MemorySegment window;
    private final ByteOrder order;
    private final boolean bigEndian;
    private final long size;
    private final RegisterSideEffects effects;
    /** Bit (offset/4) set = the offset has a hook. Never changes after construction. */
    private final long[] hooked;
    private volatile CardFailedException failure;

    /**
     * @param window        the register file; must allow 4-byte aligned access (native memory, or a
     *                      heap segment over {@code int[]}/{@code long[]})
     * @param order         the card's register byte order
     * @param effects       the backend's hooks, or {@code null} when no offset has side effects
     * @param hookedOffsets offsets (4-byte aligned, inside the window) whose accesses go to {@code effects}
     */
    public Registers(String name, MemorySegment window, ByteOrder order, RegisterSideEffects effects,
                     int... hookedOffsets) {
        this.name = Objects.requireNonNull(name, "name");
        this.window = Objects.requireNonNull(window, "window");
        this.order = Objects.requireNonNull(order, "order");
        this.bigEndian = order == ByteOrder.BIG_ENDIAN;
        this.size = window.byteSize();
        if (size < 4 || size > Integer.MAX_VALUE || (size & 3) != 0) {
            throw new IllegalArgumentException("register window '" + name + "': size must be a multiple of 4 in [4, "
                + Integer.MAX_VALUE + "], was " + size);
        }
        if (window.maxByteAlignment() < 4 || (window.isNative() && (window.address() & 3) != 0)) {
            throw new IllegalArgumentException("register window '" + name
                + "': the segment must be 4-byte aligned (use native memory or a heap segment over int[]/long[])");
        }
        if (window.isReadOnly()) {
            throw new IllegalArgumentException("register window '" + name + "': the segment is read-only");
        }
        Objects.requireNonNull(hookedOffsets, "hookedOffsets");
        if (hookedOffsets.length > 0 && effects == null) {
            throw new IllegalArgumentException("register window '" + name + "': " + hookedOffsets.length
                + " hooked offsets but no RegisterSideEffects");
        }
        this.effects = effects;
        this.hooked = new long[(int) (((size >>> 2) + 63) >>> 6)];
        for (int offset : hookedOffsets) {
            checkOffset(offset);
            int word = offset >>> 2;
            if ((hooked[word >>> 6] & (1L << word)) != 0) {
                throw new IllegalArgumentException("register window '" + name + "': offset " + hex(offset)
                    + " is hooked twice");
            }
            hooked[word >>> 6] |= 1L << word;
        }
    }

    /** A window whose registers have no side effects (plain memory with register access checks). */
    public static Registers plain(String name, MemorySegment window, ByteOrder order) {
        return new Registers(name, window, order, null);
    }

    public String name() {
        return name;
    }

    public MemorySegment window() {
        return window;
    }

    public ByteOrder order() {
        return order;
    }

    /** @return window size in bytes */
    public long size() {
        return size;
    }

    /** @return true when accesses at {@code offset} dispatch to the backend's hook */
    public boolean isHooked(int offset) {
        checkOffset(offset);
        return hookedWord(offset >>> 2);
    }

    /**
     * The card failed: every later host access throws {@code failure} (a new instance per throw, same cause). The
     * first failure wins. Device-side accessors keep working. Backend side.
     */
    public void fail(CardFailedException failure) {
        Objects.requireNonNull(failure, "failure");
        if (this.failure == null) {
            this.failure = failure;
        }
    }

    /** @return the card's failure, or null while it works */
    public CardFailedException failure() {
        return failure;
    }

    // ------------------------------------------------------------------ host reads

    /** Volatile read. */
    public int read(int offset) {
        return readVolatile(offset);
    }

    public int readPlain(int offset) {
        checkHost(offset);
        int stored = bigEndian ? (int) INT_BE.get(window, (long) offset) : (int) INT_LE.get(window, (long) offset);
        return hookedWord(offset >>> 2) ? effects.onRead(offset, stored) : stored;
    }

    public int readOpaque(int offset) {
        checkHost(offset);
        int stored = bigEndian ? (int) INT_BE.getOpaque(window, (long) offset)
            : (int) INT_LE.getOpaque(window, (long) offset);
        return hookedWord(offset >>> 2) ? effects.onRead(offset, stored) : stored;
    }

    /** Acquire read: later loads and stores of this thread are not reordered before it. */
    public int readAcquire(int offset) {
        checkHost(offset);
        int stored = bigEndian ? (int) INT_BE.getAcquire(window, (long) offset)
            : (int) INT_LE.getAcquire(window, (long) offset);
        if (hookedWord(offset >>> 2)) {
            int seen = effects.onRead(offset, stored);
            VarHandle.acquireFence(); // whatever the hook loaded is ordered before the caller's later accesses
            return seen;
        }
        return stored;
    }

    public int readVolatile(int offset) {
        checkHost(offset);
        int stored = bigEndian ? (int) INT_BE.getVolatile(window, (long) offset)
            : (int) INT_LE.getVolatile(window, (long) offset);
        if (hookedWord(offset >>> 2)) {
            int seen = effects.onRead(offset, stored);
            VarHandle.fullFence();
            return seen;
        }
        return stored;
    }

    // ------------------------------------------------------------------ host writes

    /** Volatile write. */
    public void write(int offset, int value) {
        writeVolatile(offset, value);
    }

    public void writePlain(int offset, int value) {
        checkHost(offset);
        if (hookedWord(offset >>> 2)) {
            effects.onWrite(offset, value);
        } else if (bigEndian) {
            INT_BE.set(window, (long) offset, value);
        } else {
            INT_LE.set(window, (long) offset, value);
        }
    }

    public void writeOpaque(int offset, int value) {
        checkHost(offset);
        if (hookedWord(offset >>> 2)) {
            effects.onWrite(offset, value);
        } else if (bigEndian) {
            INT_BE.setOpaque(window, (long) offset, value);
        } else {
            INT_LE.setOpaque(window, (long) offset, value);
        }
    }

    /**
     * Release write: this thread's earlier stores (descriptors, buffers) are visible before it. This is
     * the mode for doorbells that hand work to the card.
     */
    public void writeRelease(int offset, int value) {
        checkHost(offset);
        if (hookedWord(offset >>> 2)) {
            VarHandle.releaseFence(); // the host's earlier stores precede whatever the hook publishes
            effects.onWrite(offset, value);
        } else if (bigEndian) {
            INT_BE.setRelease(window, (long) offset, value);
        } else {
            INT_LE.setRelease(window, (long) offset, value);
        }
    }

    public void writeVolatile(int offset, int value) {
        checkHost(offset);
        if (hookedWord(offset >>> 2)) {
            VarHandle.fullFence();
            effects.onWrite(offset, value);
            VarHandle.fullFence();
        } else if (bigEndian) {
            INT_BE.setVolatile(window, (long) offset, value);
        } else {
            INT_LE.setVolatile(window, (long) offset, value);
        }
    }

    // ------------------------------------------------------------------ device side (no hooks)

    /** Device-side volatile load of a register's contents; never dispatches a hook. */
    public int loadRaw(int offset) {
        checkOffset(offset);
        return bigEndian ? (int) INT_BE.getVolatile(window, (long) offset)
            : (int) INT_LE.getVolatile(window, (long) offset);
    }

    /** Device-side volatile store; never dispatches a hook. */
    public void storeRaw(int offset, int value) {
        checkOffset(offset);
        if (bigEndian) {
            INT_BE.setVolatile(window, (long) offset, value);
        } else {
            INT_LE.setVolatile(window, (long) offset, value);
        }
    }

    /** Device-side atomic swap (read-to-clear: {@code getAndSetRaw(offset, 0)}). */
    public int getAndSetRaw(int offset, int value) {
        checkOffset(offset);
        return bigEndian ? (int) INT_BE.getAndSet(window, (long) offset, value)
            : (int) INT_LE.getAndSet(window, (long) offset, value);
    }

    /** Device-side atomic AND (write-1-to-clear: {@code getAndBitwiseAndRaw(offset, ~written)}). */
    public int getAndBitwiseAndRaw(int offset, int mask) {
        checkOffset(offset);
        return bigEndian ? (int) INT_BE.getAndBitwiseAnd(window, (long) offset, mask)
            : (int) INT_LE.getAndBitwiseAnd(window, (long) offset, mask);
    }

    /** Device-side atomic OR (the card raising status bits). */
    public int getAndBitwiseOrRaw(int offset, int bits) {
        checkOffset(offset);
        return bigEndian ? (int) INT_BE.getAndBitwiseOr(window, (long) offset, bits)
            : (int) INT_LE.getAndBitwiseOr(window, (long) offset, bits);
    }

    public boolean compareAndSetRaw(int offset, int expected, int value) {
        checkOffset(offset);
        return bigEndian ? INT_BE.compareAndSet(window, (long) offset, expected, value)
            : INT_LE.compareAndSet(window, (long) offset, expected, value);
    }

    // ------------------------------------------------------------------ internals

    private boolean hookedWord(int word) {
        return (hooked[word >>> 6] & (1L << word)) != 0;
    }

    /** A host access: the offset as in {@link #checkOffset}, and the card must not have failed. */
    private void checkHost(int offset) {
        checkOffset(offset);
        CardFailedException f = failure;
        if (f != null) {
            throw f.rethrown();
        }
    }

    private void checkOffset(int offset) {
        if (offset < 0 || offset > size - 4 || (offset & 3) != 0) {
            throw badOffset(offset);
        }
    }

    private IllegalArgumentException badOffset(int offset) {
        if ((offset & 3) != 0 && offset >= 0 && offset <= size - 4) {
            return new IllegalArgumentException("register window '" + name + "': offset " + hex(offset)
                + " is not 4-byte aligned (registers are 32-bit words)");
        }
        return new IllegalArgumentException("register window '" + name + "': offset " + hex(offset)
            + " is outside the window [0x0, " + hex((int) size) + ") for a 4-byte access");
    }

    private static String hex(int value) {
        return value < 0 ? Integer.toString(value) : "0x" + Integer.toHexString(value);
    }

    @Override
    public String toString() {
        return "Registers[" + name + ", " + size + " bytes, " + order + "]";
    }
}
