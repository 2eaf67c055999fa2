package io.nicbridge.sim.engine;

import io.nicbridge.bridge.idle.IdleStrategy;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Creates a {@link DeviceEngine} from a mode chosen by name, as cards and the CLI do. */
public final class Engines {
    private Engines() {
    }

    /**
     * @param name {@code inline}, {@code threaded} or {@code virtual} (case-insensitive)
     * @throws IllegalArgumentException for any other name, listing the valid ones
     */
    public static EngineMode parseMode(String name) {
        if (name != null) {
            String n = name.trim().toUpperCase(Locale.ROOT);
            for (EngineMode m : EngineMode.values()) {
                if (m.name().equals(n)) {
                    return m;
                }
            }
        }
        throw new IllegalArgumentException("unknown engine mode '" + name + "'; expected one of " + modeNames());
    }

    /** @return the mode names {@link #parseMode(String)} accepts, comma-separated */
    public static String modeNames() {
        return Arrays.stream(EngineMode.values()).map(Engines::modeName).collect(Collectors.joining(", "));
    }

    public static String modeName(EngineMode mode) {
        return mode.name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param mode the way to drive the models
     * @param seed the world's seed (used by {@link EngineMode#VIRTUAL}; real-time modes ignore it)
     * @param idle the idle strategy of {@link EngineMode#THREADED} engine threads (others ignore it; may be
     *             null for them)
     */
    public static DeviceEngine create(EngineMode mode, long seed, IdleStrategy idle) {
        return switch (mode) {
            case INLINE -> new InlineEngine();
            case THREADED -> {
                if (idle == null) {
                    throw new IllegalArgumentException("threaded mode needs an idle strategy (spin, yield, park, backoff)");
                }
                yield new ThreadedEngine(idle);
            }
            case VIRTUAL -> new VirtualTimeEngine(seed);
        };
    }

    /** {@link #create(EngineMode, long, IdleStrategy)} with the mode and idle strategy given by name. */
    public static DeviceEngine create(String mode, long seed, String idle) {
        EngineMode m = parseMode(mode);
        return create(m, seed, m == EngineMode.THREADED ? IdleStrategy.parse(idle == null ? "backoff" : idle) : null);
    }
}
