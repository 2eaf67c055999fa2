package io.nicbridge.bench.verdict;

import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The median of a few measurements (e.g. one ratio per repeated trial) with a percentile-bootstrap confidence
 * interval of that median: draw {@code resamples} samples of the same size with replacement (seeded, so a run is
 * reproducible), take each one's median, and report the lower and upper {@code (1 - level) / 2} quantiles of those
 * medians. With few trials the interval is coarse - for 5 trials the 95% interval is [min, max] of the trials, for 7
 * the second smallest to the second largest. Such a small-sample percentile interval covers less than its nominal
 * level: [x(2), x(6)] of 7 contains the true median with probability 87.5 %, whatever the distribution. So each
 * interval also carries that exact, distribution-free coverage ({@link #coverage()}), printed beside the nominal level.
 *
 * @param median     median of the sample (mean of the two middle values for an even count)
 * @param lower      lower bound of the interval
 * @param upper      upper bound of the interval
 * @param level      nominal confidence level of the bootstrap, e.g. 0.95
 * @param n          sample size
 * @param coverage   when both bounds are sample values x(i) and x(j) (1-based ranks, ties taken widest): the
 *                   probability that [x(i), x(j)] contains the true median of any continuous distribution,
 *                   P(i <= K <= j - 1) for K ~ Binomial(n, 1/2); NaN when a bound is not a sample value (even n)
 */
public record BootstrapInterval(double median, double lower, double upper, double level, int n, double coverage) {
    /** Resamples used unless told otherwise. */
    public static final int DEFAULT_RESAMPLES = 10_000;

    public BootstrapInterval {
        if (!(lower <= median && median <= upper)) {
            throw new IllegalArgumentException("interval [" + lower + ", " + upper + "] must contain the median "
                + median);
        }
    }

    /**
     * @param sample    the measurements, at least one, all finite; not modified
     * @param level     confidence level in (0, 1)
     * @param resamples bootstrap resamples, at least 100
     * @param seed      seed of the resampling
     * @throws IllegalArgumentException naming the bad argument
     */
    public static BootstrapInterval ofMedian(double[] sample, double level, int resamples, long seed) {
        if (sample == null || sample.length == 0) {
            throw new IllegalArgumentException("sample must hold at least one value");
        }
        for (double v : sample) {
            if (!Double.isFinite(v)) {
                throw new IllegalArgumentException("sample values must be finite, got " + v);
            }
        }
        if (!(level > 0 && level < 1)) {
            throw new IllegalArgumentException("level must be in (0, 1), was " + level);
        }
        if (resamples < 100) {
            throw new IllegalArgumentException("resamples must be at least 100, was " + resamples);
        }
        int n = sample.length;
        double[] medians = new double[resamples];
        double[] draw = new double[n];
        SplittableRandom random = new SplittableRandom(seed);
        for (int b = 0; b < resamples; b++) {
            for (int i = 0; i < n; i++) {
                draw[i] = sample[random.nextInt(n)];
            }
            medians[b] = medianInPlace(draw);
        }
        Arrays.sort(medians);
        double tail = (1 - level) / 2;
        double[] sorted = sample.clone();
        double median = medianInPlace(sorted);
        double lower = quantile(medians, tail);
        double upper = quantile(medians, 1 - tail);
        return new BootstrapInterval(median, lower, upper, level, n, orderStatisticCoverage(sorted, lower, upper));
    }

    /** @see #coverage() */
    static double orderStatisticCoverage(double[] sorted, double lower, double upper) {
        int n = sorted.length;
        int i = -1;
        int j = -1;
        for (int k = 0; k < n; k++) {
            if (sorted[k] == lower && i < 0) {
                i = k + 1;
            }
            if (sorted[k] == upper) {
                j = k + 1;
            }
        }
        if (i < 0 || j < 0) {
            return Double.NaN;
        }
        double p = 0;
        for (int k = i; k <= j - 1; k++) {
            p += binomialHalf(n, k);
        }
        return Math.min(1.0, p);
    }

    /** C(n, k) / 2^n, in log space so that large n does not overflow. */
    static double binomialHalf(int n, int k) {
        double log = -n * Math.log(2);
        for (int m = 1; m <= k; m++) {
            log += Math.log(n - k + m) - Math.log(m);
        }
        return Math.exp(log);
    }

    /** {@link #ofMedian(double[], double, int, long)} with 95% and {@link #DEFAULT_RESAMPLES}. */
    public static BootstrapInterval ofMedian(double[] sample, long seed) {
        return ofMedian(sample, 0.95, DEFAULT_RESAMPLES, seed);
    }

    /** Sorts {@code values} and returns their median. */
    static double medianInPlace(double[] values) {
        Arrays.sort(values);
        int n = values.length;
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }

    /** The q-quantile of sorted values by the nearest-rank method: the smallest value with at least q below or at. */
    static double quantile(double[] sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.clamp(rank - 1, 0, sorted.length - 1)];
    }

    /**
     * Judges the target "the true median is at least {@code target}": PASS when the whole interval is at or above
     * it, FAIL when the whole interval is below it, INCONCLUSIVE when the interval straddles it.
     */
    public Outcome atLeast(double target) {
        if (lower >= target) {
            return Outcome.PASS;
        }
        return upper < target ? Outcome.FAIL : Outcome.INCONCLUSIVE;
    }

    /** E.g. {@code median 1.030x, 95% CI [0.980x, 1.070x] (exact coverage 87.5%), 7 trials}. */
    public String describe(String unit) {
        return String.format(Locale.ROOT, "median %.3f%s, %.0f%% CI [%.3f%s, %.3f%s]%s, %d trials", median, unit,
            level * 100, lower, unit, upper, unit, Double.isNaN(coverage) ? ""
                : String.format(Locale.ROOT, " (exact coverage %.1f%%)", coverage * 100), n);
    }
}
