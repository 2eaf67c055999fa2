package io.nicbridge.bench.careful;

import io.nicbridge.bench.careful.CStarRing.Protocol;
import io.nicbridge.bench.medusa.PaperTables;
import io.nicbridge.bench.verdict.CheckKind;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bench.verdict.PaperPoints;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.cstar.Flooding;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The four experiments of TR 94-14 section 6.1 (latency, throughput, flooding, Jacobi) with both C* protocols on rings
 * of exactly P emulated Medusas in virtual time ({@link CStarRing}), each printed beside the paper's table, without
 * and with the payload processing ({@link Processing}), under a named cost table.
 *
 * <p>Checks: a <b>model self-check</b> holds by construction of the model (the wire's 80 ns per byte is a lower bound
 * of the latency slope, the ring carries at most 100 Mb/s); an <b>integrity check</b> that every run delivered what was
 * sent (and the multi-node Jacobi answer equals the single-node one, bit for bit). The paper's <b>shape</b> (careful
 * faster at one word, ...) is an <b>anchor check</b> only when the cost table prices host work: the paper's figures
 * are mostly host software, so under the {@code zero} table (wire time only) the same relations are printed as
 * comparisons, not checks. The flooding verdicts (the traditional protocol's livelock, the careful one completing)
 * come from buffers, not host speed, and are anchor checks under every table.
 */
public final class CarefulExperiments {
    /** The paper's ring sizes. */
    public static final int[] NODES = {2, 4, 8};
    static final int[] LATENCY_WORDS = {1, 1000, 2000};
    static final int[] THROUGHPUT_WORDS = {1, 200, 1000, 2000};
    static final int[] JACOBI_GRIDS = {8, 16, 32, 64};
    private static final long LIMIT_NANOS = 10_000_000_000L;

    /** What every experiment takes: the table, the ring sizes, the seed, and whether to run the quick sizes. */
    public record Settings(CostTable costs, int[] nodes, long seed, boolean quick) {
        public Settings {
            for (int p : nodes) {
                if (p < 2 || p > 8) {
                    throw new IllegalArgumentException("--nodes: ring sizes in [2, 8] wanted, got " + p);
                }
            }
        }

        boolean priced() {
            return costs != CostTable.zero();
        }
    }

    private CarefulExperiments() {
    }

    private static void header(PrintStream out, String what, Settings s, String sizes) {
        out.println(what);
        out.println("rings of exactly P emulated Medusa FDDI cards (100 Mb/s timed-token ring), virtual time, seed "
                + s.seed());
        out.println("cost table: " + s.costs().describe().replace("\n", "\n  "));
        out.println(s.quick() ? "--quick: " + sizes + " (reduced; the full run is without --quick)" : "sizes: " + sizes);
        out.println(Processing.RULE);
    }

    /** Prints a relation as an anchor check (priced run) or as a comparison (zero table). */
    private static void shape(CheckLog log, Settings s, String what, boolean holds) {
        if (s.priced()) {
            log.check(CheckKind.ANCHOR_CHECK, what, holds);
        } else {
            log.comparison(what + ": " + (holds ? "holds" : "does not hold") + " (zero table: wire time only, the"
                    + " paper's figures are mostly host software, so not a check)");
        }
    }

    private static String pct(double ours, double base) {
        return Double.isNaN(ours) || Double.isNaN(base) ? "n/a" : String.format(Locale.ROOT, "%+.1f",
                100 * (ours - base) / base);
    }

    private static String num(double v, String format) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, format, v);
    }

    // ---------------------------------------------------------------------------------------------------- latency

    /** One latency point: per-hop latency in us, or NaN when the run failed. */
    static double latency(Settings s, int p, Protocol protocol, int words, boolean processing, int warmup,
                          int rounds, List<String> failures) {
        RingTrip app = new RingTrip(p, 4 * words, warmup + rounds, processing);
        try (CStarRing ring = new CStarRing(p, protocol, s.costs(), s.seed(), CStarRing.DEFAULT_RECEIVE_BUFFERS,
                app)) {
            if (!app.run(ring, LIMIT_NANOS) || ring.violations() != 0) {
                failures.add("latency P=" + p + " " + protocol.column + " " + words + " words: " + (app.wrong() != null
                        ? app.wrong() : "did not complete") + ", violations " + ring.violations());
                return Double.NaN;
            }
            return app.perHopNanos(warmup) / 1000;
        }
    }

    /** {@code nic careful latency}: Table 1 and Figure 1. */
    public static int latency(PrintStream out, Settings s) {
        return latency(out, s, PaperPoints.NONE);
    }

    /**
     * As above, every point also handed to {@code points}: figures {@code "table1"} (no processing) and
     * {@code "table1-processing"}, series {@code "traditional P=n"} / {@code "careful P=n"}, x in words, us per hop.
     */
    public static int latency(PrintStream out, Settings s, PaperPoints points) {
        int warmup = s.quick() ? 1 : 2;
        int rounds = s.quick() ? 3 : 10;
        header(out, "TR 94-14 Table 1 / Figure 1: latency, one message around the ring, time per hop [us]", s,
                "payload 1/1000/2000 words, " + warmup + " warm-up + " + rounds + " measured rounds per point");
        CheckLog log = new CheckLog(out::println);
        List<String> failures = new ArrayList<>();
        Map<Protocol, double[][][]> us = new EnumMap<>(Protocol.class); // [proc][p][words]
        out.println(" P  words | ours no processing     | paper no processing    | ours with processing   |"
                + " paper with processing");
        out.println("          |   trad    care     d%  |   trad    care     d%  |   trad    care     d%  |"
                + "   trad    care     d%");
        for (Protocol pr : Protocol.values()) {
            us.put(pr, new double[2][s.nodes().length][LATENCY_WORDS.length]);
        }
        for (int pi = 0; pi < s.nodes().length; pi++) {
            int p = s.nodes()[pi];
            for (int wi = 0; wi < LATENCY_WORDS.length; wi++) {
                int w = LATENCY_WORDS[wi];
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%2d %6d |", p, w));
                double[] paper = PaperTables.row(PaperTables.TABLE_1_LATENCY_US, p, w);
                for (int proc = 0; proc < 2; proc++) {
                    double t = latency(s, p, Protocol.TRADITIONAL, w, proc == 1, warmup, rounds, failures);
                    double c = latency(s, p, Protocol.CAREFUL, w, proc == 1, warmup, rounds, failures);
                    us.get(Protocol.TRADITIONAL)[proc][pi][wi] = t;
                    us.get(Protocol.CAREFUL)[proc][pi][wi] = c;
                    line.append(String.format(Locale.ROOT, " %7s %7s %6s |", num(t, "%.1f"), num(c, "%.1f"),
                            pct(c, t)));
                    double pt = paper == null ? Double.NaN : paper[2 + 2 * proc];
                    double pc = paper == null ? Double.NaN : paper[3 + 2 * proc];
                    line.append(String.format(Locale.ROOT, " %7s %7s %6s |", num(pt, "%.1f"), num(pc, "%.1f"),
                            pct(pc, pt)));
                    String figure = proc == 1 ? "table1-processing" : "table1";
                    points.point(figure, Protocol.TRADITIONAL.column + " P=" + p, w, t, pt);
                    points.point(figure, Protocol.CAREFUL.column + " P=" + p, w, c, pc);
                }
                line.setLength(line.length() - 2);
                out.println(line);
            }
        }
        log.check(CheckKind.INTEGRITY_CHECK, "every run took every round around the ring, each message whole and"
                + " no frame reported as breaking an assumption" + (failures.isEmpty() ? "" : ": " + failures),
                failures.isEmpty());
        int last = LATENCY_WORDS.length - 1;
        double wireSlope = 80.0; // ns per byte: 100 Mb/s
        for (Protocol pr : Protocol.values()) {
            for (int pi = 0; pi < s.nodes().length; pi++) {
                double[] row = us.get(pr)[0][pi];
                double slope = (row[last] - row[0]) * 1000 / (4.0 * (LATENCY_WORDS[last] - LATENCY_WORDS[0]));
                boolean ok = s.priced() ? slope >= wireSlope * 0.99 : Math.abs(slope - wireSlope) <= wireSlope * 0.01;
                log.check(CheckKind.MODEL_SELF_CHECK, String.format(Locale.ROOT, "%s P=%d latency slope 1..2000"
                        + " words %.2f ns/byte %s the wire's 80 ns/byte (100 Mb/s)%s", pr.column, s.nodes()[pi],
                        slope, s.priced() ? ">=" : "=", s.priced() ? ", host work per byte only adds" : " +-1 %"),
                        ok);
            }
        }
        for (int pi = 0; pi < s.nodes().length; pi++) {
            double t = us.get(Protocol.TRADITIONAL)[0][pi][0];
            double c = us.get(Protocol.CAREFUL)[0][pi][0];
            shape(log, s, String.format(Locale.ROOT, "TR 94-14 Table 1 shape: careful faster than traditional at 1"
                    + " word, P=%d (paper %.1f < %.1f us; ours %.2f < %.2f us)", s.nodes()[pi],
                    PaperTables.row(PaperTables.TABLE_1_LATENCY_US, s.nodes()[pi], 1)[3],
                    PaperTables.row(PaperTables.TABLE_1_LATENCY_US, s.nodes()[pi], 1)[2], c, t), c < t);
        }
        if (s.nodes().length >= 2) {
            int a = 0;
            int b = s.nodes().length - 1;
            int wi = 1; // 1000 words: where the paper's traditional protocol copies more often
            double gt = us.get(Protocol.TRADITIONAL)[0][b][wi] - us.get(Protocol.TRADITIONAL)[0][a][wi];
            double gc = us.get(Protocol.CAREFUL)[0][b][wi] - us.get(Protocol.CAREFUL)[0][a][wi];
            shape(log, s, String.format(Locale.ROOT, "TR 94-14 Table 1 shape: traditional latency grows with P faster"
                    + " than careful, 1000 words, P=%d..%d (paper +120.2 vs +10.6 us for 2..8; ours %+.2f vs %+.2f us)",
                    s.nodes()[a], s.nodes()[b], gt, gc), gt > gc);
        }
        return log.finish(false);
    }

    // ------------------------------------------------------------------------------------------- latency, shim

    /** The ring sizes of the real-time run on the shim. */
    public static final int[] SHIM_NODES = {2, 3, 4};
    /** Payloads that fit one Ethernet frame (the careful core sends one fragment per message; 350 words = 1400 B). */
    static final int[] SHIM_LATENCY_WORDS = {1, 100, 350};
    private static final long SHIM_LIMIT_NANOS = 60_000_000_000L;

    /** One real-time latency point on the shim: the median round's time per hop in us, or NaN when it failed. */
    static double latencyOnShim(Settings s, int p, Protocol protocol, int words, int warmup, int rounds,
                                List<String> failures) {
        String what = "shim latency P=" + p + " " + protocol.column + " " + words + " words: ";
        RingTrip app = new RingTrip(p, 4 * words, warmup + rounds, false);
        ShimRing ring;
        try {
            ring = new ShimRing(p, protocol, s.costs(), app, app);
        } catch (IOException e) {
            failures.add(what + "cannot build the segment: " + e.getMessage());
            return Double.NaN;
        }
        boolean done;
        try (ring) {
            done = app.run(ring, SHIM_LIMIT_NANOS);
        }
        long violations = ring.violations(); // the node threads have stopped
        synchronized (app) {
            if (!done || violations != 0) {
                failures.add(what + (app.wrong() != null ? app.wrong() : done ? "completed" : "did not complete in "
                        + SHIM_LIMIT_NANOS / 1_000_000_000L + " s") + ", violations " + violations);
                return Double.NaN;
            }
            return app.medianPerHopNanos(warmup) / 1000;
        }
    }

    /** @return why {@link #latencyOnShim} cannot run here (root, namespaces, a bridge, the shim), or null */
    public static String missingShimPrerequisite() {
        return ShimRing.missingPrerequisite();
    }

    /**
     * {@code nic careful latency --medium shim}: the latency test of Table 1 with both unchanged C* cores on P
     * native-shim 21140s on a Linux bridge of veth pairs, in real time ({@link ShimRing}): the cores are
     * card-independent. Our figures only, beside each other: the paper's are FDDI and 1994 hosts, not like for like.
     */
    public static int latencyOnShim(PrintStream out, Settings s) {
        int warmup = s.quick() ? 5 : 20;
        int rounds = s.quick() ? 50 : 500;
        out.println("TR 94-14 Table 1 on the native shim: latency, one message around the ring, time per hop [us],"
                + " median round");
        out.println("rings of P native-shim 21140s (threaded cards) on a Linux bridge of veth pairs in one network"
                + " namespace, real time, one thread per node; no processing");
        out.println("cost table: " + s.costs().describe().replace("\n", "\n  ") + " (real time: the CPU pays for"
                + " the work, the table only prices what is counted)");
        out.println((s.quick() ? "--quick: " : "sizes: ") + "payload 1/100/350 words (350 words = 1400 B, one"
                + " Ethernet frame), " + warmup + " warm-up + " + rounds + " measured rounds per point");
        CheckLog log = new CheckLog(out::println);
        List<String> failures = new ArrayList<>();
        // The first rings of a JVM run interpreted and compiling code (per hop several times the later figures):
        // one untimed ring of each core first, its delivery checked like the others.
        for (Protocol pr : Protocol.values()) {
            latencyOnShim(s, s.nodes()[0], pr, SHIM_LATENCY_WORDS[1], 0, 4 * (warmup + rounds), failures);
        }
        out.println("(after one untimed JIT warm-up ring of each core, " + 4 * (warmup + rounds) + " rounds, P="
                + s.nodes()[0] + ")");
        out.println(" P  words |    trad     care      d%");
        double[][][] us = new double[2][s.nodes().length][SHIM_LATENCY_WORDS.length];
        for (int pi = 0; pi < s.nodes().length; pi++) {
            int p = s.nodes()[pi];
            for (int wi = 0; wi < SHIM_LATENCY_WORDS.length; wi++) {
                int w = SHIM_LATENCY_WORDS[wi];
                double t = latencyOnShim(s, p, Protocol.TRADITIONAL, w, warmup, rounds, failures);
                double c = latencyOnShim(s, p, Protocol.CAREFUL, w, warmup, rounds, failures);
                us[0][pi][wi] = t;
                us[1][pi][wi] = c;
                out.println(String.format(Locale.ROOT, "%2d %6d | %7s  %7s  %6s", p, w, num(t, "%.1f"),
                        num(c, "%.1f"), pct(c, t)));
            }
        }
        log.check(CheckKind.INTEGRITY_CHECK, "every run on the shim took every round around the ring, each message"
                + " whole and once, no frame reported as breaking an assumption" + (failures.isEmpty() ? ""
                : ": " + failures), failures.isEmpty());
        for (int pi = 0; pi < s.nodes().length; pi++) {
            log.comparison(String.format(Locale.ROOT, "P=%d, 1 word: careful %s us, traditional %s us per hop (the"
                    + " paper's Medusa ring: careful faster; here the shim's card threads and the kernel's veth"
                    + " dominate, and wall-clock noise on a shared machine is in both)", s.nodes()[pi],
                    num(us[1][pi][0], "%.1f"), num(us[0][pi][0], "%.1f")));
        }
        return log.finish(false);
    }

    // ------------------------------------------------------------------------------------------------- throughput

    /** One throughput run; [0] ring Mb/s, [1] time per message ms; NaN when the run failed. */
    static double[] throughput(Settings s, int p, Protocol protocol, int words, boolean processing, int messages,
                               int receiveBuffers, List<String> failures) {
        Pipeline app = new Pipeline(p, 4 * words, messages, processing);
        try (CStarRing ring = new CStarRing(p, protocol, s.costs(), s.seed(), receiveBuffers, app)) {
            long t0 = ring.time().nanoTime();
            if (!app.run(ring, LIMIT_NANOS) || ring.violations() != 0) {
                failures.add("throughput P=" + p + " " + protocol.column + " " + words + " words: " + (app.wrong()
                        != null ? app.wrong() : "did not complete") + ", violations " + ring.violations());
                return new double[] {Double.NaN, Double.NaN};
            }
            double nanos = ring.runner().workEndNanos() - t0;
            double mbps = (double) messages * 4 * words * 8 * (p - 1) / nanos * 1000;
            return new double[] {mbps, nanos / messages / 1e6};
        }
    }

    /** {@code nic careful throughput}: Table 2 and Figure 2, and the one-on-board-buffer variant. */
    public static int throughput(PrintStream out, Settings s) {
        return throughput(out, s, PaperPoints.NONE);
    }

    /**
     * As above, every point also handed to {@code points}: figures {@code "table2"} (no processing) and
     * {@code "table2-processing"}, series {@code "traditional P=n"} / {@code "careful P=n"}, x in words, ring Mb/s.
     */
    public static int throughput(PrintStream out, Settings s, PaperPoints points) {
        int messages = s.quick() ? 40 : 400;
        header(out, "TR 94-14 Table 2 / Figure 2: throughput node 0 -> P-1 through the intermediates, ring total"
                + " [Mb/s] = payload per sender x (P-1) senders / time", s, "payload 1/200/1000/2000 words, "
                + messages + " messages per point");
        CheckLog log = new CheckLog(out::println);
        List<String> failures = new ArrayList<>();
        double[][][][] mbps = new double[2][2][s.nodes().length][THROUGHPUT_WORDS.length]; // [protocol][proc]
        out.println(" P  words | ours no processing     | paper no processing    | ours with processing   |"
                + " paper with processing");
        out.println("          |   trad    care     d%  |   trad    care     d%  |   trad    care     d%  |"
                + "   trad    care     d%");
        for (int pi = 0; pi < s.nodes().length; pi++) {
            int p = s.nodes()[pi];
            for (int wi = 0; wi < THROUGHPUT_WORDS.length; wi++) {
                int w = THROUGHPUT_WORDS[wi];
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%2d %6d |", p, w));
                double[] paper = PaperTables.row(PaperTables.TABLE_2_THROUGHPUT_MBPS, p, w);
                for (int proc = 0; proc < 2; proc++) {
                    double t = throughput(s, p, Protocol.TRADITIONAL, w, proc == 1, messages,
                            CStarRing.DEFAULT_RECEIVE_BUFFERS, failures)[0];
                    double c = throughput(s, p, Protocol.CAREFUL, w, proc == 1, messages,
                            CStarRing.DEFAULT_RECEIVE_BUFFERS, failures)[0];
                    mbps[0][proc][pi][wi] = t;
                    mbps[1][proc][pi][wi] = c;
                    line.append(String.format(Locale.ROOT, " %7s %7s %6s |", num(t, "%.2f"), num(c, "%.2f"),
                            pct(c, t)));
                    double pt = paper == null ? Double.NaN : paper[2 + 2 * proc];
                    double pc = paper == null ? Double.NaN : paper[3 + 2 * proc];
                    line.append(String.format(Locale.ROOT, " %7s %7s %6s |", num(pt, "%.2f"), num(pc, "%.2f"),
                            pct(pc, pt)));
                    String figure = proc == 1 ? "table2-processing" : "table2";
                    points.point(figure, Protocol.TRADITIONAL.column + " P=" + p, w, t, pt);
                    points.point(figure, Protocol.CAREFUL.column + " P=" + p, w, c, pc);
                }
                line.setLength(line.length() - 2);
                out.println(line);
            }
        }
        // the one-on-board-buffer variant: 127 receive buffers leave the card one transmit buffer
        out.println("one on-board transmit buffer (TR 94-14 6.1 after Table 2), P=2, 2000 words, no processing:"
                + " time per message [ms]");
        double[] t1 = throughput(s, 2, Protocol.TRADITIONAL, 2000, false, messages, 127, failures);
        double[] c1 = throughput(s, 2, Protocol.CAREFUL, 2000, false, messages, 127, failures);
        out.println(String.format(Locale.ROOT, "  ours trad %s care %s (%s)   paper trad %.2f care %.2f (%s)",
                num(t1[1], "%.3f"), num(c1[1], "%.3f"), pct(c1[1], t1[1]), PaperTables.ONE_BUFFER_TRAD_MS,
                PaperTables.ONE_BUFFER_CARE_MS, pct(PaperTables.ONE_BUFFER_CARE_MS, PaperTables.ONE_BUFFER_TRAD_MS)));
        log.check(CheckKind.INTEGRITY_CHECK, "every run delivered every message whole, in order, and no frame was"
                + " reported as breaking an assumption" + (failures.isEmpty() ? "" : ": " + failures),
                failures.isEmpty());
        double max = 0;
        for (double[][][] a : mbps) {
            for (double[][] b : a) {
                for (double[] c : b) {
                    for (double v : c) {
                        max = Double.isNaN(v) ? max : Math.max(max, v);
                    }
                }
            }
        }
        log.check(CheckKind.MODEL_SELF_CHECK, String.format(Locale.ROOT, "no point carries more than the ring's 100"
                + " Mb/s (highest %.2f Mb/s)", max), max <= 100.0);
        int w2000 = THROUGHPUT_WORDS.length - 1;
        for (int pi = 0; pi < s.nodes().length; pi++) {
            for (int pr = 0; pr < 2; pr++) {
                double v = mbps[pr][0][pi][w2000];
                shape(log, s, String.format(Locale.ROOT, "TR 94-14 Table 2: %s P=%d at 2000 words within 5 %% of 100"
                        + " Mb/s (paper 97.5-98.4; ours %.2f)", Protocol.values()[pr].column, s.nodes()[pi], v),
                        v >= 95.0);
            }
            double t = mbps[0][0][pi][1];
            double c = mbps[1][0][pi][1];
            shape(log, s, String.format(Locale.ROOT, "TR 94-14 Table 2 / Figure 2 shape: careful ahead at 200 words,"
                    + " P=%d (ours %.2f vs %.2f Mb/s)", s.nodes()[pi], c, t), c > t);
        }
        shape(log, s, String.format(Locale.ROOT, "TR 94-14 one-buffer variant shape: careful faster per message"
                + " (paper 0.72 < 1.15 ms; ours %s < %s ms)", num(c1[1], "%.3f"), num(t1[1], "%.3f")), c1[1] < t1[1]);
        return log.finish(false);
    }

    // --------------------------------------------------------------------------------------------------- flooding

    /** One flooding run, with the careful protocol's copy-outs. */
    record FloodResult(Flooding.Outcome outcome, long copyOuts, long violations) {
    }

    static FloodResult flood(Settings s, int p, Protocol protocol, int words, int n, int k, int events,
                             boolean processing) {
        Flooding app = new Flooding(p, new Flooding.Params(events, n, k, Math.max(8, 4 * words)));
        try (CStarRing ring = new CStarRing(p, protocol, s.costs(), s.seed(), CStarRing.DEFAULT_RECEIVE_BUFFERS,
                app)) {
            if (processing) {
                HostCpu[] cpus = new HostCpu[p];
                for (int i = 0; i < p; i++) {
                    cpus[i] = ring.cpu(i);
                }
                app.chargeProcessing(cpus);
            }
            // an observation window of two receive timeouts: a livelocked traditional node retransmits once per timeout
            Flooding.Outcome o = app.run(ring.time(), ring.runner(), ring.links(),
                    2 * CStarRing.TRADITIONAL_TIMEOUT_NANOS, 10, LIMIT_NANOS);
            return new FloodResult(o, ring.copyOuts(), ring.violations());
        }
    }

    /** {@code nic careful flooding}: Table 3. */
    public static int flooding(PrintStream out, Settings s) {
        return flooding(out, s, PaperPoints.NONE);
    }

    /**
     * As above, every case also handed to {@code points}: figures {@code "table3"} (no processing) and
     * {@code "table3-processing"}, series {@code "trad P=n"} / {@code "care P=n"}, x in words, ms per event (NaN when
     * the run did not complete: a livelock or deadlock).
     */
    public static int flooding(PrintStream out, Settings s, PaperPoints points) {
        int events = s.quick() ? 20 : 40;
        header(out, "TR 94-14 Table 3: flooding, every node broadcasts events of k fragments and consumes only after"
                + " sending n; time per event [ms] (the run's time over the events: the paper's figures match the"
                + " wire time of one event) (cstar.Flooding, bounded verdict)", s, "payload 1/1000/2000 words (1 word"
                + " is sent as 8 bytes, the program's tag), n x k = 10x16 / 10x8 / 10x4 for P = 2 / 4 / 8, " + events
                + " events per node");
        CheckLog log = new CheckLog(out::println);
        int[] words = {1, 1000, 2000};
        List<String> wrong = new ArrayList<>();
        boolean careCompleted = true;
        boolean tradLivelock = true;
        boolean anyTradBig = false;
        long careCopyOuts = 0;
        StringBuilder notLivelocked = new StringBuilder();
        out.println(" P  words  nxk  | ours no processing          | paper no proc. | ours with processing        |"
                + " paper with proc.");
        for (int p : s.nodes()) {
            int k = p == 2 ? 16 : p == 4 ? 8 : p == 8 ? 4 : Math.max(1, 32 / p);
            int n = 10;
            for (int w : words) {
                double[] paper = null;
                for (double[] r : PaperTables.TABLE_3_FLOODING_MS) {
                    if ((int) r[0] == p && (int) r[1] == w) {
                        paper = r;
                    }
                }
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%2d %6d %2dx%-2d |", p, w, n, k));
                for (int proc = 0; proc < 2; proc++) {
                    FloodResult t = flood(s, p, Protocol.TRADITIONAL, w, n, k, events, proc == 1);
                    FloodResult c = flood(s, p, Protocol.CAREFUL, w, n, k, events, proc == 1);
                    for (FloodResult r : new FloodResult[] {t, c}) {
                        if (r.outcome().verdict() == Flooding.Verdict.WRONG) {
                            wrong.add("P=" + p + " " + w + " words: " + r.outcome().evidence());
                        }
                    }
                    if (c.violations() != 0) {
                        wrong.add("P=" + p + " " + w + " words: careful reported " + c.violations() + " violations");
                    }
                    careCompleted &= c.outcome().verdict() == Flooding.Verdict.COMPLETED;
                    careCopyOuts += c.copyOuts();
                    if (p >= 4) {
                        anyTradBig = true;
                        if (t.outcome().verdict() != Flooding.Verdict.LIVELOCK) {
                            tradLivelock = false;
                            notLivelocked.append(String.format(Locale.ROOT, "%s P=%d %d words%s: %s",
                                    notLivelocked.isEmpty() ? "" : ";", p, w,
                                    proc == 1 ? " with processing" : "", t.outcome().verdict()
                                    == Flooding.Verdict.COMPLETED ? String.format(Locale.ROOT, "completed, %.3f"
                                    + " ms per event, %.1fx the careful protocol's", t.outcome().endNanos() / 1e6
                                    / events, (double) t.outcome().endNanos() / c.outcome().endNanos())
                                    : t.outcome().verdict().name()));
                        }
                    }
                    line.append(String.format(Locale.ROOT, " %-10s %-10s c/o %-4d |", cell(t, events), cell(c, events),
                            c.copyOuts()));
                    double pt = paper == null ? Double.NaN : paper[4 + 2 * proc];
                    double pc = paper == null ? Double.NaN : paper[5 + 2 * proc];
                    line.append(String.format(Locale.ROOT, " %5s %5s   |", num(pt, "%.1f"), num(pc, "%.1f")));
                    String figure = proc == 1 ? "table3-processing" : "table3";
                    points.point(figure, Protocol.TRADITIONAL.column + " P=" + p, w, msPerEvent(t, events), pt);
                    points.point(figure, Protocol.CAREFUL.column + " P=" + p, w, msPerEvent(c, events), pc);
                    if (t.outcome().verdict() != Flooding.Verdict.COMPLETED) {
                        out.println("  trad P=" + p + " " + w + " words" + (proc == 1 ? " with processing" : "") + ": "
                                + t.outcome().verdict() + ": " + t.outcome().evidence());
                    }
                    if (c.outcome().verdict() != Flooding.Verdict.COMPLETED) {
                        out.println("  care P=" + p + " " + w + " words" + (proc == 1 ? " with processing" : "") + ": "
                                + c.outcome().verdict() + ": " + c.outcome().evidence());
                    }
                }
                line.setLength(line.length() - 2);
                out.println(line);
            }
        }
        out.println("(c/o = fragments the careful protocol copied out of on-board buffers to advertise windows)");
        log.check(CheckKind.INTEGRITY_CHECK, "no fragment delivered wrong or twice, no careful violation"
                + (wrong.isEmpty() ? "" : ": " + wrong), wrong.isEmpty());
        log.check(CheckKind.ANCHOR_CHECK, "TR 94-14 Table 3: the careful protocol completes every case", careCompleted);
        if (anyTradBig) {
            log.check(CheckKind.ANCHOR_CHECK, "TR 94-14 Table 3 / 6.1: the traditional protocol livelocks at P >= 4"
                    + " (paper: n/a, 'almost immediately get into a livelock'), reported by the bounded check"
                    + (tradLivelock ? "" : "; not in:" + notLivelocked), tradLivelock);
        }
        out.println("careful copy-outs over all flooding runs: " + careCopyOuts);
        return log.finish(false);
    }

    private static double msPerEvent(FloodResult r, int events) {
        return r.outcome().verdict() == Flooding.Verdict.COMPLETED ? r.outcome().endNanos() / 1e6 / events
                : Double.NaN;
    }

    private static String cell(FloodResult r, int events) {
        return r.outcome().verdict() == Flooding.Verdict.COMPLETED
                ? String.format(Locale.ROOT, "%.3f", r.outcome().endNanos() / 1e6 / events)
                : r.outcome().verdict().name();
    }

    // ----------------------------------------------------------------------------------------------------- jacobi

    /** {@code nic careful jacobi}: Table 4. */
    public static int jacobi(PrintStream out, Settings s) {
        return jacobi(out, s, PaperPoints.NONE);
    }

    /**
     * As above, each point also handed to {@code points}: figure {@code "table4"}, series {@code "one node"} and
     * {@code "trad P=n"} / {@code "care P=n"}, x the grid's side, ours and the paper's in seconds.
     */
    public static int jacobi(PrintStream out, Settings s, PaperPoints points) {
        int iterations = s.quick() ? 5 : 20;
        header(out, "TR 94-14 Table 4: 2-D Jacobi iteration, rows exchanged with the neighbours every iteration;"
                + " time [ms] ours, [s] paper", s, "grids 8x8..64x64, P = 1 and the rings, " + iterations
                + " iterations");
        out.println(Jacobi.RULE);
        CheckLog log = new CheckLog(out::println);
        List<String> mismatches = new ArrayList<>();
        boolean careNoSlower = true;
        StringBuilder worst = new StringBuilder();
        out.println(" P | grid  ours trad    care     d%  paper trad  care ");
        for (int g : JACOBI_GRIDS) {
            double[] reference = Jacobi.serial(g, iterations, HostCpu.on(new VirtualTimeBase(s.seed()), s.costs(),
                    "serial"));
            HostCpu serialCpu = HostCpu.on(new VirtualTimeBase(s.seed()), s.costs(), "serial");
            long t0 = serialCpu.now();
            Jacobi.serial(g, iterations, serialCpu);
            double serialMs = (serialCpu.busyUntil() - t0) / 1e6;
            double[] paper1 = PaperTables.jacobi(1, g);
            out.println(String.format(Locale.ROOT, " 1 | %2dx%-2d %9.3f %9.3f   n/a  %9.2f %5.2f", g, g, serialMs,
                    serialMs, paper1[0], paper1[1]));
            points.point("table4", "one node", g, serialMs / 1e3, paper1[0]);
            for (int p : s.nodes()) {
                if (g % p != 0) {
                    continue;
                }
                double[] ms = new double[2];
                for (Protocol pr : Protocol.values()) {
                    Jacobi app = new Jacobi(g, p, iterations);
                    try (CStarRing ring = new CStarRing(p, pr, s.costs(), s.seed(),
                            CStarRing.DEFAULT_RECEIVE_BUFFERS, app)) {
                        long start = ring.time().nanoTime();
                        boolean ok = app.run(ring, LIMIT_NANOS) && ring.violations() == 0;
                        ms[pr.ordinal()] = ok ? (ring.runner().workEndNanos() - start) / 1e6 : Double.NaN;
                        if (!ok || !Jacobi.same(app.result(), reference)) {
                            mismatches.add(pr.column + " P=" + p + " " + g + "x" + g + (ok ? ": answer differs"
                                    : ": " + (app.wrong() != null ? app.wrong() : "did not complete")));
                        }
                    }
                }
                double[] paper = PaperTables.jacobi(p, g);
                for (Protocol pr : Protocol.values()) {
                    points.point("table4", pr.column + " P=" + p, g, ms[pr.ordinal()] / 1e3,
                            paper == null ? Double.NaN : paper[pr.ordinal()]);
                }
                out.println(String.format(Locale.ROOT, "%2d | %2dx%-2d %9.3f %9.3f %6s %9s %5s", p, g, g, ms[0],
                        ms[1], pct(ms[1], ms[0]), paper == null ? "n/a" : num(paper[0], "%.2f"),
                        paper == null ? "n/a" : num(paper[1], "%.2f")));
                if (!(ms[1] <= ms[0])) {
                    careNoSlower = false;
                    worst.append(String.format(Locale.ROOT, " P=%d %dx%d %.3f > %.3f ms;", p, g, g, ms[1], ms[0]));
                }
            }
        }
        log.check(CheckKind.INTEGRITY_CHECK, "every multi-node answer equals the single-node one bit for bit"
                + (mismatches.isEmpty() ? "" : ": " + mismatches), mismatches.isEmpty());
        shape(log, s, "TR 94-14 Table 4 shape: careful no slower than traditional for every grid and P"
                + (worst.isEmpty() ? "" : " (not:" + worst + ")"), careNoSlower);
        return log.finish(false);
    }
}
