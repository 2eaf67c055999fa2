package io.nicbridge.sim.dec21140;

import io.nicbridge.sim.engine.SimTimer;
import io.nicbridge.sim.engine.TimeBase;
import java.util.ArrayList;
import java.util.List;

/** A test time base: time moves only when the test says so; due timers fire in deadline order (then creation order). */
final class ManualTimeBase implements TimeBase {
    private final boolean virtual;
    private final List<Timer> timers = new ArrayList<>();
    private long now;

    ManualTimeBase(boolean virtual) {
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
        timers.add(t);
        return t;
    }

    /** Advances time by {@code nanos}, firing every timer that falls due on the way. */
    void advance(long nanos) {
        long end = now + nanos;
        while (true) {
            Timer next = null;
            for (Timer t : timers) {
                if (t.armed && t.deadline <= end && (next == null || t.deadline < next.deadline)) {
                    next = t;
                }
            }
            if (next == null) {
                break;
            }
            now = Math.max(now, next.deadline);
            next.armed = false;
            next.action.run();
        }
        now = end;
    }

    /** Fires timers until none is armed (bounded), returns the time reached. */
    long runUntilIdle() {
        for (int i = 0; i < 100_000; i++) {
            Timer next = null;
            for (Timer t : timers) {
                if (t.armed && (next == null || t.deadline < next.deadline)) {
                    next = t;
                }
            }
            if (next == null) {
                return now;
            }
            now = Math.max(now, next.deadline);
            next.armed = false;
            next.action.run();
        }
        throw new AssertionError("timers never went idle");
    }

    final class Timer implements SimTimer {
        final String name;
        final Runnable action;
        boolean armed;
        long deadline;

        Timer(String name, Runnable action) {
            this.name = name;
            this.action = action;
        }

        @Override
        public void armAfter(long delayNanos) {
            if (delayNanos < 0) {
                throw new IllegalArgumentException("negative delay " + delayNanos);
            }
            deadline = now + delayNanos;
            armed = true;
        }

        @Override
        public void cancel() {
            armed = false;
        }

        @Override
        public boolean isArmed() {
            return armed;
        }

        @Override
        public long deadline() {
            return deadline;
        }
    }
}
