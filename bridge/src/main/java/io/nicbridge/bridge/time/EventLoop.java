package io.nicbridge.bridge.time;

import io.nicbridge.bridge.idle.BackoffIdle;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;

/**
 * A real-time scheduler whose timers fire on the loop's own thread: the event loop a single-threaded protocol
 * core runs in when the time is real (one loop per node). Each pass of {@link #runOnce()} polls every
 * {@link Source} (a link, a card's port) once, then fires every timer that was due when the pass began; when a pass did
 * nothing the loop
 * backs off with a {@link BackoffIdle} (a few {@link Thread#onSpinWait()} passes, then {@link Thread#yield()},
 * then parks until the next deadline, at most {@code maxParkNanos}, or until {@link #wakeup()}), so an idle loop
 * costs no core on a shared machine.
 *
 * <p><b>Threads.</b> Everything but {@link #wakeup()} and {@link #close()} is confined: before the loop starts,
 * to the thread that builds it (setup); afterwards, to the loop thread (its timer actions and sources). Arming a
 * timer from any other thread would race with the loop, so it throws {@link IllegalStateException}; another
 * thread hands work to the loop through a source and {@link #wakeup()}.
 *
 * <p><b>Timers</b> live in a {@link TimerHeap} (the one sim's virtual time uses): re-arming moves the entry in
 * place, cancelling removes it from the middle, firing order among equal deadlines is arming order, and nothing
 * allocates after {@link #newTimer} (the heap grows only there).
 */
public final class EventLoop implements Scheduler, AutoCloseable {
    /** Work the loop polls every pass: a link or port to dispatch, a queue to drain. */
    @FunctionalInterface
    public interface Source {
        /** @return how much work this poll did (0 = nothing), which decides whether the loop backs off */
        int doWork();
    }

    private static final int SPIN_PASSES = 20;
    private static final int YIELD_PASSES = 10;

    private final String name;
    /** Spin, yield, then park until the next deadline, at most maxParkNanos, or a {@link #wakeup()}. */
    private final BackoffIdle backoff;
    private final TimerHeap<LoopTimer> timers = new TimerHeap<>(8);
    private Source[] sources = new Source[0];
    private volatile Thread owner;
    private volatile Thread loopThread;
    private volatile Thread startedThread;
    private volatile boolean running;
    private volatile boolean wakeupPending;
    private long timersFired;

    /**
     * @param name         the loop thread's name
     * @param maxParkNanos the longest an idle loop parks before polling its sources again (> 0): bounds the
     *                     latency of sources that cannot call {@link #wakeup()} themselves
     */
    public EventLoop(String name, long maxParkNanos) {
        this.name = Objects.requireNonNull(name, "name");
        if (maxParkNanos <= 0) {
            throw new IllegalArgumentException("maxParkNanos must be > 0, was " + maxParkNanos);
        }
        this.backoff = new BackoffIdle(SPIN_PASSES, YIELD_PASSES, maxParkNanos, maxParkNanos);
        this.owner = Thread.currentThread();
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public boolean isVirtual() {
        return false;
    }

    @Override
    public Timer newTimer(String timerName, Runnable action) {
        Objects.requireNonNull(timerName, "timerName");
        Objects.requireNonNull(action, "action");
        checkOwner("newTimer");
        LoopTimer t = new LoopTimer(timerName, action);
        timers.reserve();
        return t;
    }

    /** Adds a source polled every pass. Setup-time (or from the loop thread). */
    public void addSource(Source source) {
        Objects.requireNonNull(source, "source");
        checkOwner("addSource");
        Source[] grown = Arrays.copyOf(sources, sources.length + 1);
        grown[grown.length - 1] = source;
        sources = grown;
    }

    /** Makes an idle loop run a pass now. Any thread; allocation-free. */
    public void wakeup() {
        wakeupPending = true;
        Thread t = loopThread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /**
     * Runs one pass on the calling thread, which becomes the loop's thread: polls every source once, then fires the
     * timers due at the pass's start. Sources first: a loop thread that lost its CPU past a deadline handles what
     * arrived meanwhile before that deadline - the acknowledgement before the retransmission timeout it makes
     * unnecessary (which a timer fired first would take for a loss).
     *
     * @return the work done (timers fired + what the sources reported)
     */
    public int runOnce() {
        claimOwnership();
        wakeupPending = false;
        long now = System.nanoTime();
        int work = 0;
        for (Source s : sources) {
            work += s.doWork();
        }
        return work + fireDue(now);
    }

    /**
     * Runs passes on the calling thread until {@link #close()}, backing off when a pass did nothing (spin, then
     * yield, then park until the next deadline or a {@link #wakeup()}).
     */
    public void run() {
        claimOwnership();
        loopThread = Thread.currentThread();
        running = true;
        try {
            while (running) {
                if (runOnce() > 0) {
                    backoff.reset();
                } else {
                    idle();
                }
            }
        } finally {
            loopThread = null;
        }
    }

    /** Starts {@link #run()} on a new platform thread named after the loop. @return that thread */
    public Thread start() {
        running = true; // so that a close() racing with the thread's start still stops it
        Thread t = Thread.ofPlatform().name(name).daemon(true).unstarted(() -> {
            if (running) {
                run();
            }
        });
        owner = t;
        startedThread = t;
        t.start();
        return t;
    }

    /** Stops {@link #run()} after its current pass (any thread) and waits for a started loop thread to end. */
    @Override
    public void close() {
        running = false;
        Thread t = startedThread;
        wakeup();
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** @return timers fired since creation (loop thread; a diagnostic) */
    public long timersFired() {
        return timersFired;
    }

    /** @return nanoseconds from {@code now} to the earliest armed deadline (0 if due), or Long.MAX_VALUE */
    public long nanosToNextDeadline(long now) {
        return timers.isEmpty() ? Long.MAX_VALUE : Math.max(0L, timers.nextDeadline() - now);
    }

    private void idle() {
        if (wakeupPending) {
            return; // a wakeup() came during the pass: run the next one at once
        }
        // the deadline bounds only a park; reading the clock for a spin or a yield would be wasted
        backoff.idle(0, backoff.isParking() ? nanosToNextDeadline(System.nanoTime()) : Long.MAX_VALUE);
    }

    private int fireDue(long now) {
        int fired = 0;
        LoopTimer t;
        while ((t = timers.peek()) != null && t.deadline() - now <= 0) {
            timers.remove(t);
            fired++;
            timersFired++;
            t.action.run(); // may re-arm t or others: the heap is consistent here
        }
        return fired;
    }

    private void claimOwnership() {
        Thread me = Thread.currentThread();
        Thread o = owner;
        if (o != me) {
            if (o != null && o.isAlive() && loopThread != null) {
                throw new IllegalStateException("event loop " + name + " already runs on " + o.getName());
            }
            owner = me;
        }
    }

    private void checkOwner(String what) {
        checkOwner(what, null);
    }

    /**
     * @param what       the refused action
     * @param timerName  appended to {@code what} when not null; passed apart so that the check, which runs on every
     *                   arm and cancel, builds no string unless it throws
     */
    private void checkOwner(String what, String timerName) {
        Thread o = owner;
        if (o != Thread.currentThread() && o != null && o.isAlive()) {
            throw new IllegalStateException(what + (timerName == null ? "" : " " + timerName) + " on event loop "
                    + name + " from thread " + Thread.currentThread().getName() + ", but the loop belongs to "
                    + o.getName() + "; hand work to the loop through a Source and wakeup()");
        }
    }

    private final class LoopTimer extends TimerHeap.Entry implements Timer {
        private final String timerName;
        private final Runnable action;

        LoopTimer(String timerName, Runnable action) {
            this.timerName = timerName;
            this.action = action;
        }

        @Override
        public void armAfter(long delayNanos) {
            if (delayNanos < 0) {
                throw new IllegalArgumentException("timer " + timerName + ": delay must be >= 0 ns, was " + delayNanos);
            }
            checkOwner("arming timer", timerName);
            timers.schedule(this, System.nanoTime() + delayNanos);
        }

        @Override
        public void armAt(long deadlineNanos) {
            checkOwner("arming timer", timerName);
            timers.schedule(this, deadlineNanos);
        }

        @Override
        public void cancel() {
            checkOwner("cancelling timer", timerName);
            timers.remove(this);
        }

        @Override
        public boolean isArmed() {
            return isQueued();
        }

        @Override
        public String toString() {
            return "event-loop timer " + timerName;
        }
    }
}
