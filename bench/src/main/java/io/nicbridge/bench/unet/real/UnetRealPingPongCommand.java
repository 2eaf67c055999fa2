package io.nicbridge.bench.unet.real;

import io.nicbridge.bench.real.RealLinks;
import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.spi.Availability;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nic unet real-pingpong}: {@link UnetRealPingPong}. */
@Command(name = "real-pingpong", mixinStandardHelpOptions = true,
        description = "U-Net round trips in real time on one veth pair between two network namespaces, per message"
            + " size, for each U-Net endpoint over Ethernet and for kernel UDP in the same run: the shim's SBA-200 card"
            + " on AF_PACKET (afpacket), the same card on AF_XDP (afxdp), the direct-access endpoint whose queues are"
            + " the AF_XDP rings (direct) and kernel UDP carrying the same frame (udp); blocking and busy-polling,"
            + " unpinned and pinned. Judges issue 18's targets on the interleaved trials (pinned, 64-byte frame: kernel"
            + " UDP's p50 RTT >= 1.5x the direct endpoint's blocking, >= 3x busy-polling; median ratio with a 95%%"
            + " bootstrap interval); the exit code follows the verdict. Needs root (namespaces, AF_PACKET, XDP).")
public final class UnetRealPingPongCommand implements Callable<Integer> {
    @Option(names = "--sizes", split = ",", paramLabel = "LIST", defaultValue = "42,1492",
            description = "Message bytes, 21..1492 with udp (1..1492 without); 42 is the 64-byte frame the targets name"
                + " (default: ${DEFAULT-VALUE}).")
    int[] sizes;

    @Option(names = "--count", defaultValue = "2000", description = "Measured round trips per size, wait, backend and"
        + " trial (default: ${DEFAULT-VALUE}).")
    int count;

    @Option(names = "--warmup", defaultValue = "200", description = "Round trips before measuring, per size, wait,"
        + " backend and trial (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--trials", defaultValue = "5", description = "Trials; the backends' order reverses from trial to"
        + " trial; at least 5 to judge the targets (default: ${DEFAULT-VALUE}).")
    int trials;

    @Option(names = "--backends", split = ",", paramLabel = "LIST", defaultValue = "afpacket,afxdp,direct,udp",
            description = "Backends to measure (default: ${DEFAULT-VALUE}); the targets need direct and udp.")
    List<String> backends;

    @Option(names = "--wait", split = ",", paramLabel = "LIST", defaultValue = "block,spin",
            description = "How both sides wait: block, spin (busy polling) or both (default: ${DEFAULT-VALUE}).")
    List<String> waits;

    @Option(names = "--pin", split = ",", paramLabel = "LIST", defaultValue = "no,yes",
            description = "Unpinned (no), pinned (yes: A on CPU 0, the echo thread on CPU 1) or both"
                + " (default: ${DEFAULT-VALUE}).")
    List<String> pins;

    @Option(names = "--accept-inconclusive", description = "Exit 0 when no target failed but one was INCONCLUSIVE.")
    boolean acceptInconclusive;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try {
            boolean[] spins = flags("--wait", waits, "block", "spin");
            boolean[] pinned = flags("--pin", pins, "no", "yes");
            UnetRealPingPong run = new UnetRealPingPong(out, sizes, count, warmup, trials, backends, spins, pinned,
                acceptInconclusive);
            String missing = RealLinks.missing();
            Availability xdp = ShimBackendProvider.xdpAvailability();
            if (missing == null && !xdp.available()) {
                missing = "AF_XDP: " + xdp.reason();
            }
            if (missing != null) {
                return RealLinks.cannotRun(out, "unet real-pingpong", missing);
            }
            return run.run();
        } catch (IllegalArgumentException e) {
            out.println("nic unet real-pingpong: " + e.getMessage());
            out.flush();
            return ExitCodes.USAGE;
        }
    }

    /** {@code values}, each {@code no} or {@code yes} (false, true), as flags. */
    static boolean[] flags(String option, List<String> values, String no, String yes) {
        boolean[] r = new boolean[values.size()];
        for (int i = 0; i < r.length; i++) {
            String v = values.get(i).trim();
            if (!v.equals(no) && !v.equals(yes)) {
                throw new IllegalArgumentException(option + ": '" + v + "' is neither " + no + " nor " + yes);
            }
            r[i] = v.equals(yes);
        }
        return r;
    }
}
