package io.nicbridge.sim.fault;

import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

/**
 * An immutable description of the faults to inject on a link: seeded probabilities, an explicit
 * schedule, or both (a scheduled frame gets its scheduled fault; every other frame draws from the
 * probabilities). Each link gets its own {@link FaultInjector} from {@link #newInjector()}, so two
 * links built from one plan fault the same frame numbers the same way.
 *
 * <p>Frames are numbered from 1 in the order they are offered to the link (its own count, not a
 * capture's frame numbers, which dropped frames do not reach).
 *
 * <p>Probabilities: one uniform draw {@code u} in [0, 1) per frame from a
 * {@link java.util.SplittableRandom} seeded with {@link #seed()} selects DROP when
 * {@code u < p(drop)}, else DUPLICATE when {@code u < p(drop) + p(duplicate)}, and so on in the order
 * drop, duplicate, reorder, delay, corrupt; the probabilities must sum to at most 1. A DELAY then
 * draws its delay uniformly from [min, max] ns and a CORRUPT draws the bit to invert.
 *
 * <p>Text form ({@link #parse}), whitespace- or comma-separated terms:
 * <pre>
 *   seed=42  drop=0.01  duplicate=0.01  reorder=0.01  delay=0.01:1000-5000  corrupt=0.01
 *   drop@3  duplicate@4  reorder@5  delay@9:5000  corrupt@7  corrupt@7:100
 * </pre>
 * ({@code name@n} schedules frame n; {@code delay@9:5000} delays frame 9 by 5000 ns;
 * {@code corrupt@7:100} inverts bit 100 of frame 7, {@code corrupt@7} a seeded bit.)
 */
public final class FaultPlan {
    /** No faults at all. */
    public static final FaultPlan NONE = builder().build();

    /** A scheduled corrupt with this bit index draws the bit from the seeded random. */
    static final long SEEDED_BIT = -1;

    private final long seed;
    private final double drop;
    private final double duplicate;
    private final double reorder;
    private final double delay;
    private final double corrupt;
    private final long delayMinNanos;
    private final long delayMaxNanos;
    private final long[] scheduledFrames;
    private final FaultKind[] scheduledKinds;
    private final long[] scheduledParams;

    private FaultPlan(Builder b) {
        this.seed = b.seed;
        this.drop = b.drop;
        this.duplicate = b.duplicate;
        this.reorder = b.reorder;
        this.delay = b.delay;
        this.corrupt = b.corrupt;
        this.delayMinNanos = b.delayMinNanos;
        this.delayMaxNanos = b.delayMaxNanos;
        int n = b.scheduleSize;
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> Long.compare(b.frames[x], b.frames[y]));
        this.scheduledFrames = new long[n];
        this.scheduledKinds = new FaultKind[n];
        this.scheduledParams = new long[n];
        for (int i = 0; i < n; i++) {
            scheduledFrames[i] = b.frames[order[i]];
            scheduledKinds[i] = b.kinds[order[i]];
            scheduledParams[i] = b.params[order[i]];
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** @return a fresh injector (its own random stream and frame count) for one link */
    public FaultInjector newInjector() {
        return new FaultInjector(this);
    }

    /** @return true when this plan can never inject a fault */
    public boolean isNone() {
        return scheduledFrames.length == 0 && !hasProbabilities();
    }

    boolean hasProbabilities() {
        return drop + duplicate + reorder + delay + corrupt > 0;
    }

    public long seed() {
        return seed;
    }

    public double probability(FaultKind kind) {
        return switch (kind) {
            case NONE -> 1.0 - (drop + duplicate + reorder + delay + corrupt);
            case DROP -> drop;
            case DUPLICATE -> duplicate;
            case REORDER -> reorder;
            case DELAY -> delay;
            case CORRUPT -> corrupt;
        };
    }

    public long delayMinNanos() {
        return delayMinNanos;
    }

    public long delayMaxNanos() {
        return delayMaxNanos;
    }

    /** @return number of explicitly scheduled frames */
    public int scheduledCount() {
        return scheduledFrames.length;
    }

    long scheduledFrame(int i) {
        return scheduledFrames[i];
    }

    FaultKind scheduledKind(int i) {
        return scheduledKinds[i];
    }

    long scheduledParam(int i) {
        return scheduledParams[i];
    }

    /**
     * Parses the text form described in the class comment.
     *
     * @throws IllegalArgumentException naming the term that is wrong
     */
    public static FaultPlan parse(String text) {
        Objects.requireNonNull(text, "text");
        Builder b = builder();
        for (String raw : text.trim().split("[\\s,]+")) {
            if (raw.isEmpty()) {
                continue;
            }
            String term = raw.toLowerCase(Locale.ROOT);
            try {
                int at = term.indexOf('@');
                int eq = term.indexOf('=');
                if (at > 0) {
                    String name = term.substring(0, at);
                    String rest = term.substring(at + 1);
                    int colon = rest.indexOf(':');
                    long frame = Long.parseLong(colon < 0 ? rest : rest.substring(0, colon));
                    String arg = colon < 0 ? null : rest.substring(colon + 1);
                    switch (name) {
                        case "drop" -> b.dropFrame(frame);
                        case "duplicate", "dup" -> b.duplicateFrame(frame);
                        case "reorder" -> b.reorderFrame(frame);
                        case "delay" -> b.delayFrame(frame, Long.parseLong(required(arg, raw, "delay in ns")));
                        case "corrupt" -> {
                            if (arg == null) {
                                b.corruptFrame(frame);
                            } else {
                                b.corruptFrame(frame, Long.parseLong(arg));
                            }
                        }
                        default -> throw new IllegalArgumentException("unknown fault '" + name + "'");
                    }
                } else if (eq > 0) {
                    String name = term.substring(0, eq);
                    String value = term.substring(eq + 1);
                    switch (name) {
                        case "seed" -> b.seed(Long.parseLong(value));
                        case "drop" -> b.drop(Double.parseDouble(value));
                        case "duplicate", "dup" -> b.duplicate(Double.parseDouble(value));
                        case "reorder" -> b.reorder(Double.parseDouble(value));
                        case "corrupt" -> b.corrupt(Double.parseDouble(value));
                        case "delay" -> {
                            int colon = value.indexOf(':');
                            String range = required(colon < 0 ? null : value.substring(colon + 1), raw,
                                    "delay range min-max in ns");
                            int dash = range.indexOf('-');
                            long min = Long.parseLong(dash < 0 ? range : range.substring(0, dash));
                            long max = dash < 0 ? min : Long.parseLong(range.substring(dash + 1));
                            b.delay(Double.parseDouble(value.substring(0, colon)), min, max);
                        }
                        default -> throw new IllegalArgumentException("unknown setting '" + name + "'");
                    }
                } else {
                    throw new IllegalArgumentException("expected name=value or name@frame");
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("fault plan term '" + raw + "': bad number (" + e.getMessage() + ")");
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("fault plan term '" + raw + "': " + e.getMessage());
            }
        }
        return b.build();
    }

    private static String required(String arg, String term, String what) {
        if (arg == null || arg.isEmpty()) {
            throw new IllegalArgumentException("missing " + what + " after ':' in '" + term + "'");
        }
        return arg;
    }

    @Override
    public String toString() {
        if (isNone()) {
            return "no faults";
        }
        StringBuilder s = new StringBuilder();
        if (hasProbabilities()) {
            s.append("seed=").append(seed);
            append(s, "drop", drop);
            append(s, "duplicate", duplicate);
            append(s, "reorder", reorder);
            if (delay > 0) {
                s.append(" delay=").append(delay).append(':').append(delayMinNanos).append('-').append(delayMaxNanos);
            }
            append(s, "corrupt", corrupt);
        }
        for (int i = 0; i < scheduledFrames.length; i++) {
            if (!s.isEmpty()) {
                s.append(' ');
            }
            s.append(scheduledKinds[i].name().toLowerCase(Locale.ROOT)).append('@').append(scheduledFrames[i]);
            if (scheduledKinds[i] == FaultKind.DELAY
                    || (scheduledKinds[i] == FaultKind.CORRUPT && scheduledParams[i] != SEEDED_BIT)) {
                s.append(':').append(scheduledParams[i]);
            }
        }
        return s.toString();
    }

    private static void append(StringBuilder s, String name, double p) {
        if (p > 0) {
            s.append(' ').append(name).append('=').append(p);
        }
    }

    /** Builds a {@link FaultPlan}. */
    public static final class Builder {
        private long seed = 1;
        private double drop;
        private double duplicate;
        private double reorder;
        private double delay;
        private double corrupt;
        private long delayMinNanos;
        private long delayMaxNanos;
        private long[] frames = new long[8];
        private FaultKind[] kinds = new FaultKind[8];
        private long[] params = new long[8];
        private int scheduleSize;

        private Builder() {}

        /** Seed of the random stream the probabilities draw from (default 1). */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        public Builder drop(double probability) {
            this.drop = checkProbability("drop", probability);
            return this;
        }

        public Builder duplicate(double probability) {
            this.duplicate = checkProbability("duplicate", probability);
            return this;
        }

        public Builder reorder(double probability) {
            this.reorder = checkProbability("reorder", probability);
            return this;
        }

        /** Delays a frame with this probability by a uniform draw from [minNanos, maxNanos]. */
        public Builder delay(double probability, long minNanos, long maxNanos) {
            if (minNanos < 0 || maxNanos < minNanos) {
                throw new IllegalArgumentException(
                        "delay range must satisfy 0 <= min <= max, was [" + minNanos + ", " + maxNanos + "]");
            }
            this.delay = checkProbability("delay", probability);
            this.delayMinNanos = minNanos;
            this.delayMaxNanos = maxNanos;
            return this;
        }

        public Builder corrupt(double probability) {
            this.corrupt = checkProbability("corrupt", probability);
            return this;
        }

        public Builder dropFrame(long frame) {
            return schedule(frame, FaultKind.DROP, 0);
        }

        public Builder duplicateFrame(long frame) {
            return schedule(frame, FaultKind.DUPLICATE, 0);
        }

        public Builder reorderFrame(long frame) {
            return schedule(frame, FaultKind.REORDER, 0);
        }

        public Builder delayFrame(long frame, long nanos) {
            if (nanos < 0) {
                throw new IllegalArgumentException("delay of frame " + frame + " must be >= 0 ns, was " + nanos);
            }
            return schedule(frame, FaultKind.DELAY, nanos);
        }

        /**
         * Inverts bit {@code bit} of frame {@code frame}: bit 8k + j is bit j (0 = least significant,
         * the first on an Ethernet wire) of byte k. Taken modulo the frame's length in bits.
         */
        public Builder corruptFrame(long frame, long bit) {
            if (bit < 0) {
                throw new IllegalArgumentException("bit to corrupt in frame " + frame + " must be >= 0, was " + bit);
            }
            return schedule(frame, FaultKind.CORRUPT, bit);
        }

        /** Inverts a bit of frame {@code frame} drawn from the seeded random. */
        public Builder corruptFrame(long frame) {
            return schedule(frame, FaultKind.CORRUPT, SEEDED_BIT);
        }

        private Builder schedule(long frame, FaultKind kind, long param) {
            if (frame < 1) {
                throw new IllegalArgumentException("frames are numbered from 1, was " + frame);
            }
            for (int i = 0; i < scheduleSize; i++) {
                if (frames[i] == frame) {
                    throw new IllegalArgumentException("frame " + frame + " is already scheduled for "
                            + kinds[i].name().toLowerCase(Locale.ROOT) + "; one fault per frame");
                }
            }
            if (scheduleSize == frames.length) {
                frames = Arrays.copyOf(frames, scheduleSize * 2);
                kinds = Arrays.copyOf(kinds, scheduleSize * 2);
                params = Arrays.copyOf(params, scheduleSize * 2);
            }
            frames[scheduleSize] = frame;
            kinds[scheduleSize] = kind;
            params[scheduleSize] = param;
            scheduleSize++;
            return this;
        }

        private static double checkProbability(String name, double p) {
            if (!(p >= 0.0 && p <= 1.0)) {
                throw new IllegalArgumentException(name + " probability must be in [0, 1], was " + p);
            }
            return p;
        }

        public FaultPlan build() {
            double sum = drop + duplicate + reorder + delay + corrupt;
            if (sum > 1.0 + 1e-12) {
                throw new IllegalArgumentException("fault probabilities sum to " + sum + " > 1");
            }
            return new FaultPlan(this);
        }
    }
}
