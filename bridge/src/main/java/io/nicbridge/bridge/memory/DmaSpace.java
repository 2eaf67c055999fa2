package io.nicbridge.bridge.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A card's view of host memory: an IOMMU-like table mapping bus address ranges to registered native
 * segments. The card reads and writes host memory only through bus addresses that translate here, so
 * this table is also U-Net's protection boundary.
 *
 * <pre>
 *  bus address space (32-bit card)
 *  0          FIRST_BUS_ADDRESS                                                    4 GiB
 *  |-- never --|== region 0 ==|pad|guard|== region 1 ==|pad|guard|   free   ...   |
 *               ^ page aligned          ^ page aligned
 *  translate(bus, len) is a hit only when [bus, bus+len) lies inside ONE region's exact byte range;
 *  padding and guard pages belong to nobody, so an overrun of a region is a bus error, never an alias.
 * </pre>
 *
 * <h2>Hot path</h2>
 * {@link #translate(long, long)} returns a region index (&ge; 0) or a negative {@link BusError} code;
 * then {@link #region(int)} and {@link #offset(int, long)} locate the bytes. No allocation, no exception:
 * a bus error is a card event that the backend reports the card's way. Every bus error is counted
 * ({@link #busErrors()}).
 *
 * <h2>Thread-safety</h2>
 * Registration and unregistration are setup operations, serialized by a lock. The table is copy-on-write:
 * each change builds a new immutable {@link Regions} and publishes it with a volatile store (release);
 * translation reads the current table with a volatile load (acquire) and then only final arrays, so a
 * card thread may translate concurrently with registration and sees either the old or the new table,
 * never a torn one. Region indices belong to one table: a card thread that may race with
 * (un)registration takes {@link #regions()} (or {@link #snapshot()}, the same table typed as the
 * {@link DmaView} that card-side code depends on) once per DMA operation and uses that snapshot for
 * translate/region/offset. The accesses ({@link #readInt}, {@link #copyFromBus}, ...) do so internally, and
 * each translates first, so memory freed while still registered is {@link BusError#REGION_CLOSED}.
 * Unregister a range before closing the memory behind it: only an arena closed by another thread between
 * that check and the access itself (a host breaking this rule concurrently) gets FFM's
 * {@link IllegalStateException}, never a crash.
 * The bus error counter is atomic; the "last error" fields are diagnostics written one by one, so when
 * several card threads fault at the same moment they may describe different errors.
 */
public final class DmaSpace implements DmaView {
    private static final Logger LOG = LoggerFactory.getLogger(DmaSpace.class);

    /** Bus page size: ranges start on, and are padded to, this granularity. */
    public static final long PAGE = 4096;
    /** Unmapped bytes left between consecutive automatically placed regions. */
    public static final long GUARD_GAP = PAGE;
    /** The lowest address {@link #register} hands out; the first page(s) are never mapped, so 0 is always a bus error. */
    public static final long FIRST_BUS_ADDRESS = 0x1_0000L;
    /** Region capacity when none is given. */
    public static final int DEFAULT_CAPACITY = 64;

    private static final ValueLayout.OfInt INT_LE_UNALIGNED =
        ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT_BE_UNALIGNED =
        ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_LE_UNALIGNED =
        ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG_BE_UNALIGNED =
        ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT_LE = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN).varHandle();
    private static final VarHandle INT_BE = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN).varHandle();

    private final String name;
    private final BusWidth width;
    private final int capacity;
    private final Object lock = new Object();
    private final AtomicLong busErrors = new AtomicLong();
    private volatile Regions regions;
    private volatile long lastErrorAddress;
    private volatile long lastErrorLength;
    private volatile int lastErrorCode;
    private volatile MappingListener mappingListener;

    /**
     * Told about every change of the table, for a backend whose card keeps its own copy of it (the native shim
     * registers each region with the C library, which translates bus addresses itself). Both calls run under the
     * table's lock, so they are serialised and in table order.
     */
    public interface MappingListener {
        /**
         * A region is about to be mapped; throwing refuses it (nothing is published and the exception reaches the
         * caller of {@code register}).
         */
        void mapped(long busAddress, MemorySegment segment, String label);

        /**
         * A region was removed from the table; when this returns the card no longer reaches it. Throws (the exception
         * reaches the caller of {@code unregister}) when the card may still reach it: the caller must then not free
         * the memory.
         */
        void unmapped(long busAddress, MemorySegment segment);
    }

    /**
     * @param name     for messages, e.g. the card's name
     * @param width    bus address width; 32-bit cards get ranges below 4 GiB
     * @param capacity maximum number of registered regions, in [1, 65536]
     */
    public DmaSpace(String name, BusWidth width, int capacity) {
        this.name = Objects.requireNonNull(name, "name");
        this.width = Objects.requireNonNull(width, "width");
        if (capacity < 1 || capacity > 65536) {
            throw new IllegalArgumentException("DMA space '" + name + "': capacity must be in [1, 65536], was "
                + capacity);
        }
        this.capacity = capacity;
        this.regions = new Regions(this, new long[0], new long[0], new MemorySegment[0], new String[0]);
    }

    /** A 32-bit DMA space with {@link #DEFAULT_CAPACITY} regions. */
    public DmaSpace(String name) {
        this(name, BusWidth.BITS_32, DEFAULT_CAPACITY);
    }

    public String name() {
        return name;
    }

    public BusWidth width() {
        return width;
    }

    public int capacity() {
        return capacity;
    }

    /** @return the current immutable table (one volatile read, no allocation) */
    public Regions regions() {
        return regions;
    }

    /** {@link DmaView}: the current immutable table, i.e. {@link #regions()}. */
    @Override
    public Regions snapshot() {
        return regions;
    }

    // ---------------------------------------------------------------- registration (setup)

    /**
     * Installs the one {@link MappingListener}; only while the table is empty, so the listener sees every region.
     *
     * @throws IllegalStateException when regions are already registered or a listener is installed
     */
    public void mappingListener(MappingListener listener) {
        Objects.requireNonNull(listener, "listener");
        synchronized (lock) {
            if (mappingListener != null || regions.size() != 0) {
                throw new IllegalStateException("DMA space '" + name + "': a mapping listener must be installed once,"
                    + " before any region is registered");
            }
            mappingListener = listener;
        }
    }

    /** Registers {@code segment} at the lowest free page-aligned bus address; see {@link #register(String, MemorySegment)}. */
    public long register(MemorySegment segment) {
        return register("region", segment);
    }

    /**
     * Maps {@code segment} at the lowest free page-aligned bus address at or above
     * {@link #FIRST_BUS_ADDRESS} that leaves a {@link #GUARD_GAP} to its neighbours.
     *
     * @param label names the region in error messages
     * @return the bus address of the segment's first byte
     * @throws IllegalArgumentException for a heap, read-only, closed or empty segment
     * @throws IllegalStateException    when the table is full or the address space has no room
     */
    public long register(String label, MemorySegment segment) {
        checkRegistrable(label, segment);
        synchronized (lock) {
            Regions table = regions;
            checkRoom(label, table);
            long span = pageUp(segment.byteSize());
            long candidate = FIRST_BUS_ADDRESS;
            for (int i = 0; i < table.size(); i++) {
                long base = table.base(i);
                if (candidate + span + GUARD_GAP <= base) { // fits before region i with a guard gap
                    break;
                }
                if (table.last(i) > width.maxAddress() - PAGE - GUARD_GAP) {
                    candidate = -1; // region i reaches the top of the space: nothing fits after it
                    break;
                }
                candidate = Math.max(candidate, pageUp(table.last(i) + 1) + GUARD_GAP);
            }
            if (candidate < 0 || candidate > width.maxAddress()
                || segment.byteSize() - 1 > width.maxAddress() - candidate) {
                throw new IllegalStateException("DMA space '" + name + "': no room for '" + label + "' ("
                    + segment.byteSize() + " bytes) below bus address 0x" + Long.toHexString(width.maxAddress())
                    + "; " + table.size() + " regions registered");
            }
            announce(candidate, segment, label);
            publish(table.with(candidate, segment, label));
            return candidate;
        }
    }

    /**
     * Maps {@code segment} at a chosen bus address.
     *
     * @param busAddress page aligned, non-zero, and the whole range must fit the bus width
     * @throws IllegalArgumentException when the range overlaps a registered one, is misplaced, or the
     *                                  segment is not registrable
     */
    public long registerAt(String label, MemorySegment segment, long busAddress) {
        checkRegistrable(label, segment);
        if (busAddress <= 0 || (busAddress & (PAGE - 1)) != 0) {
            throw new IllegalArgumentException("DMA space '" + name + "': bus address 0x" + Long.toHexString(busAddress)
                + " for '" + label + "' must be non-zero and " + PAGE + "-byte aligned");
        }
        if (busAddress > width.maxAddress() || segment.byteSize() - 1 > width.maxAddress() - busAddress) {
            throw new IllegalArgumentException("DMA space '" + name + "': '" + label + "' at 0x"
                + Long.toHexString(busAddress) + " with " + segment.byteSize() + " bytes ends beyond the "
                + width + " bus limit 0x" + Long.toHexString(width.maxAddress()));
        }
        synchronized (lock) {
            Regions table = regions;
            checkRoom(label, table);
            long last = busAddress + (segment.byteSize() - 1);
            for (int i = 0; i < table.size(); i++) {
                if (busAddress <= table.last(i) && table.base(i) <= last) {
                    throw new IllegalArgumentException("DMA space '" + name + "': '" + label + "' ["
                        + hex(busAddress) + ", " + hex(last) + "] overlaps region '" + table.label(i) + "' ["
                        + hex(table.base(i)) + ", " + hex(table.last(i)) + "]");
                }
            }
            announce(busAddress, segment, label);
            publish(table.with(busAddress, segment, label));
            return busAddress;
        }
    }

    /**
     * Removes the region that starts at {@code busAddress}. Later translations of it are bus errors.
     *
     * @throws IllegalArgumentException when no region starts there
     */
    public void unregister(long busAddress) {
        synchronized (lock) {
            Regions table = regions;
            for (int i = 0; i < table.size(); i++) {
                if (table.base(i) == busAddress) {
                    MemorySegment segment = table.segment(i);
                    publish(table.without(i));
                    MappingListener listener = mappingListener;
                    if (listener != null) {
                        listener.unmapped(busAddress, segment);
                    }
                    return;
                }
            }
            throw new IllegalArgumentException("DMA space '" + name + "': no region starts at bus address "
                + hex(busAddress) + "; registered: " + table);
        }
    }

    private void announce(long busAddress, MemorySegment segment, String label) {
        MappingListener listener = mappingListener;
        if (listener != null) {
            listener.mapped(busAddress, segment, label);
        }
    }

    private void publish(Regions table) {
        regions = table; // volatile store: the new table's final arrays are visible to every acquiring reader
        LOG.debug("DMA space '{}' now maps {}", name, table);
    }

    private void checkRegistrable(String label, MemorySegment segment) {
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(segment, "segment");
        String what = "DMA space '" + name + "': cannot register '" + label + "': ";
        if (!segment.isNative()) {
            throw new IllegalArgumentException(what + "the segment is on the Java heap; a card can only reach"
                + " native memory");
        }
        if (segment.isReadOnly()) {
            throw new IllegalArgumentException(what + "the segment is read-only; the card writes DMA regions");
        }
        if (!segment.scope().isAlive()) {
            throw new IllegalArgumentException(what + "the segment's arena is closed");
        }
        if (segment.byteSize() == 0) {
            throw new IllegalArgumentException(what + "the segment has zero length");
        }
    }

    private void checkRoom(String label, Regions table) {
        if (table.size() >= capacity) {
            throw new IllegalStateException("DMA space '" + name + "': cannot register '" + label + "': all "
                + capacity + " regions are in use");
        }
    }

    // ---------------------------------------------------------------- hot path

    /**
     * @return the index of the region holding all of {@code [bus, bus+len)} in the current table, or a
     *         negative {@link BusError} code (counted)
     */
    @Override
    public int translate(long bus, long len) {
        return regions.translate(bus, len);
    }

    /**
     * @return the segment of region {@code index} of the current table; see the thread-safety note
     * @throws IndexOutOfBoundsException when {@code index} is a {@link BusError} code or no region of the table
     */
    @Override
    public MemorySegment region(int index) {
        return regions.region(index);
    }

    /**
     * @return the byte offset of {@code bus} in region {@code index} of the current table
     * @throws IndexOutOfBoundsException when {@code index} is a {@link BusError} code or no region of the table
     * @throws IllegalArgumentException  when {@code bus} is not inside that region
     */
    @Override
    public long offset(int index, long bus) {
        return regions.offset(index, bus);
    }

    /** {@inheritDoc} Through the current table (one volatile read). */
    @Override
    public long readInt(long bus, ByteOrder order) {
        return regions.readInt(bus, order);
    }

    /** {@inheritDoc} Through the current table (one volatile read). */
    @Override
    public int writeInt(long bus, int value, ByteOrder order) {
        return regions.writeInt(bus, value, order);
    }

    /** {@inheritDoc} Through the current table (one volatile read). */
    @Override
    public int writeLong(long bus, long value, ByteOrder order) {
        return regions.writeLong(bus, value, order);
    }

    /** {@inheritDoc} Through the current table (one volatile read). */
    @Override
    public long readIntAcquire(long bus, ByteOrder order) {
        return regions.readIntAcquire(bus, order);
    }

    /** {@inheritDoc} Through the current table (one volatile read). */
    @Override
    public int writeIntRelease(long bus, int value, ByteOrder order) {
        return regions.writeIntRelease(bus, value, order);
    }

    /** {@inheritDoc} Through the current table (one volatile read). */
    @Override
    public int copyFromBus(long bus, MemorySegment dst, long dstOffset, long len) {
        return regions.copyFromBus(bus, dst, dstOffset, len);
    }

    /** {@inheritDoc} Through the current table (one volatile read). */
    @Override
    public int copyToBus(MemorySegment src, long srcOffset, long bus, long len) {
        return regions.copyToBus(src, srcOffset, bus, len);
    }

    // ---------------------------------------------------------------- cold path

    /**
     * @return a slice of host memory for {@code [bus, bus+len)} (allocates: setup and diagnostics only)
     * @throws BusErrorException with a precise message when the range is not registered memory
     */
    public MemorySegment slice(long bus, long len) {
        Regions table = regions;
        int r = table.translate(bus, len);
        if (r < 0) {
            throw new BusErrorException(table.describe(bus, len, r), r, bus, len);
        }
        return table.segments[r].asSlice(bus - table.bases[r], len);
    }

    /**
     * The bus address of a slice of registered memory; drivers use it at setup to put buffer and ring
     * addresses into descriptors and CSRs.
     *
     * @throws IllegalArgumentException when the slice is not wholly inside one registered region
     */
    public long busAddress(MemorySegment slice) {
        Objects.requireNonNull(slice, "slice");
        Regions table = regions;
        long address = slice.address();
        for (int i = 0; i < table.size() && slice.isNative(); i++) {
            MemorySegment seg = table.segment(i);
            long start = seg.address();
            if (address >= start && address - start <= seg.byteSize()
                && slice.byteSize() <= seg.byteSize() - (address - start)) {
                return table.base(i) + (address - start);
            }
        }
        throw new IllegalArgumentException("DMA space '" + name + "': host memory at 0x" + Long.toHexString(address)
            + " (" + slice.byteSize() + " bytes) is not inside any registered region; registered: " + table);
    }

    /** @return a human-readable description of why {@code [bus, bus+len)} does or does not translate */
    public String describe(long bus, long len) {
        Regions table = regions;
        return table.describe(bus, len, table.classify(bus, len));
    }

    // ---------------------------------------------------------------- counters

    /** @return bus errors since creation (every negative translation result through this space) */
    public long busErrors() {
        return busErrors.get();
    }

    /** @return bus address of the most recent bus error (0 before the first) */
    public long lastErrorAddress() {
        return lastErrorAddress;
    }

    /** @return length of the most recent bus error */
    public long lastErrorLength() {
        return lastErrorLength;
    }

    /** @return {@link BusError} code of the most recent bus error, 0 before the first */
    public int lastErrorCode() {
        return lastErrorCode;
    }

    @Override
    public String toString() {
        return "DmaSpace[" + name + ", " + width + ", " + regions + "]";
    }

    /**
     * The host side of a copy is the caller's own memory: a range outside it is a bug of the caller, not a card event.
     * A non-positive {@code len} is left to translation (a counted BAD_LENGTH bus error, as for every card access).
     */
    private void checkHostRange(String what, MemorySegment host, long hostOffset, long len) {
        Objects.requireNonNull(host, what);
        if (len > 0 && (hostOffset < 0 || hostOffset > host.byteSize() || len > host.byteSize() - hostOffset)) {
            throw new IndexOutOfBoundsException("DMA space '" + name + "': " + what + " range [" + hostOffset + ", +"
                + len + ") is outside the " + host.byteSize() + "-byte " + what + " segment");
        }
    }

    private static long pageUp(long bytes) {
        return (bytes + PAGE - 1) & -PAGE;
    }

    static String hex(long value) {
        return "0x" + Long.toHexString(value);
    }

    /**
     * One immutable version of the region table, sorted by bus address. Obtain with {@link #regions()} or
     * {@link #snapshot()}; indices returned by {@link #translate} are valid for this object only. As a
     * {@link DmaView} it is its own snapshot.
     */
    public static final class Regions implements DmaView {
        private final DmaSpace owner;
        private final long[] bases;
        /** Inclusive last bus address of each region (an exclusive end could overflow at the top of a 64-bit space). */
        private final long[] lasts;
        private final MemorySegment[] segments;
        private final String[] labels;
        private final long maxAddress;

        private Regions(DmaSpace owner, long[] bases, long[] lasts, MemorySegment[] segments, String[] labels) {
            this.owner = owner;
            this.bases = bases;
            this.lasts = lasts;
            this.segments = segments;
            this.labels = labels;
            this.maxAddress = owner.width.maxAddress();
        }

        /** @return number of regions */
        public int size() {
            return bases.length;
        }

        /**
         * @return the index of the region holding all of {@code [bus, bus+len)}, or a negative
         *         {@link BusError} code; errors are counted on the owning {@link DmaSpace}
         */
        @Override
        public int translate(long bus, long len) {
            int r = classify(bus, len);
            if (r < 0) {
                return error(bus, len, r);
            }
            return r;
        }

        int classify(long bus, long len) {
            if (len <= 0) {
                return BusError.BAD_LENGTH;
            }
            // [bus, bus+len-1] must lie in [0, maxAddress]; written so that nothing overflows
            if (bus < 0 || bus > maxAddress || len - 1 > maxAddress - bus) {
                return BusError.ADDRESS_WRAP;
            }
            long[] b = bases;
            int lo = 0;
            int hi = b.length - 1;
            int found = -1;
            while (lo <= hi) { // last region whose base <= bus
                int mid = (lo + hi) >>> 1;
                if (b[mid] <= bus) {
                    found = mid;
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            if (found < 0 || bus > lasts[found]) {
                return BusError.NO_REGION;
            }
            if (len - 1 > lasts[found] - bus) {
                return BusError.OUT_OF_REGION;
            }
            if (!segments[found].scope().isAlive()) {
                return BusError.REGION_CLOSED;
            }
            return found;
        }

        int error(long bus, long len, int code) {
            owner.lastErrorAddress = bus;
            owner.lastErrorLength = len;
            owner.lastErrorCode = code;
            owner.busErrors.incrementAndGet();
            return code;
        }

        /**
         * Reads a 32-bit word of host memory (plain access, any alignment).
         *
         * @return the word as an unsigned value in [0, 2^32), or a negative {@link BusError} code
         * @throws NullPointerException when {@code order} is null
         */
        @Override
        public long readInt(long bus, ByteOrder order) {
            Objects.requireNonNull(order, "order");
            Regions table = this;
            int r = table.translate(bus, 4);
            if (r < 0) {
                return r;
            }
            MemorySegment seg = table.segments[r];
            long off = bus - table.bases[r];
            // one constant layout per branch, so the JIT folds each access (a layout chosen by a ?: may not fold)
            int v = order == ByteOrder.BIG_ENDIAN ? seg.get(INT_BE_UNALIGNED, off) : seg.get(INT_LE_UNALIGNED, off);
            return v & 0xFFFF_FFFFL;
        }

        /**
         * Writes a 32-bit word of host memory (plain access, any alignment).
         *
         * @return 0 or a negative {@link BusError} code
         * @throws NullPointerException when {@code order} is null
         */
        @Override
        public int writeInt(long bus, int value, ByteOrder order) {
            Objects.requireNonNull(order, "order");
            Regions table = this;
            int r = table.translate(bus, 4);
            if (r < 0) {
                return r;
            }
            MemorySegment seg = table.segments[r];
            long off = bus - table.bases[r];
            if (order == ByteOrder.BIG_ENDIAN) {
                seg.set(INT_BE_UNALIGNED, off, value);
            } else {
                seg.set(INT_LE_UNALIGNED, off, value);
            }
            return 0;
        }

        /**
         * Writes a 64-bit value of host memory (plain access, any alignment).
         *
         * @return 0 or a negative {@link BusError} code
         * @throws NullPointerException when {@code order} is null
         */
        @Override
        public int writeLong(long bus, long value, ByteOrder order) {
            Objects.requireNonNull(order, "order");
            Regions table = this;
            int r = table.translate(bus, 8);
            if (r < 0) {
                return r;
            }
            MemorySegment seg = table.segments[r];
            long off = bus - table.bases[r];
            if (order == ByteOrder.BIG_ENDIAN) {
                seg.set(LONG_BE_UNALIGNED, off, value);
            } else {
                seg.set(LONG_LE_UNALIGNED, off, value);
            }
            return 0;
        }

        /**
         * Reads an ownership/status word with acquire semantics: everything the host wrote before its release
         * store of this word is visible after. The address must be 4-byte aligned in host memory.
         *
         * @return the word as an unsigned value, or a negative {@link BusError} code
         * @throws NullPointerException when {@code order} is null
         */
        @Override
        public long readIntAcquire(long bus, ByteOrder order) {
            Objects.requireNonNull(order, "order");
            Regions table = this;
            int r = table.translate(bus, 4);
            if (r < 0) {
                return r;
            }
            MemorySegment seg = table.segments[r];
            long off = bus - table.bases[r];
            if (((seg.address() + off) & 3) != 0) {
                return table.error(bus, 4, BusError.MISALIGNED);
            }
            int v = order == ByteOrder.BIG_ENDIAN ? (int) INT_BE.getAcquire(seg, off) : (int) INT_LE.getAcquire(seg, off);
            return v & 0xFFFF_FFFFL;
        }

        /**
         * Writes an ownership/status word with release semantics: the card's earlier writes (received data,
         * other descriptor words) become visible before this word does.
         *
         * @return 0 or a negative {@link BusError} code
         * @throws NullPointerException when {@code order} is null
         */
        @Override
        public int writeIntRelease(long bus, int value, ByteOrder order) {
            Objects.requireNonNull(order, "order");
            Regions table = this;
            int r = table.translate(bus, 4);
            if (r < 0) {
                return r;
            }
            MemorySegment seg = table.segments[r];
            long off = bus - table.bases[r];
            if (((seg.address() + off) & 3) != 0) {
                return table.error(bus, 4, BusError.MISALIGNED);
            }
            if (order == ByteOrder.BIG_ENDIAN) {
                INT_BE.setRelease(seg, off, value);
            } else {
                INT_LE.setRelease(seg, off, value);
            }
            return 0;
        }

        /**
         * Card reads host memory: copies {@code len} bytes at {@code bus} into {@code dst} at {@code dstOffset}.
         *
         * @return 0 or a negative {@link BusError} code (nothing copied)
         * @throws IndexOutOfBoundsException when {@code [dstOffset, dstOffset+len)} is outside {@code dst} (a caller bug,
         *                                   checked before translation: no bus error is counted)
         */
        @Override
        public int copyFromBus(long bus, MemorySegment dst, long dstOffset, long len) {
            owner.checkHostRange("dst", dst, dstOffset, len);
            Regions table = this;
            int r = table.translate(bus, len);
            if (r < 0) {
                return r;
            }
            MemorySegment.copy(table.segments[r], bus - table.bases[r], dst, dstOffset, len);
            return 0;
        }

        /**
         * Card writes host memory: copies {@code len} bytes from {@code src} at {@code srcOffset} to {@code bus}.
         *
         * @return 0 or a negative {@link BusError} code (nothing copied)
         * @throws IndexOutOfBoundsException when {@code [srcOffset, srcOffset+len)} is outside {@code src} (a caller bug,
         *                                   checked before translation: no bus error is counted)
         */
        @Override
        public int copyToBus(MemorySegment src, long srcOffset, long bus, long len) {
            owner.checkHostRange("src", src, srcOffset, len);
            Regions table = this;
            int r = table.translate(bus, len);
            if (r < 0) {
                return r;
            }
            MemorySegment.copy(src, srcOffset, table.segments[r], bus - table.bases[r], len);
            return 0;
        }

        /**
         * @return the segment of region {@code index}
         * @throws IndexOutOfBoundsException when {@code index} is a {@link BusError} code or not a region of this table
         */
        public MemorySegment segment(int index) {
            return segments[checkIndex(index)];
        }

        /** {@link DmaView}: the same as {@link #segment(int)}. */
        @Override
        public MemorySegment region(int index) {
            return segments[checkIndex(index)];
        }

        /** {@link DmaView}: this table never changes, so it is its own snapshot. */
        @Override
        public Regions snapshot() {
            return this;
        }

        /**
         * @return {@code bus - base(index)}: where {@code bus} lies in {@link #segment(int)}
         * @throws IndexOutOfBoundsException when {@code index} is a {@link BusError} code or not a region of this table
         * @throws IllegalArgumentException  when {@code bus} is not inside region {@code index}
         */
        @Override
        public long offset(int index, long bus) {
            checkIndex(index);
            if (bus < bases[index] || bus > lasts[index]) {
                throw outsideRegion(index, bus);
            }
            return bus - bases[index];
        }

        /** @return first bus address of region {@code index} (checked as in {@link #segment(int)}) */
        public long base(int index) {
            return bases[checkIndex(index)];
        }

        /** @return bus address of the last byte of region {@code index} (inclusive; checked as in {@link #segment(int)}) */
        public long last(int index) {
            return lasts[checkIndex(index)];
        }

        /** @return bytes in region {@code index} (checked as in {@link #segment(int)}) */
        public long length(int index) {
            checkIndex(index);
            return lasts[index] - bases[index] + 1;
        }

        /** @return the label region {@code index} was registered with (checked as in {@link #segment(int)}) */
        public String label(int index) {
            return labels[checkIndex(index)];
        }

        /**
         * The hot-path guard: one compare that the JIT folds into the array's own bounds check. The message is built
         * only on failure, in a separate method, so the fast path stays small enough to inline.
         */
        private int checkIndex(int index) {
            if (index < 0 || index >= bases.length) {
                throw badIndex(index);
            }
            return index;
        }

        private IndexOutOfBoundsException badIndex(int index) {
            String what = index < 0
                ? " is a bus error code (" + BusError.name(index) + "), not a region: check translate()'s result"
                    + " before using it"
                : " is not a region of this table (" + bases.length + " regions; indices belong to the table that"
                    + " translated them, see DmaView#snapshot)";
            return new IndexOutOfBoundsException("DMA space '" + owner.name + "': region index " + index + what);
        }

        private IllegalArgumentException outsideRegion(int index, long bus) {
            return new IllegalArgumentException("DMA space '" + owner.name + "': bus address " + hex(bus)
                + " is not inside region " + index + " '" + labels[index] + "' [" + hex(bases[index]) + ", "
                + hex(lasts[index]) + "]");
        }

        Regions with(long base, MemorySegment segment, String label) {
            int n = bases.length;
            int at = 0;
            while (at < n && bases[at] < base) {
                at++;
            }
            long[] nb = new long[n + 1];
            long[] ne = new long[n + 1];
            MemorySegment[] ns = new MemorySegment[n + 1];
            String[] nl = new String[n + 1];
            System.arraycopy(bases, 0, nb, 0, at);
            System.arraycopy(lasts, 0, ne, 0, at);
            System.arraycopy(segments, 0, ns, 0, at);
            System.arraycopy(labels, 0, nl, 0, at);
            nb[at] = base;
            ne[at] = base + (segment.byteSize() - 1);
            ns[at] = segment;
            nl[at] = label;
            System.arraycopy(bases, at, nb, at + 1, n - at);
            System.arraycopy(lasts, at, ne, at + 1, n - at);
            System.arraycopy(segments, at, ns, at + 1, n - at);
            System.arraycopy(labels, at, nl, at + 1, n - at);
            return new Regions(owner, nb, ne, ns, nl);
        }

        Regions without(int index) {
            int n = bases.length;
            long[] nb = new long[n - 1];
            long[] ne = new long[n - 1];
            MemorySegment[] ns = new MemorySegment[n - 1];
            String[] nl = new String[n - 1];
            for (int i = 0, j = 0; i < n; i++) {
                if (i != index) {
                    nb[j] = bases[i];
                    ne[j] = lasts[i];
                    ns[j] = segments[i];
                    nl[j] = labels[i];
                    j++;
                }
            }
            return new Regions(owner, nb, ne, ns, nl);
        }

        String describe(long bus, long len, int code) {
            String range = "[" + hex(bus) + ", +" + len + ")";
            String space = "DMA space '" + owner.name + "'";
            return switch (code) {
                case BusError.BAD_LENGTH -> "bus error BAD_LENGTH in " + space + ": length " + len + " at " + hex(bus)
                    + " must be positive";
                case BusError.ADDRESS_WRAP -> "bus error ADDRESS_WRAP in " + space + ": " + range
                    + " leaves the bus address space [0, " + hex(maxAddress) + "]";
                case BusError.NO_REGION -> "bus error NO_REGION in " + space + ": " + hex(bus)
                    + " is not in any registered region; " + nearest(bus);
                case BusError.OUT_OF_REGION -> {
                    int r = indexContaining(bus);
                    yield "bus error OUT_OF_REGION in " + space + ": " + range + " runs past the end of region '"
                        + labels[r] + "' [" + hex(bases[r]) + ", " + hex(lasts[r]) + "] by "
                        + (len - 1 - (lasts[r] - bus)) + " bytes";
                }
                case BusError.REGION_CLOSED -> "bus error REGION_CLOSED in " + space + ": " + range
                    + " is registered but its memory was freed";
                case BusError.MISALIGNED -> "bus error MISALIGNED in " + space + ": " + hex(bus)
                    + " is not 4-byte aligned";
                default -> range + " translates to region '" + labels[code] + "' [" + hex(bases[code]) + ", "
                    + hex(lasts[code]) + "] at offset " + (bus - bases[code]);
            };
        }

        private int indexContaining(long bus) {
            for (int i = 0; i < bases.length; i++) {
                if (bus >= bases[i] && bus <= lasts[i]) {
                    return i;
                }
            }
            return -1;
        }

        private String nearest(long bus) {
            if (bases.length == 0) {
                return "no regions are registered";
            }
            List<String> around = new ArrayList<>();
            for (int i = 0; i < bases.length; i++) {
                if (lasts[i] < bus && (i + 1 == bases.length || bases[i + 1] > bus)) {
                    around.add("below: '" + labels[i] + "' ends at " + hex(lasts[i]) + " (inclusive)");
                }
                if (bases[i] > bus && (i == 0 || lasts[i - 1] < bus)) {
                    around.add("above: '" + labels[i] + "' starts at " + hex(bases[i]));
                }
            }
            return String.join(", ", around);
        }

        @Override
        public String toString() {
            if (bases.length == 0) {
                return "no regions";
            }
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < bases.length; i++) {
                if (i > 0) {
                    sb.append(", ");
                }
                sb.append('\'').append(labels[i]).append("' [").append(hex(bases[i])).append(", ")
                    .append(hex(lasts[i])).append(']');
            }
            return sb.toString();
        }
    }
}
