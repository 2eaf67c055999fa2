package io.nicbridge.sim.dec21140;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The card's receive FIFO: frames that arrived from the wire and wait for the receive process. Bounded,
 * many producers (the wire's threads calling {@link io.nicbridge.sim.ethernet.FrameSink}), one consumer (the
 * card's engine). Frames are copied in, so the wire may reuse its buffer as soon as {@link #offer} returns.
 *
 * <pre>
 *  slot i: sequence[i] | length[i] | data[i] (maxFrame bytes, preallocated)
 *  producer: claim ticket t from tail by CAS when sequence[t &amp; mask] == t; copy; sequence := t + 1 (release)
 *  consumer: head h is ready when sequence[h &amp; mask] == h + 1 (acquire); release: sequence := h + capacity
 * </pre>
 * A full FIFO is back-pressure: {@link #offer} returns false and the card counts a FIFO overflow (CSR8), as the
 * chip does when its FIFO fills. The real 21140 has a 2 KiB receive FIFO; this one holds {@code capacity} frames
 * so that a threaded engine's scheduling delay is not mistaken for an overflow.
 */
final class ReceiveFifo {
    private final int mask;
    private final int maxFrame;
    private final byte[][] data;
    private final MemorySegment[] views;
    private final int[] lengths;
    private final AtomicLongArray sequence;
    private final AtomicLong tail = new AtomicLong();
    private long head; // consumer only

    ReceiveFifo(int capacity, int maxFrame) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("FIFO capacity must be a power of two, was " + capacity);
        }
        this.mask = capacity - 1;
        this.maxFrame = maxFrame;
        this.data = new byte[capacity][maxFrame];
        this.views = new MemorySegment[capacity];
        this.lengths = new int[capacity];
        this.sequence = new AtomicLongArray(capacity);
        for (int i = 0; i < capacity; i++) {
            views[i] = MemorySegment.ofArray(data[i]);
            sequence.set(i, i);
        }
    }

    int maxFrame() {
        return maxFrame;
    }

    /** Copies a frame in. @return false when the FIFO is full (nothing copied) */
    boolean offer(MemorySegment frame, long offset, int length) {
        long t = tail.get();
        while (true) {
            int i = (int) (t & mask);
            long s = sequence.get(i); // volatile read: acquire
            long diff = s - t;
            if (diff == 0) {
                if (tail.compareAndSet(t, t + 1)) {
                    MemorySegment.copy(frame, ValueLayout.JAVA_BYTE, offset, data[i], 0, length);
                    lengths[i] = length;
                    sequence.lazySet(i, t + 1); // release: data and length are visible to the consumer first
                    return true;
                }
                t = tail.get();
            } else if (diff < 0) {
                return false; // the slot still holds a frame from a lap ago: full
            } else {
                t = tail.get();
            }
        }
    }

    /** @return the head frame's length, or -1 when the FIFO is empty */
    int peekLength() {
        int i = (int) (head & mask);
        return sequence.get(i) == head + 1 ? lengths[i] : -1;
    }

    /** The head frame's bytes (valid after {@link #peekLength()} returned a length). */
    byte[] peekData() {
        return data[(int) (head & mask)];
    }

    /** The head frame's bytes as a heap segment (preallocated view). */
    MemorySegment peekSegment() {
        return views[(int) (head & mask)];
    }

    /** Frees the head slot for producers. */
    void remove() {
        int i = (int) (head & mask);
        sequence.lazySet(i, head + mask + 1); // release: the consumer is done with the slot
        head++;
    }

    /** Removes every frame. Consumer side. @return frames removed */
    int clear() {
        int n = 0;
        while (peekLength() >= 0) {
            remove();
            n++;
        }
        return n;
    }
}
