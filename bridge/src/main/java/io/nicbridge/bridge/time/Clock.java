package io.nicbridge.bridge.time;

/**
 * Nanoseconds as a protocol core, a driver or a card model sees them: real ({@link System#nanoTime()}) or
 * simulated by a {@link Scheduler#isVirtual() virtual} scheduler. Only the difference between two readings of
 * the same clock means anything; a reading never goes backwards.
 */
@FunctionalInterface
public interface Clock {
    long nanoTime();
}
