package io.nicbridge.bench.unet.real;

import io.nicbridge.bench.real.InterleavedTrials;
import io.nicbridge.bench.real.RealLinks;
import io.nicbridge.bench.unet.real.UnetIpShimPair.Access;
import io.nicbridge.bench.unet.real.UnetIpShimPair.Wait;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
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

    @Option(names = "--endpoints", split = ",", defaultValue = "card,direct",
            description = "Which U-Net endpoints to run: card (the shim's SBA-200 model over AF_PACKET), direct (the"
                + " AF_XDP endpoint, no card model; needs XDP) (default: ${DEFAULT-VALUE}).")
    List<String> endpoints;

    @Option(names = "--waits", split = ",", defaultValue = "spin,block",
            description = "Which waits to run: spin, block (default: ${DEFAULT-VALUE}).")
    List<String> waits;

    @Option(names = "--quick", description = "A short run (fewer sizes or windows, messages and trials).")
    boolean quick;

    boolean quick() {
        return quick;
    }

    /**
     * @return the runner these options ask for, {@code fullCount} messages per stream unless told or quick
     * @throws IllegalArgumentException naming a bad option
     */
    UnetRealBandwidth runner(PrintWriter out, int fullCount) {
        List<Wait> w = new ArrayList<>();
        for (String s : waits) {
            Wait wait = InterleavedTrials.spins(s) ? Wait.SPIN : Wait.BLOCK;
            if (!w.contains(wait)) {
                w.add(wait);
            }
        }
        return new UnetRealBandwidth(out, count != null ? count : quick ? fullCount / 10 : fullCount,
            trials != null ? trials : quick ? 3 : 5, !noLoopback, UnetRealLatency.accesses(endpoints), w);
    }

    /** @return why the endpoints asked for cannot run here (the direct one needs AF_XDP), or null */
    String missing() {
        return UnetRealLatency.accesses(endpoints).contains(Access.DIRECT) ? RealLinks.missingXdp() : null;
    }
}
