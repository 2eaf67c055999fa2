package io.nicbridge.bridge.time;

import java.util.function.BooleanSupplier;

/**
 * A deterministic discrete-event scheduler that the caller drives: every timer expiry is an event, processed in
 * (time, arming order) order on the thread that calls the run methods, and the clock jumps from one event to the
 * next. A world built in the same order from the same seed replays the same events at the same times. A
 * virtual-time protocol runner drives one of these for all its nodes; sim-hardware's {@code VirtualTimeBase} is
 * the implementation (cards and wires schedule their own events on it too).
 */
public interface VirtualScheduler extends Scheduler {
    /** Processes the next event, if any, advancing the clock to it. @return false when nothing was scheduled */
    boolean step();

    /**
     * Processes every event due at or before {@code timeNanos}, then sets the clock to {@code timeNanos}.
     *
     * @return the number of events processed
     */
    long runUntil(long timeNanos);

    /**
     * Processes events until {@code condition} holds (checked before the first event and after each), none is
     * left, or the next lies beyond {@code timeLimitNanos}; the clock stays at the last event processed.
     *
     * @return true when the condition holds
     */
    boolean runUntil(BooleanSupplier condition, long timeLimitNanos);

    /** @return the time of the next event, or {@link Long#MAX_VALUE} when none is scheduled */
    long nextEventTime();

    @Override
    default boolean isVirtual() {
        return true;
    }
}
