package io.nicbridge.bench.unet;

import io.nicbridge.bench.verdict.CheckKind;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bench.verdict.PaperPoints;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.sim.sba200.Sba200Timing;
import java.io.PrintStream;
import java.util.Locale;

/**
 * {@code nic unet table3}: the U-Net paper's Table 3 complete - raw AAL5, Active Messages, UDP, TCP and the Split-C
 * store, round-trip latency and bandwidth with 4 KB packets - on two emulated SBA-200s in virtual time with a host
 * cost table. Each row is the existing run of its layer ({@link UamRuns}, {@link UdpRuns}, {@link TcpRuns}), on the
 * same link, runner and table; nothing here measures anything itself.
 *
 * <p>The bandwidths are like for like (at 4 KB the 140 Mbit/s fibre is the limit, in 1995 as here): anchors. The
 * round trips are not (the paper's include a SPARCstation 20's software, ours the cost table's prices for this
 * machine): they are set beside the paper's, and the layers' order is checked against the model itself.
 */
public final class Table3Report {
    /** Table 3: TCP round-trip latency 157 us. */
    public static final double PAPER_TCP_RTT_US = 157.0;
    /** Table 3: TCP bandwidth with 4 KB packets, 115 Mbit/s. */
    public static final double PAPER_TCP_MBITS = 115.0;
    /** The bandwidth anchors' tolerance: the wire dominates at 4 KB (as the UAM and UDP anchors). */
    static final double ANCHOR_TOLERANCE = 0.15;
    /** Application bytes of the round trips (one cell for raw U-Net and UDP: 4 + 28 header bytes <= 40). */
    public static final int RTT_BYTES = UdpReport.TABLE3_RTT_BYTES;
    public static final int PACKET_BYTES = 4096;
    /** 4 KB packets per real-time bandwidth run. */
    static final int REAL_TIME_PACKETS = 16;
    public static final String WHY_RTT_NOT_LIKE_FOR_LIKE = "the paper's round trips include a 1995 SPARCstation 20's"
            + " software; ours price the host work by the cost table of this machine";

    /**
     * One row of the table: ours and the paper's; {@code lost} messages of the bandwidth run that never arrived (UDP
     * only: the others are reliable), {@code lossCounted} whether the receiving card counted each as dropped.
     */
    public record Row(String protocol, double rttUs, double paperRttUs, double mbits, double paperMbits, String how,
                      int lost, boolean lossCounted) {
        Row(String protocol, double rttUs, double paperRttUs, double mbits, double paperMbits, String how) {
            this(protocol, rttUs, paperRttUs, mbits, paperMbits, how, 0, true);
        }
    }

    private Table3Report() {
    }

    /**
     * Runs every row and prints the table.
     *
     * @param packets 4 KB packets (blocks, datagrams, writes) per bandwidth run
     * @return the exit code of the checks
     */
    public static int table3(PrintStream out, int warmup, int count, int packets, Sba200Timing timing, CostTable costs,
                             PaperPoints points) {
        if (packets < 8) {
            throw new IllegalArgumentException("packets must be >= 8, was " + packets);
        }
        CheckLog checks = new CheckLog(out::println);
        out.println("U-Net paper Table 3 on two emulated SBA-200s through the ATM switch, virtual time; every layer on the"
                + " same UnetLink, node runner and host cost table");
        out.println("host cost table: " + costs.describe());
        out.println("round trips: " + RTT_BYTES + " bytes of application data (Active Messages: a single-cell request"
                + " with four arguments and its reply; Split-C: a remote store and its acknowledgement); bandwidth: "
                + packets + " packets of " + PACKET_BYTES + " B one way, to the last byte delivered");
        out.println();
        Row[] rows = rows(Timebase.VIRTUAL, warmup, count, packets, timing, costs);
        out.println("  protocol      | RTT us  | paper us | ratio | Mbit/s 4 KB | paper | ratio | how");
        for (Row r : rows) {
            out.printf(Locale.ROOT, "  %-13s | %7.2f | %8.0f | %5.2f | %11.2f | %5.0f | %5.2f | %s%n", r.protocol(),
                    r.rttUs(), r.paperRttUs(), r.rttUs() / r.paperRttUs(), r.mbits(), r.paperMbits(),
                    r.mbits() / r.paperMbits(), r.how());
            points.point("table3-rtt", r.protocol(), RTT_BYTES, r.rttUs(), r.paperRttUs());
            points.point("table3-bw", r.protocol(), PACKET_BYTES, r.mbits(), r.paperMbits());
        }
        out.println();
        for (Row r : rows) {
            double ratio = r.mbits() / r.paperMbits();
            checks.check(CheckKind.ANCHOR_CHECK, String.format(Locale.ROOT, "%s bandwidth with 4 KB packets %.2f"
                    + " Mbit/s within %.0f %% of Table 3's %.0f Mbit/s (ratio %.3f; at 4 KB the fibre, not the host,"
                    + " is the limit in both)", r.protocol(), r.mbits(), ANCHOR_TOLERANCE * 100, r.paperMbits(), ratio),
                    Math.abs(ratio - 1) <= ANCHOR_TOLERANCE);
        }
        checkLosses(checks, rows, "virtual time");
        Row raw = rows[0];
        Row am = rows[1];
        Row udp = rows[2];
        Row tcp = rows[3];
        checks.check(CheckKind.MODEL_SELF_CHECK, String.format(Locale.ROOT, "every layer costs at least raw U-Net"
                + " (%.2f us) and TCP at least UDP (%.2f >= %.2f us): the layers add work on the same link and table",
                raw.rttUs(), tcp.rttUs(), udp.rttUs()), am.rttUs() >= raw.rttUs() && udp.rttUs() >= raw.rttUs()
                && tcp.rttUs() >= udp.rttUs() && rows[4].rttUs() >= raw.rttUs());
        // TCP over UDP, taken apart: the same two runs with the zero table are the wire and card part alone.
        TcpRuns.Rtt tcpWire = TcpRuns.roundTrip(RTT_BYTES, warmup, count, timing, CostTable.zero());
        UdpRuns.Rtt udpWire = UdpRuns.roundTrip(RTT_BYTES, true, warmup, count, timing, CostTable.zero());
        double wire = (tcpWire.min() - udpWire.min()) / 1e3;
        double total = tcp.rttUs() - udp.rttUs();
        checks.comparison(String.format(Locale.ROOT, "TCP over UDP: paper +%.0f us, ours +%.2f us, of which %.2f us"
                + " on the cards and the fibre (the same runs with the zero table: a %d-byte message with 40 header"
                + " bytes is %d B, over the 40-byte single-cell limit, so it goes by DMA in two cells each way where"
                + " UDP's %d B go inline in one) and %.2f us host work priced by the '%s' table (TCP's ring copies,"
                + " its header and connection lookup, one more application event per message; no TCP-specific price:"
                + " the table's measured items). %s", PAPER_TCP_RTT_US - UdpReport.PAPER_UDP_RTT_US, total, wire,
                RTT_BYTES, RTT_BYTES + 40, RTT_BYTES + 28, total - wire, costs.name(), WHY_RTT_NOT_LIKE_FOR_LIKE));
        checks.comparison(String.format(Locale.ROOT, "round trips, ours / paper: raw %.2f, AM %.2f, UDP %.2f, TCP %.2f,"
                + " Split-C %.2f: %s", raw.rttUs() / raw.paperRttUs(), am.rttUs() / am.paperRttUs(),
                udp.rttUs() / udp.paperRttUs(), tcp.rttUs() / tcp.paperRttUs(), rows[4].rttUs() / rows[4].paperRttUs(),
                WHY_RTT_NOT_LIKE_FOR_LIKE));
        realTime(out, checks, warmup, count, packets, timing);
        return checks.finish(false);
    }

    /**
     * The same rows in real time on one thread: the same runs on {@link Timebase#REAL_ONE_THREAD} (the emulated cards
     * on the real clock, run inline, both nodes and their applications on this thread). Wall-clock figures of this
     * machine under its load: printed beside the paper's, never judged against them; checked only for completing
     * with every byte delivered (the runs throw otherwise).
     */
    private static void realTime(PrintStream out, CheckLog checks, int warmup, int count, int packets,
                                 Sba200Timing timing) {
        out.println();
        out.printf(Locale.ROOT, "In real time on one thread (the emulated cards on the real clock, run inline by one"
                + " event loop with both nodes' runners and applications; the real CPU pays for the host work; best"
                + " of %d round trips after %d, %d packets per stream, machine: %d cores, load average %.1f):%n",
                count, warmup, REAL_TIME_PACKETS,
                Runtime.getRuntime().availableProcessors(),
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        Row[] rows;
        try {
            rows(Timebase.REAL_ONE_THREAD, warmup, count, 8, timing, CostTable.zero()); // JIT warm-up, discarded
            // Few packets: raw U-Net and UDP have no flow control, and a receiving card emulated on a loaded machine
            // drops what it cannot take; a raw stream that lost a message never completes.
            rows = rows(Timebase.REAL_ONE_THREAD, warmup, count, REAL_TIME_PACKETS, timing, CostTable.zero());
        } catch (IllegalStateException e) {
            out.println("  not completed in real time: " + e.getMessage());
            checks.comparison("the real-time table did not complete on this machine now (an unreliable stream lost"
                    + " a message to the emulated card's drops): " + e.getMessage());
            return;
        }
        out.println("  protocol      | RTT us  | paper us | Mbit/s 4 KB | paper | how");
        for (Row r : rows) {
            out.printf(Locale.ROOT, "  %-13s | %7.2f | %8.0f | %11.2f | %5.0f | %s%n", r.protocol(), r.rttUs(),
                    r.paperRttUs(), r.mbits(), r.paperMbits(), r.how());
        }
        checkLosses(checks, rows, "real time");
        checks.comparison("real time measures how fast this machine emulates the cards in software (cell by cell, on"
                + " the same thread as both hosts): the inline engine runs the card models as fast as it can and does"
                + " not hold cells to the 140 Mbit/s fibre, so a figure above the fibre is the emulation's speed, not a"
                + " faster wire; beside the paper's hardware this is not like for like");
    }

    /** UDP has no flow control: a datagram may be lost, but never silently (the reliable rows' runs throw). */
    private static void checkLosses(CheckLog checks, Row[] rows, String where) {
        Row udp = rows[2];
        checks.check(CheckKind.INTEGRITY_CHECK, "every row completed in " + where + " (a reliable run that loses data"
                + " throws) and every UDP datagram that did not arrive is one the receiving card counted as dropped: "
                + udp.lost() + " lost", udp.lossCounted());
    }

    /** The five rows, in the paper's order, each from its layer's own run. */
    static Row[] rows(Timebase tb, int warmup, int count, int packets, Sba200Timing timing, CostTable costs) {
        UamRuns.Rtt rawRtt = UamRuns.rawRoundTrip(tb, RTT_BYTES, warmup, count, timing, costs);
        double rawBw = UamRuns.rawStream(tb, PACKET_BYTES, packets, timing, costs);
        UamRuns.Rtt amRtt = UamRuns.amRoundTrip(tb, warmup, count, timing, costs);
        double amBw = UamRuns.blockStream(tb, UamRuns.Transfer.STORE, PACKET_BYTES, packets, timing, costs).mbits();
        UdpRuns.Rtt udpRtt = UdpRuns.roundTrip(tb, RTT_BYTES, true, warmup, count, timing, costs);
        UdpRuns.Stream udpBw = UdpRuns.stream(tb, PACKET_BYTES, packets, true, timing, costs);
        TcpRuns.Rtt tcpRtt = TcpRuns.roundTrip(tb, RTT_BYTES, warmup, count, timing, costs);
        TcpRuns.Stream tcpBw = TcpRuns.stream(tb, (long) packets * PACKET_BYTES, PACKET_BYTES, TcpRuns.TABLE3_WINDOW,
                timing, costs);
        UamRuns.Rtt splitRtt = UamRuns.splitCStoreRoundTrip(tb, warmup, count, timing, costs);
        double splitBw = UamRuns.blockStream(tb, UamRuns.Transfer.SPLITC_BULK, PACKET_BYTES, packets, timing, costs)
                .mbits();
        return new Row[] {
            new Row("raw AAL5", rawRtt.min() / 1e3, UnetPaper.SINGLE_CELL_RTT_US, rawBw,
                    UnetPaper.TABLE3_RAW_AAL5_MBITS, "messages from the segment; round trip inline, one cell"),
            new Row("Active Msgs", amRtt.min() / 1e3, UamReport.PAPER_AM_RTT_US, amBw, UamReport.PAPER_AM_MBITS,
                    "UAM request/reply; block stores (w = 8)"),
            new Row("UDP", udpRtt.min() / 1e3, UdpReport.PAPER_UDP_RTT_US, udpBw.mbits(), UdpReport.PAPER_UDP_MBITS,
                    "checksum on; received datagrams" + (udpBw.lost() > 0 ? ", " + udpBw.lost() + " of " + packets
                    + " lost (" + udpBw.receiverDrops() + ")" : ""), udpBw.lost(),
                    udpBw.lost() <= udpBw.cardDrops()),
            new Row("TCP", tcpRtt.min() / 1e3, PAPER_TCP_RTT_US, tcpBw.mbits(), PAPER_TCP_MBITS,
                    "2048-B segments, " + TcpRuns.TABLE3_WINDOW / 1024 + " KB window, 4 KB writes"),
            new Row("Split-C store", splitRtt.min() / 1e3, UamReport.PAPER_SPLITC_RTT_US, splitBw,
                    UamReport.PAPER_AM_MBITS, "store + store_sync; bulk stores acknowledged"),
        };
    }
}
