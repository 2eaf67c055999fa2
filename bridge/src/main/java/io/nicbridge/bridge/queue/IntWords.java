package io.nicbridge.bridge.queue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * 32-bit word access in a fixed byte order, with the four access modes the queues need.
 *
 * <p>The two {@link VarHandle}s are {@code static final}, so the JIT folds them to plain loads and stores
 * (with the fences each access mode asks for); the byte order is a {@code final boolean} of the owning view,
 * so the branch between them is perfectly predicted. The aligned {@code JAVA_INT} layouts make a misaligned
 * access throw instead of tearing, which is why every view checks 4-byte alignment once, at construction.
 */
final class IntWords {
    private static final VarHandle BIG =
            ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN).varHandle();
    private static final VarHandle LITTLE =
            ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN).varHandle();

    private IntWords() {
    }

    static int get(MemorySegment s, long offset, boolean bigEndian) {
        return bigEndian ? (int) BIG.get(s, offset) : (int) LITTLE.get(s, offset);
    }

    static void set(MemorySegment s, long offset, boolean bigEndian, int value) {
        if (bigEndian) {
            BIG.set(s, offset, value);
        } else {
            LITTLE.set(s, offset, value);
        }
    }

    /** Reader's side of an ownership handoff: later reads of the entry cannot move above this load. */
    static int getAcquire(MemorySegment s, long offset, boolean bigEndian) {
        return bigEndian ? (int) BIG.getAcquire(s, offset) : (int) LITTLE.getAcquire(s, offset);
    }

    /** Writer's side of an ownership handoff: earlier writes of the entry cannot move below this store. */
    static void setRelease(MemorySegment s, long offset, boolean bigEndian, int value) {
        if (bigEndian) {
            BIG.setRelease(s, offset, value);
        } else {
            LITTLE.setRelease(s, offset, value);
        }
    }

    static boolean isBigEndian(ByteOrder order) {
        return Objects.requireNonNull(order, "byte order") == ByteOrder.BIG_ENDIAN;
    }

    /**
     * Checks once, at setup, that {@code [offset, offset + length)} lies inside {@code segment} and that
     * {@code offset} is 4-byte aligned in memory, so every later word access is in bounds and atomic.
     */
    static void checkRegion(MemorySegment segment, long offset, long length, String what) {
        Objects.requireNonNull(segment, what + ": segment");
        if (offset < 0 || length < 0 || offset > segment.byteSize() - length) {
            throw new IllegalArgumentException(what + " needs bytes [" + offset + ", " + (offset + length)
                    + ") but the segment holds only " + segment.byteSize() + " bytes");
        }
        if (segment.isNative()) {
            long address = segment.address() + offset;
            if ((address & 3) != 0) {
                throw new IllegalArgumentException(what + " must be 4-byte aligned in memory but starts at address 0x"
                        + Long.toHexString(address));
            }
        } else if (segment.maxByteAlignment() < 4 || (offset & 3) != 0) {
            throw new IllegalArgumentException(what + " must be 4-byte aligned: heap segment alignment "
                    + segment.maxByteAlignment() + ", offset " + offset
                    + " (use MemorySegment.ofArray(int[]) or a native segment)");
        }
    }
}
