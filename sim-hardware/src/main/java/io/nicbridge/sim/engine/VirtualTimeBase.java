package io.nicbridge.sim.engine;

import java.util.Arrays;
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
 * <p><b>Ordering.</b> Events are kept in an indexed binary min-heap keyed by (time, sequence number). Every
 * schedule takes the next sequence number, so events due at the same time run in the order they were
 * scheduled (FIFO), never in an order that depends on hashing or identity.
 *
 * <pre>
 *   heap[0] = next event       each Event knows its heapIndex (-1 = not scheduled), so a re-arm
 *        /        \             moves it up or down in place (O(log n)) and a cancel removes it from
 *   heap[1]      heap[2]        the middle: no allocation, no tombstones, no duplicate entries
 * </pre>
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
    private Event[] heap = new Event[16];
    private int size;
    private int eventsCreated;
    private long now;
    private long nextSequence;
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
            while (size > 0 && heap[0].time <= timeNanos) {
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
                if (size == 0 || heap[0].time > timeLimitNanos) {
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
            while (size > 0) {
                if (processed == maxEvents) {
                    throw new IllegalStateException("world not idle after " + maxEvents + " events: "
                            + size + " still scheduled, next '" + heap[0].name + "' at " + heap[0].time
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
        return size;
    }

    /** @return the time of the next event, or {@link Long#MAX_VALUE} when none is scheduled */
    @Override
    public long nextEventTime() {
        return size == 0 ? Long.MAX_VALUE : heap[0].time;
    }

    /** @return the number of events processed since creation */
    public long eventsProcessed() {
        return eventsProcessed;
    }

    // ------------------------------------------------------------------ scheduler internals (package)

    /** Grows the heap at setup so that every existing event fits: scheduling never allocates. */
    void registered() {
        eventsCreated++;
        if (eventsCreated > heap.length) {
            heap = Arrays.copyOf(heap, heap.length * 2);
        }
    }

    /** Schedules (or re-schedules) {@code e} at {@code time}, behind everything already due then. */
    void schedule(Event e, long time) {
        checkThread(e);
        e.time = time;
        e.sequence = nextSequence++;
        int i = e.heapIndex;
        if (i < 0) {
            i = size++;
            heap[i] = e;
            e.heapIndex = i;
            siftUp(i);
        } else if (!siftUp(i)) {
            siftDown(i);
        }
    }

    void unschedule(Event e) {
        checkThread(e);
        int i = e.heapIndex;
        if (i < 0) {
            return;
        }
        Event last = heap[--size];
        heap[size] = null;
        e.heapIndex = -1;
        if (i != size) {
            heap[i] = last;
            last.heapIndex = i;
            if (!siftUp(i)) {
                siftDown(i);
            }
        }
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
        if (size == 0) {
            return false;
        }
        Event e = heap[0];
        unschedule(e);
        now = e.time;
        eventsProcessed++;
        EventTrace t = trace;
        if (t != null) {
            t.event(now, e.name);
        }
        e.fire();
        return true;
    }

    private static boolean before(Event a, Event b) {
        return a.time < b.time || (a.time == b.time && a.sequence < b.sequence);
    }

    /** @return true when the entry moved */
    private boolean siftUp(int i) {
        Event e = heap[i];
        int start = i;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Event p = heap[parent];
            if (!before(e, p)) {
                break;
            }
            heap[i] = p;
            p.heapIndex = i;
            i = parent;
        }
        heap[i] = e;
        e.heapIndex = i;
        return i != start;
    }

    private void siftDown(int i) {
        Event e = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            Event c = heap[child];
            int right = child + 1;
            if (right < size && before(heap[right], c)) {
                child = right;
                c = heap[child];
            }
            if (!before(c, e)) {
                break;
            }
            heap[i] = c;
            c.heapIndex = i;
            i = child;
        }
        heap[i] = e;
        e.heapIndex = i;
    }

    /** A schedulable entry, created at setup and reused for every schedule. */
    abstract static class Event {
        final String name;
        long time;
        long sequence;
        int heapIndex = -1;

        Event(String name) {
            this.name = name;
        }

        final boolean isScheduled() {
            return heapIndex >= 0;
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
        public long deadline() {
            return time;
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
