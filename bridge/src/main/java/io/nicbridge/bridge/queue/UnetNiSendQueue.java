package io.nicbridge.bridge.queue;

import static io.nicbridge.bridge.queue.UnetLayout.*;

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
 * <p>An impossible {@code sq_prod} (more than {@link UnetLayout#SQ_LEN} ahead) is never trusted: it reads as empty
 * and is counted in {@link #protocolErrors()}. Field values are returned raw; bounds-checking buffer offsets
 * against the segment is the firmware's job (status {@link UnetLayout#SQ_STATUS_SEGMENT_BOUNDS}).
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

    /** @return the byte offset in the endpoint page of the oldest posted descriptor, or -1 if none */
    public long poll() {
        return consumer.peek();
    }

    /** VALID bit of the descriptor, read with acquire. */
    public boolean isValid(long descriptor) {
        return (IntWords.getAcquire(page, descriptor + DESC_W0, be) & W0_VALID) != 0;
    }

    public int word0(long descriptor) {
        return IntWords.get(page, descriptor + DESC_W0, be);
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
        return (word0(descriptor) & SQ_W0_INLINE) != 0;
    }

    public int bufferOffset(long descriptor, int i) {
        return UnetDescriptors.bufferOffset(page, be, descriptor, i);
    }

    public int bufferLength(long descriptor, int i) {
        return UnetDescriptors.bufferLength(page, be, descriptor, i);
    }

    /** Raw word {@code word} (0..15). */
    public int word(long descriptor, int word) {
        return UnetDescriptors.word(page, be, descriptor, word);
    }

    /** Copies {@code length} (at most 40) inline bytes out of w2..w11. */
    public void copyInline(long descriptor, MemorySegment dst, long dstOffset, int length) {
        UnetDescriptors.copyInline(page, descriptor, dst, dstOffset, length);
    }

    /**
     * Finishes the polled descriptor: w1 := {@code status}, VALID cleared, then {@code sq_cons} advanced with
     * release (the user's {@link UnetSendQueue#pollCompletion()} acquires it before reading w1).
     */
    public void complete(long descriptor, int status) {
        UnetDescriptors.checkOffset(descriptor, consumer.peekedOffset(), "complete");
        IntWords.set(page, descriptor + DESC_W1, be, status);
        IntWords.set(page, descriptor + DESC_W0, be, word0(descriptor) & ~W0_VALID);
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
