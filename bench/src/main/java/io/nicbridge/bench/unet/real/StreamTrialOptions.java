package io.nicbridge.bench.unet.real;

import java.io.PrintWriter;
import picocli.CommandLine.Option;

/**
 * The options of the two stream comparisons ({@code nic unet real-bandwidth}, {@code real-window}): messages per
 * stream, trials, {@code --no-loopback} and {@code --quick} (a tenth of the messages, 3 trials instead of 5). A
 * picocli mixin; each command gives its full message count.
 */
final class StreamTrialOptions {
    @Option(names = "--count", description = "Messages (writes) per stream, size or window, stack and trial (default:"
        + " 20000 for real-bandwidth, 10000 for real-window; --quick: a tenth).")
    Integer count;

    @Option(names = "--trials", description = "Interleaved trials (default: 5; --quick: 3).")
    Integer trials;

    @Option(names = "--no-loopback", description = "Leave out the kernel over loopback.")
    boolean noLoopback;

    @Option(names = "--quick", description = "A short run (fewer sizes or windows, messages and trials).")
    boolean quick;

    boolean quick() {
        return quick;
    }

    /** @return the runner these options ask for, {@code fullCount} messages per stream unless told or quick */
    UnetRealBandwidth runner(PrintWriter out, int fullCount) {
        return new UnetRealBandwidth(out, count != null ? count : quick ? fullCount / 10 : fullCount,
            trials != null ? trials : quick ? 3 : 5, !noLoopback);
    }
}
