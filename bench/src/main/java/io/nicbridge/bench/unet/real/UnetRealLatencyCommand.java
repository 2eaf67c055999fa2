package io.nicbridge.bench.unet.real;

import io.nicbridge.bench.real.RealLinks;
import io.nicbridge.bench.real.RoundTripTrialOptions;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nic unet real-latency} (formerly {@code udp-real-latency}, still its alias): {@link UnetRealLatency}. */
@Command(name = "real-latency", aliases = "udp-real-latency", mixinStandardHelpOptions = true,
        description = "Figure 9 in real time: U-Net UDP and TCP round trips - the IPv4 stack with UDP and TCP on U-Net"
            + " over Ethernet, two native-shim SBA-200 contracts across a veth pair between two network namespaces -"
            + " and on two direct-access AF_XDP endpoints (no card model) beside kernel UDP and kernel TCP (TCP_NODELAY) over the same pair in the same run and over loopback,"
            + " all blocking and all busy polling; interleaved trials, the ratio kernel/U-Net per size with a bootstrap"
            + " interval, and the target 'U-Net lower than the kernel up to 256 B with busy polling'. Needs root"
            + " (namespaces, AF_PACKET).")
public final class UnetRealLatencyCommand implements Callable<Integer> {
    @Option(names = "--sizes", split = ",", paramLabel = "LIST",
            description = "Message bytes (UDP data, TCP writes), 1..1472 (default: 4,64,256,1024,1472; --quick:"
                + " 4,256,1472).")
    int[] sizes;

    @Mixin
    RoundTripTrialOptions trials = new RoundTripTrialOptions();

    @Option(names = "--waits", split = ",", defaultValue = "spin,block",
            description = "Which waits to run: spin, block (default: ${DEFAULT-VALUE}).")
    List<String> waits;

    @Option(names = "--protocols", split = ",", defaultValue = "udp,tcp",
            description = "Which transports to compare: udp, tcp (default: ${DEFAULT-VALUE}).")
    List<String> protocols;

    @Option(names = "--endpoints", split = ",", defaultValue = "card,direct",
            description = "Which U-Net endpoints to run: card (the shim's SBA-200 model over AF_PACKET), direct (the"
                + " AF_XDP endpoint, no card model; needs XDP) (default: ${DEFAULT-VALUE}).")
    List<String> endpoints;

    @Option(names = "--pinning", split = ",", defaultValue = "unpinned,pinned",
            description = "unpinned, pinned (both ends of every stack: node A and the kernel's client on CPU 0, node B"
                + " and the kernel's echo on CPU 1), one-cpu (a diagnosis: both ends on CPU 0) (default:"
                + " ${DEFAULT-VALUE}).")
    List<String> pinning;

    @Option(names = "--tcp-ack", defaultValue = "at-poll", paramLabel = "WHEN",
            description = "When U-Net TCP acknowledges a data segment: at-poll (at the end of the step, so that the"
                + " reply carries the ACK: two segments per round trip) or immediate (inside the segment's arrival: a"
                + " pure ACK before each reply, four) (default: ${DEFAULT-VALUE}).")
    String tcpAck;

    @Option(names = "--no-loopback", description = "Leave out the kernel over loopback.")
    boolean noLoopback;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        return RealLinks.run(out, "unet real-latency", () -> {
            String why = UnetRealLatency.accesses(endpoints).contains(UnetIpShimPair.Access.DIRECT)
                ? RealLinks.missingXdp() : null;
            if (why != null) {
                return RealLinks.cannotRun(out, "unet real-latency", why + " (--endpoints card runs the shim card only)");
            }
            return new UnetRealLatency(out, sizes != null ? sizes
                : trials.quick() ? UnetRealLatency.QUICK_SIZES : UnetRealLatency.DEFAULT_SIZES, trials.count(),
                trials.warmup(), trials.trials(), waits, protocols, endpoints, pinning, !noLoopback,
                trials.acceptInconclusive()).tcpAckAtPoll(switch (tcpAck.trim().toLowerCase(java.util.Locale.ROOT)) {
                    case "at-poll" -> true;
                    case "immediate" -> false;
                    default -> throw new IllegalArgumentException("--tcp-ack: at-poll or immediate, was '" + tcpAck
                        + "'");
                }).run();
        });
    }
}
