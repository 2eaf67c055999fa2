package io.nicbridge.protocols.dst;

import io.nicbridge.bridge.time.VirtualScheduler;
import java.util.Objects;
import java.util.function.LongFunction;

/**
 * Deterministic simulation testing of one core: runs the schedules of a range of seeds, and for the first that
 * fails, shrinks it ({@link Shrinker}) to a minimal schedule that fails the same way and gives the command that
 * replays it.
 */
public final class SimTest {
    /** Told after each schedule (progress display). */
    @FunctionalInterface
    public interface Progress {
        void ran(long index, SimulationRun.Outcome outcome);
    }

    /**
     * The result of a campaign.
     *
     * @param schedules   schedules run (not counting shrinking)
     * @param failure     the first failing schedule's outcome, or null
     * @param shrunk      the shrunk schedule's outcome, or null
     * @param shrinkRuns  schedules run while shrinking
     * @param events      dispatches over all schedules run
     * @param faulted     frames the faults acted on over all schedules run
     * @param wallNanos   wall-clock time of the campaign, shrinking excluded
     * @param reported    schedules that passed because a core reported a broken assumption
     *                    ({@link SimulationRun.Outcome#reported()})
     * @param undetectable schedules that stalled on a trailing loss no core without timers can detect
     *                    ({@link SimulationRun.Outcome#undetectable()}): neither a report nor a silent failure
     */
    public record Summary(long schedules, SimulationRun.Outcome failure, SimulationRun.Outcome shrunk, int shrinkRuns,
                          long events, long faulted, long wallNanos, long reported, long undetectable) {
        public boolean passed() {
            return failure == null;
        }

        public double schedulesPerSecond() {
            return wallNanos == 0 ? 0 : schedules * 1e9 / wallNanos;
        }
    }

    private final String protocol;
    private final CoreFactory cores;
    private final SimSettings settings;
    private final ScheduleGenerator generator;
    private final SimMedium.Factory media;

    /**
     * On the in-memory medium.
     *
     * @param protocol the name used in replay commands
     * @param worlds   makes a virtual scheduler from a seed (sim-hardware's {@code VirtualTimeBase::new})
     */
    public SimTest(String protocol, CoreFactory cores, SimSettings settings, ScheduleGenerator generator,
                   LongFunction<? extends VirtualScheduler> worlds) {
        this(protocol, cores, settings, generator, SimMedium.inMemory(Objects.requireNonNull(worlds, "worlds")));
    }

    /**
     * @param protocol the name used in replay commands
     * @param media    the medium every schedule runs on
     * @throws IllegalArgumentException when the generator draws a fault family the medium cannot express
     */
    public SimTest(String protocol, CoreFactory cores, SimSettings settings, ScheduleGenerator generator,
                   SimMedium.Factory media) {
        this.protocol = Objects.requireNonNull(protocol, "protocol");
        this.cores = Objects.requireNonNull(cores, "cores");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.generator = Objects.requireNonNull(generator, "generator");
        this.media = Objects.requireNonNull(media, "media");
        if (!media.families().containsAll(generator.families())) {
            java.util.Set<ScheduleGenerator.Family> missing = generator.families();
            missing.removeAll(media.families());
            throw new IllegalArgumentException("medium '" + media.name() + "' cannot express the fault families "
                    + missing + "; it expresses " + media.families());
        }
    }

    /** @return the medium every schedule runs on */
    public SimMedium.Factory medium() {
        return media;
    }

    /** @throws IllegalArgumentException when the schedule holds a fault the medium cannot express */
    public SimulationRun.Outcome run(Schedule schedule) {
        return SimulationRun.run(schedule, settings, cores, media);
    }

    /** Runs the schedules of seeds {@code firstSeed .. firstSeed + count - 1}, stopping at the first failure. */
    public Summary campaign(long firstSeed, long count, Progress progress) {
        long start = System.nanoTime();
        long events = 0;
        long faulted = 0;
        long reported = 0;
        long undetectable = 0;
        for (long i = 0; i < count; i++) {
            SimulationRun.Outcome o = run(generator.generate(firstSeed + i));
            events += o.dispatches();
            faulted += o.framesFaulted();
            reported += o.passed() && o.reported() ? 1 : 0;
            undetectable += o.undetectable() ? 1 : 0;
            if (progress != null) {
                progress.ran(i, o);
            }
            if (!o.passed()) {
                long wall = System.nanoTime() - start;
                Shrinker shrinker = new Shrinker(c -> sameFailure(o, run(c)), 2_000);
                SimulationRun.Outcome shrunk = run(shrinker.shrink(o.schedule()));
                return new Summary(i + 1, o, shrunk, shrinker.runs(), events, faulted, wall, reported, undetectable);
            }
        }
        return new Summary(count, null, null, 0, events, faulted, System.nanoTime() - start, reported, undetectable);
    }

    private static boolean sameFailure(SimulationRun.Outcome original, SimulationRun.Outcome candidate) {
        return !candidate.passed() && candidate.violation().invariant().equals(original.violation().invariant());
    }

    /** @return the command that replays {@code schedule} */
    public String replayCommand(Schedule schedule) {
        return "./nic simtest --protocol " + protocol
                + (media.name().equals(InMemorySimMedium.NAME) ? "" : " --medium " + media.name())
                + " --replay '" + schedule.encode() + "'";
    }
}
