package io.nicbridge.bridge.queue;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.contract.Sba200UnetSendDesc;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * User side of a U-Net endpoint's send queue: {@link io.nicbridge.contract.Sba200Unet#SQ_LEN} x 64-byte descriptors
 * ({@link Sba200UnetSendDesc}) at {@link io.nicbridge.contract.Sba200Unet#SQ_OFS} of the endpoint page, producer index {@code sq_prod} (written here), consumer index {@code sq_cons} (written by the NI).
 *
 * <p><b>Handoff (user to NI).</b> {@link #claim()} a descriptor, write its body ({@link #putBuffer},
 * {@link #putInline}, {@link #putWord}), then {@link #commit}: w1 := 0 (pending), then w0 with VALID is stored with
 * <i>release</i> (the body is visible to whoever sees VALID), then {@code sq_prod} is stored with release (the
 * NI's doorbell). <b>Handoff back.</b> The NI writes w1 (status) and clears VALID, then advances {@code sq_cons} with
 * release; {@link #pollCompletion()} reads {@code sq_cons} with acquire and then w1.
 *
 * <p>A slot is reused only after its completion status has been collected, either by {@link #pollCompletion()} or
 * automatically by {@link #claim()} when the queue looks full (then the status is only counted). Full is therefore
 * exactly the contract's {@code sq_prod - sq_cons == SQ_LEN} when nothing is waiting to be collected.
 *
 * <p>Not thread-safe: one user thread per endpoint, like the hardware queue it drives. Nothing on the hot path
 * allocates.
 */
public final class UnetSendQueue {
    private final MemorySegment page;
    private final boolean be;
    private final SpscDescriptorQueue queue;
    private SpscDescriptorQueue.Producer producer;
    private int reclaimIndex;
    private long completedOk;
    private long completedWithError;
    private long protocolErrors;

    /** A view over {@code endpointPage} (at least {@link io.nicbridge.contract.Sba200Unet#EP_PAGE_SIZE} bytes), big-endian words as in the contract. */
    public UnetSendQueue(MemorySegment endpointPage) {
        this(endpointPage, ByteOrder.BIG_ENDIAN);
    }

    public UnetSendQueue(MemorySegment endpointPage, ByteOrder order) {
        this.queue = sendQueueOver(endpointPage, order);
        this.page = endpointPage;
        this.be = queue.bigEndian();
        this.producer = queue.producer();
        this.reclaimIndex = producer.index();
    }

    static SpscDescriptorQueue sendQueueOver(MemorySegment endpointPage, ByteOrder order) {
        IntWords.checkRegion(endpointPage, 0, EP_PAGE_SIZE, "U-Net endpoint page");
        return new SpscDescriptorQueue(endpointPage, SQ_OFS, SEND_DESC_SIZE, SQ_LEN,
                endpointPage, EPCB_SQ_PROD_OFS, EPCB_SQ_CONS_OFS, order);
    }

    /**
     * Claims the next send descriptor.
     *
     * @return its byte offset in the endpoint page; {@link QueueCode#FULL} when all
     *         {@link io.nicbridge.contract.Sba200Unet#SQ_LEN} descriptors are in flight (back-pressure);
     *         {@link QueueCode#PEER_CORRUPT} when the NI's {@code sq_cons} is impossible (counted in
     *         {@link #protocolErrors()}): ahead of what was posted, or behind completions already collected (a page
     *         the card's firmware wiped in a restart reads {@code sq_cons} 0)
     */
    public long claim() {
        if (producer.index() - reclaimIndex == SQ_LEN) {
            int reaped = pollCompletion();
            if (reaped < 0) {
                return reaped == QueueCode.PEER_CORRUPT ? QueueCode.PEER_CORRUPT : QueueCode.FULL;
            }
        }
        long d = producer.claim();
        if (d == QueueCode.FULL) {
            // The producer end sees SQ_LEN uncollected by sq_cons, but fewer are uncollected here: every completion
            // collected was read below an sq_cons at least as high, and sq_cons never goes back on a live card.
            protocolErrors++;
            return QueueCode.PEER_CORRUPT;
        }
        return d;
    }

    /** Writes buffer pair {@code i} (0..5) of the claimed descriptor: {@code length} bytes at segment {@code offset}. */
    public void putBuffer(long descriptor, int i, int offset, int length) {
        UnetDescriptors.checkOffset(descriptor, producer.claimedOffset(), "putBuffer");
        UnetDescriptors.putBuffer(page, be, descriptor + Sba200UnetSendDesc.OFFSET_BUFS, i, offset, length);
    }

    /** Copies {@code length} (at most 40) inline payload bytes into w2..w11 of the claimed descriptor. */
    public void putInline(long descriptor, MemorySegment src, long srcOffset, int length) {
        UnetDescriptors.checkOffset(descriptor, producer.claimedOffset(), "putInline");
        UnetDescriptors.putInline(page, descriptor + SEND_DESC_INLINE_OFS, src, srcOffset, length);
    }

    /** Writes body word {@code word} (1..15) of the claimed descriptor; w0 is written only by {@link #commit}. */
    public void putWord(long descriptor, int word, int value) {
        UnetDescriptors.checkOffset(descriptor, producer.claimedOffset(), "putWord");
        UnetDescriptors.putBodyWord(page, be, descriptor, word, value);
    }

    /**
     * Hands the claimed descriptor to the NI. The handoff order is the point of this method: w1 := pending, then
     * w0 := fields | VALID with release, then {@code sq_prod} with release.
     *
     * @param nbufs 1..6 buffer pairs, or 0 with {@code inline} (length at most 40)
     */
    public void commit(long descriptor, int length, int channel, int nbufs, boolean inline) {
        UnetDescriptors.checkOffset(descriptor, producer.claimedOffset(), "commit");
        UnetDescriptors.checkMessage(length, channel, nbufs, inline);
        IntWords.set(page, descriptor + Sba200UnetSendDesc.OFFSET_STATUS, be, TX_STATUS_PENDING);
        int w0 = (inline ? TX_INLINE : 0) | nbufs << TX_NBUFS_SHIFT | channel << TX_CHAN_SHIFT | length << TX_LENGTH_SHIFT;
        IntWords.setRelease(page, descriptor + Sba200UnetSendDesc.OFFSET_W0, be, w0 | TX_VALID);
        producer.commit();
    }

    /**
     * Claims, fills and commits a one-buffer message.
     *
     * @return the descriptor's byte offset in the endpoint page, or {@link #claim()}'s {@link QueueCode#FULL} /
     *         {@link QueueCode#PEER_CORRUPT} (nothing written)
     */
    public long offer(int channel, int segmentOffset, int length) {
        checkOffer(channel, length);
        long d = claim();
        if (d < 0) {
            return d;
        }
        UnetDescriptors.putBuffer(page, be, d + Sba200UnetSendDesc.OFFSET_BUFS, 0, segmentOffset, length);
        commit(d, length, channel, 1, false);
        return d;
    }

    /**
     * The argument check of {@link #offer}, for a caller that must reject bad arguments before it touches anything
     * else (e.g. reaps completions to make room).
     *
     * @throws IllegalArgumentException when {@code channel} or {@code length} is out of range
     */
    public static void checkOffer(int channel, int length) {
        UnetDescriptors.checkMessage(length, channel, 1, false);
    }

    /**
     * The argument check of {@link #offerInline} (see {@link #checkOffer}).
     *
     * @throws IllegalArgumentException when {@code channel} or {@code length} is out of range
     */
    public static void checkOfferInline(int channel, int length) {
        UnetDescriptors.checkMessage(length, channel, 0, true);
    }

    /**
     * Claims, fills and commits an inline message of at most 40 bytes.
     *
     * @return the descriptor's byte offset in the endpoint page, or {@link #claim()}'s {@link QueueCode#FULL} /
     *         {@link QueueCode#PEER_CORRUPT} (nothing written)
     */
    public long offerInline(int channel, MemorySegment src, long srcOffset, int length) {
        checkOfferInline(channel, length);
        long d = claim();
        if (d < 0) {
            return d;
        }
        UnetDescriptors.putInline(page, d + SEND_DESC_INLINE_OFS, src, srcOffset, length);
        commit(d, length, channel, 0, true);
        return d;
    }

    /**
     * Collects the oldest completed send: reads {@code sq_cons} with acquire (pairs with the NI's release), then
     * the descriptor's w1 status.
     *
     * @return the NI status ({@link io.nicbridge.contract.Sba200Unet#TX_STATUS_SENT}, or an error status, all
     *         &gt;= 0); {@link QueueCode#EMPTY} if none is completed; {@link QueueCode#PEER_CORRUPT} when the NI's
     *         {@code sq_cons} is ahead of what was posted (never trusted; counted in {@link #protocolErrors()})
     */
    public int pollCompletion() {
        int consumer = queue.consumerIndexAcquire();
        int done = consumer - reclaimIndex;
        int inFlight = producer.index() - reclaimIndex;
        if (done == 0) {
            return QueueCode.EMPTY;
        }
        if (Integer.compareUnsigned(done, inFlight) > 0) {
            protocolErrors++;
            return QueueCode.PEER_CORRUPT;
        }
        int status = IntWords.get(page, queue.slotOffset(reclaimIndex) + Sba200UnetSendDesc.OFFSET_STATUS, be);
        if (status < 0) {
            status = Integer.MAX_VALUE; // a negative status word is garbage: it must stay an error, not read as a code
        }
        reclaimIndex++;
        if (status == TX_STATUS_SENT) {
            completedOk++;
        } else {
            completedWithError++;
        }
        return status;
    }

    /**
     * The NI was restarted and re-created this endpoint (EP_CREATE gave it a fresh page: both indices 0, every
     * descriptor gone): starts over at index 0 with a new producer end over the page. What was in flight is forgotten;
     * the caller accounts for it ({@link #inFlight()} first). Not on a hot path (it allocates the producer end).
     */
    public void restart() {
        producer = queue.producer();
        reclaimIndex = producer.index();
    }

    /** Descriptors committed and not yet collected by {@link #pollCompletion()}. */
    public int inFlight() {
        return producer.index() - reclaimIndex;
    }

    /** The current producer index: the value of {@code sq_prod} after the last commit. */
    public int producerIndex() {
        return producer.index();
    }

    public long posted() {
        return producer.produced();
    }

    public long completedOk() {
        return completedOk;
    }

    public long completedWithError() {
        return completedWithError;
    }

    /** Impossible {@code sq_cons} values seen: by {@link #pollCompletion()} or by the claim that refreshed it. */
    public long protocolErrors() {
        return protocolErrors + producer.protocolErrors();
    }

    public SpscDescriptorQueue queue() {
        return queue;
    }
}
