package io.nicbridge.bench.medusa;

import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.engine.EngineMode;
import java.io.PrintStream;
import java.util.Locale;

/**
 * The careful-protocols paper's latency and throughput tests on emulated Medusa cards and the FDDI ring, in
 * virtual time, printed beside the paper's Table 1 and Table 2. Every simulated figure printed here is computed in
 * this run; the paper's figures are quoted from {@link PaperTables}.
 */
public final class MedusaRingExperiments {
    /** Payload sizes (words of 4 bytes) of the latency sweep; the paper's 1..2000 range. */
    public static final int[] LATENCY_WORDS = {1, 100, 250, 500, 1000, 1500, 2000};
    /** Payload sizes of the throughput test: the paper's Table 2 rows. */
    public static final int[] THROUGHPUT_WORDS = {1, 200, 1000, 2000};
    /** The FDDI rate the slope must show: 10 ns per bit. */
    public static final double NS_PER_BIT = 10.0;
    /** Relative tolerance of the slope check. */
    public static final double SLOPE_TOLERANCE = 0.005;
    static final int RECEIVE_BUFFERS = 64;

    private MedusaRingExperiments() {
    }

    /**
     * Runs the ring latency test for every node count and payload size.
     *
     * @return 0 when every slope check passed, 1 otherwise
     */
    public static int latency(PrintStream out, int[] nodeCounts, int[] words, int warmup, int rounds, long seed) {
        return latency(out, nodeCounts, words, warmup, rounds, seed, 0);
    }

    /**
     * @param hostNanos each node's host reaction time (receive interrupt to passing the message on), virtual ns;
     *                  0 = host software not modelled
     */
    public static int latency(PrintStream out, int[] nodeCounts, int[] words, int warmup, int rounds, long seed,
                              long hostNanos) {
        return latency(out, nodeCounts, words, warmup, rounds, seed, hostNanos, null);
    }

    /** @param capture records every frame of every ring (FDDI, each ring's simulated time); null: no capture */
    public static int latency(PrintStream out, int[] nodeCounts, int[] words, int warmup, int rounds, long seed,
                              long hostNanos, PcapWriter capture) {
        out.println("Ring latency test (careful-protocols paper, section 6.1): one message travels around a ring of P"
            + " nodes; time per hop = round time / P; payload = words x 4 bytes + 52 bytes of headers incl. the"
            + " 4-byte FCS; raw frames, no processing (each node passes the buffer on in place); virtual time, "
            + warmup + " warm-up + " + rounds + " measured rounds per point, seed " + seed + (hostNanos == 0 ? ""
            : String.format(Locale.ROOT, "; host reaction time %.3f us per node (a virtual-time timer between the"
                + " receive interrupt and passing the message on)", hostNanos / 1000.0)));
        boolean ok = true;
        boolean modelPrinted = false;
        StringBuilder checks = new StringBuilder();
        for (int p : nodeCounts) {
            double[] bits = new double[words.length];
            double[] hop = new double[words.length];
            try (MedusaRingWorld world = new MedusaRingWorld(p, EngineMode.VIRTUAL, seed, RECEIVE_BUFFERS, true,
                    capture)) {
                if (!modelPrinted) {
                    out.println("Our model: " + world.timingModel().replace("exactly " + p + " stations",
                        "exactly P stations").replace("host software takes no virtual time", hostNanos == 0
                            ? "host software takes no virtual time" : "host software takes the reaction time above"));
                    out.println();
                    out.printf(Locale.ROOT, "%3s %6s %8s %10s %14s | %-40s%n", "P", "words", "bytes", "bits/hop",
                        "sim us/hop", "paper Table 1 us (no proc trad/care; proc trad/care)");
                    modelPrinted = true;
                }
                RingLatency test = new RingLatency(world.virtualTime(), world.drivers(), hostNanos);
                for (int i = 0; i < words.length; i++) {
                    hop[i] = test.run(words[i], warmup, rounds);
                    bits[i] = RingLatency.paperBits(words[i]);
                    double[] paper = PaperTables.row(PaperTables.TABLE_1_LATENCY_US, p, words[i]);
                    out.printf(Locale.ROOT, "%3d %6d %8d %10d %14.3f | %s%n", p, words[i],
                        RingMessages.PAPER_HEADER_BYTES + 4 * words[i], (long) bits[i], hop[i] / 1000.0,
                        paper == null ? "-" : String.format(Locale.ROOT, "%7.1f %7.1f ; %7.1f %7.1f", paper[2],
                            paper[3], paper[4], paper[5]));
                }
            }
            LeastSquares fit = LeastSquares.fit(bits, hop);
            boolean pass = Math.abs(fit.slope() - NS_PER_BIT) <= NS_PER_BIT * SLOPE_TOLERANCE;
            ok &= pass;
            checks.append(String.format(Locale.ROOT, "check P=%d: least-squares slope %.4f ns/bit (intercept %.3f us,"
                + " max residual %.1f ns) vs %.0f ns/bit = 100 Mb/s: %s%n", p, fit.slope(), fit.intercept() / 1000.0,
                fit.maxResidual(), NS_PER_BIT, pass ? "OK" : "FAIL (tolerance " + SLOPE_TOLERANCE * 100 + "%)"));
            double[] paper1 = PaperTables.row(PaperTables.TABLE_1_LATENCY_US, p, 1);
            double[] paper2000 = PaperTables.row(PaperTables.TABLE_1_LATENCY_US, p, 2000);
            if (paper1 != null && paper2000 != null) {
                double paperSlope = (paper2000[3] - paper1[3]) * 1000.0
                    / (RingLatency.paperBits(2000) - RingLatency.paperBits(1));
                checks.append(String.format(Locale.ROOT, "      paper Table 1, P=%d care, no processing, from its 1 and"
                    + " 2000 word rows: %.4f ns/bit; paper minus ours at 1 word: %+.1f us%s%n", p, paperSlope,
                    paper1[3] - (fit.intercept() + fit.slope() * RingLatency.paperBits(1)) / 1000.0,
                    hostNanos == 0 ? " (host software, which this run does not simulate)" : ""));
            }
        }
        out.println();
        out.print(checks);
        return ok ? 0 : 1;
    }

    /**
     * Runs the throughput test for every node count and payload size.
     *
     * @return 0 when the largest frames reach at least 95 Mb/s on every ring, 1 otherwise
     */
    public static int throughput(PrintStream out, int[] nodeCounts, int[] words, int messages, long seed) {
        return throughput(out, nodeCounts, words, messages, seed, null);
    }

    /** @param capture records every frame of every ring (FDDI, each ring's simulated time); null: no capture */
    public static int throughput(PrintStream out, int[] nodeCounts, int[] words, int messages, long seed,
                                 PcapWriter capture) {
        out.println("Ring throughput test (careful-protocols paper, section 6.1): node 0 sends " + messages
            + " messages to node P-1 through nodes 1..P-2 (each passes the buffer on in place); throughput = payload"
            + " per sender / time x (P - 1) senders, the total seen by the ring; careful-protocol static windows of R - 4"
            + " frames (R = " + RECEIVE_BUFFERS + " receive buffers) with window updates as frames; virtual time, seed "
            + seed);
        boolean ok = true;
        boolean modelPrinted = false;
        StringBuilder checks = new StringBuilder();
        for (int p : nodeCounts) {
            double largest = 0;
            int largestWords = 0;
            try (MedusaRingWorld world = new MedusaRingWorld(p, EngineMode.VIRTUAL, seed, RECEIVE_BUFFERS, true,
                    capture)) {
                if (!modelPrinted) {
                    out.println("Our model: " + world.timingModel().replace("exactly " + p + " stations",
                        "exactly P stations"));
                    out.println();
                    out.printf(Locale.ROOT, "%3s %6s %8s %12s %14s | %-40s%n", "P", "words", "frame B", "sim Mb/s",
                        "payload share", "paper Table 2 Mb/s (no proc trad/care; proc trad/care)");
                    modelPrinted = true;
                }
                RingThroughput test = new RingThroughput(world.virtualTime(), world.drivers());
                for (int w : words) {
                    RingThroughput.Result r = test.run(w, messages);
                    double mbps = r.megabitsPerSecond();
                    double share = 100.0 * 4 * w / (RingMessages.frameLength(w) + 15);
                    double[] paper = PaperTables.row(PaperTables.TABLE_2_THROUGHPUT_MBPS, p, w);
                    out.printf(Locale.ROOT, "%3d %6d %8d %12.2f %13.1f%% | %s%n", p, w,
                        RingLatency.frameBytesWithFcs(w), mbps, share,
                        paper == null ? "-" : String.format(Locale.ROOT, "%6.2f %6.2f ; %6.2f %6.2f", paper[2],
                            paper[3], paper[4], paper[5]));
                    if (w >= largestWords) {
                        largestWords = w;
                        largest = mbps;
                    }
                }
            }
            boolean pass = largest >= 95.0 && largest <= 100.0;
            ok &= pass;
            checks.append(String.format(Locale.ROOT, "check P=%d: %d-word frames carry %.2f Mb/s of payload, approaching"
                + " FDDI's 100 Mb/s (>= 95 and <= 100): %s%n", p, largestWords, largest, pass ? "OK" : "FAIL"));
        }
        out.println("(payload share = payload / (LEN + 15 bytes on the fibre): the wire's own ceiling for one frame)");
        out.println();
        out.print(checks);
        return ok ? 0 : 1;
    }
}
