package io.nicbridge.bridge.port;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * The card-independent frame interface every driver implements: zero-copy send and receive of whole
 * frames in comm-segment buffers, addressed by small integer handles so nothing allocates per frame.
 *
 * <h2>Send</h2>
 * <pre>
 *   int h = port.claim();                 // NONE = no free TX buffer/descriptor: back-pressure, try later
 *   MemorySegment buf = port.txBuffer(h); // fill in place, up to maxFrameLength() bytes
 *   port.commit(h, length);               // the frame now belongs to the port; h is no longer valid
 * </pre>
 * A claimed buffer that is not to be sent goes back with {@link #abort(int)}.
 *
 * <h2>Receive</h2>
 * <pre>
 *   int h = port.poll();                  // or port.await(timeout, unit); NONE = nothing yet
 *   MemorySegment buf = port.rxBuffer(h); // frame bytes [0, rxLength(h)), in place in the comm segment
 *   int status = port.rxStatus(h);        // FrameStatus bits, OK = 0
 *   port.release(h);                      // the buffer goes back to the card
 * </pre>
 * Until released, a received buffer is the application's: the card cannot reuse it, so holding many
 * buffers is how a slow receiver back-pressures (or makes the card drop, counted in rxDrops).
 *
 * <h2>Readiness</h2>
 * A user that sleeps between polls instead of blocking in {@link #await} installs a
 * {@link #readinessListener(PortReadiness) readiness listener}: the port calls it when a frame has arrived or
 * transmit space came free, from the thread that observed the card's event (see {@link PortReadiness} for the
 * thread rule), and the user then polls on its own thread. A port whose card cannot signal (a driver configured to
 * poll, a port with no interrupt line) says so by returning false, and its user polls on a timer.
 *
 * <h2>Threads</h2>
 * One thread sends (claim/txBuffer/commit/abort) and one thread receives (poll/await/rx.../release) per
 * port at a time; they may be different threads. Handles are only meaningful to the side that got them. Only the
 * readiness listener runs elsewhere.
 *
 * <h2>Misuse</h2>
 * Every implementation throws exactly these, and changes nothing (no frame sent, no counter moved) when it does:
 * <ul>
 *   <li>{@link IllegalStateException}: a handle the caller does not hold (never claimed, already committed,
 *       aborted or released, out of range, a TX handle used as an RX handle); any call but {@link #name()},
 *       {@link #maxFrameLength()}, {@link #counters()} and {@link #close()} after close (handles held at close
 *       are void); the card behind the port failed ({@code CardFailedException}, a subclass, with the card's
 *       error as the cause).</li>
 *   <li>{@link IllegalArgumentException}: a frame length outside [1, {@link #maxFrameLength()}].</li>
 *   <li>{@link InterruptedException}: from {@link #await} only, when the waiting thread is interrupted.</li>
 * </ul>
 * A port closed by another thread while a call runs makes that call return normally or throw
 * {@link IllegalStateException}.
 */
public interface FramePort extends AutoCloseable {
    /** The "no handle" result of {@link #claim()}, {@link #poll()} and {@link #await}. */
    int NONE = -1;

    String name();

    /** @return the largest frame {@link #commit} accepts and the size of every {@link #txBuffer} */
    int maxFrameLength();

    /**
     * @return a TX handle now owned by the caller, or {@link #NONE} when no buffer/descriptor is free
     * @throws IllegalStateException when the port is closed or its card failed
     */
    int claim();

    /**
     * @return the buffer of a claimed TX handle, {@link #maxFrameLength()} bytes, to fill in place
     * @throws IllegalStateException when {@code handle} is not claimed by the caller, or the port is closed
     */
    MemorySegment txBuffer(int handle);

    /**
     * Sends the first {@code length} bytes of the claimed buffer.
     *
     * @throws IllegalArgumentException when {@code length} is not in [1, maxFrameLength()] (the handle stays claimed)
     * @throws IllegalStateException    when {@code handle} is not claimed by the caller, the port is closed or its
     *                                  card failed
     */
    void commit(int handle, int length);

    /**
     * Returns a claimed TX buffer unsent.
     *
     * @throws IllegalStateException when {@code handle} is not claimed by the caller, or the port is closed
     */
    void abort(int handle);

    /**
     * Hands the card every frame committed so far, for a port that holds its doorbell over several commits
     * ({@code TulipDriver.transmitDemandBatch}); a port that rings it on every commit has nothing to do (the
     * default). A sender that batches calls it when a burst ends, from the sending thread.
     *
     * @throws IllegalStateException when the port is closed or its card failed
     */
    default void flush() {
    }

    /**
     * @return the handle of the next received frame, or {@link #NONE} when none is waiting
     * @throws IllegalStateException when the port is closed or its card failed
     */
    int poll();

    /**
     * Waits (parking, not spinning) up to {@code timeout} for a frame; a timeout of 0 or less looks once.
     *
     * @return the handle of the next received frame, or {@link #NONE} on timeout
     * @throws InterruptedException  when the waiting thread is interrupted
     * @throws IllegalStateException when the port is closed (before or during the wait) or its card failed
     */
    int await(long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * @return the buffer of a received frame; the frame occupies {@code [0, rxLength(handle))}
     * @throws IllegalStateException when {@code handle} is not a received frame the caller holds, or the port is closed
     */
    MemorySegment rxBuffer(int handle);

    /**
     * @return the received frame's length in bytes
     * @throws IllegalStateException as {@link #rxBuffer}
     */
    int rxLength(int handle);

    /**
     * @return the received frame's {@link FrameStatus} bits
     * @throws IllegalStateException as {@link #rxBuffer}
     */
    int rxStatus(int handle);

    /**
     * Gives a received buffer back to the card.
     *
     * @throws IllegalStateException when {@code handle} is not a received frame the caller holds (a double release),
     *                               the port is closed or its card failed
     */
    void release(int handle);

    PortCounters counters();

    /**
     * Installs (or with {@code null} removes) the listener told when a frame may have arrived or transmit space
     * may have come free. Setup-time: call it before the port carries traffic, from the receiving thread.
     *
     * @return true when this port signals readiness (the listener is installed or removed); false when it cannot
     *     (the default: no readiness signal, the user polls), in which case nothing changed
     * @throws IllegalStateException when the port is closed, or its card's events are already taken by another
     *                               listener of the driver (e.g. an interrupt listener)
     */
    default boolean readinessListener(PortReadiness listener) {
        return false;
    }

    /** Stops the port. Frames the peer sends afterwards are dropped. Idempotent. */
    @Override
    void close();
}
