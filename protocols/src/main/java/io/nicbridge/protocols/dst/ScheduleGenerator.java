package io.nicbridge.protocols.dst;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Draws a random {@link Schedule} from a seed: 2 to 4 nodes, 1 to 24 messages per node, and 0 to 16 faults of the
 * enabled kinds, with parameters scaled to the settings (a reorder is a few frame times, a delay about one RTO, a
 * partition up to 15 RTOs, a slow node up to 1.5 RTOs late, a card reset at any time of the load). The same seed
 * and families give the same schedule; without families given, every family but the card reset.
 */
public final class ScheduleGenerator {
    /** Fault families a generator may use (the {@code --faults} of the simtest command). */
    public enum Family {
        DROP, DUPLICATE, REORDER, CORRUPT, DELAY, PARTITION, SLOW,
        /** A card reset ({@link Fault.CardReset}): only media with emulated cards express it. */
        RESET;

        /** The families every medium expresses in principle: all but {@link #RESET}, which needs a card. */
        public static Set<Family> frameAndTiming() {
            return EnumSet.complementOf(EnumSet.of(RESET));
        }

        /** @return the family {@code fault} belongs to */
        public static Family of(Fault fault) {
            return switch (fault) {
                case Fault.FrameFault f -> switch (f.kind()) {
                    case DROP -> DROP;
                    case DUPLICATE -> DUPLICATE;
                    case REORDER -> REORDER;
                    case CORRUPT -> CORRUPT;
                    case DELAY -> DELAY;
                };
                case Fault.Partition p -> PARTITION;
                case Fault.SlowNode n -> SLOW;
                case Fault.CardReset c -> RESET;
            };
        }
    }

    private final SimSettings settings;
    private final Family[] families;

    public ScheduleGenerator(SimSettings settings, Set<Family> enabled) {
        this.settings = settings;
        EnumSet<Family> set = EnumSet.noneOf(Family.class);
        set.addAll(enabled);
        this.families = set.toArray(new Family[0]);
    }

    public ScheduleGenerator(SimSettings settings) {
        this(settings, Family.frameAndTiming());
    }

    /** @return the families this generator draws from */
    public Set<Family> families() {
        EnumSet<Family> set = EnumSet.noneOf(Family.class);
        set.addAll(java.util.Arrays.asList(families));
        return set;
    }

    public Schedule generate(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int nodes = 2 + r.nextInt(3);
        int messages = 1 + r.nextInt(24);
        int faultCount = families.length == 0 ? 0 : r.nextInt(17);
        long rto = settings.rtoNanos();
        long span = settings.loadSpanNanos();
        long frameTime = settings.latencyNanos() + (long) settings.mtu() * settings.nanosPerByte();
        long frames = 3L * nodes * messages;
        List<Fault> faults = new ArrayList<>(faultCount);
        for (int i = 0; i < faultCount; i++) {
            Family f = families[r.nextInt(families.length)];
            long frame = r.nextLong(frames);
            faults.add(switch (f) {
                case DROP -> new Fault.FrameFault(Fault.Kind.DROP, frame, 0);
                case DUPLICATE -> new Fault.FrameFault(Fault.Kind.DUPLICATE, frame, r.nextLong(2 * rto));
                case REORDER -> new Fault.FrameFault(Fault.Kind.REORDER, frame, 1 + r.nextLong(4 * frameTime));
                case CORRUPT -> new Fault.FrameFault(Fault.Kind.CORRUPT, frame,
                        (long) r.nextInt(1, 256) << 16 | r.nextInt(settings.mtu()));
                case DELAY -> new Fault.FrameFault(Fault.Kind.DELAY, frame, rto / 2 + r.nextLong(2 * rto));
                case PARTITION -> {
                    long start = r.nextLong(span);
                    long sides;
                    do {
                        sides = r.nextLong(1L << nodes);
                    } while (sides == 0 || sides == (1L << nodes) - 1);
                    yield new Fault.Partition(start, start + rto / 4 + r.nextLong(15 * rto), sides);
                }
                case SLOW -> {
                    long start = r.nextLong(span);
                    yield new Fault.SlowNode(r.nextInt(nodes), start, start + r.nextLong(10 * rto),
                            1 + r.nextLong(rto + rto / 2));
                }
                case RESET -> new Fault.CardReset(r.nextInt(nodes), r.nextLong(span));
            });
        }
        return new Schedule(seed, nodes, messages, faults);
    }
}
