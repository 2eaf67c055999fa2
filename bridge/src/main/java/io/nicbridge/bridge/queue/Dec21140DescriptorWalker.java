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
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * Card side of one DEC 21140 descriptor list: the chip's current-descriptor pointer and the way it walks the
 * list (docs/hardware-facts.md A.7). Used by the emulated 21140 and by the Java half of the native shim.
 *
 * <p>The walker touches host memory only through the accesses of a {@link DmaView} (in practice the card's
 * {@link DmaSpace}), and it never follows buffer addresses or word 3 itself; it reports them as bus addresses for
 * the caller to access the same way. {@link #fetch()} translates the whole 16-byte descriptor once (a descriptor
 * straddling a region end is a bus error before any word is read), then reads its words; {@link #complete(int)}
 * translates again before it writes. So a descriptor list the host unregistered, or freed while still registered,
 * is a {@link BusError} code ({@link BusError#NO_REGION}, {@link BusError#REGION_CLOSED}) that the card reports
 * its own way, never a Java exception on the card's path.
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
    private final ByteOrder order;
    private int skipLongwords;
    private long listBase;
    private long current;

    // The descriptor loaded by the last successful fetch().
    private boolean loaded;
    private boolean returned;
    private int control;
    private int buffer1;
    private int word3;

    private long fetched;
    private long completed;
    private long hostOwnedFetches;
    private long busErrors;
    private int lastErrorCode;

    /** Little-endian descriptors (CSR0.DBO = 0). */
    public Dec21140DescriptorWalker(DmaView dma) {
        this(dma, ByteOrder.LITTLE_ENDIAN);
    }

    public Dec21140DescriptorWalker(DmaView dma, ByteOrder order) {
        this.dma = Objects.requireNonNull(dma, "dma");
        this.order = IntWords.isBigEndian(order) ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
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
            return busError(BusError.MISALIGNED);
        }
        DmaView table = dma.snapshot(); // one table for the bounds check and the four reads
        int r = table.translate(current, Dec21140.DESC_SIZE);
        if (r < 0) { // a BusError code: not all 16 bytes are there
            return busError(r);
        }
        long status = table.readIntAcquire(current + WORD0, order); // acquire: the host's words 1..3 are visible
        if (status < 0) { // misaligned in host memory
            return busError((int) status);
        }
        if ((status & OWN) == 0) {
            hostOwnedFetches++;
            return FETCH_HOST_OWNED;
        }
        long w1 = table.readInt(current + WORD1, order);
        long w2 = table.readInt(current + WORD2, order);
        long w3 = table.readInt(current + WORD3, order);
        if (w1 < 0 || w2 < 0 || w3 < 0) { // cannot happen in one table after the 16-byte check; kept explicit
            return busError((int) Math.min(w1, Math.min(w2, w3)));
        }
        control = (int) w1;
        buffer1 = (int) w2;
        word3 = (int) w3;
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
     * @return 0, or a negative {@link BusError} code when the descriptor's memory is gone (unregistered or freed
     *         since the fetch): nothing was written and the descriptor is not handed back
     * @throws IllegalArgumentException if {@code status} has the OWN bit set
     * @throws IllegalStateException    if the descriptor was already handed back: the host may have re-armed it
     *                                  since, and a second status write would take it back from the host
     */
    public int complete(int status) {
        requireLoaded("complete");
        if (returned) {
            throw new IllegalStateException("descriptor at 0x" + Long.toHexString(current)
                    + " was already handed back to the host; fetch() the next one");
        }
        if ((status & OWN) != 0) {
            throw new IllegalArgumentException("a completion status must not have OWN (bit 31) set: 0x"
                    + Integer.toHexString(status));
        }
        int r = dma.writeIntRelease(current + WORD0, status, order);
        if (r < 0) {
            busError(r);
            return r;
        }
        returned = true;
        completed++;
        return 0;
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

    /** The {@link BusError} code of the last failed {@link #fetch()} or {@link #complete(int)}; 0 before the first. */
    public int lastErrorCode() {
        return lastErrorCode;
    }

    private int busError(int code) {
        busErrors++;
        lastErrorCode = code;
        return FETCH_BUS_ERROR;
    }

    private void requireLoaded(String operation) {
        if (!loaded) {
            throw new IllegalStateException(operation + "() needs a descriptor loaded by a successful fetch()");
        }
    }
}
