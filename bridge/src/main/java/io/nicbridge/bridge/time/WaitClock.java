package io.nicbridge.bridge.time;

import java.util.Objects;

/**
 * The clock a driver's waits and timeouts run on (issue 16: a virtual-time run never waits on the wall clock).
 * <ul>
 *   <li>{@link #WALL}: {@link System#nanoTime()}; between looks a wait backs off its own way (an idle strategy, the
 *       card's interrupt line).</li>
 *   <li>{@link #on(Scheduler, Runnable)}: the scheduler's clock. In virtual time a card changes only as the world
 *       runs, so between looks a wait {@link #advance() advances} the world by one event (its {@code progress},
 *       e.g. the engine's {@code step}) instead of sleeping, and a deadline timer ({@link #newDeadlineTimer}) puts
 *       an event at the wait's deadline so stepping reaches it even when nothing else is scheduled: a timeout is
 *       virtual nanoseconds and costs only the wall time of the steps. On a real-time scheduler it behaves as
 *       {@link #WALL} on that scheduler's clock.</li>
 * </ul>
 * A virtual wait must run on the thread that runs the world and outside its events (stepping from inside an event
 * throws the scheduler's {@link IllegalStateException}, which is better than waiting forever for a card that cannot
 * change). Setup creates the clock and its timers; {@link #nanoTime()} and {@link #advance()} allocate nothing.
 */
public final class WaitClock {
    /** The wall clock: {@link System#nanoTime()}, waits back off. */
    public static final WaitClock WALL = new WaitClock(null, null);

    private final Scheduler scheduler;
    private final Runnable progress;

    private WaitClock(Scheduler scheduler, Runnable progress) {
        this.scheduler = scheduler;
        this.progress = progress;
    }

    /**
     * @param scheduler the clock of every timeout
     * @param progress  what a virtual wait runs between looks: one event of the world (the engine's {@code step});
     *                  ignored on a real-time scheduler
     */
    public static WaitClock on(Scheduler scheduler, Runnable progress) {
        Objects.requireNonNull(scheduler, "scheduler");
        if (scheduler.isVirtual()) {
            Objects.requireNonNull(progress, "progress (a virtual wait must step the world)");
        }
        return new WaitClock(scheduler, progress);
    }

    /** Now on this clock: virtual nanoseconds on a virtual scheduler, else {@link System#nanoTime()}-like. */
    public long nanoTime() {
        Scheduler s = scheduler;
        return s == null ? System.nanoTime() : s.nanoTime();
    }

    /** Whether waits step a virtual world instead of backing off. */
    public boolean isVirtual() {
        return scheduler != null && scheduler.isVirtual();
    }

    /**
     * A wait's deadline event: a timer whose only effect is an event (virtual time), to {@code armAt} the deadline
     * before the wait and cancel after; {@code null} in real time, where nothing needs one. Setup-time.
     */
    public Timer newDeadlineTimer(String name) {
        return isVirtual() ? scheduler.newTimer(name, () -> { }) : null;
    }

    /**
     * Between two looks of a wait: in virtual time runs one event of the world and returns true; in real time does
     * nothing and returns false (the caller backs off).
     */
    public boolean advance() {
        if (!isVirtual()) {
            return false;
        }
        progress.run();
        return true;
    }

    @Override
    public String toString() {
        return scheduler == null ? "WaitClock[wall]" : "WaitClock[" + (isVirtual() ? "virtual" : "real") + " scheduler]";
    }
}
