package io.nicbridge.bridge.idle;

import java.util.Locale;

/**
 * What a polling thread (an engine thread, a driver waiting for its card, a benchmark loop) does when a pass found
 * no work. Every implementation backs off in the end (yield or park): the machines this runs on may have two cores
 * shared by several engines, so nothing spins forever.
 *
 * <p>An instance keeps per-thread state: one thread (or one lock holder) uses it; {@link #copy()} gives each
 * engine thread its own. Waiting allocates nothing, so a strategy made once serves a hot wait loop.
 */
public interface IdleStrategy {
    /**
     * Called after every pass.
     *
     * @param workCount the work the pass did; &gt; 0 resets the backoff and returns at once
     */
    void idle(int workCount);

    /**
     * An idle pass that must not sleep past {@code maxWaitNanos} (the next timer deadline): strategies that
     * park shorten the park; others ignore the bound, since they return quickly anyway.
     *
     * @param maxWaitNanos &gt; 0; {@link Long#MAX_VALUE} for no bound
     */
    default void idle(int workCount, long maxWaitNanos) {
        idle(workCount);
    }

    /** An idle pass that found no work: {@code idle(0)}. */
    default void idle() {
        idle(0);
    }

    /** Forgets the backoff progress (called when the thread got work). */
    void reset();

    /** @return a fresh instance with the same parameters and no backoff progress */
    IdleStrategy copy();

    /** @return the strategy's name and parameters, in the form {@link #parse(String)} accepts */
    String describe();

    /**
     * Parses a user's choice: {@code spin}, {@code yield}, {@code park} or {@code park:<nanos>},
     * {@code backoff} (case-insensitive).
     *
     * @throws IllegalArgumentException for anything else, listing the accepted names
     */
    static IdleStrategy parse(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("idle strategy missing; expected one of spin, yield, park, park:<nanos>, backoff");
        }
        String s = spec.trim().toLowerCase(Locale.ROOT);
        switch (s) {
            case "spin", "busy-spin", "busyspin":
                return new BusySpinIdle();
            case "yield":
                return new YieldIdle();
            case "park":
                return new ParkIdle(ParkIdle.DEFAULT_PARK_NANOS);
            case "backoff":
                return new BackoffIdle();
            default:
                if (s.startsWith("park:")) {
                    String n = s.substring("park:".length());
                    try {
                        return new ParkIdle(Long.parseLong(n));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("idle strategy '" + spec + "': '" + n
                                + "' is not a number of nanoseconds");
                    }
                }
                throw new IllegalArgumentException("unknown idle strategy '" + spec
                        + "'; expected one of spin, yield, park, park:<nanos>, backoff");
        }
    }
}
