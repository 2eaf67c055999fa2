package io.nicbridge.bridge.driver.unet;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * A U-Net endpoint as a process programs it (paper 3.1): a communication segment, channels the kernel opened, a send
 * queue with completions, a free queue of receive buffers and a receive queue. Two kinds implement it, so one program
 * runs unchanged on either (paper 3.5: emulated endpoints "look just like regular ones, except that the performance
 * characteristics are quite different"):
 * <ul>
 *   <li>{@link UnetEndpoint}: a regular endpoint, its queues served by the card's firmware;</li>
 *   <li>{@link EmulatedEndpoint}: a kernel-emulated one, its queues served by the kernel
 *       ({@link EmulatedEndpointMux}), which multiplexes many of them over one regular endpoint.</li>
 * </ul>
 *
 * <pre>
 *   send:     compose in segment() -&gt; send(channel, offset, length), or sendInline(channel, src, at, length
 *             &lt;= inlineMax()) -&gt; pollSendCompletion(): TX_STATUS_SENT or the error status (a channel the kernel did
 *             not open for this endpoint: TX_STATUS_BAD_CHANNEL; outside the segment: TX_STATUS_SEG_BOUNDS)
 *   receive:  postReceiveBuffers(...) once; poll() / await(...) -&gt; descriptor d; isInline(d) (at most inlineMax()
 *             bytes, in the descriptor) or bufferCount(d) x {bufferOffset, bufferLength} in segment();
 *             copyTo(d, ...); release(d) (the buffers go back to the free queue)
 * </pre>
 * The contracts - descriptor validity, back-pressure as {@code false} / {@code -1}, the exceptions for misuse - are
 * {@link UnetEndpoint}'s; {@link EmulatedEndpoint} keeps them. One thread sends and receives.
 */
public interface Endpoint {
    /** The communication segment: compose messages here; receive buffers live here. */
    MemorySegment segment();

    /** True when the kernel opened {@code channel} for this endpoint and has not closed it. */
    boolean isChannelOpen(int channel);

    /**
     * The largest message delivered in the receive descriptor itself (no free buffer) and accepted by
     * {@link #sendInline}: {@code INLINE_MAX} = 40 bytes on both kinds (one cell's payload less the AAL5 trailer).
     */
    int inlineMax();

    /** @see UnetEndpoint#send */
    boolean send(int channel, int offset, int length);

    /** @see UnetEndpoint#sendInline */
    boolean sendInline(int channel, MemorySegment src, long srcOffset, int length);

    /** @see UnetEndpoint#pollSendCompletion */
    int pollSendCompletion();

    /** @see UnetEndpoint#reapSends */
    int reapSends();

    /** @see UnetEndpoint#sendsInFlight */
    int sendsInFlight();

    /** @see UnetEndpoint#sendCompletions */
    long sendCompletions(int status);

    /** @see UnetEndpoint#postReceiveBuffers */
    int postReceiveBuffers(long offset, int count, int size);

    /** @see UnetEndpoint#poll */
    long poll();

    /** @see UnetEndpoint#await */
    long await(long timeout, TimeUnit unit) throws InterruptedException;

    /** @see UnetEndpoint#length */
    int length(long descriptor);

    /** @see UnetEndpoint#channel */
    int channel(long descriptor);

    /** @see UnetEndpoint#isInline */
    boolean isInline(long descriptor);

    /** @see UnetEndpoint#isError */
    boolean isError(long descriptor);

    /** @see UnetEndpoint#errorCode */
    int errorCode(long descriptor);

    /** @see UnetEndpoint#bufferCount */
    int bufferCount(long descriptor);

    /** @see UnetEndpoint#bufferOffset */
    int bufferOffset(long descriptor, int i);

    /** @see UnetEndpoint#bufferLength */
    int bufferLength(long descriptor, int i);

    /** @see UnetEndpoint#copyTo */
    int copyTo(long descriptor, MemorySegment dst, long dstOffset);

    /** @see UnetEndpoint#copyRange */
    int copyRange(long descriptor, int from, MemorySegment dst, long dstOffset, int length);

    /** @see UnetEndpoint#release */
    void release(long descriptor);

    /** @see UnetEndpoint#received */
    long received();
}
