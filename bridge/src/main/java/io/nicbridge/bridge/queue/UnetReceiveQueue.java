package io.nicbridge.bridge.queue;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.contract.Sba200UnetRecvDesc;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * User side of a U-Net endpoint's receive queue: {@code rqLen} x 64-byte descriptors in host memory (written by
 * the NI's DMA), with the user's consumer index {@code rq_cons} in the endpoint page's EPCB.
 *
 * <p><b>Handoff (NI to user).</b> The NI writes the descriptor body, then w0 with VALID with release. {@link #poll()}
 * reads w0 of the next slot with <i>acquire</i>; when VALID is set the body is visible. <b>Handoff back.</b>
 * {@link #release} stores w0 := 0 (VALID clear) with release, so the NI, which checks VALID with acquire before it
 * reuses a slot, cannot overwrite the body before the user's reads of it are done; then {@code rq_cons} is stored
 * with release (informational for the NI, which needs only VALID).
 *
 * <p>Receive buffers named by the descriptor belong to the user after {@link #poll()}; give them back through
 * the {@link UnetFreeQueue}. Not thread-safe: one user thread per endpoint.
 */
public final class UnetReceiveQueue {
    private final MemorySegment rq;
    private final long rqOffset;
    private final int mask;
    private final MemorySegment page;
    private final boolean be;
    private int index;
    private long held = -1;
    private long received;

    /** Big-endian view; see {@link #UnetReceiveQueue(MemorySegment, long, int, MemorySegment, ByteOrder)}. */
    public UnetReceiveQueue(MemorySegment rq, long rqOffset, int rqLength, MemorySegment endpointPage) {
        this(rq, rqOffset, rqLength, endpointPage, ByteOrder.BIG_ENDIAN);
    }

    /**
     * @param rq           host memory holding the queue
     * @param rqOffset     byte offset of descriptor 0 in {@code rq} (4-byte aligned)
     * @param rqLength     RQ_LEN: number of descriptors, a power of two
     * @param endpointPage the endpoint page holding {@code rq_cons}; its current value is the starting index
     */
    public UnetReceiveQueue(MemorySegment rq, long rqOffset, int rqLength, MemorySegment endpointPage, ByteOrder order) {
        checkReceiveQueue(rq, rqOffset, rqLength, endpointPage);
        this.rq = rq;
        this.rqOffset = rqOffset;
        this.mask = rqLength - 1;
        this.page = endpointPage;
        this.be = IntWords.isBigEndian(order);
        this.index = IntWords.get(page, EPCB_RQ_CONS_OFS, be);
    }

    static void checkReceiveQueue(MemorySegment rq, long rqOffset, int rqLength, MemorySegment endpointPage) {
        if (rqLength <= 0 || Integer.bitCount(rqLength) != 1) {
            throw new IllegalArgumentException("RQ_LEN must be a power of two (32-bit counters wrap), was " + rqLength);
        }
        IntWords.checkRegion(rq, rqOffset, (long) rqLength * RECV_DESC_SIZE,
                "receive queue of " + rqLength + " descriptors");
        IntWords.checkRegion(endpointPage, 0, EPCB_SIZE, "U-Net endpoint page EPCB");
    }

    /**
     * @return the byte offset in the queue segment of the next received descriptor (VALID seen with acquire), or
     *         {@link QueueCode#EMPTY} if none; polling again before {@link #release} returns the same descriptor.
     *         (The receive queue's ownership word is VALID in each descriptor, not an index: there is no impossible
     *         value, so no {@code PEER_CORRUPT}.)
     */
    public long poll() {
        if (held >= 0) {
            return held;
        }
        long d = rqOffset + (long) (index & mask) * RECV_DESC_SIZE;
        if ((IntWords.getAcquire(rq, d + Sba200UnetRecvDesc.OFFSET_W0, be) & RX_VALID) == 0) {
            return QueueCode.EMPTY;
        }
        held = d;
        return d;
    }

    /** Hands the polled descriptor back to the NI: w0 := 0 with release, then {@code rq_cons} with release. */
    public void release(long descriptor) {
        UnetDescriptors.checkOffset(descriptor, held, "release");
        IntWords.setRelease(rq, descriptor + Sba200UnetRecvDesc.OFFSET_W0, be, 0);
        index++;
        IntWords.setRelease(page, EPCB_RQ_CONS_OFS, be, index);
        held = -1;
        received++;
    }

    /**
     * The NI was restarted and re-created this endpoint: it writes from descriptor 0 again, so every descriptor it
     * filled and the user has not polled is dropped (w0 := 0 with release) and the user's index and {@code rq_cons}
     * start at 0 again, as the fresh endpoint's. Call only with nothing held.
     *
     * @return the descriptors that were VALID and are dropped; their buffers are the caller's to re-post
     * @throws IllegalStateException while a descriptor is held
     */
    public int restart(DroppedDescriptor dropped) {
        if (held >= 0) {
            throw new IllegalStateException("receive queue restart while descriptor at " + held + " is held");
        }
        int n = 0;
        for (int i = 0; i <= mask; i++) {
            long d = rqOffset + (long) i * RECV_DESC_SIZE;
            if ((IntWords.getAcquire(rq, d + Sba200UnetRecvDesc.OFFSET_W0, be) & RX_VALID) != 0) {
                dropped.dropped(d);
                IntWords.setRelease(rq, d + Sba200UnetRecvDesc.OFFSET_W0, be, 0);
                n++;
            }
        }
        index = 0; // the re-created endpoint's receive queue starts at 0 (a release meanwhile may have stored rq_cons)
        IntWords.setRelease(page, EPCB_RQ_CONS_OFS, be, 0);
        return n;
    }

    /** What {@link #restart} tells its caller about each descriptor it drops, before w0 is cleared. */
    @FunctionalInterface
    public interface DroppedDescriptor {
        void dropped(long descriptor);
    }

    public int word0(long descriptor) {
        return IntWords.get(rq, descriptor + Sba200UnetRecvDesc.OFFSET_W0, be);
    }

    public int length(long descriptor) {
        return UnetDescriptors.field(word0(descriptor), RX_LENGTH_MASK, RX_LENGTH_SHIFT);
    }

    public int channel(long descriptor) {
        return UnetDescriptors.field(word0(descriptor), RX_CHAN_MASK, RX_CHAN_SHIFT);
    }

    public int nbufs(long descriptor) {
        return UnetDescriptors.field(word0(descriptor), RX_NBUFS_MASK, RX_NBUFS_SHIFT);
    }

    public boolean isInline(long descriptor) {
        return (word0(descriptor) & RX_INLINE) != 0;
    }

    public boolean isError(long descriptor) {
        return (word0(descriptor) & RX_ERROR) != 0;
    }

    /** w1 bits 23:16: {@link io.nicbridge.contract.Sba200Unet#RX_ERR_CRC} etc., {@code RX_ERR_NONE} (0) when no error. */
    public int errorCode(long descriptor) {
        return UnetDescriptors.field(w1(descriptor), RX_ERR_MASK, RX_ERR_SHIFT);
    }

    /** w1 bits 15:8: the AAL5 CPCS-UU byte. */
    public int userToUser(long descriptor) {
        return UnetDescriptors.field(w1(descriptor), RX_UU_MASK, RX_UU_SHIFT);
    }

    /** w1 bits 7:0: the AAL5 CPI byte. */
    public int cpi(long descriptor) {
        return UnetDescriptors.field(w1(descriptor), RX_CPI_MASK, RX_CPI_SHIFT);
    }

    private int w1(long descriptor) {
        return IntWords.get(rq, descriptor + Sba200UnetRecvDesc.OFFSET_W1, be);
    }

    public int bufferOffset(long descriptor, int i) {
        return UnetDescriptors.bufferOffset(rq, be, descriptor + Sba200UnetRecvDesc.OFFSET_BUFS, i);
    }

    public int bufferLength(long descriptor, int i) {
        return UnetDescriptors.bufferLength(rq, be, descriptor + Sba200UnetRecvDesc.OFFSET_BUFS, i);
    }

    /**
     * {@code timestamp_us}: the {@code uint64_t} at {@link Sba200UnetRecvDesc#OFFSET_TIMESTAMP_US} (w14..w15), read as
     * one 64-bit value in the queue's byte order (big-endian in the contract: w14 is the high word).
     */
    public long timestampMicros(long descriptor) {
        return UnetDescriptors.getLong(rq, descriptor + Sba200UnetRecvDesc.OFFSET_TIMESTAMP_US, be);
    }

    /** Raw word {@code word} (0..15). */
    public int word(long descriptor, int word) {
        return UnetDescriptors.word(rq, be, descriptor, word);
    }

    public void copyInline(long descriptor, MemorySegment dst, long dstOffset, int length) {
        UnetDescriptors.copyInline(rq, descriptor + RECV_DESC_INLINE_OFS, dst, dstOffset, length);
    }

    public int consumerIndex() {
        return index;
    }

    /** The descriptor {@link #poll()} returned and {@link #release} has not handed back yet, or -1. */
    public long held() {
        return held;
    }

    public long received() {
        return received;
    }

    public MemorySegment segment() {
        return rq;
    }
}
