package io.nicbridge.bench.cli;

import picocli.CommandLine.Option;

/** {@code --count} and {@code --warmup}: the measured and the warm-up round trips of a ping-pong (a picocli mixin). */
final class RoundTripOptions {
    @Option(names = "--count", defaultValue = "50000",
        description = "Measured round trips (per size) (default: ${DEFAULT-VALUE}).")
    int count;

    @Option(names = "--warmup", defaultValue = "50000",
        description = "Round trips before measuring, so the JIT has compiled driver, card and wire"
            + " (default: ${DEFAULT-VALUE}).")
    int warmup;
}
