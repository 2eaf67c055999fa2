package io.nicbridge.bridge.time;

import io.nicbridge.bridge.idle.IdleStrategy;
import java.util.Objects;

/**
 * The waits of one driver on its {@link WaitClock} (issue 16): the clock (the wall clock until {@link #timeOn}), the
 * deadline event a virtual wait needs, and what a wait does between two looks. Every bounded wait of a driver that
 * polls its card (a reset, a stop, a frame) has the same shape:
 * <pre>
 *   long deadline = waits.nanoTime() + timeoutNanos;
 *   try {
 *       while (!done()) {
 *           if (waits.expired(deadline)) { ... timed out ... }
 *           waits.pause(idle, deadline);   // virtual: one event of the world; real: the idle strategy's back-off
 *       }
 *   } finally {
 *       waits.end();                       // the deadline event is cancelled
 *   }
 * </pre>
 * One per driver, used from the thread that waits (in virtual time: the thread that runs the world, outside its
 * events). {@link #timeOn} creates the timer; {@link #pause} and {@link #end} allocate nothing.
 */
public final class DriverWaits {
    private final String owner;
    private WaitClock clock = WaitClock.WALL;
    /** In virtual time, an event at the pending wait's deadline; {@code null} in real time. */
    private Timer deadline;

    /** @param owner the driver's name, for the timer and for messages */
    public DriverWaits(String owner) {
        this.owner = Objects.requireNonNull(owner, "owner");
    }

    /**
     * Puts every wait on {@code scheduler}'s clock: in virtual time a timeout is virtual nanoseconds, and between
     * looks a wait runs {@code progress} (one event of the world, e.g. the engine's {@code step}) instead of parking.
     * Setup-time, once.
     *
     * @throws IllegalStateException when a clock is already set
     */
    public void timeOn(Scheduler scheduler, Runnable progress) {
        if (clock != WaitClock.WALL) {
            throw new IllegalStateException(owner + ": the driver's clock is already set");
        }
        clock = WaitClock.on(scheduler, progress);
        deadline = clock.newDeadlineTimer(owner + ".wait-deadline");
    }

    /** The clock of the waits and timeouts. */
    public WaitClock clock() {
        return clock;
    }

    /** Now on {@link #clock()}. */
    public long nanoTime() {
        return clock.nanoTime();
    }

    /**
     * Whether a wait ending at {@code deadlineNanos} has timed out: now is at or past it. Reaching the deadline is
     * the end, not "almost": in virtual time the deadline's own event may be the last of the world, so the step that
     * reaches it leaves the clock exactly there, and a wait that asked for "past" would re-arm its timer at now and
     * step an empty world for ever.
     */
    public boolean expired(long deadlineNanos) {
        return clock.nanoTime() - deadlineNanos >= 0;
    }

    /** Whether waits step a virtual world instead of backing off. */
    public boolean isVirtual() {
        return clock.isVirtual();
    }

    /**
     * Between two looks of a wait ending at {@code deadlineNanos}: one event of the virtual world (an event at the
     * deadline is armed first, so the steps reach it even when nothing else is scheduled), or {@code idle}'s
     * back-off in real time.
     */
    public void pause(IdleStrategy idle, long deadlineNanos) {
        if (clock.isVirtual()) {
            if (!deadline.isArmed()) {
                deadline.armAt(deadlineNanos);
            }
            clock.advance();
        } else {
            idle.idle();
        }
    }

    /** The wait is over (done, timed out or thrown): its deadline event, if one was armed, is cancelled. */
    public void end() {
        if (deadline != null) {
            deadline.cancel();
        }
    }

    @Override
    public String toString() {
        return "DriverWaits[" + owner + ", " + clock + "]";
    }
}
