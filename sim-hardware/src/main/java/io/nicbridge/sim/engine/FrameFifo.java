package io.nicbridge.sim.engine;

import io.nicbridge.bridge.queue.QueueCode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * A card's receive FIFO: a bounded, preallocated queue of frames that any number of threads (the wire's
 * stations, a fault layer's delayed deliveries) {@link #offer} into, and the card's {@code service()} - one
 * consumer, which its engine guarantees - drains in place.
 *
 * <pre>
 *   slot i:  sequence[i] (long)      length[i] (int)      data: maxFrameBytes at i * maxFrameBytes
 *
 *   sequence[i] == p            free for the producer that claims position p   (p &amp; mask == i)
 *   sequence[i] == p + 1        holds the frame of position p, ready for the consumer
 *   sequence[i] == p + capacity free again, for position p + capacity (the next lap)
 * </pre>
 *
 * <p>The per-slot sequence numbers are Vyukov's bounded-queue scheme: a producer claims position {@code p} by
 * a CAS on the shared tail only when the slot's sequence says the slot is free for {@code p}; the FIFO is full
 * when the slot still holds the frame of the previous lap, which is reported as {@link QueueCode#FULL} (the card
 * counts an overflow, as a real FIFO drops the frame). No locks, no allocation. Results follow bridge's
 * {@link QueueCode}, as every queue's do: a slot index or length (&gt;= 0), or a named negative code.
 *
 * <p><b>Handoff.</b> Producer: copy the bytes into the slot, store the length, then store
 * {@code sequence = p + 1} with release. Consumer: load the sequence with acquire ({@link #peekLength()}); when
 * it is {@code p + 1} the bytes and length are visible. After reading, {@link #release()} stores
 * {@code sequence = p + capacity} with release, so no producer overwrites the slot before the consumer's reads
 * are done.
 *
 * <p>A producer that claimed a slot and is still copying holds back the frames behind it (the consumer sees
 * the head slot not ready yet and finds it empty for now); a kick after every offer makes sure the consumer
 * comes back.
 */
public final class FrameFifo {
    private static final VarHandle SEQUENCE = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle TAIL;
    private static final VarHandle OVERFLOWS;

    static {
        try {
            TAIL = MethodHandles.lookup().findVarHandle(FrameFifo.class, "tail", long.class);
            OVERFLOWS = MethodHandles.lookup().findVarHandle(FrameFifo.class, "overflows", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int capacity;
    private final int mask;
    private final int maxFrameBytes;
    private final MemorySegment data;
    private final MemorySegment[] slots;
    private final long[] sequence;
    private final int[] lengths;

    // Producers contend on the tail; the consumer owns the head. Padding keeps them on different cache lines.
    @SuppressWarnings("unused")
    private long p01, p02, p03, p04, p05, p06, p07;
    @SuppressWarnings("unused") // accessed through TAIL
    private volatile long tail;
    @SuppressWarnings("unused")
    private long p11, p12, p13, p14, p15, p16, p17;
    /** Consumer-only: the position of the head frame. */
    private long head;
    @SuppressWarnings("unused")
    private long p21, p22, p23, p24, p25, p26, p27;
    @SuppressWarnings("unused") // accessed through OVERFLOWS
    private volatile long overflows;

    /** A FIFO whose frame memory is managed by the garbage collector ({@link Arena#ofAuto()}). */
    public FrameFifo(int capacity, int maxFrameBytes) {
        this(Arena.ofAuto(), capacity, maxFrameBytes);
    }

    /**
     * @param arena         where the frame memory ({@code capacity * maxFrameBytes} bytes) is allocated, once
     * @param capacity      number of frames it holds, a power of two
     * @param maxFrameBytes the largest frame it accepts (&gt; 0)
     */
    public FrameFifo(Arena arena, int capacity, int maxFrameBytes) {
        Objects.requireNonNull(arena, "arena");
        if (capacity <= 0 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two, was " + capacity);
        }
        if (maxFrameBytes <= 0) {
            throw new IllegalArgumentException("maxFrameBytes must be > 0, was " + maxFrameBytes);
        }
        long bytes = (long) capacity * maxFrameBytes;
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(capacity + " slots of " + maxFrameBytes + " bytes is " + bytes
                    + " bytes; a frame FIFO is limited to 2 GiB");
        }
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.maxFrameBytes = maxFrameBytes;
        this.data = arena.allocate(bytes, 64);
        this.slots = new MemorySegment[capacity];
        this.sequence = new long[capacity];
        this.lengths = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            slots[i] = data.asSlice((long) i * maxFrameBytes, maxFrameBytes);
            sequence[i] = i;
        }
        VarHandle.releaseFence(); // the initial sequence numbers are published with the FIFO
    }

    public int capacity() {
        return capacity;
    }

    public int maxFrameBytes() {
        return maxFrameBytes;
    }

    /**
     * Copies a frame into the next free slot. Safe from any thread; allocation-free.
     *
     * @return the slot index the frame went into (&gt;= 0), or {@link QueueCode#FULL} when the FIFO is full (the frame
     *         is not taken; the caller counts an overflow)
     * @throws IllegalArgumentException when {@code length} is negative or above {@link #maxFrameBytes()}
     * @throws IndexOutOfBoundsException when {@code [offset, offset + length)} is outside {@code src}
     */
    public int offer(MemorySegment src, long offset, int length) {
        if (length < 0 || length > maxFrameBytes) {
            throw new IllegalArgumentException("frame of " + length + " bytes does not fit a FIFO slot of "
                    + maxFrameBytes + " bytes");
        }
        Objects.checkFromIndexSize(offset, length, src.byteSize());
        long pos = (long) TAIL.getVolatile(this);
        while (true) {
            int index = (int) pos & mask;
            long seq = (long) SEQUENCE.getAcquire(sequence, index);
            long diff = seq - pos;
            if (diff == 0) {
                if (TAIL.compareAndSet(this, pos, pos + 1)) {
                    MemorySegment.copy(src, offset, slots[index], 0, length);
                    lengths[index] = length;
                    SEQUENCE.setRelease(sequence, index, pos + 1); // handoff: payload, then ownership word
                    return index;
                }
                pos = (long) TAIL.getVolatile(this);
            } else if (diff < 0) {
                // The slot still holds the frame from one lap ago: full.
                OVERFLOWS.getAndAdd(this, 1L);
                return QueueCode.FULL;
            } else {
                pos = (long) TAIL.getVolatile(this); // another producer took pos; try the next position
            }
        }
    }

    /**
     * Consumer only. Looks at the head frame without removing it.
     *
     * @return its length in bytes (&gt;= 0), or {@link QueueCode#EMPTY} when no frame is ready
     */
    public int peekLength() {
        long pos = head;
        int index = (int) pos & mask;
        if ((long) SEQUENCE.getAcquire(sequence, index) != pos + 1) {
            return QueueCode.EMPTY;
        }
        return lengths[index];
    }

    /** Consumer only, after {@link #peekLength()} returned &gt;= 0: the head frame's slot (bytes from 0). */
    public MemorySegment peekSlot() {
        return slots[(int) head & mask];
    }

    /** Consumer only: the offset of the head frame's first byte in {@link #buffer()}. */
    public long peekOffset() {
        return (long) ((int) head & mask) * maxFrameBytes;
    }

    /** The memory of all slots, for consumers that address frames by {@link #peekOffset()}. */
    public MemorySegment buffer() {
        return data;
    }

    /**
     * Consumer only: removes the head frame, giving its slot back to the producers.
     *
     * @throws IllegalStateException when no frame is ready (release without a successful peek)
     */
    public void release() {
        long pos = head;
        int index = (int) pos & mask;
        if ((long) SEQUENCE.getAcquire(sequence, index) != pos + 1) {
            throw new IllegalStateException("release() with no frame at the head of the FIFO");
        }
        head = pos + 1;
        SEQUENCE.setRelease(sequence, index, pos + capacity); // handoff: our reads are done, slot is free
    }

    /** Consumer only: drops every ready frame. @return how many */
    public int clear() {
        int n = 0;
        while (peekLength() >= 0) {
            release();
            n++;
        }
        return n;
    }

    /** @return an estimate of the frames in the FIFO (claimed or ready), exact when no producer is active */
    public int size() {
        long t = (long) TAIL.getVolatile(this);
        long h = head;
        return (int) Math.max(0, Math.min(capacity, t - h));
    }

    /** @return how many offers found the FIFO full since creation */
    public long overflows() {
        return (long) OVERFLOWS.getVolatile(this);
    }
}
