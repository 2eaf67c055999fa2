package io.nicbridge.sim.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Objects;

/**
 * Real time ({@link System#nanoTime()}) with a small table of re-armable timers that fire when somebody
 * {@link #pollTimers() polls} them: the engine that owns this time base does, every time it services a model
 * (inline: on the kicking thread, and whenever the host calls {@link InlineEngine#poll()}; threaded: on the
 * engine threads in every loop). Nothing fires by itself: there is no timer thread.
 *
 * <p>Each timer is one word, so arming, cancelling and firing are lock-free and allocation-free:
 *
 * <pre>
 *   state (long)   -1                      disarmed
 *                  d &gt;= 0                  armed; expires at epoch + d nanoseconds
 * </pre>
 *
 * Storing the deadline relative to the time base's epoch keeps it non-negative (for 292 years), so one
 * word holds both "armed?" and "when": firing is a single CAS from the deadline it saw to -1, and a re-arm
 * that races with it either lands before (the CAS fails, the new deadline stands) or after (a new expiry).
 *
 * <p>Timer actions run inside a {@link ServiceGate}, so at most one thread runs expired actions at a time and
 * an action never runs concurrently with itself; a poll that finds the gate busy leaves a note and the thread
 * inside polls once more. Firing order among timers that expired in the same poll is table order.
 */
public final class RealTimeBase implements TimeBase {
    private static final long DISARMED = -1L;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Timer.class, "state", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long epoch = System.nanoTime();
    private final ServiceGate pollGate = new ServiceGate();
    /** Copy-on-write at setup (newTimer), so pollers on other threads always see a complete array. */
    private volatile Timer[] timers = new Timer[0];
    /**
     * False only when no timer can be armed, so that a poll with nothing armed (the common case on an inline
     * kick) costs one volatile read instead of a clock read and a scan. Dekker pair with {@link Timer#armAfter}:
     * the armer stores its state (volatile) then reads this flag; the poller clears this flag (volatile) then
     * reads every state (volatile). Whatever the interleaving, either the armer sees the cleared flag and sets
     * it again, or the poller's scan sees the armed state and sets it again.
     */
    private volatile boolean maybeArmed;
    /** Told after every arm, so that engine threads parked until an older deadline recompute it. */
    private volatile Runnable[] armListeners = new Runnable[0];

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public boolean isVirtual() {
        return false;
    }

    @Override
    public synchronized SimTimer newTimer(String name, Runnable action) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(action, "action");
        Timer timer = new Timer(name, action);
        Timer[] grown = Arrays.copyOf(timers, timers.length + 1);
        grown[grown.length - 1] = timer;
        timers = grown;
        return timer;
    }

    /**
     * Registers a hook run (on the arming thread) after every {@link SimTimer#armAfter}: threaded engines
     * use it to unpark idle threads so they do not sleep past the new deadline. Setup-time only; the hook
     * must be cheap and allocation-free.
     */
    synchronized void addArmListener(Runnable listener) {
        Runnable[] grown = Arrays.copyOf(armListeners, armListeners.length + 1);
        grown[grown.length - 1] = Objects.requireNonNull(listener, "listener");
        armListeners = grown;
    }

    /** @return the number of timers created on this time base */
    public int timerCount() {
        return timers.length;
    }

    /**
     * Runs the action of every armed timer whose deadline has passed, each at most once per expiry.
     *
     * @return how many actions ran on this call; 0 also when another thread was polling (it polls again for us)
     */
    public int pollTimers() {
        if (!maybeArmed || !pollGate.enterOrNote()) {
            return 0;
        }
        return pollHeld();
    }

    /**
     * Like {@link #pollTimers()}, but when another thread is polling it returns at once without asking that
     * thread to poll again: for engine threads that poll in a loop anyway, so that they never keep each
     * other looping.
     */
    int pollTimersIfFree() {
        if (!maybeArmed || !pollGate.tryEnter()) {
            return 0;
        }
        return pollHeld();
    }

    private int pollHeld() {
        Timer[] table = timers;
        int fired = 0;
        try {
            do {
                maybeArmed = false;
                boolean stillArmed = false;
                long nowRelative = System.nanoTime() - epoch;
                for (Timer timer : table) {
                    fired += timer.fireIfDue(nowRelative);
                    stillArmed |= timer.isArmed(); // includes re-arms made by the actions that just ran
                }
                if (stillArmed) {
                    maybeArmed = true;
                }
                table = timers;
            } while (!pollGate.tryExit());
        } catch (RuntimeException | Error e) {
            pollGate.abandon();
            throw e;
        }
        return fired;
    }

    /**
     * Like {@link #nanosToNextDeadline()}, but one volatile read when no timer can be armed (the idle path of
     * engine threads).
     */
    long nanosToNextDeadlineIfArmed() {
        return maybeArmed ? nanosToNextDeadline() : Long.MAX_VALUE;
    }

    /**
     * @return nanoseconds from now until the earliest armed deadline (0 when one is already due), or
     *     {@link Long#MAX_VALUE} when no timer is armed
     */
    public long nanosToNextDeadline() {
        long nowRelative = System.nanoTime() - epoch;
        long best = Long.MAX_VALUE;
        for (Timer timer : timers) {
            long s = (long) STATE.getVolatile(timer); // volatile: Dekker pair with an idling engine thread
            if (s != DISARMED) {
                best = Math.min(best, Math.max(0L, s - nowRelative));
            }
        }
        return best;
    }

    private final class Timer implements SimTimer {
        private final String name;
        private final Runnable action;
        @SuppressWarnings("unused") // accessed through STATE
        private volatile long state = DISARMED;

        Timer(String name, Runnable action) {
            this.name = name;
            this.action = action;
        }

        @Override
        public void armAfter(long delayNanos) {
            if (delayNanos < 0) {
                throw new IllegalArgumentException("timer " + name + ": delay must be >= 0 ns, was " + delayNanos);
            }
            long nowRelative = System.nanoTime() - epoch;
            long deadline = nowRelative + delayNanos;
            if (deadline < 0) { // overflow: "never" in practice
                deadline = Long.MAX_VALUE;
            }
            armRelative(deadline);
        }

        @Override
        public void armAt(long deadlineNanos) {
            armRelative(Math.max(0L, deadlineNanos - epoch)); // before the epoch = due now
        }

        private void armRelative(long deadline) {
            STATE.setVolatile(this, deadline); // volatile, not just release: see maybeArmed
            if (!maybeArmed) {
                maybeArmed = true;
            }
            for (Runnable listener : armListeners) {
                listener.run();
            }
        }

        @Override
        public void cancel() {
            STATE.setRelease(this, DISARMED);
        }

        @Override
        public boolean isArmed() {
            return (long) STATE.getAcquire(this) != DISARMED;
        }

        @Override
        public long deadline() {
            return epoch + (long) STATE.getAcquire(this);
        }

        int fireIfDue(long nowRelative) {
            long s = (long) STATE.getVolatile(this); // volatile: ordered after the poller's maybeArmed store
            if (s == DISARMED || nowRelative < s || !STATE.compareAndSet(this, s, DISARMED)) {
                return 0;
            }
            action.run();
            return 1;
        }

        @Override
        public String toString() {
            return "timer " + name;
        }
    }
}
