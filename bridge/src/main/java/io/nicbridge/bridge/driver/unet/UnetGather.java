package io.nicbridge.bridge.driver.unet;

import java.lang.foreign.MemorySegment;
import java.util.function.IntConsumer;

/**
 * U-Net's scatter-gather send through a {@link UnetLink} (paper 7.3: "Base-level U-Net provides a scatter-gather
 * message mechanism to support efficient construction of network buffers"), reached as
 * {@code link.capability(UnetGather.class)}. A frame is the bytes the caller wrote into its claimed TX buffer (the
 * head: protocol headers) followed by up to {@link #MAX_ATTACHED} ranges of the endpoint's communication segment
 * that the card gathers by DMA into the same AAL5 PDU - data blocks the application keeps in the segment and that
 * no copy moves.
 *
 * <pre>
 *   int h = link.claim(peer);                 // the head buffer, as for any frame
 *   ... write headers into link.txBuffer(h) ...
 *   gather.attach(h, offset, length, token);   // 0..5 times: segment ranges, in order, after the head
 *   link.commit(h, headLength);               // one send descriptor: head + the attached ranges
 *   ... later, when the card has completed (or failed) the send: listener.accept(token) once per range ...
 * </pre>
 * The card reads an attached range while the send is in flight, so its owner must not change or reuse it until
 * the token comes back: a protocol keeps a reference per token (the reference counts of paper 7.3) and drops it in
 * the {@link #completionListener completion listener}. Every attached token comes back exactly once - at the
 * send's completion, whatever its status, or at once when the frame is {@link UnetLink#abort aborted} - except for
 * sends still in flight when the endpoint is destroyed (their buffers die with the segment).
 *
 * <p>Same thread as the link; nothing allocates.
 */
public interface UnetGather {
    /** Segment ranges one frame may carry after its head: the descriptor's six buffers less the head's. */
    int MAX_ATTACHED = io.nicbridge.contract.Sba200Unet.MAX_BUFS - 1;

    /** The endpoint's communication segment, where attached ranges live. */
    MemorySegment segment();

    /**
     * Appends {@code segment()[offset, offset + length)} to claimed frame {@code txHandle}.
     *
     * @param token handed to the completion listener when the card is done with the range
     * @throws IllegalStateException    when {@code txHandle} is not claimed, or carries {@link #MAX_ATTACHED} already
     * @throws IllegalArgumentException when the range is empty or outside the segment, or the frame would exceed the
     *                                  link's mtu (the receiver's buffer size)
     */
    void attach(int txHandle, int offset, int length, int token);

    /** @return the bytes attached to claimed frame {@code txHandle} so far */
    int attachedBytes(int txHandle);

    /** Sets the listener told each attached range's token once the card no longer reads it. Setup-time. */
    void completionListener(IntConsumer listener);
}
