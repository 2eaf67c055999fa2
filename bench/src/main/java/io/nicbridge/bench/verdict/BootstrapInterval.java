package io.nicbridge.bench.verdict;

import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The median of a few measurements (e.g. one ratio per repeated trial) with a percentile-bootstrap confidence
 * interval of that median: draw {@code resamples} samples of the same size with replacement (seeded, so a run is
 * reproducible), take each one's median, and report the lower and upper {@code (1 - level) / 2} quantiles of those
 * medians. With few trials the interval is coarse - for 5 trials the 95% interval is [min, max] of the trials, for 7
 * the second smallest to the second largest - which is honest: that is all a handful of trials can say.
 *
 * @param median     median of the sample (mean of the two middle values for an even count)
 * @param lower      lower bound of the interval
 * @param upper      upper bound of the interval
 * @param level      confidence level, e.g. 0.95
 * @param n          sample size
 */
public record BootstrapInterval(double median, double lower, double upper, double level, int n) {
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
        return new BootstrapInterval(medianInPlace(sample.clone()), quantile(medians, tail),
            quantile(medians, 1 - tail), level, n);
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

    /** E.g. {@code median 1.03x, 95% CI [0.98x, 1.07x], 7 trials}. */
    public String describe(String unit) {
        return String.format(Locale.ROOT, "median %.3f%s, %.0f%% CI [%.3f%s, %.3f%s], %d trials", median, unit,
            level * 100, lower, unit, upper, unit, n);
    }
}
