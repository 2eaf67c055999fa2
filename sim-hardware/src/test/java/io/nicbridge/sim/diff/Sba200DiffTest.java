package io.nicbridge.sim.diff;

import org.junit.jupiter.api.Test;

/**
 * The U-Net firmware twice: the shim's U-Net-over-Ethernet card (C, sba200_eth_card.c) against the Java emulated
 * SBA-200 (Sba200Model). Random {@link Sba200Scenario}s of 300 operations run on both through the contract of
 * sba200_unet.h; what the host can see must be identical (see {@link Sba200Scenario} for the trace and for what is
 * left out because the media differ). A few seeds in the build; the long form is {@code -Dnicbridge.diff.seeds=N}
 * (see {@link DifferentialRun}).
 */
class Sba200DiffTest {
    static final int OPERATIONS = 300;
    static final int BUILD_SEEDS = 200;

    @Test
    void theCFirmwareTracesLikeTheJavaFirmware() throws Exception {
        DifferentialRun run = DifferentialRun.compile("sba200", "sba200_diff_runner", "sba200_eth_card.c");
        run.run(DifferentialRun.seeds(BUILD_SEEDS), seed -> Sba200Scenario.generate(seed, OPERATIONS),
            Sba200JavaRunner::trace, Sba200JavaRunner::endOfStep);
    }
}
