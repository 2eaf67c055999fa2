package io.nicbridge.bridge.driver.tulip;

import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.bridge.time.Timer;

/**
 * A scheduler for one timer (the driver's watchdog) that fires when the test says: time is whatever the test makes
 * it, one watchdog period per {@link #fire()}.
 */
final class ManualScheduler implements Scheduler {
    private static final long PERIOD_NANOS = 1_000_000;
    private long now;
    private Runnable action;
    private boolean armed;

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public boolean isVirtual() {
        return true;
    }

    @Override
    public Timer newTimer(String name, Runnable action) {
        this.action = action;
        return new Timer() {
            private long deadline;

            @Override
            public void armAfter(long delayNanos) {
                armAt(now + delayNanos);
            }

            @Override
            public void armAt(long deadlineNanos) {
                deadline = deadlineNanos;
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
        };
    }

    /** The period to install the watchdog with: each {@link #fire()} advances time by it. */
    long period() {
        return PERIOD_NANOS;
    }

    /** Runs the timer's action if it is armed (a watchdog period has passed). */
    void fire() {
        if (armed) {
            armed = false;
            now += PERIOD_NANOS;
            action.run();
        }
    }
}
