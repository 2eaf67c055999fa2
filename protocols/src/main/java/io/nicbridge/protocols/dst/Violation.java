package io.nicbridge.protocols.dst;

/**
 * A broken promise found by a simulation run.
 *
 * @param invariant which promise ({@code exactly-once}, {@code per-peer-order}, {@code progress},
 *                  {@code bounded-memory}, {@code integrity}, or {@code crash} for an exception)
 * @param detail    what was seen
 * @param timeNanos the simulated time it was seen
 */
public record Violation(String invariant, String detail, long timeNanos) {
    @Override
    public String toString() {
        return invariant + " at " + timeNanos + " ns: " + detail;
    }
}
