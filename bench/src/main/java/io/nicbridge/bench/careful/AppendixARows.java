package io.nicbridge.bench.careful;

import io.nicbridge.bench.medusa.PaperTables;
import io.nicbridge.bench.verdict.PaperPoints;
import io.nicbridge.bridge.cost.CostTable;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;

/**
 * TR 94-14 Appendix A beside ours: each extra operation's price in a cost table measured by {@code nic calibrate}
 * (JMH over the cores' own code, {@link io.nicbridge.bench.jmh.AppendixABench}) against the paper's cycles at 20 ns,
 * and each protocol's total. The paper's are a 50 MHz PA-RISC's in 1994; ours this machine's, so the values differ by
 * the era and only their order is compared: figure {@code "appendix-a"} (series {@code traditional} and
 * {@code careful}, x the operation's place in the paper's list) and {@code "appendix-a-totals"} (x 1: traditional,
 * 2: careful).
 */
public final class AppendixARows {
    private AppendixARows() {
    }

    /** Prints the table and hands its points; every operation of the paper's list must be priced in {@code table}. */
    public static void print(PrintStream out, CostTable table, PaperPoints points) {
        out.println();
        out.println("TR 94-14 Appendix A beside the operations just measured (ns per call; paper: cycles x "
                + (int) PaperTables.APPENDIX_A_NS_PER_CYCLE + " ns)");
        out.printf(Locale.ROOT, "%-3s %-38s %10s %10s%n", "#", "operation", "ours ns", "paper ns");
        double trad = series(out, table, "traditional", PaperTables.APPENDIX_A_TRADITIONAL_CYCLES, points);
        double care = series(out, table, "careful", PaperTables.APPENDIX_A_CAREFUL_CYCLES, points);
        double paperTrad = total(PaperTables.APPENDIX_A_TRADITIONAL_CYCLES);
        double paperCare = total(PaperTables.APPENDIX_A_CAREFUL_CYCLES);
        out.printf(Locale.ROOT, "total extra work per round: traditional %.1f ns (paper %.0f ns), careful %.1f ns"
                + " (paper %.0f ns); traditional - careful: %.1f ns (paper %.0f ns, against the 27 us it measured"
                + " between the two protocols' latencies)%n", trad, paperTrad, care, paperCare, trad - care,
                paperTrad - paperCare);
        points.point("appendix-a-totals", "extra operations per protocol", 1, trad, paperTrad);
        points.point("appendix-a-totals", "extra operations per protocol", 2, care, paperCare);
    }

    private static double series(PrintStream out, CostTable table, String protocol, Map<String, Integer> paper,
                                 PaperPoints points) {
        double sum = 0;
        int place = 1;
        for (Map.Entry<String, Integer> e : paper.entrySet()) {
            String op = protocol + "." + e.getKey();
            if (!table.operations().containsKey(op)) {
                throw new IllegalStateException("the measured table prices no " + op + "; it has "
                        + table.operations().keySet());
            }
            double ours = table.operationPicos(op) / 1e3;
            double theirs = e.getValue() * PaperTables.APPENDIX_A_NS_PER_CYCLE;
            out.printf(Locale.ROOT, "%-3d %-38s %10.2f %10.0f%n", place, op, ours, theirs);
            points.point("appendix-a", protocol, place++, ours, theirs);
            sum += ours;
        }
        return sum;
    }

    private static double total(Map<String, Integer> cycles) {
        return cycles.values().stream().mapToInt(Integer::intValue).sum() * PaperTables.APPENDIX_A_NS_PER_CYCLE;
    }
}
