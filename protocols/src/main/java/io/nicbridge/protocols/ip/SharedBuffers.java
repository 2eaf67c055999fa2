package io.nicbridge.protocols.ip;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * Data blocks in a communication segment with reference counts (U-Net paper 7.3: "The data blocks are allocated
 * within the receive and transmit communication segments and a simple reference count mechanism added by the TCP and
 * UDP support software allows them to be shared by several messages without the need for copy operations").
 *
 * <pre>
 *  segment, from base (64-byte aligned)
 *  +---------------------------+-----+----------------+----------------+-- ... --+
 *  | count x int32 refcount    | pad | block 0        | block 1        |         |
 *  |   (native order)          | 64  | stride bytes   | stride bytes   |         |
 *  +---------------------------+-----+----------------+----------------+-- ... --+
 *  stride = size rounded up to 64 bytes
 * </pre>
 *
 * <p>A block's life: {@link #allocate()} hands it out with one reference (the application's); each datagram that
 * gathers it takes one more ({@link IpLink#attach}), which the link drops when the card has read it; whoever holds a
 * reference gives it back with {@link #release}. When the count reaches zero the block is free again. So an
 * application may write a block once, send it in several datagrams (to several peers, or again), release it at once,
 * and the block is not reused before the last send that reads it is complete.
 *
 * <p>Misuse is an exception that names it, and changes nothing: a block number outside the pool, {@link #retain} or
 * {@link #release} of a free block (a use after free, a double free), a length past the block.
 * {@link #allocate()} returns {@link #NONE} when every block is taken: back-pressure.
 *
 * <p>One thread (the stack's); nothing allocates after construction.
 */
public final class SharedBuffers {
    /** {@link #allocate()}'s "every block is taken". */
    public static final int NONE = -1;
    private static final int ALIGN = 64;
    private static final ValueLayout.OfInt COUNT = ValueLayout.JAVA_INT;

    private final String name;
    private final MemorySegment segment;
    private final long base;
    private final long dataBase;
    private final int size;
    private final int stride;
    private final int count;
    private final MemorySegment[] slices;
    private final int[] free;
    private int freeCount;
    private long allocations;
    private long frees;

    /**
     * @param segment the communication segment the pool lies in
     * @param base    64-byte aligned offset of the pool in {@code segment}
     * @param count   blocks, >= 1
     * @param size    bytes per block, >= 1
     * @throws IllegalArgumentException when the pool does not fit {@code segment} or an argument is out of range
     */
    public SharedBuffers(String name, MemorySegment segment, long base, int count, int size) {
        this.name = Objects.requireNonNull(name, "name");
        this.segment = Objects.requireNonNull(segment, "segment");
        if (count < 1 || size < 1) {
            throw new IllegalArgumentException(name + ": count and size must be >= 1, were " + count + ", " + size);
        }
        long need = bytesNeeded(count, size);
        if (base < 0 || (base & (ALIGN - 1)) != 0 || base > segment.byteSize() - need) {
            throw new IllegalArgumentException(name + ": " + need + " bytes at offset " + base + " do not fit the "
                + segment.byteSize() + "-byte segment (64-byte aligned)");
        }
        if (base + need > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(name + ": the pool must lie in the first 2 GiB of the segment");
        }
        this.base = base;
        this.size = size;
        this.stride = align(size);
        this.count = count;
        this.dataBase = base + align(4L * count);
        slices = new MemorySegment[count];
        free = new int[count];
        for (int i = 0; i < count; i++) {
            slices[i] = segment.asSlice(dataBase + (long) stride * i, size);
            segment.set(COUNT, base + 4L * i, 0);
            free[freeCount++] = count - 1 - i;
        }
    }

    /** @return the bytes a pool of {@code count} blocks of {@code size} bytes takes in a segment */
    public static long bytesNeeded(int count, int size) {
        return align(4L * count) + (long) align(size) * count;
    }

    private static long align(long n) {
        return (n + ALIGN - 1) & -ALIGN;
    }

    private static int align(int n) {
        return (n + ALIGN - 1) & -ALIGN;
    }

    /** @return a free block with one reference (the caller's), or {@link #NONE} when all are taken */
    public int allocate() {
        if (freeCount == 0) {
            return NONE;
        }
        int b = free[--freeCount];
        segment.set(COUNT, base + 4L * b, 1);
        allocations++;
        return b;
    }

    /**
     * Adds a reference to a block in use.
     *
     * @throws IllegalArgumentException for a block number outside the pool
     * @throws IllegalStateException    for a free block (a use after free)
     */
    public void retain(int block) {
        int c = references(block, "retain");
        segment.set(COUNT, base + 4L * block, c + 1);
    }

    /**
     * Drops a reference; the block is free again when none is left.
     *
     * @throws IllegalArgumentException for a block number outside the pool
     * @throws IllegalStateException    for a free block (a double free)
     */
    public void release(int block) {
        int c = references(block, "release");
        segment.set(COUNT, base + 4L * block, c - 1);
        if (c == 1) {
            free[freeCount++] = block;
            frees++;
        }
    }

    private int references(int block, String what) {
        checkBlock(block);
        int c = segment.get(COUNT, base + 4L * block);
        if (c <= 0) {
            throw new IllegalStateException(name + ": " + what + " of block " + block + ", which is free (a "
                + (what.equals("release") ? "double free" : "use after free") + ")");
        }
        return c;
    }

    private void checkBlock(int block) {
        if (block < 0 || block >= count) {
            throw new IllegalArgumentException(name + ": block must be in [0, " + count + "), was " + block);
        }
    }

    /** @throws IllegalArgumentException unless {@code block} is in the pool and {@code 1 <= length <= size()} */
    void checkLength(int block, int length) {
        checkBlock(block);
        if (length < 1 || length > size) {
            throw new IllegalArgumentException(name + ": length must be in [1, " + size + "], was " + length);
        }
    }

    /** @return the references a block has now (0: free) */
    public int referenceCount(int block) {
        checkBlock(block);
        return segment.get(COUNT, base + 4L * block);
    }

    /** @return block {@code block}'s bytes (whether or not it is in use: the caller keeps to its own) */
    public MemorySegment buffer(int block) {
        checkBlock(block);
        return slices[block];
    }

    /** @return block {@code block}'s offset in the segment (what a send descriptor names) */
    public int offset(int block) {
        checkBlock(block);
        return (int) (dataBase + (long) stride * block);
    }

    /**
     * @return this pool's base offset within {@code other} when both are views of the same memory and the pool lies
     *     wholly inside it, else -1
     */
    long segmentOffsetIn(MemorySegment other) {
        if (!segment.isNative() || !other.isNative()) {
            return segment == other ? base : -1;
        }
        long offset = segment.address() + base - other.address();
        return offset >= 0 && offset + bytesNeeded(count, size) <= other.byteSize() && offset == base ? offset : -1;
    }

    public MemorySegment segment() {
        return segment;
    }

    public int size() {
        return size;
    }

    public int capacity() {
        return count;
    }

    /** @return blocks free now */
    public int available() {
        return freeCount;
    }

    public long allocations() {
        return allocations;
    }

    /** @return blocks that went back to free (their last reference dropped) */
    public long frees() {
        return frees;
    }

    @Override
    public String toString() {
        return "shared buffers " + name + " (" + count + " x " + size + " B, " + freeCount + " free)";
    }
}
