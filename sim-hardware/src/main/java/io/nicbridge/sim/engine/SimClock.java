package io.nicbridge.sim.engine;

/**
 * Time as card models, wires and applications see it: nanoseconds, either real
 * ({@link System#nanoTime()}) or simulated by a {@link TimeBase#isVirtual() virtual} time base.
 * Only differences between two readings mean anything. It is bridge's {@link io.nicbridge.bridge.time.Clock},
 * so a protocol core given a sim clock reads the same time as the cards.
 */
@FunctionalInterface
public interface SimClock extends io.nicbridge.bridge.time.Clock {
}
