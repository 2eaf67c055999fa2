package io.nicbridge.sim.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class InjectionTest {
    @Test
    void bernoulliRateMatchesTheOfferedLoad() {
        BernoulliInjection b = new BernoulliInjection(0.3);
        SplittableRandom[] r = LoadTest.nodeRandoms(11, 64);
        long created = 0;
        int cycles = 20_000;
        for (int c = 0; c < cycles; c++) {
            for (int n = 0; n < 64; n++) {
                if (b.inject(n, r[n])) {
                    created++;
                }
            }
        }
        double trials = 64.0 * cycles;
        double sigma = Math.sqrt(trials * 0.3 * 0.7);
        assertEquals(0.3 * trials, created, 4 * sigma);
    }

    @Test
    void onOffKeepsTheMeanRateButIsBurstier() {
        int nodes = 32;
        int cycles = 50_000;
        double rate = 0.2;
        OnOffInjection bursty = new OnOffInjection(nodes, rate, 0.02, 0.05);
        SplittableRandom[] r = LoadTest.nodeRandoms(5, nodes);
        long total = 0;
        // Variance of packets per 100-cycle window, compared with Bernoulli's.
        double sumSq = 0;
        int windows = 0;
        long window = 0;
        for (int c = 0; c < cycles; c++) {
            for (int n = 0; n < nodes; n++) {
                if (bursty.inject(n, r[n])) {
                    total++;
                    if (n == 0) {
                        window++;
                    }
                }
            }
            if (c % 100 == 99) {
                sumSq += (window - 20.0) * (window - 20.0);
                windows++;
                window = 0;
            }
        }
        assertEquals(rate * nodes * cycles, total, 0.03 * rate * nodes * cycles);
        double variance = sumSq / windows;
        double bernoulliVariance = 100 * rate * (1 - rate);
        assertTrue(variance > 3 * bernoulliVariance, "on/off variance " + variance + " vs " + bernoulliVariance);
        assertEquals(rate * (0.02 + 0.05) / 0.02, bursty.onStateRate(), 1e-12);
    }

    @Test
    void impossibleRatesAreRejectedWithTheReason() {
        assertThrows(IllegalArgumentException.class, () -> new BernoulliInjection(1.5));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new OnOffInjection(4, 0.5, 0.01, 0.5));
        assertTrue(e.getMessage().contains("ON-state rate"), e.getMessage());
    }
}
