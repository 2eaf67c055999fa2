package io.nicbridge.bench.real;

import picocli.CommandLine.Option;

/**
 * The options every interleaved round-trip comparison takes ({@code nic pupa real-latency}, {@code nic unet
 * real-latency}): round trips per size, stack and trial, their warm-up, the trials, {@code --quick} and
 * {@code --accept-inconclusive}. A picocli mixin; the defaults are the same for both commands.
 */
public final class RoundTripTrialOptions {
    @Option(names = "--count", description = "Measured round trips per size, stack and trial (default: 2000;"
        + " --quick: 300).")
    Integer count;

    @Option(names = "--warmup", description = "Round trips before measuring, per size, stack and trial (default: 300;"
        + " --quick: 50).")
    Integer warmup;

    @Option(names = "--trials", description = "Interleaved trials per setting (default: 5; --quick: 3).")
    Integer trials;

    @Option(names = "--quick", description = "A short run (fewer sizes, round trips and trials).")
    boolean quick;

    @Option(names = "--accept-inconclusive", description = "Exit 0 instead of 3 when a target is INCONCLUSIVE.")
    boolean acceptInconclusive;

    public int count() {
        return count != null ? count : quick ? 300 : 2000;
    }

    public int warmup() {
        return warmup != null ? warmup : quick ? 50 : 300;
    }

    public int trials() {
        return trials != null ? trials : quick ? 3 : 5;
    }

    public boolean quick() {
        return quick;
    }

    public boolean acceptInconclusive() {
        return acceptInconclusive;
    }
}
