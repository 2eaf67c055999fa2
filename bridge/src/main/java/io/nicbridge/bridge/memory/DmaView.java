package io.nicbridge.bridge.memory;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

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
 *
 * <h2>Accesses</h2>
 * The card's DMA master: each access below translates through one table, then reads or writes, and returns a
 * {@link BusError} code instead of touching memory the host did not register (or has freed). Card models make
 * every access to host memory through these, never through a segment kept from an earlier translation, so the
 * mode of each access (plain, acquire, release) is visible at this one interface - which is what lets a test
 * record the order of a card's writes (payload first, ownership word last, with release).
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

    /**
     * Reads a 32-bit word of host memory (plain access, any alignment).
     *
     * @return the word as an unsigned value in [0, 2^32), or a negative {@link BusError} code
     */
    long readInt(long busAddress, ByteOrder order);

    /**
     * Writes a 32-bit word of host memory (plain access, any alignment).
     *
     * @return 0 or a negative {@link BusError} code
     */
    int writeInt(long busAddress, int value, ByteOrder order);

    /**
     * Writes a 64-bit value of host memory (plain access, any alignment): one bus burst of two words, the high word
     * first in memory when {@code order} is big-endian.
     *
     * @return 0 or a negative {@link BusError} code
     */
    int writeLong(long busAddress, long value, ByteOrder order);

    /**
     * Reads an ownership word with acquire: everything the host wrote before its release store of the word is
     * visible after. The word must be 4-byte aligned in host memory, else {@link BusError#MISALIGNED}.
     *
     * @return the word as an unsigned value, or a negative {@link BusError} code
     */
    long readIntAcquire(long busAddress, ByteOrder order);

    /**
     * Writes an ownership word with release: the card's earlier writes (buffer data, other words) are visible
     * before this one. The word must be 4-byte aligned in host memory, else {@link BusError#MISALIGNED}.
     *
     * @return 0 or a negative {@link BusError} code
     */
    int writeIntRelease(long busAddress, int value, ByteOrder order);

    /**
     * Card reads host memory: {@code len} bytes at {@code busAddress} into {@code dst} at {@code dstOffset}.
     *
     * @return 0 or a negative {@link BusError} code (nothing copied)
     * @throws IndexOutOfBoundsException when the range is outside {@code dst} (a caller bug, not a card event)
     */
    int copyFromBus(long busAddress, MemorySegment dst, long dstOffset, long len);

    /**
     * Card writes host memory: {@code len} bytes from {@code src} at {@code srcOffset} to {@code busAddress}.
     *
     * @return 0 or a negative {@link BusError} code (nothing copied)
     * @throws IndexOutOfBoundsException when the range is outside {@code src} (a caller bug, not a card event)
     */
    int copyToBus(MemorySegment src, long srcOffset, long busAddress, long len);
}
