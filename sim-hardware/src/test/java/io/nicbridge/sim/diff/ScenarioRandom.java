package io.nicbridge.sim.diff;

import java.util.SplittableRandom;

/** The few random draws the scenario generators use, from one seed (so a seed reproduces a scenario exactly). */
final class ScenarioRandom {
    private final SplittableRandom random;

    ScenarioRandom(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /** True with probability {@code p}. */
    boolean chance(double p) {
        return random.nextDouble() < p;
    }

    double next() {
        return random.nextDouble();
    }

    /** Uniform in [lo, hi], both included. */
    int between(int lo, int hi) {
        return random.nextInt(lo, hi + 1);
    }

    /** Uniform in [0, n). */
    int below(int n) {
        return random.nextInt(n);
    }

    long pick(long... choices) {
        return choices[random.nextInt(choices.length)];
    }

    /** The low {@code n} bits of a random word (n &lt;= 32), unsigned. */
    long bits(int n) {
        return Integer.toUnsignedLong(random.nextInt()) >>> (32 - n);
    }
}
