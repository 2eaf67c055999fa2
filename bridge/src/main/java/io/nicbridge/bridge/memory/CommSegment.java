package io.nicbridge.bridge.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A communication segment: page-aligned off-heap memory that host and card share, allocated once from
 * its own shared {@link Arena} (so card threads may read it) and pinned with {@code mlock} where the
 * process is allowed to.
 *
 * <p>The owner carves it up at setup: rings, descriptor tables and buffer pools are slices of it
 * ({@link #carve}, {@link #carvePool}). Carving is a bump allocator and never frees; a segment lives as
 * long as the card or port that uses it and is released as a whole by {@link #close()}.
 *
 * <pre>
 *   segment().address()                                         + capacity()
 *   |&lt;-- carved (used()) --&gt;|&lt;-- padding --&gt;|&lt;-- remaining() ---------&gt;|
 *   | ring | pool buffers    |               |                          |
 * </pre>
 *
 * <p>Pinning: if {@code mlock} is refused (EPERM without CAP_IPC_LOCK, ENOMEM over RLIMIT_MEMLOCK) the
 * segment stays usable but unpinned, {@link #isPinned()} says so, and one warning is logged per process.
 *
 * <p>Thread-safety: carving is synchronized and meant for setup. {@link #close()} must happen after every
 * user of the memory has stopped (unregister it from any {@link DmaSpace} first); an access after close
 * fails with {@link IllegalStateException} rather than touching freed memory.
 */
public final class CommSegment implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CommSegment.class);

    private final String name;
    private final Arena arena;
    private final MemorySegment segment;
    private final MemoryLocker locker;
    private final int lockErrno;
    private long used;
    private boolean closed;

    private CommSegment(String name, long capacity, MemoryLocker locker) {
        this.name = name;
        this.locker = locker;
        long page = MemoryLocking.pageSize();
        this.arena = Arena.ofShared();
        this.segment = arena.allocate(capacity, page);
        this.lockErrno = locker.lock(segment);
        if (lockErrno != 0) {
            MemoryLocking.warnOnce(name, capacity, lockErrno);
        }
        LOG.debug("comm segment '{}': {} bytes at 0x{}, {}", name, capacity,
            Long.toHexString(segment.address()), lockErrno == 0 ? "pinned" : "NOT pinned");
    }

    /**
     * Allocates a zero-filled comm segment of at least {@code size} bytes (rounded up to whole pages).
     *
     * @param name a name for logs and error messages, e.g. {@code "dec21140 rx ring"}
     * @param size requested size in bytes, at least 1
     */
    public static CommSegment allocate(String name, long size) {
        return allocate(name, size, MemoryLocker.NATIVE);
    }

    /** Seam for tests: same as {@link #allocate(String, long)} with another lock implementation. */
    static CommSegment allocate(String name, long size, MemoryLocker locker) {
        Objects.requireNonNull(name, "name");
        if (size <= 0) {
            throw new IllegalArgumentException("comm segment '" + name + "': size must be positive, was " + size);
        }
        long page = MemoryLocking.pageSize();
        if (size > Long.MAX_VALUE - page) {
            throw new IllegalArgumentException("comm segment '" + name + "': size " + size + " is too large");
        }
        long capacity = (size + page - 1) & -page;
        return new CommSegment(name, capacity, locker);
    }

    public String name() {
        return name;
    }

    /** @return the whole segment (page aligned, {@link #capacity()} bytes) */
    public MemorySegment segment() {
        return segment;
    }

    /** @return the size in bytes, a whole number of pages */
    public long capacity() {
        return segment.byteSize();
    }

    /** @return true when mlock succeeded for this segment */
    public boolean isPinned() {
        return lockErrno == 0;
    }

    /** @return 0 when pinned, else the errno mlock returned (1 EPERM, 12 ENOMEM) */
    public int lockErrno() {
        return lockErrno;
    }

    /** @return bytes carved so far, including alignment padding */
    public synchronized long used() {
        return used;
    }

    /** @return bytes not yet carved */
    public synchronized long remaining() {
        return segment.byteSize() - used;
    }

    public synchronized boolean isOpen() {
        return !closed;
    }

    /**
     * Carves the next {@code size} bytes at the given alignment. Setup-time operation.
     *
     * @param size      bytes, at least 1
     * @param alignment a power of two between 1 and the page size
     * @return a slice of this segment that no other carve overlaps
     * @throws IllegalArgumentException on a bad size or alignment
     * @throws IllegalStateException    when the segment is closed or has too little space left
     */
    public synchronized MemorySegment carve(long size, long alignment) {
        checkOpen();
        long page = MemoryLocking.pageSize();
        if (size <= 0) {
            throw new IllegalArgumentException("comm segment '" + name + "': carve size must be positive, was " + size);
        }
        if (alignment <= 0 || Long.bitCount(alignment) != 1 || alignment > page) {
            throw new IllegalArgumentException("comm segment '" + name + "': alignment must be a power of two in [1, "
                + page + "], was " + alignment);
        }
        long start = (used + alignment - 1) & -alignment;
        long capacity = segment.byteSize();
        if (start > capacity || size > capacity - start) {
            throw new IllegalStateException("comm segment '" + name + "' is full: carving " + size
                + " bytes aligned to " + alignment + " needs " + (start - used + size) + " bytes but only "
                + (capacity - used) + " of " + capacity + " remain");
        }
        used = start + size;
        return segment.asSlice(start, size, alignment);
    }

    /**
     * Carves a pool of {@code count} fixed-size buffers, each starting at {@code alignment}.
     *
     * @param bufferSize usable bytes per buffer; the stride is this rounded up to {@code alignment}
     */
    public BufferPool carvePool(String poolName, int count, int bufferSize, int alignment) {
        if (count <= 0) {
            throw new IllegalArgumentException("pool '" + poolName + "': buffer count must be positive, was " + count);
        }
        if (bufferSize <= 0) {
            throw new IllegalArgumentException("pool '" + poolName + "': buffer size must be positive, was " + bufferSize);
        }
        if (alignment <= 0 || Integer.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("pool '" + poolName + "': alignment must be a power of two, was "
                + alignment);
        }
        long stride = ((long) bufferSize + alignment - 1) & -alignment;
        if (stride > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("pool '" + poolName + "': buffer stride " + stride + " is too large");
        }
        MemorySegment memory = carve(stride * count, alignment);
        return new BufferPool(poolName, memory, count, bufferSize, (int) stride);
    }

    /**
     * Unpins and frees the memory. Idempotent. Every slice becomes inaccessible (accesses throw
     * {@link IllegalStateException}).
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (lockErrno == 0) {
            int errno = locker.unlock(segment);
            if (errno != 0) {
                LOG.warn("munlock of comm segment '{}' failed: {}", name, NativeMemory.errnoName(errno));
            }
        }
        arena.close();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("comm segment '" + name + "' is closed");
        }
    }

    @Override
    public String toString() {
        return "CommSegment[" + name + ", " + segment.byteSize() + " bytes, " + (isPinned() ? "pinned" : "unpinned")
            + "]";
    }
}
