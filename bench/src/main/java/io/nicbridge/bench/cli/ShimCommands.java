package io.nicbridge.bench.cli;

import io.nicbridge.bench.pingpong.ShimPingPong;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code nic shim}: the Tulip driver on native-shim 21140s over a real Linux link ({@link ShimPingPong}): both nodes
 * on one host beside kernel UDP ({@code pingpong}), or one node per host ({@code echo}, {@code client}).
 */
@Command(name = "shim", mixinStandardHelpOptions = true,
        description = "The Tulip driver on 21140s served by the native shim (libnicshim.so) on a real Linux link:"
            + " a veth pair on this host beside kernel UDP (pingpong), or a real NIC on two hosts (echo, client).",
        subcommands = {ShimCommands.PingPong.class, ShimCommands.Echo.class, ShimCommands.Client.class})
final class ShimCommands extends GroupCommand {

    /** The options of every shim node: its backend spec, how its card runs and waits, and the capture. */
    static final class NodeOptions {
        @Option(names = "--backend", defaultValue = "shim:afpacket", paramLabel = "SPEC",
                description = "The shim backend of the node(s) (default: ${DEFAULT-VALUE}):"
                    + " shim:afpacket[?mode=inline|threaded&rx-ring=N&tx-ring=N&frame-size=N&budget=N&tx=ring|send"
                    + "&qdisc-bypass=true&promisc=true] or shim:afxdp[?mode=..&rx-ring=N&tx-ring=N&frame-size=2048|4096"
                    + "&queue=N&bind=auto|copy|zerocopy&attach=auto|native|generic&busy-poll=MICROS]; pingpong fills in"
                    + " if= and netns= per side, echo and client need if=IFACE[&netns=NS].")
        String backend;

        @Option(names = "--mode", description = "How the shim card runs: inline (default; no card thread, the"
            + " waiting driver thread runs the card) or threaded (a card thread); the same as mode= in the backend.")
        String mode;

        @Option(names = "--driver", defaultValue = "auto",
                description = "Driver mode: interrupt, polling or auto (interrupt) (default: ${DEFAULT-VALUE}).")
        String driver;

        @Option(names = "--wait", defaultValue = "block", description = "How a node waits for a frame: block (default;"
            + " sleeps on the interrupt line, like kernel UDP's read) or spin[:MICROS] (polls the ring for MICROS,"
            + " default 50, before it sleeps).")
        String waitMode;

        @Mixin
        CaptureOptions capture = new CaptureOptions();

        ShimPingPong.Node node() {
            return new ShimPingPong.Node(backend, mode, driver, waitMode, capture.file());
        }
    }

    /** A command that runs shim nodes: their options, and the command line's own output (a test captures it). */
    abstract static class NodeCommand implements Callable<Integer> {
        @Mixin
        NodeOptions node = new NodeOptions();

        @Spec
        CommandSpec spec;

        PrintWriter out() {
            return spec.commandLine().getOut();
        }
    }

    /** {@code nic shim pingpong}: both nodes on one host, beside kernel UDP over the same link, with targets. */
    @Command(name = "pingpong", mixinStandardHelpOptions = true,
            description = "Builds a veth pair across two fresh network namespaces (or takes --veth) and measures, per"
                + " frame size, the shim's RTT and one-way frame rate beside kernel UDP over the same link in the same"
                + " run; judges both targets (the shim no worse than UDP) at every size. --sizes: frame bytes"
                + " without FCS, 60..1514 (default: 64,128,256,512,1024,1514).")
    static final class PingPong extends NodeCommand {
        @Mixin
        SizesOption sizes = new SizesOption();

        @Mixin
        RoundTripOptions roundTrips = new RoundTripOptions();

        @Option(names = "--duration", defaultValue = "1s", description = "One-way flood per frame size, e.g. 1s,"
            + " 0.5, 200ms (default: ${DEFAULT-VALUE}).")
        String duration;

        @Option(names = "--veth", paramLabel = "NS_A/IF_A,NS_B/IF_B", description = "An existing link (ends up, in"
            + " named network namespaces) instead of a fresh veth pair; the UDP baseline runs when both ends have an"
            + " IPv4 address.")
        String veth;

        @Option(names = {"--trials", "--interleave"}, defaultValue = "9", description = "Per frame size, this many"
            + " trials, the shim and kernel UDP alternating, each with its share of --count and --duration, so both"
            + " see the same machine; the targets are judged on the trials' ratios (median with a bootstrap 95%%"
            + " interval; with 9 trials it is the 2nd..8th smallest, whose exact coverage is 96.1%%; with 7 only"
            + " 87.5%%) (default: ${DEFAULT-VALUE}).")
        int trials;

        @Option(names = "--accept-inconclusive", description = "Exit 0 instead of 3 when a target is INCONCLUSIVE"
            + " (its interval straddles the target) and none is NOT MET.")
        boolean acceptInconclusive;

        /**
         * The ratio both targets must clear ({@link ShimPingPong#TARGET_RATIO}, the shim no worse than kernel UDP);
         * a test sets a trivial or an impossible one to see both exit codes from a real run.
         */
        double targetRatio = ShimPingPong.TARGET_RATIO;

        @Option(names = "--compare", paramLabel = "SPEC", description = "A second shim backend measured in the same"
            + " trials (e.g. --backend shim:afxdp --compare shim:afpacket): the tested backend, the compared one and"
            + " kernel UDP rotate within each trial on the same link; the compared one is reported beside the tested"
            + " one with per-trial ratios (comparisons; the targets stay the tested backend's against UDP).")
        String compare;

        @Option(names = "--tx-batch", defaultValue = "1", paramLabel = "N", description = "Flood: the sending"
            + " driver rings its transmit poll demand (CSR1) once per N frames instead of per frame, so the card takes"
            + " N frames in one pass and shim:afxdp sends them with one kernel kick; 1..the driver's TX ring (32)"
            + " (default: ${DEFAULT-VALUE}, as Linux's tulip driver).")
        int txBatch;

        @Override
        public Integer call() throws Exception {
            return ShimPingPong.pingpong(out(), node.node(), sizes.orDefault(ShimPingPong.DEFAULT_SIZES),
                roundTrips.count, roundTrips.warmup, duration, veth, trials, acceptInconclusive, targetRatio, compare)
                .floodTransmitBatch(txBatch).run();
        }
    }

    /** {@code nic shim echo}: node B on its own host, echoing ping-pong frames until stopped. */
    @Command(name = "echo", mixinStandardHelpOptions = true,
            description = "Node B on this host: a shim 21140 on the backend's if= echoes every ping-pong frame"
                + " (EtherType 0x88b5) addressed to it back to its sender until Ctrl-C or --count frames; prints its"
                + " station address for nic shim client --peer.")
    static final class Echo extends NodeCommand {
        @Option(names = "--count", defaultValue = "0", description = "Frames to echo before stopping (default:"
            + " ${DEFAULT-VALUE} = until Ctrl-C).")
        long count;

        @Override
        public Integer call() throws Exception {
            return ShimPingPong.echo(out(), node.node(), count).run();
        }
    }

    /** {@code nic shim client}: node A on its own host, RTT per size to an echo node. */
    @Command(name = "client", mixinStandardHelpOptions = true,
            description = "Node A on this host: a shim 21140 on the backend's if= measures the RTT per frame size to"
                + " the echo node --peer (nic shim echo on the other host); no UDP baseline. --sizes: frame bytes"
                + " without FCS, 60..1514 and at most the interface's MTU + 14 (default: 64,128,256,512,1024,1514).")
    static final class Client extends NodeCommand {
        @Option(names = "--peer", paramLabel = "MAC", description = "The echo node's station address, as it printed"
            + " it: 02:00:00:00:00:02 or 02-00-00-00-00-02.")
        String peer;

        @Mixin
        SizesOption sizes = new SizesOption();

        @Mixin
        RoundTripOptions roundTrips = new RoundTripOptions();

        @Override
        public Integer call() throws Exception {
            return ShimPingPong.client(out(), node.node(), peer, sizes.orDefault(ShimPingPong.DEFAULT_SIZES),
                roundTrips.count, roundTrips.warmup).run();
        }
    }
}
