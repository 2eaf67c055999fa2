package io.nicbridge.bridge.queue;

import static io.nicbridge.bridge.queue.UnetLayout.*;

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
        this.index = IntWords.get(page, EPCB_RQ_CONS, be);
    }

    static void checkReceiveQueue(MemorySegment rq, long rqOffset, int rqLength, MemorySegment endpointPage) {
        if (rqLength <= 0 || Integer.bitCount(rqLength) != 1) {
            throw new IllegalArgumentException("RQ_LEN must be a power of two (32-bit counters wrap), was " + rqLength);
        }
        IntWords.checkRegion(rq, rqOffset, (long) rqLength * RQ_DESCRIPTOR_BYTES,
                "receive queue of " + rqLength + " descriptors");
        IntWords.checkRegion(endpointPage, 0, EPCB_BYTES, "U-Net endpoint page EPCB");
    }

    /**
     * @return the byte offset in the queue segment of the next received descriptor (VALID seen with acquire), or
     *         -1 if none; polling again before {@link #release} returns the same descriptor
     */
    public long poll() {
        if (held >= 0) {
            return held;
        }
        long d = rqOffset + (long) (index & mask) * RQ_DESCRIPTOR_BYTES;
        if ((IntWords.getAcquire(rq, d + DESC_W0, be) & W0_VALID) == 0) {
            return -1;
        }
        held = d;
        return d;
    }

    /** Hands the polled descriptor back to the NI: w0 := 0 with release, then {@code rq_cons} with release. */
    public void release(long descriptor) {
        UnetDescriptors.checkOffset(descriptor, held, "release");
        IntWords.setRelease(rq, descriptor + DESC_W0, be, 0);
        index++;
        IntWords.setRelease(page, EPCB_RQ_CONS, be, index);
        held = -1;
        received++;
    }

    public int word0(long descriptor) {
        return IntWords.get(rq, descriptor + DESC_W0, be);
    }

    public int length(long descriptor) {
        return UnetDescriptors.length(word0(descriptor));
    }

    public int channel(long descriptor) {
        return UnetDescriptors.channel(word0(descriptor));
    }

    public int nbufs(long descriptor) {
        return UnetDescriptors.nbufs(word0(descriptor));
    }

    public boolean isInline(long descriptor) {
        return (word0(descriptor) & RQ_W0_INLINE) != 0;
    }

    public boolean isError(long descriptor) {
        return (word0(descriptor) & RQ_W0_ERROR) != 0;
    }

    /** w1 bits 23:16: {@link UnetLayout#RQ_ERROR_CRC} etc., 0 when no error. */
    public int errorCode(long descriptor) {
        return (word(descriptor, 1) >>> RQ_W1_ERROR_SHIFT) & 0xFF;
    }

    public int userToUser(long descriptor) {
        return (word(descriptor, 1) >>> RQ_W1_UU_SHIFT) & 0xFF;
    }

    public int cpi(long descriptor) {
        return word(descriptor, 1) & RQ_W1_CPI_MASK;
    }

    public int bufferOffset(long descriptor, int i) {
        return UnetDescriptors.bufferOffset(rq, be, descriptor, i);
    }

    public int bufferLength(long descriptor, int i) {
        return UnetDescriptors.bufferLength(rq, be, descriptor, i);
    }

    /** w14:w15 timestamp in microseconds. */
    public long timestampMicros(long descriptor) {
        long high = IntWords.get(rq, descriptor + DESC_TIMESTAMP_HIGH, be) & 0xFFFF_FFFFL;
        long low = IntWords.get(rq, descriptor + DESC_TIMESTAMP_LOW, be) & 0xFFFF_FFFFL;
        return high << 32 | low;
    }

    /** Raw word {@code word} (0..15). */
    public int word(long descriptor, int word) {
        return UnetDescriptors.word(rq, be, descriptor, word);
    }

    public void copyInline(long descriptor, MemorySegment dst, long dstOffset, int length) {
        UnetDescriptors.copyInline(rq, descriptor, dst, dstOffset, length);
    }

    public int consumerIndex() {
        return index;
    }

    public long received() {
        return received;
    }

    public MemorySegment segment() {
        return rq;
    }
}
