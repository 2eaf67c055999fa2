package io.nicbridge.bench.unet.real;

import io.nicbridge.bench.real.RealLinks;
import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.spi.Availability;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nic unet real-pingpong}: {@link UnetRealPingPong}. */
@Command(name = "real-pingpong", mixinStandardHelpOptions = true,
        description = "U-Net round trips in real time on one veth pair between two network namespaces, per message"
            + " size, for each U-Net endpoint over Ethernet in the same run: the shim's SBA-200 card on AF_PACKET"
            + " (afpacket), the same card on AF_XDP (afxdp), and the direct-access endpoint whose queues are the AF_XDP"
            + " rings (direct); p50/p90/p99 and the p50 ratio to afpacket (comparisons). Needs root (namespaces,"
            + " AF_PACKET, XDP).")
public final class UnetRealPingPongCommand implements Callable<Integer> {
    @Option(names = "--sizes", split = ",", paramLabel = "LIST", defaultValue = "4,40,256,1024,1492",
            description = "Message bytes, 1..1492 (default: ${DEFAULT-VALUE}).")
    int[] sizes;

    @Option(names = "--count", defaultValue = "2000", description = "Measured round trips per size, backend and"
        + " trial (default: ${DEFAULT-VALUE}).")
    int count;

    @Option(names = "--warmup", defaultValue = "200", description = "Round trips before measuring, per size, backend"
        + " and trial (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--trials", defaultValue = "3", description = "Trials; the backends' order rotates from trial to"
        + " trial (default: ${DEFAULT-VALUE}).")
    int trials;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        String missing = RealLinks.missing();
        Availability xdp = ShimBackendProvider.xdpAvailability();
        if (missing == null && !xdp.available()) {
            missing = "AF_XDP: " + xdp.reason();
        }
        if (missing != null) {
            return RealLinks.cannotRun(out, "unet real-pingpong", missing);
        }
        try {
            return new UnetRealPingPong(out, sizes, count, warmup, trials).run();
        } catch (IllegalArgumentException e) {
            out.println("nic unet real-pingpong: " + e.getMessage());
            out.flush();
            return ExitCodes.USAGE;
        }
    }
}
