package io.nicbridge.sim.testing;

import io.nicbridge.bridge.time.TimerHeap;
import io.nicbridge.sim.engine.SimTimer;
import io.nicbridge.sim.engine.TimeBase;

/**
 * A minimal single-threaded virtual time base for tests of wires, links and card models: time moves only when the
 * test says so, and timers fire in (deadline, arming order) order when the test calls {@link #runUntilIdle()},
 * {@link #runUntil} or {@link #advance}. The timers wait in bridge's {@link TimerHeap}, as the real virtual time
 * base's events do.
 */
public final class ManualVirtualTime implements TimeBase {
    private final boolean virtual;
    private final TimerHeap<Timer> timers = new TimerHeap<>(8);
    private long now;

    /** A time base that says it is virtual, so models apply their modelled delays. */
    public ManualVirtualTime() {
        this(true);
    }

    /**
     * @param virtual what {@link #isVirtual()} answers: {@code false} makes a model take its real-time paths (no
     *                modelled delays) while the test still drives the clock and its timers
     */
    public ManualVirtualTime(boolean virtual) {
        this.virtual = virtual;
    }

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public boolean isVirtual() {
        return virtual;
    }

    @Override
    public SimTimer newTimer(String name, Runnable action) {
        Timer t = new Timer(name, action);
        timers.reserve();
        return t;
    }

    /** Moves the clock forward to {@code time} without firing anything (a test's "now"). */
    public void advanceTo(long time) {
        if (time < now) {
            throw new IllegalArgumentException("time runs forward: " + time + " < " + now);
        }
        now = time;
    }

    /**
     * Advances the clock by {@code nanos}, firing on the way every timer that falls due by then (including timers
     * armed by the ones fired); the clock ends at exactly {@code now + nanos}.
     *
     * @return timers fired
     */
    public int advance(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("time runs forward: advance by " + nanos);
        }
        long end = now + nanos;
        int fired = runUntil(end);
        now = end;
        return fired;
    }

    /** Fires timers in order until none is armed. @return timers fired */
    public int runUntilIdle() {
        return runUntil(Long.MAX_VALUE);
    }

    /** Fires timers whose deadline is <= {@code limit}, then sets the clock to the last one fired. */
    public int runUntil(long limit) {
        int fired = 0;
        Timer next;
        while ((next = timers.peek()) != null && next.deadline() <= limit) {
            timers.remove(next);
            now = next.deadline();
            next.action.run();
            fired++;
        }
        return fired;
    }

    private final class Timer extends TimerHeap.Entry implements SimTimer {
        final String name;
        final Runnable action;

        Timer(String name, Runnable action) {
            this.name = name;
            this.action = action;
        }

        @Override
        public void armAfter(long delayNanos) {
            if (delayNanos < 0) {
                throw new IllegalArgumentException(name + ": delay < 0: " + delayNanos);
            }
            timers.schedule(this, now + delayNanos);
        }

        @Override
        public void armAt(long deadlineNanos) {
            timers.schedule(this, Math.max(deadlineNanos, now));
        }

        @Override
        public void cancel() {
            timers.remove(this);
        }

        @Override
        public boolean isArmed() {
            return isQueued();
        }
    }
}
