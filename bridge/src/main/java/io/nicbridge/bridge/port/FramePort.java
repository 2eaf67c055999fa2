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
 * <h2>Threads</h2>
 * One thread sends (claim/txBuffer/commit/abort) and one thread receives (poll/await/rx.../release) per
 * port at a time; they may be different threads. Handles are only meaningful to the side that got them.
 * Using a handle that the caller does not hold is misuse and throws {@link IllegalStateException}.
 */
public interface FramePort extends AutoCloseable {
    /** The "no handle" result of {@link #claim()}, {@link #poll()} and {@link #await}. */
    int NONE = -1;

    String name();

    /** @return the largest frame {@link #commit} accepts and the size of every {@link #txBuffer} */
    int maxFrameLength();

    /** @return a TX handle now owned by the caller, or {@link #NONE} when no buffer/descriptor is free */
    int claim();

    /** @return the buffer of a claimed TX handle, {@link #maxFrameLength()} bytes, to fill in place */
    MemorySegment txBuffer(int handle);

    /**
     * Sends the first {@code length} bytes of the claimed buffer.
     *
     * @throws IllegalArgumentException when {@code length} is not in [1, maxFrameLength()]
     * @throws IllegalStateException    when {@code handle} is not claimed by the caller
     */
    void commit(int handle, int length);

    /** Returns a claimed TX buffer unsent. */
    void abort(int handle);

    /** @return the handle of the next received frame, or {@link #NONE} when none is waiting */
    int poll();

    /**
     * Waits (parking, not spinning) up to {@code timeout} for a frame.
     *
     * @return the handle of the next received frame, or {@link #NONE} on timeout
     */
    int await(long timeout, TimeUnit unit) throws InterruptedException;

    /** @return the buffer of a received frame; the frame occupies {@code [0, rxLength(handle))} */
    MemorySegment rxBuffer(int handle);

    /** @return the received frame's length in bytes */
    int rxLength(int handle);

    /** @return the received frame's {@link FrameStatus} bits */
    int rxStatus(int handle);

    /** Gives a received buffer back to the card. */
    void release(int handle);

    PortCounters counters();

    /** Stops the port. Frames the peer sends afterwards are dropped. Idempotent. */
    @Override
    void close();
}
