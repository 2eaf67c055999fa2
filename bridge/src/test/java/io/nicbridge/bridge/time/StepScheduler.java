package io.nicbridge.bridge.time;

import java.util.function.BooleanSupplier;

/**
 * A virtual-time scheduler for driver tests: timers in a {@link TimerHeap}, run one event per {@link #step()} on the
 * caller's thread, the clock jumping to each. Deterministic: same arming order, same events. Shared by the drivers'
 * tests (U-Net, Tulip): an empty world is one where {@link #step()} finds nothing, the case a wait must still end in.
 */
public final class StepScheduler implements VirtualScheduler {
    private final TimerHeap<Event> events = new TimerHeap<>(4);
    private long now;

    private final class Event extends TimerHeap.Entry implements Timer {
        private final Runnable action;

        Event(Runnable action) {
            this.action = action;
        }

        @Override
        public void armAfter(long delayNanos) {
            armAt(now + delayNanos);
        }

        @Override
        public void armAt(long deadlineNanos) {
            events.schedule(this, Math.max(deadlineNanos, now));
        }

        @Override
        public void cancel() {
            events.remove(this);
        }

        @Override
        public boolean isArmed() {
            return isQueued();
        }
    }

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public Timer newTimer(String name, Runnable action) {
        events.reserve();
        return new Event(action);
    }

    @Override
    public boolean step() {
        Event next = events.peek();
        if (next == null) {
            return false;
        }
        events.remove(next);
        now = next.deadline();
        next.action.run();
        return true;
    }

    @Override
    public long runUntil(long timeNanos) {
        long n = 0;
        while (events.nextDeadline() <= timeNanos) {
            step();
            n++;
        }
        now = Math.max(now, timeNanos);
        return n;
    }

    @Override
    public boolean runUntil(BooleanSupplier condition, long timeLimitNanos) {
        while (!condition.getAsBoolean()) {
            if (events.nextDeadline() > timeLimitNanos || !step()) {
                return condition.getAsBoolean();
            }
        }
        return true;
    }

    @Override
    public long nextEventTime() {
        return events.nextDeadline();
    }
}
