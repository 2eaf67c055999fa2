package io.nicbridge.bench.unet;

import io.nicbridge.bench.jmh.ActiveMessagesBench;
import io.nicbridge.bench.jmh.JmhLock;
import io.nicbridge.bench.jmh.JmhRuns;
import io.nicbridge.bench.verdict.PaperPoints;
import java.io.PrintStream;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.RunnerException;

/**
 * U-Net Active Messages' host work per operation, measured with JMH ({@link ActiveMessagesBench}) in a forked JVM:
 * a request and its reply, a request the layer acknowledges, a 64-byte block store, each the whole exchange through
 * two AM cores on an in-memory medium. The paper gives one figure of the kind (sec. 5.2): the UAM layer adds about
 * 6 us (71 - 65 us) to a single-cell round trip on a 60 MHz SPARCstation 20, request, reply and handlers included;
 * the request + reply row goes beside it (figure {@code "uam-overhead"}, us per round trip).
 */
public final class AmOperationsTable {
    private AmOperationsTable() {
    }

    /**
     * {@code --quick}: in this JVM, and 2 warm-ups of 1 s: with 200 ms ones the world's many classes are still
     * unwarmed (about 100x the warmed figure on a loaded machine).
     */
    public static final JmhRuns.Settings QUICK = new JmhRuns.Settings(0, 2, 1_000, 3, 500);

    /**
     * @param quick {@link #QUICK} with the zero cost table only; else {@link JmhRuns#REGULAR} with both tables (the
     *              measured one's charging the benchmark then pays too)
     * @return 0 (no check of its own: its row is set beside the paper's by the report)
     * @throws JmhLock.Held when another JMH run holds JMH's lock: nothing measured
     */
    public static int run(PrintStream out, boolean quick, PaperPoints points) throws JmhLock.Held, RunnerException {
        JmhRuns.Settings settings = quick ? QUICK : JmhRuns.REGULAR;
        out.println("U-Net Active Messages per operation with JMH (" + ActiveMessagesBench.class.getSimpleName()
                + ", " + settings.describe() + "): ns per exchange, the world run until idle");
        out.printf(Locale.ROOT, "  %-14s %-10s %12s%n", "benchmark", "costs", "ns/op");
        double requestReply = Double.NaN;
        for (RunResult r : JmhRuns.run(ActiveMessagesBench.class.getName() + "\\.", settings,
                quick ? new String[] {"costs=zero"} : new String[0])) {
            String full = r.getParams().getBenchmark();
            String bench = full.substring(full.lastIndexOf('.') + 1);
            String costs = r.getParams().getParam("costs");
            double score = r.getPrimaryResult().getScore();
            out.printf(Locale.ROOT, "  %-14s %-10s %12.1f%n", bench, costs, score);
            if (bench.equals("requestReply") && "zero".equals(costs)) {
                requestReply = score;
            }
        }
        if (Double.isNaN(requestReply)) {
            throw new IllegalStateException("JMH returned no ActiveMessagesBench.requestReply with the zero table");
        }
        double paper = UamReport.PAPER_AM_RTT_US - UnetPaper.SINGLE_CELL_RTT_US;
        out.printf(Locale.ROOT, "request + reply, both AM layers' work per round trip: ours %.3f us, paper sec. 5.2"
                + " %.0f us (UAM %.0f us - raw U-Net %.0f us single-cell round trip)%n", requestReply / 1e3, paper,
                UamReport.PAPER_AM_RTT_US, UnetPaper.SINGLE_CELL_RTT_US);
        points.point("uam-overhead", "request + reply", 16, requestReply / 1e3, paper);
        return 0;
    }
}
