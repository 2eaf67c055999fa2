package io.nicbridge.bench.pupa.real;

import io.nicbridge.bench.real.RealLinks;
import io.nicbridge.bench.real.RoundTripTrialOptions;
import io.nicbridge.bridge.shim.ShimTulipLinks;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nic pupa real-latency}: {@link RealLatency}. */
@Command(name = "real-latency", mixinStandardHelpOptions = true,
        description = "Pupa's one-way latency (RTT/2) in real time on two native-shim 21140s across a veth pair between"
            + " two network namespaces, beside kernel TCP with TCP_NODELAY over the same pair in the same run: both"
            + " blocking and both busy polling (SO_BUSY_POLL + spinning recv for TCP, an inline card polled by a"
            + " spinning node for Pupa), unpinned and pinned; interleaved trials, the ratio Pupa/TCP per size with a"
            + " bootstrap interval, and the target 'at most half of TCP's up to 256 B with busy polling'. Needs root"
            + " (namespaces, AF_PACKET).")
public final class RealLatencyCommand implements Callable<Integer> {
    @Option(names = "--sizes", split = ",", paramLabel = "LIST",
            description = "Message bytes, 1..1436 (default: 4,32,64,128,256,512,1024,1436; --quick: 4,256,1436).")
    int[] sizes;

    @Mixin
    RoundTripTrialOptions trials = new RoundTripTrialOptions();

    @Option(names = "--waits", split = ",", defaultValue = "block,spin",
            description = "Which waits to run: block, spin (default: ${DEFAULT-VALUE}).")
    List<String> waits;

    @Option(names = "--pinning", split = ",", defaultValue = "unpinned,pinned",
            description = "unpinned, pinned (node A on CPU 0, node B on CPU 1) (default: ${DEFAULT-VALUE}).")
    List<String> pinnings;

    @Option(names = "--transport", defaultValue = "afpacket", description = "How the shim cards move frames:"
        + " afpacket (PACKET_MMAP receive ring, send/sendmmsg) or afxdp (XSK rings; copy mode on a veth) (default:"
        + " ${DEFAULT-VALUE}).")
    String transport;

    @Spec
    CommandSpec spec;

    /** @throws IllegalArgumentException for a name that is not afpacket or afxdp */
    static ShimTulipLinks.Transport transport(String name) {
        return switch (name.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "afpacket" -> ShimTulipLinks.Transport.AF_PACKET;
            case "afxdp" -> ShimTulipLinks.Transport.AF_XDP;
            default -> throw new IllegalArgumentException("--transport: afpacket or afxdp, was '" + name + "'");
        };
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        String missing = RealLinks.missing();
        if (missing != null) {
            return RealLinks.cannotRun(out, "pupa real-latency", missing);
        }
        return new RealLatency(out, sizes != null ? sizes : trials.quick() ? RealLatency.QUICK_SIZES
            : RealLatency.DEFAULT_SIZES, trials.count(), trials.warmup(), trials.trials(), waits, pinnings,
            trials.acceptInconclusive(), transport(transport)).run();
    }
}
