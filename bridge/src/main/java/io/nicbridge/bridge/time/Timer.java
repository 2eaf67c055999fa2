package io.nicbridge.bridge.time;

/**
 * A one-shot timer created once at setup by a {@link Scheduler} and re-armed as often as needed, so that
 * arming it on a hot path allocates nothing (a retransmission timeout, a card's interval timer, a wire's
 * delivery of an in-flight frame).
 *
 * <p>Arming replaces any pending expiry; an expiry runs the action given at creation exactly once, on the
 * scheduler's thread (see {@link Scheduler}), never concurrently with itself. Times are readings of the
 * scheduler's {@link Clock}.
 */
public interface Timer {
    /** Arms the timer to fire {@code delayNanos} (>= 0) from now, replacing any pending expiry. */
    void armAfter(long delayNanos);

    /**
     * Arms the timer to fire at {@code deadlineNanos} on the scheduler's clock, replacing any pending expiry; a
     * deadline already passed fires as soon as the scheduler runs its due timers.
     */
    void armAt(long deadlineNanos);

    /** Disarms it; a no-op when not armed. */
    void cancel();

    boolean isArmed();

    /** @return the time of the pending expiry on the scheduler's clock; meaningless when not armed */
    long deadline();
}
