package io.nicbridge.bridge.queue;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.contract.Sba200UnetFqEntry;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * NI side of a U-Net endpoint's free queue: pops the receive buffers {@link UnetFreeQueue} posted.
 *
 * <p><b>Handoff.</b> {@link #poll()} reads {@code fq_prod} with acquire (the entry is visible), copies the entry
 * into this view ({@link #offset()}, {@link #length()}), then stores {@code fq_cons} with release: the entry's
 * slot is free for the user only after it has been read. The values are the user's and untrusted: the firmware
 * bounds-checks them against the segment before any DMA.
 */
public final class UnetNiFreeQueue {
    private final MemorySegment page;
    private final boolean be;
    private final SpscDescriptorQueue queue;
    private final SpscDescriptorQueue.Consumer consumer;
    private int offset;
    private int length;

    public UnetNiFreeQueue(MemorySegment endpointPage) {
        this(endpointPage, ByteOrder.BIG_ENDIAN);
    }

    public UnetNiFreeQueue(MemorySegment endpointPage, ByteOrder order) {
        this.queue = UnetFreeQueue.freeQueueOver(endpointPage, order);
        this.page = endpointPage;
        this.be = queue.bigEndian();
        this.consumer = queue.consumer();
    }

    /**
     * Pops one entry into {@link #offset()} / {@link #length()}.
     *
     * @return the popped entry's byte offset in the endpoint page (&gt;= 0); {@link QueueCode#EMPTY} when the user
     *         posted nothing; {@link QueueCode#PEER_CORRUPT} when the user's {@code fq_prod} is impossible (counted
     *         in {@link #protocolErrors()})
     */
    public long poll() {
        long e = consumer.peek();
        if (e < 0) {
            return e;
        }
        offset = IntWords.get(page, e + Sba200UnetFqEntry.OFFSET_OFFSET, be);
        length = IntWords.get(page, e + Sba200UnetFqEntry.OFFSET_LENGTH, be);
        consumer.release();
        return e;
    }

    /** Segment offset of the entry last popped (unsigned 32-bit). */
    public int offset() {
        return offset;
    }

    /** Length of the entry last popped (unsigned 32-bit). */
    public int length() {
        return length;
    }

    /** Entries posted and not yet popped (reads {@code fq_prod} with acquire); 0 if the index is impossible. */
    public int available() {
        int n = queue.producerIndexAcquire() - consumer.index();
        return Integer.compareUnsigned(n, FQ_LEN) > 0 ? 0 : n;
    }

    public int consumerIndex() {
        return consumer.index();
    }

    public long popped() {
        return consumer.consumed();
    }

    public long protocolErrors() {
        return consumer.protocolErrors();
    }

    public SpscDescriptorQueue queue() {
        return queue;
    }
}
