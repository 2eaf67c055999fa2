package io.nicbridge.bench.verdict;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BootstrapIntervalTest {
    @Test
    void identicalTrialsGiveAZeroWidthInterval() {
        BootstrapInterval ci = BootstrapInterval.ofMedian(new double[] {1.25, 1.25, 1.25, 1.25}, 7);
        assertEquals(1.25, ci.median());
        assertEquals(1.25, ci.lower());
        assertEquals(1.25, ci.upper());
        assertEquals(4, ci.n());
    }

    @Test
    void fiveTrialsGiveTheirMinimumAndMaximum() {
        // P(median of a resample <= the smallest of 5) = P(>= 3 of 5 draws hit it) = 0.058 > 0.025: the 2.5 %
        // quantile is the smallest trial, and symmetrically the 97.5 % quantile the largest.
        double[] trials = {1.04, 0.97, 1.10, 1.01, 0.99};
        BootstrapInterval ci = BootstrapInterval.ofMedian(trials, 1);
        assertEquals(1.01, ci.median());
        assertEquals(0.97, ci.lower());
        assertEquals(1.10, ci.upper());
        assertEquals(1.04, trials[0], "the sample is not reordered");
        // [x(1), x(5)] misses the true median only when all 5 fall on one side: 1 - 2 / 32.
        assertEquals(0.9375, ci.coverage(), 1e-12);
    }

    @Test
    void sevenTrialsGiveTheSecondSmallestAndSecondLargest() {
        // P(median <= smallest of 7) = P(>= 4 of 7 draws hit it) = 0.010 < 0.025 < P(median <= second) = 0.100.
        double[] trials = {1.3, 0.7, 1.0, 1.1, 0.9, 1.2, 0.8};
        for (long seed = 1; seed <= 5; seed++) {
            BootstrapInterval ci = BootstrapInterval.ofMedian(trials, seed);
            assertEquals(1.0, ci.median());
            assertEquals(0.8, ci.lower(), "seed " + seed);
            assertEquals(1.2, ci.upper(), "seed " + seed);
            // P(2 <= K <= 5), K ~ Bin(7, 1/2) = (21 + 35 + 35 + 21) / 128: the nominal 95 % interval covers 87.5 %.
            assertEquals(0.875, ci.coverage(), 1e-12, "seed " + seed);
        }
    }

    @Test
    void nineTrialsReachTheNominalCoverage() {
        // P(median <= second smallest of 9) = 0.029 > 0.025 > P(median <= smallest) = 0.0006: [x(2), x(8)], which
        // covers the true median with P(2 <= K <= 7), K ~ Bin(9, 1/2) = 1 - 2 x 10 / 512 = 96.1 %.
        double[] trials = {9, 1, 8, 2, 7, 3, 6, 4, 5};
        for (long seed = 1; seed <= 5; seed++) {
            BootstrapInterval ci = BootstrapInterval.ofMedian(trials, seed);
            assertEquals(5, ci.median());
            assertEquals(2, ci.lower(), "seed " + seed);
            assertEquals(8, ci.upper(), "seed " + seed);
            assertEquals(1 - 20.0 / 512, ci.coverage(), 1e-12);
        }
    }

    @Test
    void anEvenCountTakesTheMeanOfTheMiddleTwo() {
        BootstrapInterval even = BootstrapInterval.ofMedian(new double[] {4, 1, 3, 2}, 1);
        assertEquals(2.5, even.median());
        assertEquals(1.0, BootstrapInterval.binomialHalf(4, 0) * 16, 1e-12);
        assertEquals(6.0, BootstrapInterval.binomialHalf(4, 2) * 16, 1e-12);
    }

    @Test
    void theSameSeedGivesTheSameIntervalAndItNarrowsWithMoreTrials() {
        SplittableRandom r = new SplittableRandom(42);
        double[] small = new double[15];
        double[] large = new double[400];
        for (int i = 0; i < large.length; i++) {
            double v = 1.0 + 0.1 * r.nextGaussian();
            large[i] = v;
            if (i < small.length) {
                small[i] = v;
            }
        }
        assertEquals(BootstrapInterval.ofMedian(large, 9), BootstrapInterval.ofMedian(large, 9));
        BootstrapInterval wide = BootstrapInterval.ofMedian(small, 9);
        BootstrapInterval narrow = BootstrapInterval.ofMedian(large, 9);
        assertTrue(narrow.upper() - narrow.lower() < wide.upper() - wide.lower(), narrow + " vs " + wide);
        // Normal data: the median's standard error is 1.2533 sigma / sqrt(n); the 95 % interval about 2 x 1.96 of it.
        double expected = 2 * 1.96 * 1.2533 * 0.1 / Math.sqrt(large.length);
        double width = narrow.upper() - narrow.lower();
        assertTrue(width > 0.6 * expected && width < 1.6 * expected, width + " vs " + expected);
        assertTrue(narrow.lower() < 1.0 && narrow.upper() > 1.0, "covers the true median: " + narrow);
        // With many trials the order-statistic coverage of the bootstrap interval approaches the nominal 95 %.
        BootstrapInterval odd = BootstrapInterval.ofMedian(java.util.Arrays.copyOf(large, 399), 9);
        assertTrue(odd.coverage() > 0.93 && odd.coverage() < 0.97, "coverage " + odd.coverage());
    }

    @Test
    void aTargetIsMetOnlyWhenTheWholeIntervalClearsIt() {
        BootstrapInterval ci = new BootstrapInterval(1.02, 0.98, 1.06, 0.95, 7, 0.875);
        assertEquals(Outcome.INCONCLUSIVE, ci.atLeast(1.0));
        assertEquals(Outcome.PASS, ci.atLeast(0.98));
        assertEquals(Outcome.FAIL, ci.atLeast(1.07));
        assertEquals("median 1.020x, 95% CI [0.980x, 1.060x] (exact coverage 87.5%), 7 trials", ci.describe("x"));
        assertEquals("median 1.020x, 95% CI [0.980x, 1.060x], 4 trials",
            new BootstrapInterval(1.02, 0.98, 1.06, 0.95, 4, Double.NaN).describe("x"));
    }

    @Test
    void badArgumentsAreNamed() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BootstrapInterval.ofMedian(new double[0], 1))
            .getMessage().contains("at least one value"));
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> BootstrapInterval.ofMedian(new double[] {1, Double.NaN}, 1)).getMessage().contains("finite"));
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> BootstrapInterval.ofMedian(new double[] {1}, 1.5, 1000, 1)).getMessage().contains("level"));
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> BootstrapInterval.ofMedian(new double[] {1}, 0.95, 10, 1)).getMessage().contains("resamples"));
    }
}
