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
 *       ({@link EmulatedEndpointMux}), which multiplexes many of them over one regular endpoint;</li>
 *   <li>{@code io.nicbridge.bridge.shim.XskUnetEndpoint}: a direct-access one, its queues the rings of an AF_XDP
 *       socket, served by the Linux kernel with no card model in between.</li>
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
 * {@link UnetEndpoint}'s; the other kinds keep them. One thread sends and receives.
 *
 * <h2>What a framing on top needs ({@link UnetLink})</h2>
 * Where a received message lies ({@link #receiveOffset}, {@link #inlineBytes}) so that it can be read in place, how
 * big a receive buffer must be ({@link #receiveBufferSizeFor}), how many sends and receive buffers the queues hold
 * ({@link #sendQueueLength}, {@link #freeQueueRoom}, {@link #receiveQueueLength}), who announces arrivals
 * ({@link #readinessListener}) and whether what serves the queues forgot them ({@link #restarts}). Each kind answers
 * for its own hardware; nothing here is a card's alone.
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

    /** False once the endpoint was destroyed (regular, emulated) or closed (direct access): calls then throw. */
    boolean isLive();

    /**
     * Sets who is told that a message may be waiting in the receive queue, without consuming it (the receiving
     * thread's {@link #poll} takes it); {@code null} removes it. Setup-time. Where the call comes from is the kind's:
     * <ul>
     *   <li>regular: the card's signal, on the thread that signals the endpoint (an engine's device thread, the
     *       virtual scheduler; see {@link UnetEndpoint#readinessListener});</li>
     *   <li>emulated: the kernel, on the thread that pumps the multiplexer, when it queues a message;</li>
     *   <li>direct access: no thread but the waiting one exists - the socket wakes only a thread in {@link #await}
     *       (ppoll), which calls the listener when its wait ends with a message. A runner on such an endpoint waits
     *       in {@code await} (as {@link UnetLink#awaitFrame} does), not for a call from elsewhere.</li>
     * </ul>
     * The listener must be cheap, allocation-free and non-blocking, and must not touch the endpoint.
     */
    void readinessListener(Runnable listener);

    /**
     * Times whatever serves the queues restarted and forgot them (the card's firmware, found by the kernel's
     * watchdog; sends in flight then complete as lost). Always 0 where nothing can restart underneath.
     */
    long restarts();

    /** Messages the receive queue holds (received, not yet released). */
    int receiveQueueLength();

    /** Sends that can be outstanding (committed, completion not yet collected) before {@link #send} refuses. */
    int sendQueueLength();

    /** Receive buffers the free queue holds at most. */
    int freeQueueLength();

    /** Receive buffers {@link #postReceiveBuffers} can still post now (the free queue's free entries). */
    int freeQueueRoom();

    /** The size of the receive buffers posted so far, or 0 before the first post (one size per endpoint). */
    int receiveBufferSize();

    /**
     * The receive-buffer size to post for messages of up to {@code maxMessage} bytes, each in one buffer: the
     * message itself on a card (it writes a buffer from its start), a whole UMEM chunk on a direct-access endpoint
     * (the kernel writes the frame, headers and all, into one chunk at {@link #receiveOffset} less the headers).
     *
     * @throws IllegalArgumentException when a message of {@code maxMessage} bytes never fits one receive buffer
     */
    int receiveBufferSizeFor(int maxMessage);

    /**
     * Where a received message's bytes start inside the receive buffer that holds it: 0 on a card, the XDP headroom
     * and the frame's Ethernet header and U-Net tag on a direct-access endpoint. {@code bufferOffset(d, 0)} of a
     * one-buffer message is its buffer's offset plus this.
     */
    int receiveOffset();

    /**
     * The held inline message's bytes where they lie, to be read in place: a view made at setup (nothing allocates)
     * whose first {@link #length} bytes are the message, valid until {@link #release}. On a card the view is the
     * descriptor's inline area in the receive queue; on a direct-access endpoint it is the part of the message's
     * chunk behind the headers.
     *
     * @throws IllegalArgumentException when {@code descriptor} is not the held one or not {@link #isInline}
     */
    MemorySegment inlineBytes(long descriptor);
}
