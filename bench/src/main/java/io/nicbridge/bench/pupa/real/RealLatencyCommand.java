package io.nicbridge.bench.pupa.real;

import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.spi.Availability;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
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

    @Option(names = "--count", description = "Measured round trips per size, stack and trial (default: 2000;"
        + " --quick: 300).")
    Integer count;

    @Option(names = "--warmup", description = "Round trips before measuring, per size, stack and trial (default: 300;"
        + " --quick: 50).")
    Integer warmup;

    @Option(names = "--trials", description = "Interleaved trials per setting (default: 5; --quick: 3).")
    Integer trials;

    @Option(names = "--waits", split = ",", defaultValue = "block,spin",
            description = "Which waits to run: block, spin (default: ${DEFAULT-VALUE}).")
    List<String> waits;

    @Option(names = "--pinning", split = ",", defaultValue = "unpinned,pinned",
            description = "unpinned, pinned (node A on CPU 0, node B on CPU 1) (default: ${DEFAULT-VALUE}).")
    List<String> pinnings;

    @Option(names = "--quick", description = "A short run (fewer sizes, round trips and trials).")
    boolean quick;

    @Option(names = "--accept-inconclusive", description = "Exit 0 instead of 3 when a target is INCONCLUSIVE.")
    boolean acceptInconclusive;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        String missing = missingPrerequisite();
        if (missing != null) {
            out.println("pupa real-latency: cannot run here: " + missing);
            out.flush();
            return ExitCodes.USAGE;
        }
        return new RealLatency(out, sizes != null ? sizes : quick ? RealLatency.QUICK_SIZES : RealLatency.DEFAULT_SIZES,
            count != null ? count : quick ? 300 : 2000, warmup != null ? warmup : quick ? 50 : 300,
            trials != null ? trials : quick ? 3 : 5, waits, pinnings, acceptInconclusive).run();
    }

    /** @return why namespaces, veth pairs or the shim are not available here, or null when they are */
    static String missingPrerequisite() {
        Availability veth = VethPair.availability();
        if (!veth.available()) {
            return "network namespaces and veth pairs: " + veth.reason() + " (run as root)";
        }
        Availability shim = new ShimBackendProvider().availability();
        return shim.available() ? null : "the native shim: " + shim.reason();
    }
}
