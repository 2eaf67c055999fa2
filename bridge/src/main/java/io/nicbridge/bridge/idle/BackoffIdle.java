package io.nicbridge.bridge.idle;

import java.util.concurrent.locks.LockSupport;

/**
 * Backs off in three stages as idle passes accumulate: spin ({@link Thread#onSpinWait()}), then yield, then
 * park for a time that doubles from {@code minParkNanos} up to {@code maxParkNanos}. Any work resets it to
 * spinning. Cheap when busy, CPU-friendly when idle; the maximum park bounds timer lateness in threaded mode
 * (kicks unpark at once).
 */
public final class BackoffIdle implements IdleStrategy {
    public static final int DEFAULT_MAX_SPINS = 100;
    public static final int DEFAULT_MAX_YIELDS = 20;
    public static final long DEFAULT_MIN_PARK_NANOS = 1_000L;
    public static final long DEFAULT_MAX_PARK_NANOS = 100_000L;
    static final int CARD_WAIT_SPINS = 64;
    static final int CARD_WAIT_YIELDS = 64;

    private final int maxSpins;
    private final int maxYields;
    private final long minParkNanos;
    private final long maxParkNanos;
    private int spins;
    private int yields;
    private long parkNanos;

    public BackoffIdle() {
        this(DEFAULT_MAX_SPINS, DEFAULT_MAX_YIELDS, DEFAULT_MIN_PARK_NANOS, DEFAULT_MAX_PARK_NANOS);
    }

    /**
     * The back-off of a thread that waits on a card (a driver's reset, command or received-frame wait): 64 spins,
     * 64 yields, then parks of a fixed {@code parkNanos}, which bounds how late the waiter notices the card's answer.
     */
    public static BackoffIdle cardWait(long parkNanos) {
        return new BackoffIdle(CARD_WAIT_SPINS, CARD_WAIT_YIELDS, parkNanos, parkNanos);
    }

    public BackoffIdle(int maxSpins, int maxYields, long minParkNanos, long maxParkNanos) {
        if (maxSpins < 0 || maxYields < 0) {
            throw new IllegalArgumentException("spin and yield counts must be >= 0, were " + maxSpins + " and " + maxYields);
        }
        if (minParkNanos <= 0 || maxParkNanos < minParkNanos) {
            throw new IllegalArgumentException("need 0 < minParkNanos <= maxParkNanos, were " + minParkNanos
                    + " and " + maxParkNanos);
        }
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.minParkNanos = minParkNanos;
        this.maxParkNanos = maxParkNanos;
        this.parkNanos = minParkNanos;
    }

    @Override
    public void idle(int workCount) {
        idle(workCount, Long.MAX_VALUE);
    }

    @Override
    public void idle(int workCount, long maxWaitNanos) {
        if (workCount > 0) {
            reset();
        } else if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
        } else if (yields < maxYields) {
            yields++;
            Thread.yield();
        } else {
            LockSupport.parkNanos(Math.min(parkNanos, maxWaitNanos));
            parkNanos = Math.min(parkNanos << 1, maxParkNanos);
        }
    }

    @Override
    public void reset() {
        spins = 0;
        yields = 0;
        parkNanos = minParkNanos;
    }

    @Override
    public IdleStrategy copy() {
        return new BackoffIdle(maxSpins, maxYields, minParkNanos, maxParkNanos);
    }

    /** @return true once the strategy has reached the parking stage */
    public boolean isParking() {
        return spins >= maxSpins && yields >= maxYields;
    }

    @Override
    public String describe() {
        return "backoff";
    }

    @Override
    public String toString() {
        return "BackoffIdle(spins=" + maxSpins + ", yields=" + maxYields + ", park " + minParkNanos + ".."
                + maxParkNanos + " ns)";
    }
}
