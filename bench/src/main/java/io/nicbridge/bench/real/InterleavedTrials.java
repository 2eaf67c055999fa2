package io.nicbridge.bench.real;

import io.nicbridge.bench.verdict.BootstrapInterval;
import io.nicbridge.bench.verdict.CheckKind;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bridge.platform.CpuAffinity;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The runner of the real-time comparisons on one veth pair ({@code nic pupa real-latency}, {@code nic unet
 * real-latency|real-bandwidth|real-window}): two or more stacks measured in the same run, per message size, in
 * repeated interleaved trials, so that a drift of the shared machine's load hits every stack alike.
 *
 * <p>In each trial every stack takes one turn ({@link Turn}) in which it runs every size and records its samples into
 * one histogram per size; the order of the turns reverses from trial to trial (0, 1, .., n-1, then n-1, .., 0: ABBA for
 * two stacks). Per trial, size and stack the p50 is kept; a comparison is the per-trial ratio of two stacks' p50s,
 * whose median and seeded percentile-bootstrap 95% interval ({@link BootstrapInterval}) {@link #target} judges
 * against a target. Every sample also goes into the stack's histogram over all trials ({@link #all}), for the
 * report's p50 and p99.
 *
 * <p>{@link #finish} ends a run as every such command does: the integrity line (a lost or damaged message ends the
 * run with an exception before that), the machine's load average, and the exit code backing the verdicts (0 met, 1 a
 * check failed or a target NOT MET, 3 INCONCLUSIVE unless accepted).
 */
public final class InterleavedTrials {
    /** Seed of every bootstrap: a run's intervals are reproducible from its ratios. */
    public static final long BOOTSTRAP_SEED = 1;
    /** Fewer trials than this give an interval too coarse to judge: targets are then printed, not judged. */
    public static final int MIN_JUDGED_TRIALS = 3;
    /** Largest value a histogram tracks (10 s in nanoseconds); larger samples are recorded as this. */
    public static final long HIGHEST_VALUE = TimeUnit.SECONDS.toNanos(10);

    /** One stack's turn in a trial: every size once, its samples recorded into {@code samples[size index]}. */
    @FunctionalInterface
    public interface Turn {
        void run(Histogram[] samples) throws Exception;
    }

    private final int sizes;
    private final int trials;
    private final int stacks;
    private final Histogram[][] all;
    private final long[][][] p50;
    private long samples;

    /**
     * @param sizes  message sizes each turn runs
     * @param trials interleaved trials
     * @param stacks stacks compared (turns per trial)
     * @throws IllegalArgumentException naming the bad argument
     */
    public InterleavedTrials(int sizes, int trials, int stacks) {
        if (sizes < 1 || trials < 1 || stacks < 1) {
            throw new IllegalArgumentException("sizes, trials and stacks must be >= 1, were " + sizes + ", " + trials
                + ", " + stacks);
        }
        this.sizes = sizes;
        this.trials = trials;
        this.stacks = stacks;
        all = new Histogram[stacks][];
        for (int s = 0; s < stacks; s++) {
            all[s] = histograms(sizes);
        }
        p50 = new long[stacks][sizes][trials];
    }

    /**
     * Checks the command-line arguments every round-trip comparison takes.
     *
     * @param maxSize the largest message, and {@code why} it is the largest (one frame, ...)
     * @throws IllegalArgumentException naming the option
     */
    public static void checkRoundTrips(int[] sizes, int maxSize, String why, int count, int warmup, int trials) {
        for (int s : sizes) {
            if (s < 1 || s > maxSize) {
                throw new IllegalArgumentException("--sizes must be 1.." + maxSize + " bytes (" + why + "), was " + s);
            }
        }
        if (count < 1 || warmup < 0 || trials < 1) {
            throw new IllegalArgumentException("--count must be >= 1, --warmup >= 0 and --trials >= 1, were " + count
                + ", " + warmup + ", " + trials);
        }
    }

    /**
     * @param wait "block", or "spin" (or "busy")
     * @return whether it means busy polling
     * @throws IllegalArgumentException naming {@code --waits} for anything else
     */
    public static boolean spins(String wait) {
        return switch (wait.trim().toLowerCase(Locale.ROOT)) {
            case "block" -> false;
            case "spin", "busy" -> true;
            default -> throw new IllegalArgumentException("--waits: block or spin, was '" + wait + "'");
        };
    }

    /** @return {@code n} empty histograms of nanoseconds up to {@link #HIGHEST_VALUE}, 3 significant digits */
    public static Histogram[] histograms(int n) {
        Histogram[] h = new Histogram[n];
        for (int i = 0; i < n; i++) {
            h[i] = new Histogram(HIGHEST_VALUE, 3);
        }
        return h;
    }

    /**
     * Runs every trial, the turns in reversing order (see the class comment).
     *
     * @param turns one per stack, in stack order
     * @throws IllegalArgumentException when there are not as many turns as stacks
     * @throws IllegalStateException    when a turn recorded no sample for a size
     * @throws Exception                what a turn throws (a lost or damaged message)
     */
    public void run(Turn... turns) throws Exception {
        if (turns.length != stacks) {
            throw new IllegalArgumentException("turns: one per stack (" + stacks + "), got " + turns.length);
        }
        for (int t = 0; t < trials; t++) {
            Histogram[][] trial = new Histogram[stacks][];
            for (int k = 0; k < stacks; k++) {
                int s = t % 2 == 0 ? k : stacks - 1 - k;
                trial[s] = histograms(sizes);
                Objects.requireNonNull(turns[s], "turn " + s).run(trial[s]);
            }
            for (int s = 0; s < stacks; s++) {
                for (int i = 0; i < sizes; i++) {
                    Histogram h = trial[s][i];
                    if (h.getTotalCount() == 0) {
                        throw new IllegalStateException("stack " + s + " recorded nothing for size index " + i
                            + " in trial " + t);
                    }
                    p50[s][i][t] = h.getValueAtPercentile(50);
                    all[s][i].add(h);
                    samples += h.getTotalCount();
                }
            }
        }
    }

    /** @return stack {@code stack}'s samples of size index {@code size} over all trials */
    public Histogram all(int stack, int size) {
        return all[stack][size];
    }

    /** @return per trial, stack {@code numerator}'s p50 / stack {@code denominator}'s, at size index {@code size} */
    public double[] ratios(int numerator, int denominator, int size) {
        double[] r = new double[trials];
        for (int t = 0; t < trials; t++) {
            r[t] = (double) p50[numerator][size][t] / p50[denominator][size][t];
        }
        return r;
    }

    /**
     * @return stack {@code stack}'s p50 at size index {@code size}, one per trial: their median with its bootstrap
     *     interval (a stack's own figure with its spread over the trials, where {@link #interval} compares two)
     */
    public BootstrapInterval p50Interval(int stack, int size) {
        double[] v = new double[trials];
        for (int t = 0; t < trials; t++) {
            v[t] = p50[stack][size][t];
        }
        return BootstrapInterval.ofMedian(v, BOOTSTRAP_SEED);
    }

    /** @return the median of {@link #ratios} with its bootstrap interval */
    public BootstrapInterval interval(int numerator, int denominator, int size) {
        return BootstrapInterval.ofMedian(ratios(numerator, denominator, size), BOOTSTRAP_SEED);
    }

    public int trials() {
        return trials;
    }

    /** @return samples recorded over all stacks, sizes and trials */
    public long samples() {
        return samples;
    }

    /**
     * A target on the ratio numerator / denominator at a size: judged ({@code judged} and enough trials) as MET when
     * the interval's lower bound clears {@code atLeast}, NOT MET when its upper bound is below it, else INCONCLUSIVE;
     * otherwise printed as a comparison with {@code why} (or the trial count) appended.
     *
     * @param what what is compared, without the interval: the interval follows it
     */
    public void target(CheckLog checks, String what, int numerator, int denominator, int size, double atLeast,
                       boolean judged, String why) {
        BootstrapInterval ci = interval(numerator, denominator, size);
        String line = what + ": " + ci.describe("x");
        if (judged && trials >= MIN_JUDGED_TRIALS) {
            checks.target(CheckKind.ANCHOR_CHECK, line, ci.atLeast(atLeast));
        } else {
            checks.comparison(line + (judged ? " (fewer than " + MIN_JUDGED_TRIALS + " trials: not judged)"
                : " (" + why + ")"));
        }
    }

    /**
     * Ends the run: the integrity line, the load average, the exit code.
     *
     * @param integrity what arrived intact, e.g. "1200 round trips of both stacks: every echo arrived whole ..."
     *                  (a loss or a damaged message ends a turn with an exception, so reaching here passes it)
     * @return 0 all checks passed, 1 a check failed or a target NOT MET, 3 INCONCLUSIVE (0 when accepted)
     */
    public static int finish(PrintWriter out, CheckLog checks, String integrity, boolean acceptInconclusive) {
        checks.check(CheckKind.INTEGRITY_CHECK, integrity, true);
        out.printf(Locale.ROOT, "machine load: load average %.2f at the end on %d CPUs%n",
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), CpuAffinity.cpus());
        int code = checks.finish(acceptInconclusive);
        out.flush();
        return code;
    }
}
