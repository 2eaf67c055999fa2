package io.nicbridge.bridge.idle;

/**
 * Spins with {@link Thread#onSpinWait()} for a bounded number of idle passes, then yields on every further
 * idle pass until work comes: the lowest wake-up latency that still gives the core away when another thread
 * needs it (on two shared cores a pure spin would starve the driver thread it waits for).
 */
public final class BusySpinIdle implements IdleStrategy {
    public static final int DEFAULT_SPINS = 1_000;

    private final int maxSpins;
    private int spins;

    public BusySpinIdle() {
        this(DEFAULT_SPINS);
    }

    /** @param maxSpins idle passes that only spin before each further one yields (&gt;= 0) */
    public BusySpinIdle(int maxSpins) {
        if (maxSpins < 0) {
            throw new IllegalArgumentException("maxSpins must be >= 0, was " + maxSpins);
        }
        this.maxSpins = maxSpins;
    }

    @Override
    public void idle(int workCount) {
        if (workCount > 0) {
            spins = 0;
        } else if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }

    @Override
    public void reset() {
        spins = 0;
    }

    @Override
    public IdleStrategy copy() {
        return new BusySpinIdle(maxSpins);
    }

    @Override
    public String describe() {
        return "spin";
    }

    @Override
    public String toString() {
        return "BusySpinIdle(maxSpins=" + maxSpins + ")";
    }
}
