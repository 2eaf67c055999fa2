package io.nicbridge.bench.unet.real;

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

/** {@code nic unet real-latency} (formerly {@code udp-real-latency}, still its alias): {@link UnetRealLatency}. */
@Command(name = "real-latency", aliases = "udp-real-latency", mixinStandardHelpOptions = true,
        description = "Figure 9 in real time: U-Net UDP and TCP round trips - the IPv4 stack with UDP and TCP on U-Net"
            + " over Ethernet, two native-shim SBA-200 contracts across a veth pair between two network namespaces -"
            + " beside kernel UDP and kernel TCP (TCP_NODELAY) over the same pair in the same run and over loopback,"
            + " all blocking and all busy polling; interleaved trials, the ratio kernel/U-Net per size with a bootstrap"
            + " interval, and the target 'U-Net lower than the kernel up to 256 B with busy polling'. Needs root"
            + " (namespaces, AF_PACKET).")
public final class UnetRealLatencyCommand implements Callable<Integer> {
    @Option(names = "--sizes", split = ",", paramLabel = "LIST",
            description = "UDP data bytes, 1..1472 (default: 4,64,256,1024,1472; --quick: 4,256,1472).")
    int[] sizes;

    @Option(names = "--count", description = "Measured round trips per size, stack and trial (default: 2000;"
        + " --quick: 300).")
    Integer count;

    @Option(names = "--warmup", description = "Round trips before measuring, per size, stack and trial (default: 300;"
        + " --quick: 50).")
    Integer warmup;

    @Option(names = "--trials", description = "Interleaved trials per wait mode (default: 5; --quick: 3).")
    Integer trials;

    @Option(names = "--waits", split = ",", defaultValue = "spin,block",
            description = "Which waits to run: spin, block (default: ${DEFAULT-VALUE}).")
    List<String> waits;

    @Option(names = "--protocols", split = ",", defaultValue = "udp,tcp",
            description = "Which transports to compare: udp, tcp (default: ${DEFAULT-VALUE}).")
    List<String> protocols;

    @Option(names = "--no-loopback", description = "Leave out the kernel over loopback.")
    boolean noLoopback;

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
            out.println("unet real-latency: cannot run here: " + missing);
            out.flush();
            return ExitCodes.USAGE;
        }
        try {
            return new UnetRealLatency(out, sizes != null ? sizes : quick ? UnetRealLatency.QUICK_SIZES
                : UnetRealLatency.DEFAULT_SIZES, count != null ? count : quick ? 300 : 2000,
                warmup != null ? warmup : quick ? 50 : 300, trials != null ? trials : quick ? 3 : 5, waits, protocols,
                !noLoopback, acceptInconclusive).run();
        } catch (IllegalArgumentException e) {
            out.println("nic unet real-latency: " + e.getMessage());
            out.flush();
            return ExitCodes.USAGE;
        }
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
