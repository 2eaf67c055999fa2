package io.nicbridge.protocols.core;

import io.nicbridge.bridge.link.LinkHandler;
import java.util.Set;

/**
 * A protocol as a state machine with no I/O, no thread and no clock of its own. It reacts to
 * <ul>
 *   <li>{@link #onFrame} and {@link #onWritable} (it is the {@link LinkHandler} its runner polls its
 *       {@link io.nicbridge.bridge.link.Link} with),</li>
 *   <li>{@link #onTimer()} when the runner's timer reaches the deadline the core last asked for,</li>
 *   <li>its application API (e.g. {@link MessageChannel}),</li>
 * </ul>
 * writes only to the link it was given, and reads time only from the {@link io.nicbridge.bridge.time.Clock} it was
 * given. After every call the runner asks {@link #nextDeadline()} and (re)arms its one timer for the core, so the
 * core never holds a timer: the same core runs unchanged in virtual time, on a real-time event loop, on an emulated
 * card or on the shim.
 */
public interface ProtocolCore extends LinkHandler {
    /** {@link #nextDeadline()} when the core waits for nothing in time. */
    long NO_DEADLINE = Long.MAX_VALUE;

    /**
     * The runner's timer reached (or passed) {@link #nextDeadline()}. Afterwards {@link #nextDeadline()} must lie
     * in the future (or be {@link #NO_DEADLINE}): a core that still asks for a passed deadline would spin its
     * runner, which refuses it with an {@link IllegalStateException}.
     */
    void onTimer();

    /** @return the clock time at which {@link #onTimer()} is wanted next, or {@link #NO_DEADLINE} */
    long nextDeadline();

    /** @return what this core promises its application; the simulation tester checks exactly these */
    Set<Guarantee> guarantees();

    /** @return messages the core holds right now (queued to send, awaiting ack, or received and not yet taken) */
    int bufferedMessages();

    /** @return the most messages it may ever hold: its preallocated buffers (the bounded-memory promise) */
    int bufferCapacity();
}
