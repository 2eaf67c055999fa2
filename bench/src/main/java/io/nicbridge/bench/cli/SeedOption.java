package io.nicbridge.bench.cli;

import picocli.CommandLine.Option;

/** {@code --seed}: the seed of a simulated world (a picocli mixin); the same seed gives the same run. */
final class SeedOption {
    @Option(names = "--seed", defaultValue = "1",
        description = "Seed of the virtual world (default: ${DEFAULT-VALUE}).")
    long seed;
}
