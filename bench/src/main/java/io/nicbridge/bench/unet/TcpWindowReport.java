package io.nicbridge.bench.unet;

import io.nicbridge.bench.verdict.CheckKind;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bench.verdict.PaperPoints;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.sim.sba200.Sba200Timing;
import java.io.PrintStream;
import java.util.Locale;

/**
 * {@code nic unet tcp-window}: the U-Net paper's Figure 8 - TCP bandwidth over U-Net against the window and the size
 * of the application's writes - on two emulated SBA-200s in virtual time with a host cost table ({@link TcpRuns}).
 * The paper's claim (section 7.7): "in most cases U-Net TCP achieves a 14-15 Mbytes/sec bandwidth using an 8Kbyte
 * window", because U-Net's round trip is short enough that a small window keeps the fibre busy.
 */
public final class TcpWindowReport {
    /** Section 7.7: 14-15 MB/s with an 8 KB window; the anchor is the middle of that range. */
    public static final double PAPER_8K_MBYTES_LOW = 14.0;
    public static final double PAPER_8K_MBYTES_HIGH = 15.0;
    public static final int PAPER_WINDOW = 8 * 1024;
    /** The anchor's tolerance: the range itself is +-3.4 %, the fibre's payload limit 15.8 MB/s at 2 KB segments. */
    static final double ANCHOR_TOLERANCE = 0.15;
    /** "Enough": the 8 KB window reaches this share of the largest window's bandwidth. */
    static final double ENOUGH = 0.90;
    public static final int[] WINDOWS = {2048, 4096, 8192, 16384, 32768, 65536};
    public static final int[] WRITE_SIZES = {512, 1024, 2048, 4096, 8192};

    private TcpWindowReport() {
    }

    /** @return the exit code of the checks */
    public static int window(PrintStream out, int[] windows, int[] writeSizes, long bytes, Sba200Timing timing,
                             CostTable costs, PaperPoints points) {
        for (int w : windows) {
            TcpRuns.config(w); // refuses a window that is not a power of two of at least one segment, naming it
        }
        if (windows.length == 0 || writeSizes.length == 0) {
            throw new IllegalArgumentException("windows and writeSizes must not be empty");
        }
        CheckLog checks = new CheckLog(out::println);
        out.println("TCP over U-Net (io.nicbridge.protocols.ip.tcp on the one Ipv4Stack on a UnetIpLink, MTU 9 KB) on two"
                + " emulated SBA-200s through the ATM switch, virtual time; 2048-byte segments, no delayed ACK, the"
                + " window = both rings' size (the receiver reads at once, so it advertises its whole ring, at most"
                + " 65535 B)");
        out.println("host cost table: " + costs.describe());
        out.println("Figure 8: node 0 writes " + bytes + " B in writes of N bytes as its send ring takes them, node 1"
                + " reads; MB/s (10^6 B/s) from the first write to the last byte read");
        StringBuilder head = new StringBuilder("  window \\ N |");
        for (int n : writeSizes) {
            head.append(String.format(Locale.ROOT, " %7d", n));
        }
        out.println(head.append(" | retransmissions"));
        double[][] mb = new double[windows.length][writeSizes.length];
        long retransmissions = 0;
        for (int i = 0; i < windows.length; i++) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "  %8d B  |", windows[i]));
            long rexmt = 0;
            for (int j = 0; j < writeSizes.length; j++) {
                TcpRuns.Stream s = TcpRuns.stream(bytes, writeSizes[j], windows[i], timing, costs);
                mb[i][j] = s.mbytesPerSecond();
                rexmt += s.retransmissions();
                row.append(String.format(Locale.ROOT, " %7.2f", mb[i][j]));
                boolean paperPoint = windows[i] == PAPER_WINDOW;
                points.point("fig8", "window " + windows[i] / 1024 + " KB", writeSizes[j], mb[i][j],
                        paperPoint ? (PAPER_8K_MBYTES_LOW + PAPER_8K_MBYTES_HIGH) / 2 : Double.NaN);
            }
            retransmissions += rexmt;
            out.println(row.append(" | ").append(rexmt));
        }
        out.println("  paper (sec. 7.7): 14-15 MB/s with an 8 KB window \"in most cases\"; the kernel's TCP over the same"
                + " ATM card no more than 9-10 MB/s even with 64 KB");
        out.println();
        int i8 = indexOf(windows, PAPER_WINDOW);
        int iMax = windows.length - 1;
        if (i8 >= 0) {
            // "In most cases": the median over the write sizes, not the best of them.
            double mid = (PAPER_8K_MBYTES_LOW + PAPER_8K_MBYTES_HIGH) / 2;
            double ours = median(mb[i8]);
            checks.check(CheckKind.ANCHOR_CHECK, String.format(Locale.ROOT, "8 KB window: %.2f MB/s (the median over"
                    + " the %d write sizes) within %.0f %% of the paper's 14-15 MB/s (sec. 7.7 / Fig. 8: \"in most"
                    + " cases\"; ratio to %.1f: %.3f; like for like: with an 8 KB window the round trip, not the host,"
                    + " sets the pace, and both run on a 140 Mbit/s fibre)", ours, writeSizes.length,
                    ANCHOR_TOLERANCE * 100, mid, ours / mid), Math.abs(ours / mid - 1) <= ANCHOR_TOLERANCE);
            if (windows[iMax] > PAPER_WINDOW) {
                double share = ours / median(mb[iMax]);
                checks.check(CheckKind.ANCHOR_CHECK, String.format(Locale.ROOT, "an 8 KB window is enough (sec. 7.7):"
                        + " its median reaches %.0f %% of the %d KB window's (at least %.0f %%)", share * 100,
                        windows[iMax] / 1024, ENOUGH * 100), share >= ENOUGH);
            }
        } else {
            out.println("not checked: the paper's figure needs the 8192 B window in --windows");
        }
        boolean monotone = true;
        for (int j = 0; j < writeSizes.length; j++) {
            for (int i = 1; i < windows.length; i++) {
                monotone &= mb[i][j] >= mb[i - 1][j] * 0.98;
            }
        }
        checks.check(CheckKind.MODEL_SELF_CHECK, "a larger window never costs bandwidth (within 2 %) at any write size:"
                + " the sender is window-limited, never worse for more room", monotone);
        double fibre = UnetPaper.aal5LimitMbits(TcpRuns.SEGMENT_BYTES + 40) * TcpRuns.SEGMENT_BYTES
                / (TcpRuns.SEGMENT_BYTES + 40) / 8;
        double best = 0;
        for (double[] r : mb) {
            for (double v : r) {
                best = Math.max(best, v);
            }
        }
        checks.check(CheckKind.MODEL_SELF_CHECK, String.format(Locale.ROOT, "no run beats the fibre's payload limit"
                + " for 2048-byte segments with 40 header bytes in AAL5 cells, %.2f MB/s (best %.2f)", fibre, best),
                best <= fibre * 1.001);
        checks.comparison(retransmissions == 0 ? "no segment was retransmitted: no cell was lost in any run"
                : retransmissions + " segments retransmitted over all runs (cells the receiving card dropped)");
        return checks.finish(false);
    }

    private static double median(double[] values) {
        double[] v = values.clone();
        java.util.Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    private static int indexOf(int[] values, int v) {
        for (int i = 0; i < values.length; i++) {
            if (values[i] == v) {
                return i;
            }
        }
        return -1;
    }
}
