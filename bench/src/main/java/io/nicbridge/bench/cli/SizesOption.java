package io.nicbridge.bench.cli;

import picocli.CommandLine.Option;

/**
 * {@code --sizes}: the sizes a sweep measures (a picocli mixin), parsed by {@link SizeList}. What a size counts
 * (frame bytes without FCS, message bytes), its range and the default sweep are each command's, in its description.
 */
final class SizesOption {
    @Option(names = "--sizes", paramLabel = "LIST", description = "Sizes in bytes to sweep, comma-separated; what"
        + " they count, their range and the default are in the description above.")
    String text;

    /** The sizes given, or {@code defaults} when the option was not. */
    int[] orDefault(int[] defaults) {
        return text == null ? defaults.clone() : SizeList.parse("--sizes", text);
    }
}
