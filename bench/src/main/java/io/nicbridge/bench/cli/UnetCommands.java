package io.nicbridge.bench.cli;

import io.nicbridge.bench.real.RealLinks;
import io.nicbridge.bench.unet.Table3EthernetReport;
import io.nicbridge.bench.unet.Table3Report;
import io.nicbridge.bench.unet.TcpWindowReport;
import io.nicbridge.bench.unet.UamReport;
import io.nicbridge.bench.unet.UdpReport;
import io.nicbridge.bench.verdict.PaperPoints;
import io.nicbridge.bench.unet.UnetReport;
import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.cost.CostTable;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.sba200.Sba200Timing;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nic unet}: U-Net on two emulated Fore SBA-200s through an ATM switch, beside the U-Net paper. */
@Command(name = "unet", aliases = "sba200", mixinStandardHelpOptions = true,
        description = "U-Net on two emulated Fore SBA-200 ATM cards through an ATM switch, driven through the"
            + " bridge's U-Net API, in virtual time beside the U-Net paper's figures.",
        subcommands = {UnetCommands.PingPong.class, UnetCommands.Throughput.class, UnetCommands.AmLatency.class,
            UnetCommands.AmBandwidth.class, UnetCommands.UdpLatency.class, UnetCommands.UdpBandwidth.class,
            UnetCommands.Table3.class, UnetCommands.TcpWindow.class,
            io.nicbridge.bench.unet.real.UnetRealLatencyCommand.class,
            io.nicbridge.bench.unet.real.UnetRealBandwidthCommand.class,
            io.nicbridge.bench.unet.real.UnetRealWindowCommand.class,
            io.nicbridge.bench.unet.real.UnetRealPingPongCommand.class,
            io.nicbridge.bench.unet.real.UnetRealFloodCommand.class})
final class UnetCommands extends GroupCommand {
    /** Virtual-time round trips per size: the simulation is deterministic, so a few suffice. */
    static final int VIRTUAL_WARMUP = 2;
    static final int VIRTUAL_COUNT = 10;

    /** {@code nic unet pingpong}: {@link UnetReport#pingpong}. */
    @Command(name = "pingpong", mixinStandardHelpOptions = true,
            description = "Round-trip time vs message size in virtual time (" + VIRTUAL_WARMUP + " warm-up + "
                + VIRTUAL_COUNT + " measured round trips per size) beside the paper's Figure 3 and its model, then the"
                + " real-time software cost per message (--count, --warmup). --sizes: message bytes, 1..6144"
                + " (default: 4 .. 5120, the points of the paper's Figures 3 and 4).")
    static final class PingPong extends VirtualRunCommand {
        @Mixin
        SizesOption sizes = new SizesOption();

        @Mixin
        RoundTripOptions roundTrips = new RoundTripOptions();

        PingPong() {
            super(PcapWriter.LINKTYPE_SUNATM);
        }

        @Override
        int run(long seed, PcapWriter pcap) {
            int[] sweep = sizes.orDefault(UnetReport.DEFAULT_SIZES);
            return UnetReport.pingpong(System.out, sweep, VIRTUAL_WARMUP, VIRTUAL_COUNT, roundTrips.warmup,
                roundTrips.count, seed, Sba200Timing.I960_25MHZ, pcap);
        }
    }

    /** {@code nic unet throughput}: {@link UnetReport#throughput}. */
    @Command(name = "throughput", mixinStandardHelpOptions = true,
            description = "One card streams messages of each size to the other: throughput vs message size in virtual"
                + " time beside the AAL5 limit and the paper's Figure 4 and Table 3 (the paper calls it bandwidth)."
                + " --sizes: message bytes, 1..6144 (default: 4 .. 5120).")
    static final class Throughput extends VirtualRunCommand {
        @Mixin
        SizesOption sizes = new SizesOption();

        @Option(names = "--messages", defaultValue = "400",
                description = "Messages per size (default: ${DEFAULT-VALUE}).")
        int messages;

        Throughput() {
            super(PcapWriter.LINKTYPE_SUNATM);
        }

        @Override
        int run(long seed, PcapWriter pcap) {
            int[] sweep = sizes.orDefault(UnetReport.DEFAULT_SIZES);
            return UnetReport.throughput(System.out, sweep, messages, seed, Sba200Timing.I960_25MHZ, pcap);
        }
    }

    /** The cost table option of the Active Messages experiments. */
    static final class CostsOption {
        @Option(names = "--costs", defaultValue = "measured", description = "Host cost table every node's CPU is"
                + " charged from: measured (./nic calibrate on the machine it names), zero (wire time only) or a table"
                + " file (default: ${DEFAULT-VALUE}).")
        String costs;
    }

    /** {@code nic unet am-latency}: {@link UamReport#latency}. */
    @Command(name = "am-latency", mixinStandardHelpOptions = true,
            description = "U-Net Active Messages round trips in virtual time with the host cost model: single-cell"
                + " request/reply against raw U-Net on the same card (Figure 3, Table 3 with the Split-C store), and"
                + " block-store round trips vs size fitted to a + b*N. --sizes: block bytes (default: 16 .. 1024).")
    static final class AmLatency implements Callable<Integer> {
        @Mixin
        SizesOption sizes = new SizesOption();

        @Mixin
        CostsOption costs = new CostsOption();

        @Option(names = "--count", defaultValue = "10", description = "Measured round trips per point (default:"
                + " ${DEFAULT-VALUE}; virtual time is deterministic).")
        int count;

        @Override
        public Integer call() {
            try {
                CostTable table = CostTable.named(costs.costs);
                for (int s : sizes.orDefault(UamReport.BLOCK_SIZES)) {
                    if (s < 1 || s > 32 * 1024) {
                        throw new IllegalArgumentException("--sizes: block bytes must be 1..32768, was " + s);
                    }
                }
                return UamReport.latency(System.out, sizes.orDefault(UamReport.BLOCK_SIZES), 2, count,
                        Sba200Timing.I960_25MHZ, table);
            } catch (IllegalArgumentException e) {
                System.err.println("nic unet am-latency: " + e.getMessage());
                return ExitCodes.USAGE;
            }
        }
    }

    /** {@code nic unet am-bandwidth}: {@link UamReport#bandwidth}. */
    @Command(name = "am-bandwidth", mixinStandardHelpOptions = true,
            description = "U-Net Active Messages block store and block get bandwidth vs block size in virtual time"
                + " with the host cost model, beside the AAL5 limit, raw U-Net and the paper's Figure 4 (the dip at"
                + " 4164 B) and Table 3. --sizes: block bytes, 1..32768 (default: 64 .. 5120 with 4160 and 4164).")
    static final class AmBandwidth implements Callable<Integer> {
        @Mixin
        SizesOption sizes = new SizesOption();

        @Mixin
        CostsOption costs = new CostsOption();

        @Override
        public Integer call() {
            try {
                return UamReport.bandwidth(System.out, sizes.orDefault(UamReport.BANDWIDTH_SIZES),
                        Sba200Timing.I960_25MHZ, CostTable.named(costs.costs));
            } catch (IllegalArgumentException e) {
                System.err.println("nic unet am-bandwidth: " + e.getMessage());
                return ExitCodes.USAGE;
            }
        }
    }

    /** {@code nic unet udp-latency}: {@link UdpReport#latency}. */
    @Command(name = "udp-latency", mixinStandardHelpOptions = true,
            description = "UDP over U-Net round trips in virtual time with the host cost model: the one IPv4 stack on a"
                + " U-Net channel (MTU 9 KB, no ARP) on two emulated SBA-200s, beside raw U-Net on the same card and"
                + " Table 3's UDP row (138 us), then the round trip vs message size (Figure 9's U-Net UDP curve)."
                + " --sizes: UDP data bytes, 0..9188 (default: 4 .. 8192).")
    static final class UdpLatency implements Callable<Integer> {
        @Mixin
        SizesOption sizes = new SizesOption();

        @Mixin
        CostsOption costs = new CostsOption();

        @Option(names = "--count", defaultValue = "10", description = "Measured round trips per point (default:"
                + " ${DEFAULT-VALUE}; virtual time is deterministic).")
        int count;

        @Override
        public Integer call() {
            try {
                for (int s : sizes.orDefault(UdpReport.RTT_SIZES)) {
                    if (s < 0 || s > 9188) {
                        throw new IllegalArgumentException("--sizes: UDP data bytes must be 0..9188, was " + s);
                    }
                }
                if (count < 1) {
                    throw new IllegalArgumentException("--count must be >= 1, was " + count);
                }
                return UdpReport.latency(System.out, sizes.orDefault(UdpReport.RTT_SIZES), 2, count,
                        Sba200Timing.I960_25MHZ, CostTable.named(costs.costs), PaperPoints.NONE);
            } catch (IllegalArgumentException e) {
                System.err.println("nic unet udp-latency: " + e.getMessage());
                return ExitCodes.USAGE;
            }
        }
    }

    /** {@code nic unet udp-bandwidth}: {@link UdpReport#bandwidth}. */
    @Command(name = "udp-bandwidth", mixinStandardHelpOptions = true,
            description = "UDP over U-Net bandwidth vs datagram size in virtual time with the host cost model, beside"
                + " the AAL5 limit (Figure 7) and Table 3's 120 Mbit/s with 4 KB packets. --sizes: UDP data bytes,"
                + " 1..9188 (default: 64 .. 9188).")
    static final class UdpBandwidth implements Callable<Integer> {
        @Mixin
        SizesOption sizes = new SizesOption();

        @Mixin
        CostsOption costs = new CostsOption();

        @Option(names = "--bytes", defaultValue = "262144", description = "Payload bytes streamed per size, at least 30"
                + " datagrams (default: ${DEFAULT-VALUE}).")
        int bytes;

        @Override
        public Integer call() {
            try {
                if (bytes < 1) {
                    throw new IllegalArgumentException("--bytes must be >= 1, was " + bytes);
                }
                return UdpReport.bandwidth(System.out, sizes.orDefault(UdpReport.BANDWIDTH_SIZES), bytes,
                        Sba200Timing.I960_25MHZ, CostTable.named(costs.costs), PaperPoints.NONE);
            } catch (IllegalArgumentException e) {
                System.err.println("nic unet udp-bandwidth: " + e.getMessage());
                return ExitCodes.USAGE;
            }
        }
    }

    /** {@code nic unet table3}: {@link Table3Report#table3}, or with {@code --ethernet} {@link Table3EthernetReport}. */
    @Command(name = "table3", mixinStandardHelpOptions = true,
            description = "The U-Net paper's Table 3 complete in virtual time with the host cost model: raw AAL5, Active"
                + " Messages, UDP, TCP and the Split-C store, round-trip latency and bandwidth with 4 KB packets, each"
                + " row from its layer's own run on the same emulated SBA-200s, link, runner and cost table, beside"
                + " the paper's figures. With --ethernet: the same five rows' runs in real time on U-Net over Ethernet,"
                + " two native-shim SBA-200s across a fresh veth pair (MTU 9224), interleaved trials, p50 with its"
                + " 95%% interval; needs root (namespaces, AF_PACKET) and the native shim.")
    static final class Table3 implements Callable<Integer> {
        @Mixin
        CostsOption costs = new CostsOption();

        @Option(names = "--count", description = "Measured round trips per row (default: 10 in virtual time, which is"
                + " deterministic; 1000 per trial with --ethernet).")
        Integer count;

        @Option(names = "--packets", description = "4 KB packets per bandwidth run, at least 8 (default: 64 in virtual"
                + " time; 16 per trial with --ethernet, where raw U-Net and UDP have no flow control and a longer"
                + " burst loses a message to the receiving card's full free queue).")
        Integer packets;

        @Option(names = "--ethernet", description = "Run the five rows on U-Net over Ethernet across a veth pair, in"
                + " real time (exit code 5 when a row could not run, with the reason).")
        boolean ethernet;

        @Option(names = "--trials", defaultValue = "5", description = "With --ethernet: interleaved trials (default:"
                + " ${DEFAULT-VALUE}).")
        int trials;

        @Option(names = "--warmup", defaultValue = "100", description = "With --ethernet: untimed round trips before"
                + " each row's timed ones, per trial (default: ${DEFAULT-VALUE}).")
        int warmup;

        @Option(names = "--no-direct", description = "With --ethernet: leave out the direct AF_XDP endpoint's rows"
                + " (without this, where AF_XDP is missing they are skipped with the reason and the exit code is 5).")
        boolean noDirect;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            // a bad argument's IllegalArgumentException is NicCommand's: one line naming it, exit code 2
            int n = count != null ? count : ethernet ? 1000 : 10;
            if (n < 1) {
                throw new IllegalArgumentException("--count must be >= 1, was " + n);
            }
            if (ethernet) {
                PrintWriter out = spec.commandLine().getOut();
                Table3EthernetReport report = new Table3EthernetReport(out, warmup, n, packets != null ? packets : 16, trials,
                        !noDirect);
                return RealLinks.run(out, "unet table3 --ethernet", () -> report.run().exitCode());
            }
            return Table3Report.table3(System.out, 2, n, packets != null ? packets : 64, Sba200Timing.I960_25MHZ,
                    CostTable.named(costs.costs), PaperPoints.NONE);
        }
    }

    /** {@code nic unet tcp-window}: {@link TcpWindowReport#window}. */
    @Command(name = "tcp-window", mixinStandardHelpOptions = true,
            description = "TCP over U-Net bandwidth vs window size and application write size in virtual time with the"
                + " host cost model (the paper's Figure 8: an 8 KB window gives 14-15 MB/s on U-Net). --windows:"
                + " window bytes, powers of two >= 2048 (default: 2048 .. 65536); --sizes: write bytes (default: 512"
                + " .. 8192).")
    static final class TcpWindow implements Callable<Integer> {
        @Mixin
        SizesOption sizes = new SizesOption();

        @Mixin
        CostsOption costs = new CostsOption();

        @Option(names = "--windows", split = ",", description = "Window bytes, comma-separated powers of two >= 2048.")
        int[] windows;

        @Option(names = "--bytes", defaultValue = "524288", description = "Bytes transferred per point (default:"
                + " ${DEFAULT-VALUE}).")
        long bytes;

        @Override
        public Integer call() {
            // a bad argument's IllegalArgumentException is NicCommand's: one line naming it, exit code 2
            if (bytes < 1) {
                throw new IllegalArgumentException("--bytes must be >= 1, was " + bytes);
            }
            int[] writes = sizes.orDefault(TcpWindowReport.WRITE_SIZES);
            for (int s : writes) {
                if (s < 1 || s > (1 << 20)) {
                    throw new IllegalArgumentException("--sizes: write bytes must be 1..1048576, was " + s);
                }
            }
            return TcpWindowReport.window(System.out, windows == null ? TcpWindowReport.WINDOWS : windows, writes,
                    bytes, Sba200Timing.I960_25MHZ, CostTable.named(costs.costs), PaperPoints.NONE);
        }
    }
}
