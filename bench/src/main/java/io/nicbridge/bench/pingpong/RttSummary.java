package io.nicbridge.bench.pingpong;

import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * Percentiles of one set of round-trip times, taken from an HdrHistogram (3 significant digits), in nanoseconds.
 *
 * @param count samples
 */
public record RttSummary(String label, long count, long min, long p50, long p90, long p99, long p999, long max,
                         double mean) {
    /** Largest value the histograms track: 10 s, far above any round trip here. */
    public static final long HIGHEST_TRACKABLE_NANOS = 10_000_000_000L;

    /** A histogram sized for RTTs in nanoseconds; allocate at setup, record without allocation. */
    public static Histogram newHistogram() {
        return new Histogram(1, HIGHEST_TRACKABLE_NANOS, 3);
    }

    public static RttSummary of(String label, Histogram h) {
        if (h.getTotalCount() == 0) {
            throw new IllegalArgumentException(label + ": no samples recorded");
        }
        return new RttSummary(label, h.getTotalCount(), h.getMinValue(), h.getValueAtPercentile(50),
            h.getValueAtPercentile(90), h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue(),
            h.getMean());
    }

    /** One line, microseconds with 3 decimals: {@code label  p50 ... p90 ... p99 ... p99.9 ... max ...}. */
    public String line() {
        return String.format(Locale.ROOT, "%-44s p50 %9s  p90 %9s  p99 %9s  p99.9 %9s  max %9s  (mean %s, n=%d)",
            label, us(p50), us(p90), us(p99), us(p999), us(max), us(Math.round(mean)), count);
    }

    static String us(long nanos) {
        return String.format(Locale.ROOT, "%.3f us", nanos / 1000.0);
    }
}
