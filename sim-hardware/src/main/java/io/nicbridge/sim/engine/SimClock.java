package io.nicbridge.sim.engine;

/**
 * Time as card models, wires and applications see it: nanoseconds, either real
 * ({@link System#nanoTime()}) or simulated by a {@link TimeBase#isVirtual() virtual} time base.
 * Only differences between two readings mean anything.
 */
@FunctionalInterface
public interface SimClock {
    long nanoTime();
}
