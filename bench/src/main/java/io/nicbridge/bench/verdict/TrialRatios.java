package io.nicbridge.bench.verdict;

import java.util.List;
import java.util.Locale;

/**
 * A target on ratios measured once per interleaved trial (e.g. kernel UDP's p50 RTT / ours, both from the same trial
 * on the same link): judged on the median ratio and its seeded percentile-bootstrap 95% interval
 * ({@link BootstrapInterval}) - MET when the interval's lower bound clears the target, NOT MET when its upper bound
 * is below it, INCONCLUSIVE otherwise. The real-time comparisons with the kernel ({@code nic shim pingpong},
 * {@code nic unet real-pingpong}) judge their targets through this one class, so they print and decide alike.
 */
public final class TrialRatios {
    /** Nominal level of every interval. */
    public static final double CONFIDENCE = 0.95;
    /** Seed of the bootstrap resampling, fixed so the same trials always give the same interval. */
    public static final long BOOTSTRAP_SEED = 1;
    /** Fewest trials whose median interval is judged (5 trials: the interval is [min, max], exact coverage 93.75%). */
    public static final int MIN_JUDGED_TRIALS = 5;

    private TrialRatios() {
    }

    /** The median of {@code ratios} with its {@link #CONFIDENCE} interval ({@link BootstrapInterval#DEFAULT_RESAMPLES}). */
    public static BootstrapInterval interval(double[] ratios) {
        return BootstrapInterval.ofMedian(ratios, CONFIDENCE, BootstrapInterval.DEFAULT_RESAMPLES, BOOTSTRAP_SEED);
    }

    /**
     * Judges "the true median ratio is at least {@code target}" and records it as an anchor check:
     * {@code anchor check: <what>: median ..., 95% CI [...] -> MET|NOT MET|INCONCLUSIVE}.
     *
     * @return the outcome (PASS = MET)
     */
    public static Outcome judge(CheckLog checks, String what, double[] ratios, double target) {
        if (!(target > 0 && Double.isFinite(target))) {
            throw new IllegalArgumentException("target must be positive and finite, was " + target);
        }
        BootstrapInterval ci = interval(ratios);
        Outcome o = ci.atLeast(target);
        checks.target(CheckKind.ANCHOR_CHECK, what + ": " + ci.describe("x"), o);
        return o;
    }

    /** Prints the ratios' median and interval as a comparison that is not a check (the exit code ignores it). */
    public static void compare(CheckLog checks, String what, double[] ratios) {
        checks.comparison(what + ": " + interval(ratios).describe("x"));
    }

    /**
     * @return why {@code trials} trials cannot judge a target (the interval of a median covers it with 75% or less
     *         below {@link #MIN_JUDGED_TRIALS}; 1 trial: 0%), or null when they can
     */
    public static String tooFewTrials(int trials) {
        return trials >= MIN_JUDGED_TRIALS ? null : String.format(Locale.ROOT, "%d trials: fewer than %d, the"
            + " interval of a median covers it with at most 75%%", trials, MIN_JUDGED_TRIALS);
    }

    /**
     * The run's one-line verdict from the targets that were NOT MET and those that were INCONCLUSIVE (by name).
     *
     * @param targets how many targets were judged
     */
    public static String verdict(List<String> notMet, List<String> undecided, int targets) {
        if (!notMet.isEmpty()) {
            return "NOT MET (" + String.join(", ", notMet) + ")" + (undecided.isEmpty() ? ""
                : "; INCONCLUSIVE (" + String.join(", ", undecided) + ")");
        }
        return !undecided.isEmpty() ? "INCONCLUSIVE (" + String.join(", ", undecided) + "); the other "
            + (targets - undecided.size()) + " MET" : "MET (all " + targets + " targets)";
    }

    /** The trials' ratios, three decimals each, space-separated. */
    public static String format(double[] ratios) {
        StringBuilder sb = new StringBuilder();
        for (double t : ratios) {
            sb.append(sb.isEmpty() ? "" : " ").append(String.format(Locale.ROOT, "%.3f", t));
        }
        return sb.toString();
    }
}
