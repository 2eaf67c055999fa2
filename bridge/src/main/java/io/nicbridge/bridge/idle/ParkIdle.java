package io.nicbridge.bridge.idle;

import java.util.concurrent.locks.LockSupport;

/**
 * Parks for a fixed time on every idle pass. A kick unparks the engine thread at once, so the park time
 * bounds only how late a timer may fire in threaded mode, not how late a kicked model is serviced.
 */
public final class ParkIdle implements IdleStrategy {
    public static final long DEFAULT_PARK_NANOS = 100_000L;

    private final long parkNanos;

    public ParkIdle(long parkNanos) {
        if (parkNanos <= 0) {
            throw new IllegalArgumentException("park time must be > 0 ns, was " + parkNanos);
        }
        this.parkNanos = parkNanos;
    }

    @Override
    public void idle(int workCount) {
        if (workCount <= 0) {
            LockSupport.parkNanos(parkNanos);
        }
    }

    @Override
    public void idle(int workCount, long maxWaitNanos) {
        if (workCount <= 0) {
            LockSupport.parkNanos(Math.min(parkNanos, maxWaitNanos));
        }
    }

    @Override
    public void reset() {
        // stateless
    }

    @Override
    public IdleStrategy copy() {
        return new ParkIdle(parkNanos);
    }

    public long parkNanos() {
        return parkNanos;
    }

    @Override
    public String describe() {
        return "park:" + parkNanos;
    }

    @Override
    public String toString() {
        return "ParkIdle(" + parkNanos + " ns)";
    }
}
