package io.nicbridge.bridge.memory;

import java.lang.foreign.MemorySegment;

/**
 * The card's view of host memory: translation of bus addresses into registered segments, bounds-checked. Card-side
 * code (the 21140 descriptor walker, emulators, the native shim's Java half) depends only on this interface, so it
 * can never dereference a bus address the host did not register. {@link DmaSpace} is the implementation; each of
 * its immutable tables ({@link DmaSpace.Regions}) is one too.
 *
 * <p>Allocation-free by contract: a translation is a region index plus an offset, both primitives.
 * <pre>
 *   DmaView t = dma.snapshot();               // once per DMA operation (see below)
 *   int r = t.translate(bus, len);            // r &gt;= 0: [bus, bus+len) lies inside region r
 *   if (r &lt; 0) { r is a BusError code: report it the card's way (21140: CSR5.FBE) }
 *   MemorySegment s = t.region(r);
 *   long off = t.offset(r, bus);              // byte offset of bus in s
 * </pre>
 *
 * <h2>Why {@link #snapshot()}</h2>
 * A region index is meaningful only in the table that produced it. On a {@link DmaSpace}, {@link #translate},
 * {@link #region} and {@link #offset} each read the <i>current</i> table, so a card thread that races with
 * (un)registration could translate in one table and look the index up in the next. {@link #snapshot()} returns
 * one immutable table (one volatile read, no allocation); translating and looking up through it is consistent.
 * A table's {@code snapshot()} returns itself.
 *
 * <h2>Error codes</h2>
 * A negative result of {@link #translate} is one of {@link BusError}'s codes: {@link BusError#NO_REGION} (the
 * start is in no region), {@link BusError#OUT_OF_REGION} (the range runs past the end of the region holding its
 * start), {@link BusError#BAD_LENGTH} (length zero or negative), {@link BusError#ADDRESS_WRAP} (the range leaves
 * the bus address space), {@link BusError#REGION_CLOSED} (the region's memory was freed).
 */
public interface DmaView {
    /**
     * @return the index of the region holding all of {@code [busAddress, busAddress + length)}, or a negative
     *         {@link BusError} code
     */
    int translate(long busAddress, long length);

    /**
     * The segment of region {@code region}, an index {@link #translate} of this same view returned.
     *
     * @throws IndexOutOfBoundsException when {@code region} is a {@link BusError} code or no region of this view
     */
    MemorySegment region(int region);

    /**
     * Byte offset of {@code busAddress} in {@link #region(int) region(region)}.
     *
     * @throws IndexOutOfBoundsException when {@code region} is a {@link BusError} code or no region of this view
     * @throws IllegalArgumentException  when {@code busAddress} is not inside that region
     */
    long offset(int region, long busAddress);

    /**
     * A view whose region indices stay valid across calls: an immutable table. Take it once per DMA operation
     * (e.g. per descriptor fetch) when another thread may register or unregister memory meanwhile.
     */
    DmaView snapshot();
}
