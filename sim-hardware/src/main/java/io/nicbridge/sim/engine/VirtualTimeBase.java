package io.nicbridge.sim.engine;

import io.nicbridge.bridge.time.TimerHeap;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * Simulated time for one whole world (cards, wires, timers, application processes): a deterministic
 * discrete-event scheduler that runs everything on the one thread that calls {@link #runUntil(long)},
 * {@link #runFor(long)}, {@link #runUntilIdle()} or {@link #step()}. Time starts at 0 and moves only from
 * one event to the next, so a world built in the same order with the same seed replays the same events at
 * the same times, byte for byte.
 *
 * <p><b>Ordering.</b> Events are kept in bridge's {@link TimerHeap} (the one the real-time event loop uses),
 * keyed by (time, sequence number). Every schedule takes the next sequence number, so events due at the same
 * time run in the order they were scheduled (FIFO), never in an order that depends on hashing or identity. A
 * re-arm moves an event in place and a cancel removes it from the middle: no tombstones, no duplicates.
 *
 * <p><b>Allocation.</b> Events are created at setup ({@link #newTimer}, an engine's attach); the heap array
 * grows only then, to the number of events that exist, so arming, cancelling, kicking and running allocate
 * nothing.
 *
 * <p><b>Randomness.</b> {@link #random()} is the world's one seeded {@link SplittableRandom}; components that
 * want their own stream take {@code random().split()} at setup, which stays deterministic because setup order
 * is.
 *
 * <p>Confinement: while a run method executes, scheduling from another thread is a misuse and throws; a
 * virtual world is one thread by design.
 */
public final class VirtualTimeBase implements TimeBase, io.nicbridge.bridge.time.VirtualScheduler {
    /** Default guard of {@link #runUntilIdle()}: more events than this without going idle is a runaway world. */
    public static final long DEFAULT_MAX_EVENTS = 100_000_000L;

    private final long seed;
    private final SplittableRandom random;
    private final TimerHeap<Event> events = new TimerHeap<>(16);
    private long now;
    private long eventsProcessed;
    private EventTrace trace;
    private Thread runner;

    public VirtualTimeBase(long seed) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
    }

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public boolean isVirtual() {
        return true;
    }

    /** @return the seed this world was created with */
    public long seed() {
        return seed;
    }

    /** @return the world's seeded random generator; use only from the scheduler thread (or at setup) */
    public SplittableRandom random() {
        return random;
    }

    /** Installs (or with {@code null} removes) the listener that sees every event. */
    public void trace(EventTrace trace) {
        this.trace = trace;
    }

    @Override
    public SimTimer newTimer(String name, Runnable action) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(action, "action");
        VirtualTimer timer = new VirtualTimer(name, action);
        registered();
        return timer;
    }

    /** Processes the next event, if any, advancing time to it. @return false when nothing was scheduled */
    @Override
    public boolean step() {
        enterRun();
        try {
            return processNext();
        } finally {
            runner = null;
        }
    }

    /**
     * Processes every event due at or before {@code timeNanos} (including those that the processed events
     * schedule within that horizon), then sets the clock to {@code timeNanos}.
     *
     * @return the number of events processed
     */
    @Override
    public long runUntil(long timeNanos) {
        if (timeNanos < now) {
            throw new IllegalArgumentException("cannot run until " + timeNanos + " ns: the clock is already at "
                    + now + " ns and never goes back");
        }
        enterRun();
        long processed = 0;
        try {
            while (!events.isEmpty() && events.nextDeadline() <= timeNanos) {
                processNext();
                processed++;
            }
            now = timeNanos;
        } finally {
            runner = null;
        }
        return processed;
    }

    /**
     * Processes events one at a time until {@code condition} holds (checked before the first event and after
     * each one), no event is left, or the next event lies beyond {@code timeLimitNanos}. Unlike
     * {@link #runUntil(long)} the clock stays at the last processed event, so the caller can read the exact
     * simulated time at which the condition became true.
     *
     * @return true when the condition holds
     */
    @Override
    public boolean runUntil(BooleanSupplier condition, long timeLimitNanos) {
        Objects.requireNonNull(condition, "condition");
        enterRun();
        try {
            while (!condition.getAsBoolean()) {
                if (events.isEmpty() || events.nextDeadline() > timeLimitNanos) {
                    return false;
                }
                processNext();
            }
            return true;
        } finally {
            runner = null;
        }
    }

    /** Runs for {@code durationNanos} (>= 0) of simulated time. @return the number of events processed */
    public long runFor(long durationNanos) {
        if (durationNanos < 0) {
            throw new IllegalArgumentException("duration must be >= 0 ns, was " + durationNanos);
        }
        long until = now + durationNanos;
        return runUntil(until < 0 ? Long.MAX_VALUE : until);
    }

    /** {@link #runUntilIdle(long)} with {@link #DEFAULT_MAX_EVENTS}. */
    public long runUntilIdle() {
        return runUntilIdle(DEFAULT_MAX_EVENTS);
    }

    /**
     * Processes events until none is scheduled; the clock stays at the last event's time.
     *
     * @param maxEvents guard against a world that never goes idle (a periodic timer)
     * @return the number of events processed
     * @throws IllegalStateException when {@code maxEvents} were processed and events are still scheduled
     */
    public long runUntilIdle(long maxEvents) {
        if (maxEvents <= 0) {
            throw new IllegalArgumentException("maxEvents must be > 0, was " + maxEvents);
        }
        enterRun();
        long processed = 0;
        try {
            while (!events.isEmpty()) {
                if (processed == maxEvents) {
                    Event next = events.peek();
                    throw new IllegalStateException("world not idle after " + maxEvents + " events: "
                            + events.size() + " still scheduled, next '" + next.name + "' at " + next.deadline()
                            + " ns (a periodic timer? use runUntil/runFor)");
                }
                processNext();
                processed++;
            }
        } finally {
            runner = null;
        }
        return processed;
    }

    /** @return the number of events scheduled and not yet processed */
    public int pendingEvents() {
        return events.size();
    }

    /** @return the time of the next event, or {@link Long#MAX_VALUE} when none is scheduled */
    @Override
    public long nextEventTime() {
        return events.nextDeadline();
    }

    /** @return the number of events processed since creation */
    public long eventsProcessed() {
        return eventsProcessed;
    }

    // ------------------------------------------------------------------ scheduler internals (package)

    /** Grows the heap at setup so that every existing event fits: scheduling never allocates. */
    void registered() {
        events.reserve();
    }

    /** Schedules (or re-schedules) {@code e} at {@code time}, behind everything already due then. */
    void schedule(Event e, long time) {
        checkThread(e);
        events.schedule(e, time);
    }

    void unschedule(Event e) {
        checkThread(e);
        events.remove(e);
    }

    private void checkThread(Event e) {
        Thread r = runner;
        if (r != null && r != Thread.currentThread()) {
            throw new IllegalStateException("'" + e.name + "' scheduled from thread " + Thread.currentThread().getName()
                    + " while the virtual world runs on " + r.getName() + "; a virtual world is single-threaded");
        }
    }

    private void enterRun() {
        if (runner != null) {
            throw new IllegalStateException(runner == Thread.currentThread()
                    ? "run methods cannot be called from inside an event"
                    : "the virtual world is already running on " + runner.getName());
        }
        runner = Thread.currentThread();
    }

    private boolean processNext() {
        Event e = events.peek();
        if (e == null) {
            return false;
        }
        unschedule(e);
        now = e.deadline();
        eventsProcessed++;
        EventTrace t = trace;
        if (t != null) {
            t.event(now, e.name);
        }
        e.fire();
        return true;
    }

    /** A schedulable entry, created at setup and reused for every schedule. */
    abstract static class Event extends TimerHeap.Entry {
        final String name;

        Event(String name) {
            this.name = name;
        }

        final boolean isScheduled() {
            return isQueued();
        }

        abstract void fire();
    }

    private final class VirtualTimer extends Event implements SimTimer {
        private final Runnable action;

        VirtualTimer(String name, Runnable action) {
            super(name);
            this.action = action;
        }

        @Override
        public void armAfter(long delayNanos) {
            if (delayNanos < 0) {
                throw new IllegalArgumentException("timer " + name + ": delay must be >= 0 ns, was " + delayNanos);
            }
            long deadline = now + delayNanos;
            schedule(this, deadline < 0 ? Long.MAX_VALUE : deadline);
        }

        @Override
        public void armAt(long deadlineNanos) {
            schedule(this, Math.max(deadlineNanos, now)); // a passed deadline fires next, never in the past
        }

        @Override
        public void cancel() {
            unschedule(this);
        }

        @Override
        public boolean isArmed() {
            return isScheduled();
        }

        @Override
        void fire() {
            action.run();
        }

        @Override
        public String toString() {
            return "virtual timer " + name;
        }
    }
}
