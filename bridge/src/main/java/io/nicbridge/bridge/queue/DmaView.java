package io.nicbridge.bridge.queue;

import java.lang.foreign.MemorySegment;

/**
 * The card's view of host memory: translation of bus addresses into pinned segments, bounds-checked. The
 * memory package's {@code DmaSpace} (the IOMMU-like table of registered segments) implements this; the queue
 * views depend only on this interface so that card-side code (emulators, the native shim's Java half) can never
 * dereference a bus address the host did not register.
 *
 * <p>Allocation-free by contract: a translation is a region index plus an offset, both primitives.
 * <pre>
 *   int r = dma.translate(bus, len);          // r &gt;= 0: [bus, bus+len) lies inside region r
 *   if (r &lt; 0) { report a bus error the card's way (21140: CSR5.FBE) }
 *   MemorySegment s = dma.region(r);
 *   long off = dma.offset(r, bus);            // byte offset of bus in s
 * </pre>
 */
public interface DmaView {
    /** No region contains the start address. */
    int NOT_MAPPED = -1;
    /** A region contains the start address but not the whole {@code [bus, bus + length)} range. */
    int OUT_OF_BOUNDS = -2;
    /** The length is negative or the range wraps past the top of the bus address space. */
    int BAD_RANGE = -3;

    /**
     * @return the index of the region holding all of {@code [busAddress, busAddress + length)}, or a negative
     *         error ({@link #NOT_MAPPED}, {@link #OUT_OF_BOUNDS}, {@link #BAD_RANGE})
     */
    int translate(long busAddress, long length);

    /** The segment of region {@code region} (an index {@link #translate} returned). */
    MemorySegment region(int region);

    /** Byte offset of {@code busAddress} in {@link #region(int) region(region)}. */
    long offset(int region, long busAddress);
}
