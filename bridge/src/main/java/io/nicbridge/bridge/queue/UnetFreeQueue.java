package io.nicbridge.bridge.queue;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.contract.Sba200UnetFqEntry;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * User side of a U-Net endpoint's free queue: {@link io.nicbridge.contract.Sba200Unet#FQ_LEN} x 8-byte {@code {offset, length}}
 * entries ({@link Sba200UnetFqEntry}) at {@link io.nicbridge.contract.Sba200Unet#FQ_OFS} of the endpoint page, naming receive buffers in the user's communication segment;
 * producer index {@code fq_prod} (written here), consumer index {@code fq_cons} (written by the NI).
 *
 * <p><b>Handoff.</b> {@link #offer} writes both words of the entry, then stores {@code fq_prod} with release.
 * The entry has no ownership bit: the index is the ownership word. The NI reads {@code fq_prod} with acquire.
 */
public final class UnetFreeQueue {
    private final MemorySegment page;
    private final boolean be;
    private final SpscDescriptorQueue queue;
    private SpscDescriptorQueue.Producer producer;

    public UnetFreeQueue(MemorySegment endpointPage) {
        this(endpointPage, ByteOrder.BIG_ENDIAN);
    }

    public UnetFreeQueue(MemorySegment endpointPage, ByteOrder order) {
        this.queue = freeQueueOver(endpointPage, order);
        this.page = endpointPage;
        this.be = queue.bigEndian();
        this.producer = queue.producer();
    }

    static SpscDescriptorQueue freeQueueOver(MemorySegment endpointPage, ByteOrder order) {
        IntWords.checkRegion(endpointPage, 0, EP_PAGE_SIZE, "U-Net endpoint page");
        return new SpscDescriptorQueue(endpointPage, FQ_OFS, FQ_ENTRY_SIZE, FQ_LEN,
                endpointPage, EPCB_FQ_PROD_OFS, EPCB_FQ_CONS_OFS, order);
    }

    /**
     * Gives the NI a receive buffer of {@code length} bytes at {@code segmentOffset} in the segment.
     *
     * @param segmentOffset a multiple of 64 (treated as unsigned 32-bit)
     * @param length        positive (treated as unsigned 32-bit; the NI checks it against the segment)
     * @return the entry's byte offset in the endpoint page (&gt;= 0); {@link QueueCode#FULL} when the free queue is
     *         full (back-pressure); {@link QueueCode#PEER_CORRUPT} when the NI's {@code fq_cons} is impossible
     *         (counted in {@link #protocolErrors()}). Nothing is written unless an offset is returned.
     */
    public long offer(int segmentOffset, int length) {
        if ((segmentOffset & (FQ_BUF_ALIGN - 1)) != 0) {
            throw new IllegalArgumentException("free buffer offset must be " + FQ_BUF_ALIGN
                    + "-byte aligned, was 0x" + Integer.toHexString(segmentOffset));
        }
        if (length == 0) {
            throw new IllegalArgumentException("free buffer length must not be 0");
        }
        long e = producer.claim();
        if (e < 0) {
            return e;
        }
        IntWords.set(page, e + Sba200UnetFqEntry.OFFSET_OFFSET, be, segmentOffset);
        IntWords.set(page, e + Sba200UnetFqEntry.OFFSET_LENGTH, be, length);
        producer.commit(); // fq_prod with release: the entry is visible before the index
        return e;
    }

    /**
     * The NI was restarted and re-created this endpoint (a fresh page: both indices 0, no entry): starts over with a
     * new producer end over the page. Every buffer that was posted is forgotten by the NI; re-post those that are not
     * the user's. Not on a hot path (it allocates the producer end).
     */
    public void restart() {
        producer = queue.producer();
    }

    public int remainingCapacity() {
        return producer.remainingCapacity();
    }

    public int producerIndex() {
        return producer.index();
    }

    public long posted() {
        return producer.produced();
    }

    public long protocolErrors() {
        return producer.protocolErrors();
    }

    public SpscDescriptorQueue queue() {
        return queue;
    }
}
