package io.nicbridge.bench.pupa;

import io.nicbridge.bench.calibrate.CalibrateCommand;
import io.nicbridge.bench.jmh.JmhLock;
import io.nicbridge.bench.jmh.JmhRuns;
import io.nicbridge.bench.jmh.PupaBench;
import io.nicbridge.bench.verdict.PaperPoints;
import io.nicbridge.protocols.pupa.PupaOperations;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.RunnerException;

/**
 * Pupa's host work per operation and per message, measured with JMH ({@link PupaBench}) in a forked JVM: each
 * operation the core charges priced as {@code nic calibrate} prices it, and each path (one message sent, one received,
 * on the primary-FIFO, secondary and card-buffer paths) beside the paper's Table 2 software on the same path:
 * protocol processing + data copy + buffer and header management, at the path's message size (figure
 * {@code "table2-software"}, us per message; the paper's P90 in 1996 against this CPU, so compared by shape).
 */
public final class PupaOperationsTable {
    /** The paths, each with the message size it carries. */
    private static final String[] PATHS = {"small", "secondary", "card_buffer"};
    private static final int[] PATH_BYTES = {PupaOperations.SMALL, PupaOperations.SECONDARY, PupaOperations.CARD_BUFFER};

    private PupaOperationsTable() {
    }

    /** {@code --quick}: in this JVM, since forking a JVM for each of the 30 benchmarks is most of a short run. */
    public static final JmhRuns.Settings QUICK = new JmhRuns.Settings(0, 1, 200, 3, 200);

    /**
     * @param quick {@link #QUICK}, else {@link JmhRuns#REGULAR}
     * @return 0 (the table has no check of its own: its rows are judged against the paper by the report)
     * @throws JmhLock.Held when another JMH run holds JMH's lock: nothing measured
     */
    public static int run(PrintStream out, boolean quick, PaperPoints points) throws JmhLock.Held, RunnerException {
        JmhRuns.Settings settings = quick ? QUICK : JmhRuns.REGULAR;
        out.println("Pupa's host operations and paths with JMH (" + PupaBench.class.getSimpleName() + ", "
                + settings.describe() + ")");
        Map<String, Double> ns = new HashMap<>();
        for (RunResult r : JmhRuns.run(PupaBench.class.getName() + "\\.", settings)) {
            String full = r.getParams().getBenchmark();
            ns.put(full.substring(full.lastIndexOf('.') + 1), r.getPrimaryResult().getScore());
        }
        Map<String, Long> ps = new TreeMap<>();
        CalibrateCommand.pupaOperations(ns, ps, new HashMap<>(), "");
        out.println("operation (as nic calibrate prices it: its benchmark less the baseline)   ns/call");
        for (String op : PupaOperations.ALL) {
            out.printf(Locale.ROOT, "  %-42s %10.2f%n", op, ps.get(op) / 1e3);
        }
        out.println();
        out.println("path, per message (send + receive, each less the baseline)   ours us   paper Table 2 us (rows 1+4+5)");
        double baseline = ns.get("baseline");
        for (int i = 0; i < PATHS.length; i++) {
            double send = score(ns, "path_send_" + PATHS[i]) - baseline;
            double receive = score(ns, "path_receive_" + PATHS[i]) - baseline;
            double ours = (send + receive) / 1e3;
            double paper = PupaPaper.softwareMicros(PATH_BYTES[i]);
            out.printf(Locale.ROOT, "  %-12s %5d B: send %8.1f ns + receive %8.1f ns = %8.3f us   %6.1f%n", PATHS[i],
                    PATH_BYTES[i], send, receive, ours, paper);
            points.point("table2-software", "send + receive per message", PATH_BYTES[i], ours, paper);
        }
        out.printf(Locale.ROOT, "  ack frame %.1f ns, nack frame %.1f ns (less the baseline)%n",
                score(ns, "path_ack") - baseline, score(ns, "path_nack") - baseline);
        return 0;
    }

    private static double score(Map<String, Double> ns, String bench) {
        Double v = ns.get(bench);
        if (v == null) {
            throw new IllegalStateException("JMH returned no PupaBench." + bench + "; got " + ns.keySet());
        }
        return v;
    }
}
