package io.nicbridge.sim.diff;

import org.junit.jupiter.api.Test;

/**
 * The shim's DEC 21140 card (C, dec21140_card.c) against the Java emulated card (Dec21140Model): random
 * {@link Dec21140Scenario}s of 400 operations run on both; their traces (CSR5 after every step, CSR8, transmitted
 * frames, every descriptor word, the receive buffers) must be identical. A few seeds in the build; the long form is
 * {@code -Dnicbridge.diff.seeds=N} (see {@link DifferentialRun}).
 */
class Dec21140DiffTest {
    static final int OPERATIONS = 400;
    static final int BUILD_SEEDS = 200;

    @Test
    void theCCardTracesLikeTheJavaModel() throws Exception {
        DifferentialRun run = DifferentialRun.compile("dec21140", "dec21140_diff_runner", "dec21140_card.c");
        run.run(DifferentialRun.seeds(BUILD_SEEDS), seed -> Dec21140Scenario.generate(seed, OPERATIONS),
            Dec21140JavaRunner::trace, Dec21140JavaRunner::endOfStep);
    }
}
