package io.nicbridge.bridge.queue;

import static io.nicbridge.contract.Dec21140.*;

import io.nicbridge.contract.Dec21140Desc;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * Host (driver) side of one DEC 21140 descriptor list, receive or transmit, over a segment the caller allocated
 * and registered for DMA at bus address {@code busBase}.
 *
 * <p>Layout and bits are the device contract's ({@code dec21140.h}, generated as {@link io.nicbridge.contract.Dec21140}
 * and {@link Dec21140Desc}): four 32-bit words DES0..DES3, OWN in bit 31 of word 0. The generated struct accessors
 * are fixed little-endian, but CSR0.DBO lets the chip use big-endian descriptors, so the words are accessed through
 * {@link IntWords} in the list's byte order at the generated offsets.
 *
 * <pre>
 * segment byte 0 = bus address busBase
 * +----------------+------------+----------------+------------+-- ... --+----------------+
 * | descriptor 0   | skip 4*DSL | descriptor 1   | skip 4*DSL |         | descriptor n-1 |
 * +----------------+------------+----------------+------------+-- ... --+----------------+
 *  stride = 16 + 4 * DSL bytes
 *  RING mode : end-of-ring (RER/TER) set in descriptor n-1; word 3 also holds the next descriptor's bus address
 *              without the chain bit (Linux style: harmless, the chip follows word 3 only when the chain bit is set)
 *  CHAIN mode: chain bit (RCH/TCH) set in every descriptor, word 3 = bus address of the next, n-1 points to 0
 * </pre>
 *
 * <p><b>Handoff (host to card).</b> Every posting method writes words 1..3 first and word 0 := OWN last, with
 * <i>release</i>: a card that reads OWN with acquire sees the whole descriptor. For a transmit frame spanning
 * several descriptors, OWN is set in descriptors 2..n first and in the FIRST descriptor last. The chip walks
 * forward from the first descriptor and may be polling at any moment (TX auto-poll, or a CSR1 demand for an
 * earlier frame); if the first descriptor became card-owned while a later one was still host-owned, the chip
 * would start the frame, hit the host-owned descriptor mid-frame and underflow, putting a truncated frame on the
 * wire. Owning the first descriptor last makes the whole frame appear to the chip atomically (Linux drivers with
 * scatter-gather transmit do the same).
 *
 * <p><b>Handoff (card to host).</b> The card writes status and clears OWN with release; {@link #isHostOwned},
 * {@link #status} and {@link #reclaim} read word 0 with acquire, after which the rest of the descriptor and the
 * buffer it names are the host's.
 *
 * <p>Descriptors can be posted by explicit index ({@link #arm}) or in ring order through the cursor API
 * ({@link #postReceive}, {@link #claimTransmit}/{@link #addTransmitBuffers}/{@link #commitTransmit},
 * {@link #reclaim}); a ring should use one style or the other. Construction initialises every descriptor as
 * host-owned, so do it before the card is started. Not thread-safe: one driver thread per ring.
 */
public final class Dec21140DescriptorRing {
    /** Which list this is: the chip's receive list (CSR3) or transmit list (CSR4). */
    public enum Direction { RECEIVE, TRANSMIT }

    /** How the chip finds the next descriptor. */
    public enum ListMode { RING, CHAIN }

    /** Transmit control bits a caller may pass to {@link #commitTransmit}. */
    public static final int TX_FLAGS = TDES1_IC | TDES1_AC | TDES1_DPD | TDES1_SET | TDES1_FT0 | TDES1_FT1;
    /** Control bits {@link #stageTransmit} accepts: {@link #TX_FLAGS} plus FS and LS, set exactly as given. */
    public static final int STAGE_FLAGS = TX_FLAGS | TDES1_FS | TDES1_LS;
    private static final int FIRST_DESCRIPTOR_FLAGS = TDES1_AC | TDES1_DPD | TDES1_SET | TDES1_FT0 | TDES1_FT1;

    private static final long BUS_LIMIT = 1L << 32;

    // Word offsets (dec21140_desc_t).
    static final long WORD0 = Dec21140Desc.OFFSET_DES0;
    static final long WORD1 = Dec21140Desc.OFFSET_DES1;
    static final long WORD2 = Dec21140Desc.OFFSET_DES2;
    static final long WORD3 = Dec21140Desc.OFFSET_DES3;

    // Receive and transmit descriptors keep these in the same place (RDES0_OWN == TDES0_OWN, RDES1_RER ==
    // TDES1_TER, RDES1_RCH == TDES1_TCH, RBSn == TBSn; DescriptorContractTest checks it), so code that serves
    // both directions names them once.
    static final int OWN = RDES0_OWN;
    static final int END_OF_RING = RDES1_RER;
    static final int SECOND_ADDRESS_CHAINED = RDES1_RCH;
    static final int BS1_SHIFT = RDES1_RBS1_SHIFT;
    static final int BS1_MASK = RDES1_RBS1_MASK;
    static final int BS2_SHIFT = RDES1_RBS2_SHIFT;
    static final int BS2_MASK = RDES1_RBS2_MASK;

    /** CSR0.DSL, the longwords skipped between ring-mode descriptors: the width of its field. */
    static final int MAX_SKIP_LONGWORDS = CSR0_DSL_MASK >>> CSR0_DSL_SHIFT;
    /**
     * Receive buffer sizes must be multiples of 4 (A.6, the RBS1/RBS2 comments in dec21140.h; no named constant), so
     * the largest is the largest multiple of 4 in the 11-bit field: 2044.
     */
    private static final int RX_BUFFER_SIZE_UNIT = 4;
    private static final int MAX_RX_BUFFER_BYTES = BUFFER_SIZE_MAX & -RX_BUFFER_SIZE_UNIT;

    private final MemorySegment segment;
    private final long busBase;
    private final int count;
    private final int stride;
    private final Direction direction;
    private final ListMode mode;
    private final boolean be;

    private int headSlot;    // next descriptor the cursor API posts
    private int tailSlot;    // oldest descriptor posted and not reclaimed
    private int posted;      // descriptors posted through the cursor API and not reclaimed
    private int txFirst = -1;
    private int txPlanned;
    private int txAdded;
    private long postedDescriptors;
    private long postedFrames;
    private long reclaimed;

    /** Little-endian descriptors (CSR0.DBO = 0). */
    public Dec21140DescriptorRing(MemorySegment segment, long busBase, int count, int skipLongwords,
                                  Direction direction, ListMode mode) {
        this(segment, busBase, count, skipLongwords, direction, mode, ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * @param segment       memory holding the descriptors; byte 0 is at {@code busBase}
     * @param busBase       bus address of {@code segment} (32-bit, 4-byte aligned); what CSR3/CSR4 is set to
     * @param count         number of descriptors, at least 1
     * @param skipLongwords CSR0.DSL, 0..31
     * @param order         descriptor byte order: little-endian, or big-endian when CSR0.DBO is set
     */
    public Dec21140DescriptorRing(MemorySegment segment, long busBase, int count, int skipLongwords,
                                  Direction direction, ListMode mode, ByteOrder order) {
        Objects.requireNonNull(direction, "direction");
        Objects.requireNonNull(mode, "mode");
        if (count < 1) {
            throw new IllegalArgumentException("a descriptor list needs at least 1 descriptor, count was " + count);
        }
        if (skipLongwords < 0 || skipLongwords > MAX_SKIP_LONGWORDS) {
            throw new IllegalArgumentException("descriptor skip length (CSR0.DSL) must be 0.." + MAX_SKIP_LONGWORDS
                    + " longwords, was " + skipLongwords);
        }
        int stride = stride(skipLongwords);
        long bytes = (long) (count - 1) * stride + DESC_SIZE;
        IntWords.checkRegion(segment, 0, bytes, count + " descriptors at stride " + stride);
        if ((busBase & 3) != 0 || busBase < 0 || busBase > BUS_LIMIT - bytes) {
            throw new IllegalArgumentException("descriptor list bus address 0x" + Long.toHexString(busBase)
                    + " must be longword aligned and the list (" + bytes + " bytes) must fit below 4 GiB");
        }
        this.segment = segment;
        this.busBase = busBase;
        this.count = count;
        this.stride = stride;
        this.direction = direction;
        this.mode = mode;
        this.be = IntWords.isBigEndian(order);
        for (int i = 0; i < count; i++) {
            long d = offsetOf(i);
            IntWords.set(segment, d + WORD1, be, listBits(i));
            IntWords.set(segment, d + WORD2, be, 0);
            IntWords.set(segment, d + WORD3, be, (int) busAddress((i + 1) % count));
            IntWords.setRelease(segment, d + WORD0, be, 0);
        }
    }

    // ------------------------------------------------------------------ contract helpers

    /** Distance between consecutive ring-mode descriptors for CSR0.DSL = {@code skipLongwords}. */
    public static int stride(int skipLongwords) {
        return DESC_SIZE + DSL_UNIT_BYTES * skipLongwords;
    }

    /** RDES0.FL: frame length including the 4-byte FCS (valid in the LS descriptor). */
    public static int frameLength(int rdes0) {
        return (rdes0 & RDES0_FL_MASK) >>> RDES0_FL_SHIFT;
    }

    /** Linux's acceptance test of a received frame's RDES0 (tulip interrupt.c): FS and LS, no error bits. */
    public static boolean isGoodReceive(int rdes0) {
        return (rdes0 & LINUX_RX_ACCEPT_MASK) == LINUX_RX_ACCEPT_VALUE;
    }

    /** Buffer-1 size field of word 1 (RBS1/TBS1). */
    static int buffer1Size(int control) {
        return (control & BS1_MASK) >>> BS1_SHIFT;
    }

    /** Buffer-2 size field of word 1 (RBS2/TBS2); meaningless when the chain bit is set. */
    static int buffer2Size(int control) {
        return (control & BS2_MASK) >>> BS2_SHIFT;
    }

    // ------------------------------------------------------------------ geometry

    public int count() {
        return count;
    }

    public int stride() {
        return stride;
    }

    public Direction direction() {
        return direction;
    }

    public ListMode mode() {
        return mode;
    }

    public ByteOrder order() {
        return be ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
    }

    public MemorySegment segment() {
        return segment;
    }

    /** The list base the chip's CSR3 (receive) or CSR4 (transmit) must hold. */
    public long busBase() {
        return busBase;
    }

    /** Bus address of descriptor {@code i}. */
    public long busAddress(int i) {
        checkIndex(i);
        return busBase + (long) i * stride;
    }

    /** Byte offset of descriptor {@code i} in {@link #segment()}. */
    public long offsetOf(int i) {
        checkIndex(i);
        return (long) i * stride;
    }

    // ------------------------------------------------------------------ ownership and status

    /** Word 0 read with acquire: true when the card has handed the descriptor back (or never had it). */
    public boolean isHostOwned(int i) {
        return (IntWords.getAcquire(segment, offsetOf(i) + WORD0, be) & OWN) == 0;
    }

    /** Word 0 (RDES0/TDES0) read with acquire: status written by the card, OWN in bit 31. */
    public int status(int i) {
        return IntWords.getAcquire(segment, offsetOf(i) + WORD0, be);
    }

    /** Word 1 (RDES1/TDES1): control and sizes as written by the host. */
    public int control(int i) {
        return IntWords.get(segment, offsetOf(i) + WORD1, be);
    }

    /** Word 2: buffer-1 bus address, unsigned 32-bit. */
    public long buffer1Address(int i) {
        return IntWords.get(segment, offsetOf(i) + WORD2, be) & 0xFFFF_FFFFL;
    }

    /** Word 3: buffer-2 bus address or next-descriptor pointer, unsigned 32-bit. */
    public long word3(int i) {
        return IntWords.get(segment, offsetOf(i) + WORD3, be) & 0xFFFF_FFFFL;
    }

    // ------------------------------------------------------------------ receive

    /** {@link #arm(int, long, int, long, int)} with one buffer. */
    public void arm(int i, long bufferBusAddress, int size) {
        arm(i, bufferBusAddress, size, 0, 0);
    }

    /**
     * Posts receive descriptor {@code i} to the card: RDES1 (sizes, end-of-ring/chain bits), RDES2, RDES3, then
     * RDES0 := OWN with release.
     *
     * @param size1 buffer-1 size, a multiple of 4 in 4..2044
     * @param size2 buffer-2 size, 0 (none) or a multiple of 4 up to 2044; must be 0 in chain mode, where word 3
     *              is the next-descriptor pointer
     * @throws IllegalStateException if descriptor {@code i} is owned by the card
     */
    public void arm(int i, long buffer1BusAddress, int size1, long buffer2BusAddress, int size2) {
        requireDirection(Direction.RECEIVE, "arm");
        checkIndex(i);
        checkRxBuffer(1, buffer1BusAddress, size1, false);
        checkRxBuffer(2, buffer2BusAddress, size2, true);
        long d = offsetOf(i);
        if ((IntWords.getAcquire(segment, d + WORD0, be) & OWN) != 0) {
            throw new IllegalStateException("receive descriptor " + i + " is owned by the card");
        }
        writeBuffers(d, i, buffer1BusAddress, size1, buffer2BusAddress, size2);
        IntWords.setRelease(segment, d + WORD0, be, OWN); // handoff: everything above is visible with OWN
        postedDescriptors++;
    }

    /**
     * Cursor API: arms the next descriptor in ring order with one buffer.
     *
     * @return its index, or {@link QueueCode#FULL} when every descriptor is posted and not yet reclaimed
     */
    public int postReceive(long bufferBusAddress, int size) {
        requireDirection(Direction.RECEIVE, "postReceive");
        if (posted == count) {
            return QueueCode.FULL;
        }
        int i = headSlot;
        arm(i, bufferBusAddress, size, 0, 0);
        headSlot = slot(headSlot + 1);
        posted++;
        postedFrames++;
        return i;
    }

    // ------------------------------------------------------------------ transmit

    /**
     * Cursor API, step 1 of posting a transmit frame: reserves {@code descriptors} consecutive descriptors.
     *
     * @return the index of the first, or {@link QueueCode#FULL} when fewer are free (back-pressure)
     * @throws IllegalStateException if a frame is already being built
     */
    public int claimTransmit(int descriptors) {
        requireDirection(Direction.TRANSMIT, "claimTransmit");
        if (txFirst >= 0) {
            throw new IllegalStateException("a transmit frame of " + txPlanned + " descriptors is already claimed");
        }
        if (descriptors < 1 || descriptors > count) {
            throw new IllegalArgumentException("a frame needs 1.." + count + " descriptors, was " + descriptors);
        }
        if (count - posted < descriptors) {
            return QueueCode.FULL;
        }
        txFirst = headSlot;
        txPlanned = descriptors;
        txAdded = 0;
        return txFirst;
    }

    /**
     * Step 2, once per claimed descriptor in frame order: buffer 1 and buffer 2 of the next descriptor (TDES2,
     * TDES3, TDES1 sizes). Lengths are 0..2047 and may be odd; buffers may be byte aligned. In chain mode buffer 2
     * must be empty because word 3 is the next-descriptor pointer.
     */
    public void addTransmitBuffers(long buffer1BusAddress, int length1, long buffer2BusAddress, int length2) {
        if (txFirst < 0) {
            throw new IllegalStateException("addTransmitBuffers() without claimTransmit()");
        }
        if (txAdded == txPlanned) {
            throw new IllegalStateException("all " + txPlanned + " claimed descriptors already have buffers");
        }
        checkTxBuffer(1, buffer1BusAddress, length1);
        checkTxBuffer(2, buffer2BusAddress, length2);
        int i = slot(headSlot + txAdded);
        writeBuffers(offsetOf(i), i, buffer1BusAddress, length1, buffer2BusAddress, length2);
        txAdded++;
    }

    /**
     * Step 3: hands the frame to the card. Sets FS in the first descriptor and LS in the last, {@code flags}
     * ({@link #TX_FLAGS}: IC goes to the last descriptor, where the chip reads it; AC, DPD, SET, FT0/FT1 to the
     * first), then OWN in descriptors 2..n and finally OWN in the first, each with release (see class comment).
     *
     * @return the index of the first descriptor
     */
    public int commitTransmit(int flags) {
        if (txFirst < 0) {
            throw new IllegalStateException("commitTransmit() without claimTransmit()");
        }
        if (txAdded != txPlanned) {
            throw new IllegalStateException("only " + txAdded + " of " + txPlanned + " claimed descriptors have buffers");
        }
        checkTxFlags(flags);
        int n = txPlanned;
        for (int k = 0; k < n; k++) {
            long d = offsetOf(slot(headSlot + k));
            int control = IntWords.get(segment, d + WORD1, be);
            if (k == 0) {
                control |= TDES1_FS | (flags & FIRST_DESCRIPTOR_FLAGS);
            }
            if (k == n - 1) {
                control |= TDES1_LS | (flags & TDES1_IC);
            }
            IntWords.set(segment, d + WORD1, be, control);
            IntWords.set(segment, d + WORD0, be, 0); // clear the previous frame's status
        }
        for (int k = 1; k < n; k++) {
            IntWords.setRelease(segment, offsetOf(slot(headSlot + k)) + WORD0, be, OWN);
        }
        // The handoff of the whole frame: only now can the chip start it.
        IntWords.setRelease(segment, offsetOf(txFirst) + WORD0, be, OWN);
        int first = txFirst;
        headSlot = slot(headSlot + n);
        posted += n;
        postedDescriptors += n;
        postedFrames++;
        txFirst = -1;
        return first;
    }

    /** One-descriptor frame (FS and LS): claim, buffers, commit. Returns the index or {@link QueueCode#FULL}. */
    public int transmit(long buffer1BusAddress, int length1, long buffer2BusAddress, int length2, int flags) {
        checkTxBuffer(1, buffer1BusAddress, length1);
        checkTxBuffer(2, buffer2BusAddress, length2);
        checkTxFlags(flags);
        if (claimTransmit(1) < 0) {
            return QueueCode.FULL;
        }
        addTransmitBuffers(buffer1BusAddress, length1, buffer2BusAddress, length2);
        return commitTransmit(flags);
    }

    /**
     * Cursor API for a transmit descriptor that is not simply one frame: writes the next descriptor in ring order
     * with exactly the control bits given ({@link #STAGE_FLAGS}: FS and LS are NOT added) and buffer 1, and leaves
     * it <b>host-owned</b>; {@link #handOver(int)} gives it to the card later. This is how Linux queues a setup
     * frame behind a dummy descriptor: the dummy (no FS/LS, length 0) is staged first, the setup descriptor is
     * posted and owned, and only then is the dummy handed over, so a chip that is polling never runs from the dummy
     * into a half-written setup descriptor. Hand every staged descriptor over before the next {@link #reclaim()}:
     * a host-owned descriptor looks "done" to reclaim.
     *
     * @param control TDES1 bits from {@link #STAGE_FLAGS}; the list bits (TER/TCH) and the size are added here
     * @return its index, or {@link QueueCode#FULL} when every descriptor is posted and not yet reclaimed
     * @throws IllegalStateException if a frame is being built with {@link #claimTransmit}
     */
    public int stageTransmit(long buffer1BusAddress, int length1, int control) {
        requireDirection(Direction.TRANSMIT, "stageTransmit");
        if (txFirst >= 0) {
            throw new IllegalStateException("stageTransmit() while a transmit frame of " + txPlanned
                    + " descriptors is claimed");
        }
        checkTxBuffer(1, buffer1BusAddress, length1);
        if ((control & ~STAGE_FLAGS) != 0) {
            throw new IllegalArgumentException("staged transmit control may hold only FS, LS, IC, AC, DPD, SET, FT0,"
                    + " FT1; was 0x" + Integer.toHexString(control));
        }
        if (posted == count) {
            return QueueCode.FULL;
        }
        int i = headSlot;
        long d = offsetOf(i);
        writeBuffers(d, i, buffer1BusAddress, length1, 0, 0);
        IntWords.set(segment, d + WORD1, be, IntWords.get(segment, d + WORD1, be) | control);
        IntWords.setRelease(segment, d + WORD0, be, 0); // still the host's: no OWN yet
        headSlot = slot(headSlot + 1);
        posted++;
        postedDescriptors++;
        return i;
    }

    /**
     * Gives a descriptor staged with {@link #stageTransmit} to the card: word 0 := OWN with release (everything
     * written into the descriptor before is visible to a card that reads OWN with acquire).
     *
     * @throws IllegalStateException if {@code i} is not posted-and-unreclaimed or is already card-owned
     */
    public void handOver(int i) {
        requireDirection(Direction.TRANSMIT, "handOver");
        checkIndex(i);
        int age = i - tailSlot < 0 ? i - tailSlot + count : i - tailSlot;
        if (posted == 0 || age >= posted) {
            throw new IllegalStateException("transmit descriptor " + i + " is not staged (posted window starts at "
                    + tailSlot + ", " + posted + " posted)");
        }
        long d = offsetOf(i);
        if ((IntWords.getAcquire(segment, d + WORD0, be) & OWN) != 0) {
            throw new IllegalStateException("transmit descriptor " + i + " is already owned by the card");
        }
        IntWords.setRelease(segment, d + WORD0, be, OWN);
    }

    /** Abandons a claimed, uncommitted transmit frame; nothing was handed to the card. */
    public void abortTransmit() {
        txFirst = -1;
    }

    // ------------------------------------------------------------------ reclaim (both directions)

    /**
     * Cursor API: the oldest descriptor posted through the cursor API, if the card has handed it back (word 0
     * read with acquire: its status and buffer are now the host's). Read {@link #status} before re-posting it.
     *
     * @return its index, or {@link QueueCode#EMPTY} if none is posted or the oldest is still owned by the card
     */
    public int reclaim() {
        if (posted == 0) {
            return QueueCode.EMPTY;
        }
        int i = tailSlot;
        if ((IntWords.getAcquire(segment, offsetOf(i) + WORD0, be) & OWN) != 0) {
            return QueueCode.EMPTY;
        }
        tailSlot = slot(tailSlot + 1);
        posted--;
        reclaimed++;
        return i;
    }

    /**
     * The chip was reset and forgot this list (CSR3/CSR4 back to their reset values, its current-descriptor pointer
     * gone): every descriptor becomes the host's again (word 0 := 0, written with release, so no OWN is left for a
     * chip that is restarted on this list) and the cursor API starts over at descriptor 0, as on a fresh list. What
     * was posted and not reclaimed is dropped from the cursor's books; the caller reads what it needs first
     * ({@link #control}, {@link #buffer1Address}). The lifetime totals are kept.
     */
    public void restart() {
        for (int i = 0; i < count; i++) {
            long d = offsetOf(i);
            IntWords.set(segment, d + WORD1, be, listBits(i));
            IntWords.set(segment, d + WORD2, be, 0);
            IntWords.set(segment, d + WORD3, be, (int) busAddress((i + 1) % count));
            IntWords.setRelease(segment, d + WORD0, be, 0);
        }
        headSlot = 0;
        tailSlot = 0;
        posted = 0;
        txFirst = -1;
    }

    /**
     * Takes descriptor {@code i} back from a chip that was reset and so will never hand it back itself: word 0 := 0
     * with release. For a receive list whose host keeps its own books (re-armed with {@link #arm} afterwards).
     */
    public void takeBack(int i) {
        checkIndex(i);
        IntWords.setRelease(segment, offsetOf(i) + WORD0, be, 0);
    }

    /** Descriptors posted through the cursor API and not yet reclaimed. */
    public int inFlight() {
        return posted;
    }

    public int freeDescriptors() {
        return count - posted - (txFirst >= 0 ? txPlanned : 0);
    }

    public long postedDescriptors() {
        return postedDescriptors;
    }

    public long postedFrames() {
        return postedFrames;
    }

    public long reclaimedDescriptors() {
        return reclaimed;
    }

    // ------------------------------------------------------------------ internals

    /** {@code slot + k} wrapped, for {@code 0 <= slot < count} and {@code 0 <= k <= count}. */
    private int slot(int slotPlusK) {
        return slotPlusK >= count ? slotPlusK - count : slotPlusK;
    }

    private int listBits(int i) {
        if (mode == ListMode.CHAIN) {
            return SECOND_ADDRESS_CHAINED;
        }
        return i == count - 1 ? END_OF_RING : 0;
    }

    private void writeBuffers(long d, int i, long buffer1, int size1, long buffer2, int size2) {
        int next = (int) (busBase + (long) ((i + 1) % count) * stride);
        int word3 = mode == ListMode.RING && size2 > 0 ? (int) buffer2 : next;
        IntWords.set(segment, d + WORD1, be, listBits(i) | size2 << BS2_SHIFT | size1 << BS1_SHIFT);
        IntWords.set(segment, d + WORD2, be, (int) buffer1);
        IntWords.set(segment, d + WORD3, be, word3);
    }

    private void checkRxBuffer(int which, long bus, int size, boolean optional) {
        if (optional && size == 0) {
            return;
        }
        if (which == 2 && mode == ListMode.CHAIN) {
            throw new IllegalArgumentException("chain mode: word 3 is the next-descriptor pointer, buffer 2 size must be 0, was " + size);
        }
        if (size <= 0 || size > BUFFER_SIZE_MAX) {
            throw new IllegalArgumentException("receive buffer " + which + " size must be " + RX_BUFFER_SIZE_UNIT
                    + ".." + MAX_RX_BUFFER_BYTES + " bytes (at most " + BUFFER_SIZE_MAX + "), was " + size);
        }
        if ((size & (RX_BUFFER_SIZE_UNIT - 1)) != 0) {
            throw new IllegalArgumentException("receive buffer " + which + " size must be a multiple of 4, was " + size);
        }
        checkBus(which, bus, size);
        if ((bus & 3) != 0) {
            throw new IllegalArgumentException("receive buffer " + which + " address 0x" + Long.toHexString(bus)
                    + " must be longword aligned");
        }
    }

    private void checkTxBuffer(int which, long bus, int length) {
        if (length < 0 || length > BUFFER_SIZE_MAX) {
            throw new IllegalArgumentException("transmit buffer " + which + " length must be 0.." + BUFFER_SIZE_MAX
                    + ", was " + length);
        }
        if (length == 0) {
            return;
        }
        if (which == 2 && mode == ListMode.CHAIN) {
            throw new IllegalArgumentException("chain mode: word 3 is the next-descriptor pointer, buffer 2 length must be 0, was " + length);
        }
        checkBus(which, bus, length);
    }

    private static void checkBus(int which, long bus, int size) {
        if (bus < 0 || bus > BUS_LIMIT - size) {
            throw new IllegalArgumentException("buffer " + which + " [0x" + Long.toHexString(bus) + ", +" + size
                    + ") is not a 32-bit bus range");
        }
    }

    private static void checkTxFlags(int flags) {
        if ((flags & ~TX_FLAGS) != 0) {
            throw new IllegalArgumentException("transmit flags may hold only IC, AC, DPD, SET, FT0, FT1; was 0x"
                    + Integer.toHexString(flags));
        }
    }

    private void requireDirection(Direction expected, String operation) {
        if (direction != expected) {
            throw new IllegalStateException(operation + "() is a " + expected + " operation but this is a " + direction + " list");
        }
    }

    private void checkIndex(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("descriptor index must be 0.." + (count - 1) + ", was " + i);
        }
    }
}
