package io.nicbridge.bridge.spi;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A card's interrupt line: level-triggered, high while {@code (status & mask) != 0}.
 *
 * <p>The backend drives it ({@link #update(int, int)}, or {@link #raise()}/{@link #lower()}); the host
 * polls {@link #isAsserted()}, parks in {@link #await(long, TimeUnit)} until it goes high, or installs
 * an {@link InterruptHandler} that runs on each low-to-high edge. {@link #assertions()} counts edges.
 *
 * <p>Waiting parks; it never spins. Waiters occupy one of {@link #MAX_WAITERS} slots (no allocation per
 * wait). Lost wake-ups are impossible: a waiter publishes itself in a slot (volatile) and re-reads the
 * level before parking; {@link #raise()} sets the level (volatile) before scanning the slots, so at least
 * one of the two sees the other.
 *
 * <p>A backend whose card has no thread of its own (the native shim in inline mode) installs a {@link Pump}: a
 * waiting thread then does the card's work itself - it blocks in the card's own wait (e.g. {@code epoll_wait} on the
 * socket) instead of parking, so a frame arriving wakes the very thread that handles it.
 *
 * <p>A card that can do no more work (its model or backend thread died) {@linkplain #fail fails} its line: every
 * waiter wakes and every wait, now or later, throws {@link CardFailedException} with the card's error as its cause.
 * This is the one place every driver waits for its card, so each gets the failure without code of its own.
 */
public final class InterruptLine {
    /** Most threads that may wait at the same time. */
    public static final int MAX_WAITERS = 16;

    private static final VarHandle ASSERTED;
    private static final VarHandle ASSERTIONS;
    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(Thread[].class);

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            ASSERTED = lookup.findVarHandle(InterruptLine.class, "asserted", boolean.class);
            ASSERTIONS = lookup.findVarHandle(InterruptLine.class, "assertions", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String name;
    private final Thread[] waiters = new Thread[MAX_WAITERS];
    private volatile boolean asserted;
    private volatile long assertions;
    private volatile InterruptHandler handler;
    private volatile Pump pump;
    private volatile CardFailedException failure;

    /**
     * Longest single {@link Pump#pump} call inside {@link #await}. A raise from another thread must end a pump early
     * (the backend wakes its wait), so this only bounds the wait itself; it is long because in a VM arming a short
     * timer on every sleep costs microseconds.
     */
    public static final long PUMP_SLICE_NANOS = 1_000_000_000L;

    /** Card work that a thread waiting on the line does itself, for cards that run on their host's threads. */
    @FunctionalInterface
    public interface Pump {
        /**
         * Does the card's pending work, waiting up to {@code timeoutNanos} for some, and drives the line from the
         * card's state. Returns early when there was work, or when another thread raised the line.
         */
        void pump(long timeoutNanos) throws InterruptedException;
    }

    public InterruptLine(String name) {
        this.name = Objects.requireNonNull(name, "name");
    }

    public String name() {
        return name;
    }

    // ------------------------------------------------------------------ backend side

    /** Sets the level from the card's status and mask registers: high iff {@code (status & mask) != 0}. */
    public void update(int status, int mask) {
        if ((status & mask) != 0) {
            raise();
        } else {
            lower();
        }
    }

    /** Drives the line high; on a low-to-high edge counts it, wakes every waiter and runs the handler. */
    public void raise() {
        if (asserted || !ASSERTED.compareAndSet(this, false, true)) {
            return; // already high: level-triggered, nothing new to report
        }
        ASSERTIONS.getAndAdd(this, 1L);
        Thread[] slots = waiters;
        for (int i = 0; i < slots.length; i++) {
            Thread t = (Thread) SLOTS.getVolatile(slots, i);
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
        InterruptHandler h = handler;
        if (h != null) {
            h.onInterrupt(this);
        }
    }

    /**
     * The card failed: wakes every waiter; {@link #await} throws {@code failure} (a new instance per throw, with the
     * same cause) from now on. The first failure wins; later ones are ignored. Backend side.
     */
    public void fail(CardFailedException failure) {
        Objects.requireNonNull(failure, "failure");
        if (this.failure != null) {
            return;
        }
        this.failure = failure;
        Thread[] slots = waiters;
        for (int i = 0; i < slots.length; i++) {
            Thread t = (Thread) SLOTS.getVolatile(slots, i);
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    /** @return the card's failure, or null while it works */
    public CardFailedException failure() {
        return failure;
    }

    /**
     * For a driver's own wait loops (waits on memory rather than on the line): one volatile read.
     *
     * @throws CardFailedException when the card failed
     */
    public void checkCard() {
        CardFailedException f = failure;
        if (f != null) {
            throw f.rethrown();
        }
    }

    /** Drives the line low (the host acknowledged every enabled status bit). */
    public void lower() {
        if (asserted) {
            asserted = false;
        }
    }

    // ------------------------------------------------------------------ host side

    public boolean isAsserted() {
        return asserted;
    }

    /** @return low-to-high edges since creation */
    public long assertions() {
        return assertions;
    }

    /** Installs (or with {@code null} removes) the pump that waiting threads run instead of parking. Backend side. */
    public void pump(Pump pump) {
        this.pump = pump;
    }

    /** Installs (or with {@code null} removes) the edge handler; it runs in the card's thread. */
    public void handler(InterruptHandler handler) {
        this.handler = handler;
    }

    /**
     * Waits until the line is high.
     *
     * @return true when the line is high, false when {@code timeout} elapsed first
     * @throws InterruptedException  when the waiting thread is interrupted
     * @throws CardFailedException   when the card failed, before or during the wait
     * @throws IllegalStateException when {@link #MAX_WAITERS} threads already wait on this line, or the card's pump
     *                               found the card closed
     */
    public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        checkCard();
        if (asserted) {
            return true;
        }
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        long remaining = unit.toNanos(timeout);
        if (remaining <= 0) {
            return false;
        }
        long deadline = System.nanoTime() + remaining;
        Pump p = pump;
        if (p != null) {
            // The waiting thread is the card's thread for a while: no parking, the card's own wait blocks it. The
            // clock is read again only when a pump ended without the edge (a raise usually ends it).
            for (;;) {
                p.pump(Math.min(remaining, PUMP_SLICE_NANOS));
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                checkCard();
                if (asserted) {
                    return true;
                }
                remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return false;
                }
            }
        }
        int slot = enlist(Thread.currentThread());
        try {
            checkCard(); // fail() may have scanned the slots before this thread took one
            while (!asserted) {
                if (remaining <= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, remaining);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                checkCard();
                remaining = deadline - System.nanoTime();
            }
            return true;
        } finally {
            SLOTS.setVolatile(waiters, slot, (Thread) null);
        }
    }

    private int enlist(Thread self) {
        Thread[] slots = waiters;
        for (int i = 0; i < slots.length; i++) {
            if (SLOTS.getVolatile(slots, i) == null && SLOTS.compareAndSet(slots, i, (Thread) null, self)) {
                return i;
            }
        }
        throw new IllegalStateException("interrupt line '" + name + "': more than " + MAX_WAITERS
            + " threads are waiting");
    }

    @Override
    public String toString() {
        return "InterruptLine[" + name + ", " + (asserted ? "high" : "low") + ", " + assertions + " assertions]";
    }
}
