package io.nicbridge.bridge.queue;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.contract.Sba200UnetRecvDesc;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * NI side of a U-Net endpoint's receive queue: the firmware's DMA writes into the user's host-memory queue.
 *
 * <p><b>Handoff.</b> {@link #claim()} reads w0 of the next slot with acquire: if VALID is still set the user has
 * not consumed it, which the contract calls RQ_OVERRUN (the message is dropped, counted here and by the caller
 * in {@code ep_status}/drop counters). Otherwise the slot is free and the user's reads of it are complete. The
 * NI writes the body ({@link #putWord}, {@link #putBuffer}, {@link #putInline}, {@link #putTimestamp}), then
 * {@link #publish} stores w0 with VALID with release, then {@code rq_prod_shadow} with release.
 */
public final class UnetNiReceiveQueue {
    private final MemorySegment rq;
    private final long rqOffset;
    private final int mask;
    private final MemorySegment page;
    private final boolean be;
    private int index;
    private long held = -1;
    private long published;
    private long overruns;

    public UnetNiReceiveQueue(MemorySegment rq, long rqOffset, int rqLength, MemorySegment endpointPage) {
        this(rq, rqOffset, rqLength, endpointPage, ByteOrder.BIG_ENDIAN);
    }

    /**
     * @param endpointPage the endpoint page holding {@code rq_prod_shadow}; its current value is the starting index
     */
    public UnetNiReceiveQueue(MemorySegment rq, long rqOffset, int rqLength, MemorySegment endpointPage, ByteOrder order) {
        UnetReceiveQueue.checkReceiveQueue(rq, rqOffset, rqLength, endpointPage);
        this.rq = rq;
        this.rqOffset = rqOffset;
        this.mask = rqLength - 1;
        this.page = endpointPage;
        this.be = IntWords.isBigEndian(order);
        this.index = IntWords.get(page, EPCB_RQ_PROD_SHADOW_OFS, be);
    }

    /**
     * @return the byte offset in the queue segment of the next slot to fill, or {@link QueueCode#FULL} if that slot
     *         still holds an unconsumed message (RQ_OVERRUN, counted in {@link #overruns()}); claiming again before
     *         {@link #publish} returns the same slot
     */
    public long claim() {
        if (held >= 0) {
            return held;
        }
        long d = rqOffset + (long) (index & mask) * RECV_DESC_SIZE;
        if ((IntWords.getAcquire(rq, d + Sba200UnetRecvDesc.OFFSET_W0, be) & RX_VALID) != 0) {
            overruns++;
            return QueueCode.FULL;
        }
        held = d;
        return d;
    }

    /** Writes body word {@code word} (1..15); w0 is written only by {@link #publish}. */
    public void putWord(long descriptor, int word, int value) {
        UnetDescriptors.checkOffset(descriptor, held, "putWord");
        UnetDescriptors.putBodyWord(rq, be, descriptor, word, value);
    }

    public void putBuffer(long descriptor, int i, int offset, int length) {
        UnetDescriptors.checkOffset(descriptor, held, "putBuffer");
        UnetDescriptors.putBuffer(rq, be, descriptor + Sba200UnetRecvDesc.OFFSET_BUFS, i, offset, length);
    }

    public void putInline(long descriptor, MemorySegment src, long srcOffset, int length) {
        UnetDescriptors.checkOffset(descriptor, held, "putInline");
        UnetDescriptors.putInline(rq, descriptor + RECV_DESC_INLINE_OFS, src, srcOffset, length);
    }

    /** w1 := error code, AAL5 UU and CPI. */
    public void putStatus(long descriptor, int errorCode, int userToUser, int cpi) {
        UnetDescriptors.checkOffset(descriptor, held, "putStatus");
        IntWords.set(rq, descriptor + Sba200UnetRecvDesc.OFFSET_W1, be, errorCode << RX_ERR_SHIFT & RX_ERR_MASK
                | userToUser << RX_UU_SHIFT & RX_UU_MASK | cpi << RX_CPI_SHIFT & RX_CPI_MASK);
    }

    /**
     * {@code timestamp_us} := {@code micros}: the {@code uint64_t} at {@link Sba200UnetRecvDesc#OFFSET_TIMESTAMP_US}
     * (w14..w15), written as one 64-bit value in the queue's byte order (big-endian in the contract: w14 high).
     */
    public void putTimestamp(long descriptor, long micros) {
        UnetDescriptors.checkOffset(descriptor, held, "putTimestamp");
        UnetDescriptors.setLong(rq, descriptor + Sba200UnetRecvDesc.OFFSET_TIMESTAMP_US, be, micros);
    }

    /**
     * Hands the claimed descriptor to the user: w0 := fields | VALID with release (the body written before is
     * visible to a user that sees VALID with acquire), then {@code rq_prod_shadow} with release.
     *
     * @param flags {@link io.nicbridge.contract.Sba200Unet#RX_INLINE} and/or {@link io.nicbridge.contract.Sba200Unet#RX_ERROR}
     * @param nbufs 0..6 (0 for inline or error entries that carry no buffer)
     */
    public void publish(long descriptor, int length, int channel, int nbufs, int flags) {
        UnetDescriptors.checkOffset(descriptor, held, "publish");
        if ((flags & ~(RX_INLINE | RX_ERROR)) != 0) {
            throw new IllegalArgumentException("flags may hold only INLINE and ERROR, was 0x" + Integer.toHexString(flags));
        }
        if (length < 0 || length > MAX_PDU) {
            throw new IllegalArgumentException("length must be 0.." + MAX_PDU + ", was " + length);
        }
        if (channel < 0 || channel > UnetDescriptors.MAX_CHANNEL) {
            throw new IllegalArgumentException("channel must be 0.." + UnetDescriptors.MAX_CHANNEL + ", was " + channel);
        }
        if (nbufs < 0 || nbufs > MAX_BUFS) {
            throw new IllegalArgumentException("nbufs must be 0.." + MAX_BUFS + ", was " + nbufs);
        }
        if ((flags & RX_INLINE) != 0 && length > INLINE_MAX) {
            throw new IllegalArgumentException("inline length must be at most " + INLINE_MAX + ", was " + length);
        }
        int w0 = flags | nbufs << RX_NBUFS_SHIFT | channel << RX_CHAN_SHIFT | length << RX_LENGTH_SHIFT;
        IntWords.setRelease(rq, descriptor + Sba200UnetRecvDesc.OFFSET_W0, be, w0 | RX_VALID);
        index++;
        IntWords.setRelease(page, EPCB_RQ_PROD_SHADOW_OFS, be, index);
        held = -1;
        published++;
    }

    public int producerIndex() {
        return index;
    }

    public long published() {
        return published;
    }

    public long overruns() {
        return overruns;
    }

    public MemorySegment segment() {
        return rq;
    }
}
