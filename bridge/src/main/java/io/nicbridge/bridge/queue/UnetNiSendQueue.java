package io.nicbridge.bridge.queue;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.contract.Sba200UnetSendDesc;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * NI (firmware) side of a U-Net endpoint's send queue, used by the emulated SBA-200 and the native shim: it
 * consumes what {@link UnetSendQueue} posts.
 *
 * <p><b>Handoff.</b> {@link #poll()} reads {@code sq_prod} with acquire (pairs with the user's release), so the
 * whole descriptor, VALID included, is visible; the NI then checks {@link #isValid} (a posted descriptor without
 * VALID is a user bug the firmware reports as an error status), reads the fields, and {@link #complete}s it: w1 :=
 * status, w0 := w0 without VALID, then {@code sq_cons} with release, after which the user may reuse the slot.
 *
 * <p>An impossible {@code sq_prod} (more than {@link io.nicbridge.contract.Sba200Unet#SQ_LEN} ahead) is never trusted: it reads as empty
 * and is counted in {@link #protocolErrors()}. Field values are returned raw; bounds-checking buffer offsets
 * against the segment is the firmware's job (status {@link io.nicbridge.contract.Sba200Unet#TX_STATUS_SEG_BOUNDS}).
 */
public final class UnetNiSendQueue {
    private final MemorySegment page;
    private final boolean be;
    private final SpscDescriptorQueue queue;
    private final SpscDescriptorQueue.Consumer consumer;

    public UnetNiSendQueue(MemorySegment endpointPage) {
        this(endpointPage, ByteOrder.BIG_ENDIAN);
    }

    public UnetNiSendQueue(MemorySegment endpointPage, ByteOrder order) {
        this.queue = UnetSendQueue.sendQueueOver(endpointPage, order);
        this.page = endpointPage;
        this.be = queue.bigEndian();
        this.consumer = queue.consumer();
    }

    /**
     * @return the byte offset in the endpoint page of the oldest posted descriptor; {@link QueueCode#EMPTY} if none;
     *         {@link QueueCode#PEER_CORRUPT} when the user's {@code sq_prod} is impossible (counted in
     *         {@link #protocolErrors()})
     */
    public long poll() {
        return consumer.peek();
    }

    /** VALID bit of the descriptor, read with acquire. */
    public boolean isValid(long descriptor) {
        return (IntWords.getAcquire(page, descriptor + Sba200UnetSendDesc.OFFSET_W0, be) & TX_VALID) != 0;
    }

    public int word0(long descriptor) {
        return IntWords.get(page, descriptor + Sba200UnetSendDesc.OFFSET_W0, be);
    }

    public int length(long descriptor) {
        return UnetDescriptors.field(word0(descriptor), TX_LENGTH_MASK, TX_LENGTH_SHIFT);
    }

    public int channel(long descriptor) {
        return UnetDescriptors.field(word0(descriptor), TX_CHAN_MASK, TX_CHAN_SHIFT);
    }

    public int nbufs(long descriptor) {
        return UnetDescriptors.field(word0(descriptor), TX_NBUFS_MASK, TX_NBUFS_SHIFT);
    }

    public boolean isInline(long descriptor) {
        return (word0(descriptor) & TX_INLINE) != 0;
    }

    public int bufferOffset(long descriptor, int i) {
        return UnetDescriptors.bufferOffset(page, be, descriptor + Sba200UnetSendDesc.OFFSET_BUFS, i);
    }

    public int bufferLength(long descriptor, int i) {
        return UnetDescriptors.bufferLength(page, be, descriptor + Sba200UnetSendDesc.OFFSET_BUFS, i);
    }

    /** Raw word {@code word} (0..15). */
    public int word(long descriptor, int word) {
        return UnetDescriptors.word(page, be, descriptor, word);
    }

    /** Copies {@code length} (at most 40) inline bytes out of w2..w11. */
    public void copyInline(long descriptor, MemorySegment dst, long dstOffset, int length) {
        UnetDescriptors.copyInline(page, descriptor + SEND_DESC_INLINE_OFS, dst, dstOffset, length);
    }

    /**
     * Finishes the polled descriptor: w1 := {@code status}, VALID cleared, then {@code sq_cons} advanced with
     * release (the user's {@link UnetSendQueue#pollCompletion()} acquires it before reading w1).
     */
    public void complete(long descriptor, int status) {
        UnetDescriptors.checkOffset(descriptor, consumer.peekedOffset(), "complete");
        IntWords.set(page, descriptor + Sba200UnetSendDesc.OFFSET_STATUS, be, status);
        IntWords.set(page, descriptor + Sba200UnetSendDesc.OFFSET_W0, be, word0(descriptor) & ~TX_VALID);
        consumer.release();
    }

    public int consumerIndex() {
        return consumer.index();
    }

    public long completed() {
        return consumer.consumed();
    }

    public long protocolErrors() {
        return consumer.protocolErrors();
    }

    public SpscDescriptorQueue queue() {
        return queue;
    }
}
