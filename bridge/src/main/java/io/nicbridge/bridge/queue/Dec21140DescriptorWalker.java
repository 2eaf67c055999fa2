package io.nicbridge.bridge.queue;

import static io.nicbridge.bridge.queue.Dec21140DescriptorRing.END_OF_RING;
import static io.nicbridge.bridge.queue.Dec21140DescriptorRing.MAX_SKIP_LONGWORDS;
import static io.nicbridge.bridge.queue.Dec21140DescriptorRing.OWN;
import static io.nicbridge.bridge.queue.Dec21140DescriptorRing.SECOND_ADDRESS_CHAINED;
import static io.nicbridge.bridge.queue.Dec21140DescriptorRing.WORD0;
import static io.nicbridge.bridge.queue.Dec21140DescriptorRing.WORD1;
import static io.nicbridge.bridge.queue.Dec21140DescriptorRing.WORD2;
import static io.nicbridge.bridge.queue.Dec21140DescriptorRing.WORD3;
import static io.nicbridge.bridge.queue.Dec21140DescriptorRing.stride;

import io.nicbridge.bridge.memory.BusError;
import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.memory.DmaView;
import io.nicbridge.contract.Dec21140;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * Card side of one DEC 21140 descriptor list: the chip's current-descriptor pointer and the way it walks the
 * list (docs/hardware-facts.md A.7). Used by the emulated 21140 and by the Java half of the native shim.
 *
 * <p>The walker touches host memory only through a {@link DmaView} (in practice the card's {@link DmaSpace}): it
 * translates the current descriptor's bus address (16 bytes, bounds-checked by the view) before every access, and
 * it never follows buffer addresses or word 3 itself; it reports them as bus addresses for the caller to translate
 * the same way. Each {@link #fetch()} takes one {@link DmaView#snapshot() snapshot} of the region table and does
 * translate, region and offset through it, so a host thread registering or unregistering memory at the same time
 * cannot make the region index of one table select a segment of another. {@link #complete(int)} writes through the
 * segment that fetch found, so the host must stop the DMA engine before it unregisters and frees a descriptor list
 * (the {@link DmaSpace} rule: unregister before closing; a stale segment whose memory was freed makes FFM throw
 * {@link IllegalStateException}, it never reaches foreign memory).
 *
 * <p><b>Next-descriptor rule</b> ({@link #nextAddress()}), applied to the descriptor just used:
 * <ol>
 *   <li>end-of-ring (RER/TER) set: back to the list base (CSR3/CSR4) - end-of-ring wins over chain;</li>
 *   <li>else chain bit (RCH/TCH) set: word 3;</li>
 *   <li>else current + 16 + 4 * DSL.</li>
 * </ol>
 * Word 3 is a buffer-2 address unless the chain bit is set, and a buffer-2 size of 0 means no buffer 2
 * ({@link #buffer2Size()} is 0 whenever the chain bit is set), which is what Linux's ring-mode-with-pointers
 * layout needs.
 *
 * <p><b>Handoff.</b> {@link #fetch()} reads word 0 with <i>acquire</i> and only then words 1..3: a descriptor seen
 * as card-owned is fully visible. {@link #complete(int)} writes word 0 := status with OWN clear, with
 * <i>release</i>: the data the card wrote into the buffer before (by DMA) is visible to a host that sees OWN clear.
 *
 * <p>Typical receive step: {@code fetch()}; if {@link #FETCH_HOST_OWNED} the chip suspends (RU) and the frame is
 * dropped; else DMA into the buffers, {@code complete(status)}, {@code advance()}. Not thread-safe: it is one
 * DMA engine.
 */
public final class Dec21140DescriptorWalker {
    /** {@link #fetch()}: the descriptor is owned by the card; its fields are loaded. */
    public static final int FETCH_CARD_OWNED = 0;
    /** {@link #fetch()}: the descriptor is owned by the host; the chip suspends (TU/RU). */
    public static final int FETCH_HOST_OWNED = 1;
    /**
     * {@link #fetch()}: the current address is not a mapped, longword-aligned descriptor: a bus error (CSR5.FBE).
     * The view's reason is a {@link BusError} code; translation failures are also counted by the
     * {@link DmaSpace} ({@link DmaSpace#busErrors()}, {@link DmaSpace#lastErrorCode()}). A misaligned descriptor
     * address is caught here, before translation, and counted only by the walker ({@link #busErrors()}).
     */
    public static final int FETCH_BUS_ERROR = -1;

    private static final long BUS_MASK = 0xFFFF_FFFFL;
    /** Descriptors are longword aligned (CSR3/CSR4 ignore bits 1:0; the walker treats a misaligned pointer as a bus error). */
    private static final int DESC_ALIGN_MASK = Dec21140.DESC_ALIGN - 1;

    private final DmaView dma;
    private final boolean be;
    private int skipLongwords;
    private long listBase;
    private long current;

    // The descriptor loaded by the last successful fetch().
    private boolean loaded;
    private boolean returned;
    private MemorySegment region;
    private long offset;
    private int control;
    private int buffer1;
    private int word3;

    private long fetched;
    private long completed;
    private long hostOwnedFetches;
    private long busErrors;

    /** Little-endian descriptors (CSR0.DBO = 0). */
    public Dec21140DescriptorWalker(DmaView dma) {
        this(dma, ByteOrder.LITTLE_ENDIAN);
    }

    public Dec21140DescriptorWalker(DmaView dma, ByteOrder order) {
        this.dma = Objects.requireNonNull(dma, "dma");
        this.be = IntWords.isBigEndian(order);
    }

    /** CSR0.DSL: longwords skipped between ring-mode descriptors, 0..31. */
    public void setSkipLength(int skipLongwords) {
        if (skipLongwords < 0 || skipLongwords > MAX_SKIP_LONGWORDS) {
            throw new IllegalArgumentException("descriptor skip length (CSR0.DSL) must be 0.." + MAX_SKIP_LONGWORDS
                    + " longwords, was " + skipLongwords);
        }
        this.skipLongwords = skipLongwords;
    }

    public int skipLength() {
        return skipLongwords;
    }

    /** A CSR3/CSR4 write: sets the list base and resets the current pointer to it. */
    public void setListBase(long busAddress) {
        this.listBase = busAddress & BUS_MASK;
        this.current = listBase;
        this.loaded = false;
    }

    public long listBase() {
        return listBase;
    }

    /** Bus address of the current descriptor. */
    public long currentAddress() {
        return current;
    }

    /**
     * Reads the current descriptor: translates its bus address, reads word 0 with acquire, and if the card owns
     * it loads words 1..3.
     *
     * @return {@link #FETCH_CARD_OWNED}, {@link #FETCH_HOST_OWNED} or {@link #FETCH_BUS_ERROR}
     */
    public int fetch() {
        loaded = false;
        if ((current & DESC_ALIGN_MASK) != 0) {
            busErrors++;
            return FETCH_BUS_ERROR;
        }
        DmaView table = dma.snapshot(); // one table for translate, region and offset (see the class comment)
        int r = table.translate(current, Dec21140.DESC_SIZE);
        if (r < 0) { // a BusError code
            busErrors++;
            return FETCH_BUS_ERROR;
        }
        MemorySegment s = table.region(r);
        long off = table.offset(r, current);
        if (!isWordAligned(s, off)) {
            busErrors++;
            return FETCH_BUS_ERROR;
        }
        int status = IntWords.getAcquire(s, off + WORD0, be);
        if ((status & OWN) == 0) {
            hostOwnedFetches++;
            return FETCH_HOST_OWNED;
        }
        region = s;
        offset = off;
        control = IntWords.get(s, off + WORD1, be);
        buffer1 = IntWords.get(s, off + WORD2, be);
        word3 = IntWords.get(s, off + WORD3, be);
        loaded = true;
        returned = false;
        fetched++;
        return FETCH_CARD_OWNED;
    }

    /** Word 1 (RDES1/TDES1) of the fetched descriptor. */
    public int control() {
        requireLoaded("control");
        return control;
    }

    public boolean isEndOfRing() {
        return (control() & END_OF_RING) != 0;
    }

    public boolean isChained() {
        return (control() & SECOND_ADDRESS_CHAINED) != 0;
    }

    /** Buffer-1 bus address (word 2), unsigned 32-bit. */
    public long buffer1Address() {
        requireLoaded("buffer1Address");
        return buffer1 & BUS_MASK;
    }

    public int buffer1Size() {
        return Dec21140DescriptorRing.buffer1Size(control());
    }

    /** Buffer-2 bus address (word 3); meaningful only when {@link #buffer2Size()} is not 0. */
    public long buffer2Address() {
        requireLoaded("buffer2Address");
        return word3 & BUS_MASK;
    }

    /** Buffer-2 size; 0 (no buffer 2) when the chain bit is set, since word 3 is then the next pointer. */
    public int buffer2Size() {
        int c = control();
        return (c & SECOND_ADDRESS_CHAINED) != 0 ? 0 : Dec21140DescriptorRing.buffer2Size(c);
    }

    /** Word 3 as stored, unsigned 32-bit. */
    public long word3() {
        requireLoaded("word3");
        return word3 & BUS_MASK;
    }

    /**
     * Hands the fetched descriptor back to the host: word 0 := {@code status} (OWN clear) with release. For a
     * transmit frame, status is 0 in every descriptor but the LS one.
     *
     * @throws IllegalArgumentException if {@code status} has the OWN bit set
     * @throws IllegalStateException    if the descriptor was already handed back: the host may have re-armed it
     *                                  since, and a second status write would take it back from the host
     */
    public void complete(int status) {
        requireLoaded("complete");
        if (returned) {
            throw new IllegalStateException("descriptor at 0x" + Long.toHexString(current)
                    + " was already handed back to the host; fetch() the next one");
        }
        if ((status & OWN) != 0) {
            throw new IllegalArgumentException("a completion status must not have OWN (bit 31) set: 0x"
                    + Integer.toHexString(status));
        }
        IntWords.setRelease(region, offset + WORD0, be, status);
        returned = true;
        completed++;
    }

    /** The bus address of the descriptor after the fetched one, by the A.7 rule (end-of-ring wins over chain). */
    public long nextAddress() {
        int c = control();
        if ((c & END_OF_RING) != 0) {
            return listBase;
        }
        if ((c & SECOND_ADDRESS_CHAINED) != 0) {
            return word3 & BUS_MASK;
        }
        return (current + stride(skipLongwords)) & BUS_MASK;
    }

    /** Moves the current pointer to {@link #nextAddress()}; the next {@link #fetch()} reads that descriptor. */
    public void advance() {
        current = nextAddress();
        loaded = false;
    }

    public boolean isLoaded() {
        return loaded;
    }

    public long fetched() {
        return fetched;
    }

    public long completed() {
        return completed;
    }

    public long hostOwnedFetches() {
        return hostOwnedFetches;
    }

    public long busErrors() {
        return busErrors;
    }

    private static boolean isWordAligned(MemorySegment s, long off) {
        if (s.isNative()) {
            return ((s.address() + off) & DESC_ALIGN_MASK) == 0;
        }
        return s.maxByteAlignment() >= Dec21140.DESC_ALIGN && (off & DESC_ALIGN_MASK) == 0;
    }

    private void requireLoaded(String operation) {
        if (!loaded) {
            throw new IllegalStateException(operation + "() needs a descriptor loaded by a successful fetch()");
        }
    }
}
