package io.nicbridge.sim.engine;

import io.nicbridge.bridge.idle.IdleStrategy;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One engine thread per attached model, like the SBA-200's i960 polling its queues: the thread loops
 * {@code service()} + due timers, and after a pass without work calls its {@link IdleStrategy} (each thread
 * has its own {@link IdleStrategy#copy() copy}).
 *
 * <p><b>Start.</b> A model's thread starts at attach and from then on polls the timers, but it calls
 * {@code service()} only after the model's first kick or {@link #start()}: a card typically attaches itself
 * from its constructor, and a thread calling {@code service()} on a half-built card would be a bug. The kick's
 * volatile store, read by the thread before its first {@code service()}, publishes everything the card set
 * up before kicking. (A card that must be polled without doorbells, like an i960 scanning its queues, kicks
 * itself once at the end of its setup.)
 *
 * <p><b>Kick.</b> A kick sets the thread's {@code kickPending} flag and, only if the thread said it is about
 * to idle, unparks it. The thread says {@code idling = true} and then reads {@code kickPending}; the kicker
 * writes {@code kickPending = true} and then reads {@code idling}. Both are volatile, so at least one side
 * sees the other's write (Dekker): either the thread skips its idle or the kicker unparks it. No allocation;
 * the unpark (a syscall when the thread really sleeps) is paid only when the thread may be sleeping.
 *
 * <p><b>Timers</b> of this engine's {@link RealTimeBase} are polled by every engine thread on every pass
 * (one at a time; a thread that finds another polling skips). An idle thread never parks past the next armed
 * deadline ({@link IdleStrategy#idle(int, long)}), and arming a timer unparks idle threads so they see the
 * new deadline; a timer fires about one park-wake-up late at most. With no model attached nothing polls
 * them.
 *
 * <p><b>Failure.</b> When a model's {@code service()} (or a timer action polled on its thread) throws, its thread
 * stops: the card can do no more work. The engine logs that once (SLF4J error naming the model, i.e. the card),
 * records the first such exception ({@link #failure()}) and tells every {@link ModelFailureListener}, on the failing
 * thread; the testbed's listener fails the card (its interrupt line and registers), so the card's drivers throw
 * {@code CardFailedException} at their next call instead of waiting into a timeout. The other models run on.
 *
 * <p><b>Close</b> stops every thread, unparks it and joins it with a timeout.
 */
public final class ThreadedEngine implements DeviceEngine {
    private static final Logger LOG = LoggerFactory.getLogger(ThreadedEngine.class);
    public static final long DEFAULT_JOIN_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final RealTimeBase timeBase;
    private final IdleStrategy idlePrototype;
    private final long joinTimeoutNanos;
    private final List<Runner> runners = new ArrayList<>();
    /** Snapshot of {@link #runners} for the arm hook, which runs on any thread without the lock. */
    private volatile Runner[] runnerArray = new Runner[0];
    private volatile boolean closed;
    private volatile Throwable failure;
    private final List<ModelFailureListener> failureListeners = new CopyOnWriteArrayList<>();


    public ThreadedEngine(IdleStrategy idle) {
        this(new RealTimeBase(), idle, DEFAULT_JOIN_TIMEOUT_NANOS);
    }

    /**
     * @param timeBase         the real-time base whose timers the engine threads poll
     * @param idle             prototype of the idle strategy; each thread gets its own copy
     * @param joinTimeoutNanos how long {@link #close()} waits for each thread
     */
    public ThreadedEngine(RealTimeBase timeBase, IdleStrategy idle, long joinTimeoutNanos) {
        this.timeBase = Objects.requireNonNull(timeBase, "timeBase");
        this.idlePrototype = Objects.requireNonNull(idle, "idle");
        if (joinTimeoutNanos <= 0) {
            throw new IllegalArgumentException("join timeout must be > 0 ns, was " + joinTimeoutNanos);
        }
        this.joinTimeoutNanos = joinTimeoutNanos;
        timeBase.addArmListener(this::wakeIdleThreads);
    }

    /**
     * After a timer was armed: unpark the threads that are idling, so none sleeps past the new deadline. The
     * thread stores {@code idling = true} and then reads the deadlines; the armer stores the deadline and
     * then reads {@code idling} - all volatile, so one of them sees the other (no sleeping through a
     * deadline). Busy threads are not disturbed.
     */
    private void wakeIdleThreads() {
        for (Runner r : runnerArray) {
            if (r.idling) {
                LockSupport.unpark(r.thread);
            }
        }
    }

    @Override
    public EngineMode mode() {
        return EngineMode.THREADED;
    }

    @Override
    public RealTimeBase timeBase() {
        return timeBase;
    }

    public IdleStrategy idleStrategy() {
        return idlePrototype;
    }

    @Override
    public synchronized WorkSignal attach(DeviceModel model) {
        Objects.requireNonNull(model, "model");
        if (closed) {
            throw new IllegalStateException("threaded engine is closed; cannot attach " + model.name());
        }
        for (Runner r : runners) {
            if (r.model == model) {
                throw new IllegalArgumentException("model " + model.name() + " is already attached");
            }
        }
        Runner runner = new Runner(model, idlePrototype.copy());
        runners.add(runner);
        runnerArray = runners.toArray(new Runner[0]);
        runner.thread.start();
        LOG.debug("threaded engine: attached {} ({})", model.name(), idlePrototype);
        return runner;
    }

    /** Lets every attached model's thread call {@code service()} from now on, as its first kick would. */
    public synchronized void start() {
        for (Runner r : runners) {
            r.enableService();
        }
    }

    /**
     * Adds a listener for models whose thread stops on an exception; models that failed already are reported to it at
     * once.
     */
    @Override
    public void addFailureListener(ModelFailureListener listener) {
        Objects.requireNonNull(listener, "listener");
        List<Runner> failed = new ArrayList<>();
        synchronized (this) {
            failureListeners.add(listener);
            for (Runner r : runners) {
                if (r.failedWith != null) {
                    failed.add(r);
                }
            }
        }
        for (Runner r : failed) {
            tell(listener, r.model, r.failedWith);
        }
    }

    private void modelFailed(Runner runner, Throwable cause) {
        List<ModelFailureListener> toTell;
        synchronized (this) { // ordered against addFailureListener: each listener hears of each failure exactly once
            runner.failedWith = cause;
            if (failure == null) {
                failure = cause;
            }
            // The listeners registered so far; a later addFailureListener sees failedWith and tells its own.
            toTell = List.copyOf(failureListeners);
        }
        LOG.error("card model {} failed: its engine thread {} stopped because service() or a timer action threw;"
            + " the model does no more work", runner.model.name(), runner.thread.getName(), cause);
        for (ModelFailureListener l : toTell) {
            tell(l, runner.model, cause);
        }
    }

    private static void tell(ModelFailureListener listener, DeviceModel model, Throwable cause) {
        try {
            listener.failed(model, cause);
        } catch (RuntimeException e) {
            LOG.error("failure listener {} threw for model {}", listener, model.name(), e);
        }
    }

    /** @return the first exception thrown by a model's service() or a timer action (that thread stopped), or null */
    public Throwable failure() {
        return failure;
    }

    /** @return the number of engine threads currently alive */
    public synchronized int liveThreads() {
        int n = 0;
        for (Runner r : runners) {
            if (r.thread.isAlive()) {
                n++;
            }
        }
        return n;
    }

    /**
     * Stops every engine thread and waits for each up to the join timeout.
     *
     * @throws IllegalStateException when a thread did not stop in time (it is interrupted and left behind)
     */
    @Override
    public void close() {
        List<Runner> toStop;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toStop = List.copyOf(runners);
        }
        for (Runner r : toStop) {
            r.running = false;
            LockSupport.unpark(r.thread);
        }
        List<String> stuck = new ArrayList<>();
        for (Runner r : toStop) {
            if (!r.join(joinTimeoutNanos)) {
                r.thread.interrupt();
                stuck.add(r.thread.getName());
            }
        }
        if (!stuck.isEmpty()) {
            LOG.error("threaded engine: threads {} did not stop within {} ms", stuck,
                    TimeUnit.NANOSECONDS.toMillis(joinTimeoutNanos));
            throw new IllegalStateException("engine threads " + stuck + " did not stop within "
                    + TimeUnit.NANOSECONDS.toMillis(joinTimeoutNanos) + " ms (a service() that never returns?)");
        }
        LOG.debug("threaded engine: stopped {} threads", toStop.size());
    }

    /** A model's engine thread; also the model's {@link WorkSignal}. */
    private final class Runner implements WorkSignal, Runnable {
        private final DeviceModel model;
        private final IdleStrategy idle;
        private final Thread thread;
        private volatile boolean serviceEnabled;
        private volatile boolean running = true;
        private volatile boolean idling;
        private volatile boolean kickPending;
        /** What stopped this thread; written under the engine's lock (see modelFailed). */
        private volatile Throwable failedWith;

        Runner(DeviceModel model, IdleStrategy idle) {
            this.model = model;
            this.idle = idle;
            this.thread = Thread.ofPlatform().name(model.name()).daemon(true).unstarted(this);
        }

        @Override
        public void kick() {
            if (!serviceEnabled) {
                serviceEnabled = true; // stored before kickPending: a thread that sees the kick services
            }
            kickPending = true;
            if (idling) {
                LockSupport.unpark(thread);
            }
        }

        void enableService() {
            serviceEnabled = true;
            LockSupport.unpark(thread);
        }

        boolean join(long timeoutNanos) {
            if (thread == Thread.currentThread()) {
                return true; // close() called from this model's own service(): the loop ends when it returns
            }
            try {
                return thread.join(java.time.Duration.ofNanos(timeoutNanos));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        @Override
        public void run() {
            try {
                while (running) {
                    if (kickPending) {
                        kickPending = false; // cleared before the pass, so a kick during the pass is seen after it
                    }
                    int work = (serviceEnabled ? model.service() : 0) + timeBase.pollTimersIfFree();
                    if (work > 0) {
                        idle.idle(work);
                    } else {
                        idling = true;
                        long toDeadline = timeBase.nanosToNextDeadlineIfArmed();
                        if (!kickPending && running && toDeadline > 0) {
                            idle.idle(0, toDeadline);
                        } else {
                            idle.reset();
                        }
                        idling = false;
                    }
                }
            } catch (RuntimeException | Error e) {
                modelFailed(this, e);
            }
        }

        @Override
        public String toString() {
            return "threaded signal of " + model.name();
        }
    }
}
