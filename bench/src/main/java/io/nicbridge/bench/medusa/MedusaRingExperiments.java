package io.nicbridge.bench.medusa;

import io.nicbridge.bench.verdict.CheckKind;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bench.verdict.PaperPoints;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.engine.EngineMode;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Locale;

/**
 * The careful-protocols paper's latency and throughput tests on emulated Medusa cards and the FDDI ring, in
 * virtual time, printed beside the paper's Table 1 and Table 2. Every simulated figure printed here is computed in
 * this run; the paper's figures are quoted from {@link PaperTables}.
 * <p>Both tests' checks are model self-checks ({@link CheckKind#MODEL_SELF_CHECK}): the 10 ns/bit latency slope and
 * the throughput ceiling follow by construction from the ring's 100 Mb/s timing, so they catch regressions but do
 * not show agreement with the paper. The paper's figures include host software, which these runs do not simulate
 * (unless {@code --host-ns} adds a fixed time per hop), so they are printed as comparisons, not checks.
 */
public final class MedusaRingExperiments {
    /** Payload sizes (words of 4 bytes) of the latency sweep; the paper's 1..2000 range. */
    public static final int[] LATENCY_WORDS = {1, 100, 250, 500, 1000, 1500, 2000};
    /** Payload sizes of the throughput test: the paper's Table 2 rows. */
    public static final int[] THROUGHPUT_WORDS = {1, 200, 1000, 2000};
    /** The paper's ring sizes. */
    public static final int[] NODES = {2, 4, 8};
    /** The smallest and largest rings the tests build. */
    public static final int MIN_NODES = 2;
    public static final int MAX_NODES = 64;
    /** The paper's largest payload: 2000 words + 52 bytes of headers fit the 8 KiB buffer. */
    public static final int MAX_WORDS = 2000;
    /** The FDDI rate the ring model serialises at, which the slope shows by construction: 10 ns per bit. */
    public static final double NS_PER_BIT = 10.0;
    /** Relative tolerance of the slope check. */
    public static final double SLOPE_TOLERANCE = 0.005;
    /** The largest frames' throughput must reach this share of the wire's ceiling for that frame. */
    static final double CEILING_SHARE = 0.98;
    /** Bytes a frame occupies on the fibre beyond its LEN: the ring model's own (preamble, SD, FCS, ED/FS). */
    static final int FIBRE_OVERHEAD_BYTES = io.nicbridge.sim.fddi.FddiTiming.FRAME_OVERHEAD_BYTES;
    static final int RECEIVE_BUFFERS = 64;

    private MedusaRingExperiments() {
    }

    /** Ring sizes within [{@value #MIN_NODES}, {@value #MAX_NODES}], payloads within [1, {@value #MAX_WORDS}] words. */
    private static void requireRings(int[] nodeCounts, int[] words) {
        within("--nodes", nodeCounts, MIN_NODES, MAX_NODES);
        within("--words", words, 1, MAX_WORDS);
    }

    private static void within(String what, int[] values, int min, int max) {
        if (values.length == 0) {
            throw new IllegalArgumentException(what + ": no values");
        }
        for (int v : values) {
            if (v < min || v > max) {
                throw new IllegalArgumentException(what + ": " + v + " is outside [" + min + ", " + max + "]");
            }
        }
    }

    /**
     * Runs the ring latency test for every node count and payload size.
     *
     * @return 0 when every slope self-check passed, 1 otherwise ({@link io.nicbridge.bench.verdict.ExitCodes})
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

    /**
     * @param capture records every frame of every ring (FDDI, each ring's simulated time); null: no capture
     * @throws IllegalArgumentException naming the first bad argument: ring sizes 2..64, 1..2000 words with at least
     *                                  two different sizes (for the slope), host time 0..1 s, rounds >= 1, warmup >= 0
     */
    public static int latency(PrintStream out, int[] nodeCounts, int[] words, int warmup, int rounds, long seed,
                              long hostNanos, PcapWriter capture) {
        return latency(out, nodeCounts, words, warmup, rounds, seed, hostNanos, capture, PaperPoints.NONE);
    }

    /**
     * As above, each point also handed to {@code points}: figure {@code "table1"}, series {@code "P=n"}, x in words,
     * us per hop beside the paper's Table 1 careful protocol without processing (where the paper has the row).
     */
    public static int latency(PrintStream out, int[] nodeCounts, int[] words, int warmup, int rounds, long seed,
                              long hostNanos, PcapWriter capture, PaperPoints points) {
        requireRings(nodeCounts, words);
        if (hostNanos < 0 || hostNanos > 1_000_000_000L) {
            throw new IllegalArgumentException("--host-ns must be in [0, 1000000000], was " + hostNanos);
        }
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds must be at least 1, was " + rounds);
        }
        if (warmup < 0) {
            throw new IllegalArgumentException("--warmup must be 0 or more, was " + warmup);
        }
        if (Arrays.stream(words).distinct().count() < 2) {
            throw new IllegalArgumentException("--words needs at least two different sizes to fit a slope");
        }
        return latency(out, nodeCounts, words, warmup, rounds, seed, hostNanos, capture, NS_PER_BIT, points);
    }

    /**
     * @param modelNsPerBit the ring rate the self-check expects; {@link #NS_PER_BIT} unless a test makes the model
     *                      deliberately wrong to see the check fail
     */
    static int latency(PrintStream out, int[] nodeCounts, int[] words, int warmup, int rounds, long seed,
                       long hostNanos, PcapWriter capture, double modelNsPerBit) {
        return latency(out, nodeCounts, words, warmup, rounds, seed, hostNanos, capture, modelNsPerBit,
                PaperPoints.NONE);
    }

    private static int latency(PrintStream out, int[] nodeCounts, int[] words, int warmup, int rounds, long seed,
                               long hostNanos, PcapWriter capture, double modelNsPerBit, PaperPoints points) {
        out.println("Ring latency test (careful-protocols paper, section 6.1): one message travels around a ring of P"
            + " nodes; time per hop = round time / P; payload = words x 4 bytes + 52 bytes of headers incl. the"
            + " 4-byte FCS; raw frames, no processing (each node passes the buffer on in place); virtual time, "
            + warmup + " warm-up + " + rounds + " measured rounds per point, seed " + seed + (hostNanos == 0 ? ""
            : String.format(Locale.ROOT, "; host reaction time %.3f us per node (a virtual-time timer between the"
                + " receive interrupt and passing the message on)", hostNanos / 1000.0)));
        boolean modelPrinted = false;
        LeastSquares[] fits = new LeastSquares[nodeCounts.length];
        int pIndex = 0;
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
                    points.point("table1", "P=" + p, words[i], hop[i] / 1000.0, paper == null ? Double.NaN
                            : paper[3]);
                }
            }
            fits[pIndex++] = LeastSquares.fit(bits, hop);
        }
        out.println();
        CheckLog checks = new CheckLog(out::println);
        for (int k = 0; k < nodeCounts.length; k++) {
            int p = nodeCounts[k];
            LeastSquares fit = fits[k];
            checks.check(CheckKind.MODEL_SELF_CHECK, String.format(Locale.ROOT, "P=%d: least-squares slope %.4f"
                + " ns/bit (intercept %.3f us, max residual %.1f ns) = %.0f ns/bit within %.1f%%: true by construction"
                + " of the ring's %.0f Mb/s timing, a regression check, not agreement with the paper", p, fit.slope(),
                fit.intercept() / 1000.0, fit.maxResidual(), modelNsPerBit, SLOPE_TOLERANCE * 100,
                1000 / modelNsPerBit), Math.abs(fit.slope() - modelNsPerBit) <= modelNsPerBit * SLOPE_TOLERANCE);
            double[] paper1 = PaperTables.row(PaperTables.TABLE_1_LATENCY_US, p, 1);
            double[] paper2000 = PaperTables.row(PaperTables.TABLE_1_LATENCY_US, p, 2000);
            if (paper1 != null && paper2000 != null) {
                double paperSlope = (paper2000[3] - paper1[3]) * 1000.0
                    / (RingLatency.paperBits(2000) - RingLatency.paperBits(1));
                double oursAt1 = (fit.intercept() + fit.slope() * RingLatency.paperBits(1)) / 1000.0;
                checks.comparison(String.format(Locale.ROOT, "P=%d: paper Table 1 (care, no processing) slope from"
                    + " its 1- and 2000-word rows %.4f ns/bit vs ours %.4f ns/bit: both are FDDI's 100 Mb/s, so they"
                    + " agree by construction; per hop at 1 word paper %.1f us vs ours %.3f us (paper minus ours %+.1f"
                    + " us)%s", p, paperSlope, fit.slope(), paper1[3], oursAt1, paper1[3] - oursAt1,
                    hostNanos == 0 ? ": host software, which this run does not simulate"
                        : ": this run adds a fixed host time per hop, not the paper's host software"));
            }
        }
        return checks.finish(false);
    }

    /**
     * Runs the throughput test for every node count and payload size.
     *
     * @return 0 when on every ring the largest frames fill at least 98% of the wire's ceiling for them, 1 otherwise
     */
    public static int throughput(PrintStream out, int[] nodeCounts, int[] words, int messages, long seed) {
        return throughput(out, nodeCounts, words, messages, seed, null);
    }

    /**
     * @param capture records every frame of every ring (FDDI, each ring's simulated time); null: no capture
     * @throws IllegalArgumentException naming the first bad argument: ring sizes 2..64, 1..2000 words, messages >= 1
     */
    public static int throughput(PrintStream out, int[] nodeCounts, int[] words, int messages, long seed,
                                 PcapWriter capture) {
        return throughput(out, nodeCounts, words, messages, seed, capture, PaperPoints.NONE);
    }

    /**
     * As above, each point also handed to {@code points}: figure {@code "table2"}, series {@code "P=n"}, x in words,
     * ours in Mb/s beside Table 2's careful protocol without processing (the bare card has no protocol of its own;
     * the careful one adds the least to it).
     */
    public static int throughput(PrintStream out, int[] nodeCounts, int[] words, int messages, long seed,
                                 PcapWriter capture, PaperPoints points) {
        requireRings(nodeCounts, words);
        if (messages < 1) {
            throw new IllegalArgumentException("--messages must be at least 1, was " + messages);
        }
        return throughput(out, nodeCounts, words, messages, seed, capture, 1e9 / NS_PER_BIT, points);
    }

    static int throughput(PrintStream out, int[] nodeCounts, int[] words, int messages, long seed,
                          PcapWriter capture, double modelBitsPerSecond) {
        return throughput(out, nodeCounts, words, messages, seed, capture, modelBitsPerSecond, PaperPoints.NONE);
    }

    /**
     * @param modelBitsPerSecond the ring rate the self-check's ceiling assumes; 100 Mb/s unless a test makes the
     *                           model deliberately wrong to see the check fail
     */
    static int throughput(PrintStream out, int[] nodeCounts, int[] words, int messages, long seed,
                          PcapWriter capture, double modelBitsPerSecond, PaperPoints points) {
        out.println("Ring throughput test (careful-protocols paper, section 6.1): node 0 sends " + messages
            + " messages to node P-1 through nodes 1..P-2 (each passes the buffer on in place); throughput = payload"
            + " per sender / time x (P - 1) senders, the total seen by the ring; careful-protocol static windows of R - 4"
            + " frames (R = " + RECEIVE_BUFFERS + " receive buffers) with window updates as frames; virtual time, seed "
            + seed);
        boolean modelPrinted = false;
        double[] largest = new double[nodeCounts.length];
        int[] largestWords = new int[nodeCounts.length];
        int pIndex = 0;
        for (int p : nodeCounts) {
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
                    double share = 100.0 * 4 * w / (RingMessages.frameLength(w) + FIBRE_OVERHEAD_BYTES);
                    double[] paper = PaperTables.row(PaperTables.TABLE_2_THROUGHPUT_MBPS, p, w);
                    out.printf(Locale.ROOT, "%3d %6d %8d %12.2f %13.1f%% | %s%n", p, w,
                        RingLatency.frameBytesWithFcs(w), mbps, share,
                        paper == null ? "-" : String.format(Locale.ROOT, "%6.2f %6.2f ; %6.2f %6.2f", paper[2],
                            paper[3], paper[4], paper[5]));
                    points.point("table2", "P=" + p, w, mbps, paper == null ? Double.NaN : paper[3]);
                    if (w >= largestWords[pIndex]) {
                        largestWords[pIndex] = w;
                        largest[pIndex] = mbps;
                    }
                }
            }
            pIndex++;
        }
        out.println("(payload share = payload / (LEN + 15 bytes on the fibre): the wire's own ceiling for one frame)");
        out.println();
        CheckLog checks = new CheckLog(out::println);
        for (int k = 0; k < nodeCounts.length; k++) {
            int p = nodeCounts[k];
            int w = largestWords[k];
            double ceiling = modelBitsPerSecond / 1e6 * 4 * w / (RingMessages.frameLength(w) + FIBRE_OVERHEAD_BYTES);
            checks.check(CheckKind.MODEL_SELF_CHECK, String.format(Locale.ROOT, "P=%d: %d-word frames carry %.2f Mb/s"
                + " of payload, within [%.0f%%, 100%%] of the wire's ceiling for that frame, %.2f Mb/s (%.0f Mb/s x"
                + " payload / (LEN + 15 B)): the ring model keeps its fibre busy", p, w, largest[k],
                CEILING_SHARE * 100, ceiling, modelBitsPerSecond / 1e6),
                largest[k] >= CEILING_SHARE * ceiling && largest[k] <= ceiling * 1.000001);
            double[] paper = PaperTables.row(PaperTables.TABLE_2_THROUGHPUT_MBPS, p, w);
            if (paper != null) {
                checks.comparison(String.format(Locale.ROOT, "P=%d, %d words: paper Table 2 (care, no processing) %.2f"
                    + " Mb/s vs ours %.2f Mb/s (%+.1f%%): the paper's includes host software, which this run does not"
                    + " simulate", p, w, paper[3], largest[k], 100 * (largest[k] / paper[3] - 1)));
            }
        }
        return checks.finish(false);
    }
}
