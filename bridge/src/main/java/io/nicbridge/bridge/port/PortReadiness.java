package io.nicbridge.bridge.port;

/**
 * What a {@link FramePort} calls when there may be something to do on it: a frame arrived, or transmit space (a
 * buffer, a descriptor) came free. It is a hint to poll, never the work itself: the listener must not call the port
 * (the port's receiving and sending threads do that), only wake or schedule whoever does.
 *
 * <h2>Thread rule</h2>
 * The listener runs on the thread that observed the card's event: the card's engine thread (threaded engine, the
 * native shim's card thread), the virtual-time scheduler's thread, or with an inline engine whichever host thread
 * made the card work (possibly another node's thread, whose doorbell delivered the frame). It may run concurrently
 * with the port's own sending and receiving threads, and it must be cheap, must not block and must allocate nothing
 * (e.g. {@code EventLoop::wakeup}, or arming a virtual-time timer).
 */
@FunctionalInterface
public interface PortReadiness {
    /** A frame (or a receive error the port will report) arrived: {@link FramePort#poll()} may return a handle. */
    int FRAME_ARRIVED = 1;
    /** Transmit buffers or descriptors came free: a {@link FramePort#claim()} that returned NONE may now succeed. */
    int TX_SPACE = 1 << 1;

    /**
     * @param events {@link #FRAME_ARRIVED} and/or {@link #TX_SPACE}; 0 for a card event that is neither (a link
     *               change, an error the receiving thread will count), which still is a reason to poll
     */
    void onReady(int events);
}
