package io.nicbridge.protocols.pupa;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A secondary buffer pool (paper section 2.1.2): {@code count} buffers of {@code size} bytes and their free list,
 * shared by one allocating side and one freeing side without a lock. The free list is a ring of buffer numbers with
 * a take counter (written only by the allocator) and a give counter (written only by the freer), released and
 * acquired as the primary FIFOs' pointers; at least one buffer stays on it at all times ({@link #available()} is what
 * may be taken). Each buffer also has a chain word, linking the buffers of one message.
 *
 * <pre>
 *   0 taken (u32)  4 given (u32)  8..63 reserved | 64: ring, count x u32 | chain, count x u32 | buffers, count x size
 * </pre>
 */
final class BufferPool {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final long TAKEN = 0;
    private static final long GIVEN = 4;
    private static final long RING = 64;
    static final int END = -1;

    private final MemorySegment segment;
    private final int count;
    private final int size;
    private final long chain;
    private final long buffers;

    BufferPool(MemorySegment segment, int count, int size) {
        if (segment.byteSize() < bytes(count, size)) {
            throw new IllegalArgumentException("pool segment too small: " + segment.byteSize());
        }
        this.segment = segment;
        this.count = count;
        this.size = size;
        this.chain = RING + 4L * count;
        this.buffers = chain + 4L * count;
        for (int i = 0; i < count; i++) {
            INT.set(segment, RING + 4L * i, i);
        }
        INT.set(segment, TAKEN, 0);
        INT.setRelease(segment, GIVEN, count);
    }

    static long bytes(int count, int size) {
        return RING + 8L * count + (long) count * size;
    }

    int count() {
        return count;
    }

    int size() {
        return size;
    }

    /** @return buffers on the free list */
    int free() {
        return (int) INT.getAcquire(segment, GIVEN) - (int) INT.getAcquire(segment, TAKEN);
    }

    /** @return buffers that may be taken now: all free ones but the one always kept */
    int available() {
        return free() - 1;
    }

    /** Allocator: takes a buffer; the caller checked {@link #available()}. */
    int take() {
        int taken = (int) INT.get(segment, TAKEN);
        if ((int) INT.getAcquire(segment, GIVEN) - taken <= 1) {
            throw new IllegalStateException("pool exhausted: the last free buffer is never taken");
        }
        int b = (int) INT.get(segment, RING + 4L * Math.floorMod(taken, count));
        INT.set(segment, chain + 4L * b, END);
        INT.setRelease(segment, TAKEN, taken + 1);
        return b;
    }

    /** Freer: puts a buffer back on the free list. */
    void give(int buffer) {
        int given = (int) INT.get(segment, GIVEN);
        INT.set(segment, RING + 4L * Math.floorMod(given, count), buffer);
        INT.setRelease(segment, GIVEN, given + 1);
    }

    /** Freer: puts back a whole chain from {@code first}. @return the buffers put back */
    int giveChain(int first) {
        int n = 0;
        for (int b = first; b != END; n++) {
            int next = next(b);
            give(b);
            b = next;
        }
        return n;
    }

    int next(int buffer) {
        return (int) INT.get(segment, chain + 4L * buffer);
    }

    void link(int buffer, int next) {
        INT.set(segment, chain + 4L * buffer, next);
    }

    /** @return the offset of buffer {@code b}'s bytes in {@link #segment()} */
    long offset(int b) {
        return buffers + (long) b * size;
    }

    MemorySegment segment() {
        return segment;
    }
}
