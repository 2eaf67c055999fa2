package io.nicbridge.bridge.memory;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * A fixed set of equal-sized buffers in one memory segment, handed out by index.
 *
 * <pre>
 *   memory()
 *   +-----------+-----------+-----+---------------+
 *   | buffer 0  | buffer 1  | ... | buffer n-1    |   each stride() bytes apart,
 *   +-----------+-----------+-----+---------------+   bufferSize() usable bytes
 * </pre>
 *
 * <p>{@link #claim()} returns a free index or {@link #NONE} when every buffer is in use (back-pressure,
 * not an error); {@link #release(int)} gives it back; {@link #buffer(int)} returns a slice cached at
 * construction. Nothing here allocates after construction.
 *
 * <p>Thread-safety: claim and release may be called from any threads concurrently. The free set is a
 * bitmap of 64-bit words changed with compare-and-set (claim) and atomic OR (release); both have
 * volatile semantics, so whatever the releasing thread wrote into a buffer happens-before the next
 * claimer of the same index reads it.
 */
public final class BufferPool {
    /** Returned by {@link #claim()} when no buffer is free. */
    public static final int NONE = -1;

    private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);

    private final String name;
    private final MemorySegment memory;
    private final int count;
    private final int bufferSize;
    private final int stride;
    private final MemorySegment[] buffers;
    /** Bit i set = buffer i is free. */
    private final long[] free;
    /** Word to start the next scan at; a racy hint, any value in range is correct. */
    private int hint;

    /**
     * @param memory     at least {@code count * stride} bytes
     * @param count      number of buffers, at least 1
     * @param bufferSize usable bytes per buffer, in [1, stride]
     * @param stride     distance between buffer starts
     */
    public BufferPool(String name, MemorySegment memory, int count, int bufferSize, int stride) {
        this.name = Objects.requireNonNull(name, "name");
        Objects.requireNonNull(memory, "memory");
        if (count <= 0) {
            throw new IllegalArgumentException("pool '" + name + "': count must be positive, was " + count);
        }
        if (bufferSize <= 0 || bufferSize > stride) {
            throw new IllegalArgumentException("pool '" + name + "': buffer size must be in [1, stride=" + stride
                + "], was " + bufferSize);
        }
        if ((long) count * stride > memory.byteSize()) {
            throw new IllegalArgumentException("pool '" + name + "': " + count + " buffers of stride " + stride
                + " need " + ((long) count * stride) + " bytes, memory has " + memory.byteSize());
        }
        this.memory = memory;
        this.count = count;
        this.bufferSize = bufferSize;
        this.stride = stride;
        this.buffers = new MemorySegment[count];
        for (int i = 0; i < count; i++) {
            buffers[i] = memory.asSlice((long) i * stride, bufferSize);
        }
        this.free = new long[(count + 63) >>> 6];
        for (int i = 0; i < count; i++) {
            free[i >>> 6] |= 1L << i;
        }
        VarHandle.releaseFence();
    }

    /**
     * @return the index of a buffer now owned by the caller, or {@link #NONE} when all are in use
     */
    public int claim() {
        long[] words = free;
        int n = words.length;
        int start = hint;
        for (int k = 0; k < n; k++) {
            int w = start + k;
            if (w >= n) {
                w -= n;
            }
            long bits = (long) WORDS.getVolatile(words, w);
            while (bits != 0) {
                long lowest = bits & -bits;
                if (WORDS.compareAndSet(words, w, bits, bits & ~lowest)) {
                    hint = w;
                    return (w << 6) + Long.numberOfTrailingZeros(lowest);
                }
                bits = (long) WORDS.getVolatile(words, w);
            }
        }
        return NONE;
    }

    /**
     * Returns a claimed buffer to the pool.
     *
     * @throws IndexOutOfBoundsException when {@code index} is not a buffer of this pool
     * @throws IllegalStateException     when the buffer is not claimed (double release)
     */
    public void release(int index) {
        checkIndex(index);
        long bit = 1L << index;
        long before = (long) WORDS.getAndBitwiseOr(free, index >>> 6, bit);
        if ((before & bit) != 0) {
            throw new IllegalStateException("pool '" + name + "': buffer " + index + " released but it was not claimed");
        }
    }

    /** @return the cached slice of buffer {@code index}, {@link #bufferSize()} bytes */
    public MemorySegment buffer(int index) {
        checkIndex(index);
        return buffers[index];
    }

    /** @return the byte offset of buffer {@code index} from the start of {@link #memory()} */
    public long offsetOf(int index) {
        checkIndex(index);
        return (long) index * stride;
    }

    /** @return true when buffer {@code index} is currently claimed */
    public boolean isClaimed(int index) {
        checkIndex(index);
        return ((long) WORDS.getVolatile(free, index >>> 6) & (1L << index)) == 0;
    }

    /** @return number of free buffers at the moment of the call */
    public int available() {
        int total = 0;
        for (int w = 0; w < free.length; w++) {
            total += Long.bitCount((long) WORDS.getVolatile(free, w));
        }
        return total;
    }

    public String name() {
        return name;
    }

    public MemorySegment memory() {
        return memory;
    }

    public int capacity() {
        return count;
    }

    public int bufferSize() {
        return bufferSize;
    }

    public int stride() {
        return stride;
    }

    private void checkIndex(int index) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("pool '" + name + "': buffer index " + index + " is outside [0, "
                + count + ")");
        }
    }

    @Override
    public String toString() {
        return "BufferPool[" + name + ", " + count + " x " + bufferSize + " bytes]";
    }
}
