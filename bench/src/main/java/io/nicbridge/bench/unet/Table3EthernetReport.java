package io.nicbridge.bench.unet;

import io.nicbridge.bench.real.InterleavedTrials;
import io.nicbridge.bench.real.RealLinks;
import io.nicbridge.bench.verdict.BootstrapInterval;
import io.nicbridge.bench.verdict.CheckKind;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.platform.CpuAffinity;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.protocols.am.AmConfig;
import io.nicbridge.protocols.ip.Ipv4Stack;
import io.nicbridge.sim.sba200.Sba200Timing;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.function.Function;
import org.HdrHistogram.Histogram;

/**
 * {@code nic unet table3 --ethernet}: the U-Net paper's Table 3 - raw U-Net, Active Messages, UDP, TCP and the
 * Split-C store, round trip and bandwidth with 4 KB packets - on U-Net over Ethernet across a fresh veth pair, in real
 * time. Every row is the very run of {@code nic unet table3} ({@link UamRuns}, {@link UdpRuns}, {@link TcpRuns}: the
 * same cores, node runner and application), on {@link Timebase#ethernet}: two native-shim SBA-200 contracts at the
 * pair's two ends, both cards' work and both nodes on one thread. The veth's MTU is {@value #VETH_MTU}: the paper's
 * 9 KB IP MTU over a U-Net channel ({@link Ipv4Stack#UNET_MTU}) plus U-Net over Ethernet's 8-byte tag, so every PDU of
 * every row - a 4 KB packet, a 4160-byte UAM buffer - is one frame, as it is one AAL5 PDU on the paper's ATM.
 *
 * <p>The rows run in {@code trials} interleaved trials ({@link InterleavedTrials}: each row takes one turn per trial,
 * the order reversing from trial to trial), after one discarded warm-up pass of every row (the JIT). A turn records
 * every timed round trip (size index {@value #RTT}, nanoseconds) and the bandwidth of one 4 KB stream (size index
 * {@value #BANDWIDTH}, kbit/s). Per row the p50 of each is printed with the bootstrap 95% interval of its per-trial
 * p50s, the round trip's p99 beside it; the paper's ATM figures beside them, and the layers' order (the paper: raw
 * &lt; UAM &lt; UDP &lt; TCP) as per-trial ratios with their intervals - comparisons, not checks: the medium differs
 * (a veth between two namespaces of one host, not a 140 Mbit/s fibre between two SPARCstation 20s), so the shape is
 * compared, not the values.
 *
 * <p>Data: every run checks what it carries (raw echoes and stream messages byte for byte, the Active Messages'
 * arguments, the Split-C store's value read back on the other node, UDP echoes and stream datagrams, TCP echoes and
 * stream bytes against the sent pattern) and throws on a difference. Exit code: {@link ExitCodes#OK} when every row
 * ran in every trial and every check passed; {@link ExitCodes#INCOMPLETE} when a row could not run (a run that lost a
 * message and never finished: raw U-Net and UDP have no flow control), with the reason printed.
 */
public final class Table3EthernetReport {
    /** The veth pair's MTU: U-Net's 9 KB IP MTU and the 8-byte U-Net tag in front of the PDU. */
    public static final int VETH_MTU = Ipv4Stack.UNET_MTU + UnetEthernetMedium.TAG;
    /** Size index of the round trips in a turn's histograms. */
    static final int RTT = 0;
    /** Size index of the 4 KB bandwidth in a turn's histograms (kbit/s). */
    static final int BANDWIDTH = 1;
    /** The discarded warm-up pass: round trips and 4 KB packets per row. */
    static final int WARMUP_COUNT = 200;
    static final int WARMUP_PACKETS = 16;

    /** The five rows of Table 3, in the paper's order. */
    public enum Layer {
        RAW("raw U-Net", UnetPaper.SINGLE_CELL_RTT_US, UnetPaper.TABLE3_RAW_AAL5_MBITS,
                "4-B messages echoed / 4 KB messages, no flow control"),
        AM("Active Msgs", UamReport.PAPER_AM_RTT_US, UamReport.PAPER_AM_MBITS,
                "UAM request/reply (4 args) / block stores, w = 8"),
        UDP("UDP", UdpReport.PAPER_UDP_RTT_US, UdpReport.PAPER_UDP_MBITS, "checksum on; 4 KB datagrams"),
        TCP("TCP", Table3Report.PAPER_TCP_RTT_US, Table3Report.PAPER_TCP_MBITS,
                "2048-B segments, 64 KB window, 4 KB writes"),
        SPLITC("Split-C store", UamReport.PAPER_SPLITC_RTT_US, UamReport.PAPER_AM_MBITS,
                "store + store_sync / bulk stores acknowledged");

        final String label;
        final double paperRttUs;
        final double paperMbits;
        final String how;

        Layer(String label, double paperRttUs, double paperMbits, String how) {
            this.label = label;
            this.paperRttUs = paperRttUs;
            this.paperMbits = paperMbits;
            this.how = how;
        }

        public String label() {
            return label;
        }
    }

    /**
     * What a run produced: per row (in {@link Layer} order) its p50s on the shim card and on the direct endpoint (NaN
     * for a figure not measured: a row that could not run, or one the direct endpoint cannot carry), the exit code,
     * and why a part did not run (null when everything asked for ran).
     */
    public record Result(int exitCode, double[] rttP50Us, double[] mbitsP50, double[] directRttP50Us,
                         double[] directMbitsP50, long datagramsLost, String failure) {
    }

    /** The direct endpoint's stacks in its trials: the round trips it carries, then TCP's 4 KB stream (kbit/s). */
    static final Layer[] DIRECT_RTT_ROWS = {Layer.RAW, Layer.UDP, Layer.TCP};
    static final int DIRECT_TCP_STREAM = DIRECT_RTT_ROWS.length;

    private final PrintWriter out;
    private final int warmup;
    private final int count;
    private final int packets;
    private final int trials;
    /** Builds the medium on the run's veth pair: {@link Timebase#ethernet}, or a test's with faults. */
    private final Function<VethPair, Timebase> medium;
    /** Whether the direct AF_XDP endpoint's rows run too. */
    private final boolean direct;

    /**
     * @param warmup  untimed round trips before each row's timed ones
     * @param count   timed round trips per row and trial
     * @param packets 4 KB packets per row's stream and trial, at least 8
     * @param trials  interleaved trials, at least 1 (3 or more for a meaningful interval)
     * @throws IllegalArgumentException naming the bad argument
     */
    public Table3EthernetReport(PrintWriter out, int warmup, int count, int packets, int trials, boolean direct) {
        this(out, warmup, count, packets, trials, direct, Timebase::ethernet);
    }

    /**
     * @param direct whether the direct AF_XDP endpoint's rows run too (where AF_XDP is missing they are skipped with
     *               the reason, and the exit code says the run is incomplete)
     * @param medium the shim cards' medium on the run's veth pair (tests: cards with the shim's fault injection)
     */
    Table3EthernetReport(PrintWriter out, int warmup, int count, int packets, int trials, boolean direct,
                         Function<VethPair, Timebase> medium) {
        if (count < 1 || warmup < 0) {
            throw new IllegalArgumentException("--count must be >= 1 and --warmup >= 0, were " + count + ", " + warmup);
        }
        if (packets < 8) {
            throw new IllegalArgumentException("--packets must be >= 8, was " + packets);
        }
        if (trials < 1) {
            throw new IllegalArgumentException("--trials must be >= 1, was " + trials);
        }
        this.out = out;
        this.warmup = warmup;
        this.count = count;
        this.packets = packets;
        this.trials = trials;
        this.medium = medium;
        this.direct = direct;
    }

    /**
     * Runs every row on a fresh veth pair - the shim cards' five, then the direct endpoint's - and prints the tables.
     * Needs root (namespaces, AF_PACKET) and the shim; the direct endpoint needs AF_XDP.
     */
    public Result run() throws Exception {
        Layer[] layers = Layer.values();
        long[] lost = {0};
        CheckLog checks = new CheckLog(out::println);
        StringBuilder failures = new StringBuilder();
        double[] rtt = nans(layers.length);
        double[] mbits = nans(layers.length);
        double[] directRtt = nans(layers.length);
        double[] directMbits = nans(layers.length);
        try (VethPair veth = VethPair.builder().ipv4(false).mtu(VETH_MTU).create()) {
            out.printf(Locale.ROOT, "U-Net paper Table 3 on U-Net over Ethernet, real time, across %s (MTU %d: the"
                    + " 9 KB IP MTU + the 8-byte U-Net tag, so every PDU is one frame); both ends' work and both nodes"
                    + " on one thread, each row the run of 'nic unet table3'%n", veth, VETH_MTU);
            out.printf(Locale.ROOT, "round trips: %d B of application data (%d timed after %d per row and trial);"
                    + " bandwidth: %d packets of %d B one way, to the last byte delivered; %d interleaved trials after"
                    + " one discarded warm-up pass%n", Table3Report.RTT_BYTES, count, warmup, packets,
                    Table3Report.PACKET_BYTES, trials);
            Timebase cards = medium.apply(veth);
            InterleavedTrials trial = new InterleavedTrials(2, trials, layers.length);
            try {
                for (Layer l : layers) { // the JIT's pass: discarded
                    turn(cards, l, WARMUP_COUNT / 10, WARMUP_COUNT, WARMUP_PACKETS, InterleavedTrials.histograms(2),
                            new long[1]);
                }
                InterleavedTrials.Turn[] turns = new InterleavedTrials.Turn[layers.length];
                for (Layer l : layers) {
                    turns[l.ordinal()] = h -> turn(cards, l, warmup, count, packets, h, lost);
                }
                trial.run(turns);
                cardTable(trial, layers, checks, rtt, mbits);
            } catch (RowFailed e) {
                out.println();
                out.println("shim SBA-200 cards: a row could not run: " + e.getMessage() + " (Table 3 needs every row:"
                        + " the rows before it are not printed alone; raw U-Net and UDP have no flow control, so a"
                        + " long burst - --packets - can lose a message to the receiving card's full free queue)");
                failures.append("shim card: ").append(e.getMessage());
            }
            if (direct) {
                String why = RealLinks.missingXdp();
                if (why != null) {
                    out.println();
                    out.println("direct AF_XDP endpoint: rows skipped: " + why);
                    failures.append(failures.isEmpty() ? "" : "; ").append("direct endpoint skipped: ").append(why);
                } else {
                    String f = directRows(Timebase.ethernetDirect(veth), checks, directRtt, directMbits);
                    if (f != null) {
                        failures.append(failures.isEmpty() ? "" : "; ").append("direct endpoint: ").append(f);
                    }
                }
            }
        }
        out.println();
        checks.comparison("the medium differs: a veth pair between two network namespaces of one host, both ends"
                + " emulated or served in software on the same thread as both hosts, not a 140 Mbit/s ATM fibre"
                + " between two SPARCstation 20s - the comparison with the paper is of shape and ordering (raw < UAM <"
                + " UDP < TCP round trips), not of values; a bandwidth above 140 Mbit/s is this machine's copy speed,"
                + " not a faster wire");
        if (lost[0] > 0) {
            checks.comparison("UDP has no flow control: " + lost[0] + " of " + (long) packets * trials + " 4 KB"
                    + " datagrams were not delivered (the receiving card or its packet socket dropped them); the UDP"
                    + " bandwidth counts what arrived");
        }
        checks.check(CheckKind.INTEGRITY_CHECK, "every run that ran checked what it carried - raw echoes and messages"
                + " byte for byte, the Active Messages' arguments and stored blocks, the Split-C store's values read"
                + " back on the other node, UDP echoes and datagrams, TCP echoes and stream bytes against the pattern"
                + " sent (a difference ends the run with an error)", true);
        out.printf(Locale.ROOT, "machine load: load average %.2f at the end on %d CPUs%n",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), CpuAffinity.cpus());
        int code = checks.finish(false);
        String failure = failures.isEmpty() ? null : failures.toString();
        if (failure != null && code == ExitCodes.OK) {
            out.println("result: INCOMPLETE (exit code " + ExitCodes.INCOMPLETE + "): " + failure);
            code = ExitCodes.INCOMPLETE;
        }
        out.flush();
        return new Result(code, rtt, mbits, directRtt, directMbits, lost[0], failure);
    }

    /**
     * The direct endpoint's rows: the round trips of raw U-Net, UDP and TCP and TCP's 4 KB stream, the runs of the card
     * rows on {@link Timebase#ethernetDirect}, in their own interleaved trials; the rows it cannot carry are named
     * with the reason.
     *
     * @return why a row could not run, or null
     */
    private String directRows(Timebase xsk, CheckLog checks, double[] rtt, double[] mbits) throws Exception {
        int stacks = DIRECT_RTT_ROWS.length + 1;
        InterleavedTrials trial = new InterleavedTrials(1, trials, stacks);
        InterleavedTrials.Turn[] turns = new InterleavedTrials.Turn[stacks];
        try {
            for (int s = 0; s < stacks; s++) { // the JIT's pass: discarded
                directTurn(xsk, s, WARMUP_COUNT / 10, WARMUP_COUNT, WARMUP_PACKETS, InterleavedTrials.histograms(1));
            }
            for (int s = 0; s < stacks; s++) {
                int stack = s;
                turns[s] = h -> directTurn(xsk, stack, warmup, count, packets, h);
            }
            trial.run(turns);
        } catch (RowFailed e) {
            out.println();
            out.println("direct AF_XDP endpoint: a row could not run: " + e.getMessage());
            return e.getMessage();
        }
        out.println();
        out.printf(Locale.ROOT, "The same runs on two direct-access AF_XDP endpoints (XskUnetEndpoint: the socket's rings"
                + " are the U-Net queues, no card model; %d-byte UMEM chunks carry a message of at most %d B; the"
                + " loop polls both links every pass, a direct endpoint signalling arrivals only to its own wait; as"
                + " opened on this MTU: %s):%n", UnetEthernetMedium.DIRECT_CHUNK, UnetEthernetMedium.DIRECT_MAX_PDU,
                xsk instanceof UnetEthernetMedium m ? m.lastDirectEndpoint() : xsk);
        out.println("  protocol      | RTT p50 us [95% CI]        | p99 us  | paper us | Mbit/s 4 KB p50 [95% CI]  |"
                + " paper Mbit/s | what the endpoint carries");
        int amPdu = AmConfig.paper(UamRuns.MEMORY).linkMtu();
        for (Layer l : Layer.values()) {
            int s = java.util.Arrays.asList(DIRECT_RTT_ROWS).indexOf(l);
            String rttText = "       -                   |       - ";
            if (s >= 0) {
                BootstrapInterval r = trial.p50Interval(s, 0);
                rtt[l.ordinal()] = trial.all(s, 0).getValueAtPercentile(50) / 1e3;
                rttText = String.format(Locale.ROOT, "%7.2f [%7.2f, %7.2f] | %7.2f", rtt[l.ordinal()],
                        r.lower() / 1e3, r.upper() / 1e3, trial.all(s, 0).getValueAtPercentile(99) / 1e3);
            }
            String bwText = "    -                     ";
            String carries = switch (l) {
                case RAW -> "the 4-B round trip; not a 4 KB message (a " + Table3Report.PACKET_BYTES + "-B PDU, over "
                        + UnetEthernetMedium.DIRECT_MAX_PDU + ")";
                case UDP -> "the 4-B round trip; not a 4 KB datagram (a " + (Table3Report.PACKET_BYTES + 28)
                        + "-B PDU; IP over U-Net does not fragment)";
                case TCP -> "both: " + TcpRuns.SEGMENT_BYTES + "-B segments are " + (TcpRuns.SEGMENT_BYTES + 40)
                        + "-B PDUs";
                case AM, SPLITC -> "neither: UAM's " + AmConfig.PAPER_BUFFER_BYTES + "-byte buffers need " + amPdu
                        + "-B PDUs";
            };
            if (l == Layer.TCP) {
                BootstrapInterval b = trial.p50Interval(DIRECT_TCP_STREAM, 0);
                mbits[l.ordinal()] = trial.all(DIRECT_TCP_STREAM, 0).getValueAtPercentile(50) / 1e3;
                bwText = String.format(Locale.ROOT, "%8.1f [%7.1f, %7.1f]", mbits[l.ordinal()], b.lower() / 1e3,
                        b.upper() / 1e3);
            }
            out.printf(Locale.ROOT, "  %-13s | %s | %8.0f | %s | %12.0f | %s%n", l.label, rttText, l.paperRttUs, bwText,
                    l.paperMbits, carries);
        }
        out.println();
        BootstrapInterval udpRaw = trial.interval(1, 0, 0);
        BootstrapInterval tcpUdp = trial.interval(2, 1, 0);
        checks.comparison(String.format(Locale.ROOT, "direct endpoint, round trip UDP / raw U-Net per trial: %s;"
                + " TCP / UDP: %s (the paper: %.2f and %.2f)", udpRaw.describe("x"), tcpUdp.describe("x"),
                Layer.UDP.paperRttUs / Layer.RAW.paperRttUs, Layer.TCP.paperRttUs / Layer.UDP.paperRttUs));
        return null;
    }

    /** The direct endpoint's turn of stack {@code stack}: a row's round trips, or TCP's 4 KB stream in kbit/s. */
    private static void directTurn(Timebase xsk, int stack, int warmup, int count, int packets, Histogram[] h)
            throws RowFailed {
        Sba200Timing timing = Sba200Timing.I960_25MHZ;
        CostTable costs = CostTable.zero();
        int size = Table3Report.RTT_BYTES;
        String what = stack == DIRECT_TCP_STREAM ? "TCP 4 KB stream" : DIRECT_RTT_ROWS[stack].label;
        try {
            if (stack == DIRECT_TCP_STREAM) {
                double mbits = TcpRuns.stream(xsk, (long) packets * Table3Report.PACKET_BYTES,
                        Table3Report.PACKET_BYTES, TcpRuns.TABLE3_WINDOW, timing, costs).mbits();
                h[0].recordValue(Math.max(1, Math.round(mbits * 1e3)));
                return;
            }
            h[0].add(switch (DIRECT_RTT_ROWS[stack]) {
                case RAW -> UamRuns.rawRoundTrip(xsk, size, warmup, count, timing, costs).samples();
                case UDP -> UdpRuns.roundTrip(xsk, size, true, warmup, count, timing, costs).samples();
                case TCP -> TcpRuns.roundTrip(xsk, size, warmup, count, timing, costs).samples();
                default -> throw new IllegalStateException("the direct endpoint runs no " + what);
            });
        } catch (IllegalStateException | IllegalArgumentException e) {
            throw new RowFailed(what + ": " + e.getMessage(), e);
        }
    }

    /** One row's turn: its round trips into {@code h[RTT]}, one 4 KB stream's kbit/s into {@code h[BANDWIDTH]}. */
    private static void turn(Timebase eth, Layer layer, int warmup, int count, int packets, Histogram[] h,
                             long[] lost) throws RowFailed {
        Sba200Timing timing = Sba200Timing.I960_25MHZ; // the emulated card's; the shim card has its own
        CostTable costs = CostTable.zero(); // real time: the CPU pays for the host work
        int size = Table3Report.RTT_BYTES;
        int bytes = Table3Report.PACKET_BYTES;
        try {
            double mbits;
            switch (layer) {
                case RAW -> {
                    h[RTT].add(UamRuns.rawRoundTrip(eth, size, warmup, count, timing, costs).samples());
                    mbits = UamRuns.rawStream(eth, bytes, packets, timing, costs);
                }
                case AM -> {
                    h[RTT].add(UamRuns.amRoundTrip(eth, warmup, count, timing, costs).samples());
                    mbits = UamRuns.blockStream(eth, UamRuns.Transfer.STORE, bytes, packets, timing, costs).mbits();
                }
                case UDP -> {
                    h[RTT].add(UdpRuns.roundTrip(eth, size, true, warmup, count, timing, costs).samples());
                    UdpRuns.Stream s = UdpRuns.stream(eth, bytes, packets, true, timing, costs);
                    lost[0] += s.lost();
                    mbits = s.mbits();
                }
                case TCP -> {
                    h[RTT].add(TcpRuns.roundTrip(eth, size, warmup, count, timing, costs).samples());
                    mbits = TcpRuns.stream(eth, (long) packets * bytes, bytes, TcpRuns.TABLE3_WINDOW, timing, costs)
                            .mbits();
                }
                case SPLITC -> {
                    h[RTT].add(UamRuns.splitCStoreRoundTrip(eth, warmup, count, timing, costs).samples());
                    mbits = UamRuns.blockStream(eth, UamRuns.Transfer.SPLITC_BULK, bytes, packets, timing, costs)
                            .mbits();
                }
                default -> throw new IllegalStateException("no run for " + layer);
            }
            if (!(mbits > 0)) {
                throw new IllegalStateException("the 4 KB stream measured " + mbits + " Mbit/s");
            }
            h[BANDWIDTH].recordValue(Math.max(1, Math.round(mbits * 1e3)));
        } catch (IllegalStateException e) {
            throw new RowFailed(layer.label + ": " + e.getMessage(), e);
        }
    }

    /** The shim cards' table and the layers' order, from the trials; fills {@code rtt} and {@code mbits}. */
    private void cardTable(InterleavedTrials trial, Layer[] layers, CheckLog checks, double[] rtt, double[] mbits) {
        out.println();
        out.println("Two native-shim SBA-200 contracts (the C card model on an AF_PACKET socket at each end):");
        out.println("  protocol      | RTT p50 us [95% CI]        | p99 us  | paper us | Mbit/s 4 KB p50 [95% CI]  |"
                + " paper Mbit/s | how");
        for (Layer l : layers) {
            int s = l.ordinal();
            BootstrapInterval r = trial.p50Interval(s, RTT);
            BootstrapInterval b = trial.p50Interval(s, BANDWIDTH);
            rtt[s] = trial.all(s, RTT).getValueAtPercentile(50) / 1e3;
            mbits[s] = trial.all(s, BANDWIDTH).getValueAtPercentile(50) / 1e3;
            out.printf(Locale.ROOT, "  %-13s | %7.2f [%7.2f, %7.2f] | %7.2f | %8.0f | %8.1f [%7.1f, %7.1f] | %12.0f |"
                    + " %s%n", l.label, rtt[s], r.lower() / 1e3, r.upper() / 1e3,
                    trial.all(s, RTT).getValueAtPercentile(99) / 1e3, l.paperRttUs, mbits[s], b.lower() / 1e3,
                    b.upper() / 1e3, l.paperMbits, l.how);
        }
        out.println();
        order(checks, trial, Layer.AM, Layer.RAW);
        order(checks, trial, Layer.UDP, Layer.AM);
        order(checks, trial, Layer.TCP, Layer.UDP);
        order(checks, trial, Layer.SPLITC, Layer.RAW);
    }

    /** A layer's round trip over the one below it, per trial: printed with its interval, not judged. */
    private void order(CheckLog checks, InterleavedTrials trial, Layer upper, Layer lower) {
        BootstrapInterval ci = trial.interval(upper.ordinal(), lower.ordinal(), RTT);
        String side = ci.lower() > 1 ? "above 1: the paper's order" : ci.upper() < 1 ? "below 1: not the paper's"
                + " order" : "straddles 1";
        checks.comparison(String.format(Locale.ROOT, "round trip %s / %s per trial: %s (%s; the paper: %.0f / %.0f us"
                + " = %.2f)", upper.label, lower.label, ci.describe("x"), side, upper.paperRttUs, lower.paperRttUs,
                upper.paperRttUs / lower.paperRttUs));
    }

    private static double[] nans(int n) {
        double[] v = new double[n];
        java.util.Arrays.fill(v, Double.NaN);
        return v;
    }

    /** A row whose run could not finish (a lost message) or found its data damaged. */
    private static final class RowFailed extends Exception {
        RowFailed(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
