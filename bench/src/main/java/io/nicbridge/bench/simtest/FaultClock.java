package io.nicbridge.bench.simtest;

import io.nicbridge.bridge.time.Clock;
import java.util.function.LongSupplier;

/**
 * When a card medium last faulted a frame, for the harness's progress check: the medium counts its faults but does
 * not stamp them, so the count is sampled after every event (the harness asks after each) and a change is stamped
 * with the clock's time then, which is the faulted frame's own event.
 */
final class FaultClock {
    private final Clock clock;
    private final LongSupplier faults;
    private long seen;
    private long lastFaultNanos = Long.MIN_VALUE;

    FaultClock(Clock clock, LongSupplier faults) {
        this.clock = clock;
        this.faults = faults;
        this.seen = faults.getAsLong();
    }

    long lastFaultNanos() {
        long now = faults.getAsLong();
        if (now != seen) {
            seen = now;
            lastFaultNanos = clock.nanoTime();
        }
        return lastFaultNanos;
    }
}
