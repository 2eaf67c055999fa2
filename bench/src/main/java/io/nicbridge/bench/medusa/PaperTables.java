package io.nicbridge.bench.medusa;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Published figures of Mosberger, Turner and Peterson, "Exploiting Highly Reliable Networks with Careful
 * Protocols" (TR 94-14), quoted as data so that our simulated figures can be printed beside them. Nothing here
 * feeds the simulation.
 */
public final class PaperTables {
    /** Table 1 rows: P, payload words, latency us: no processing trad, care; with processing trad, care. */
    public static final double[][] TABLE_1_LATENCY_US = {
        {2, 1, 112.5, 84.9, 113.1, 85.6},
        {2, 1000, 431.7, 404.1, 1094.6, 1067.8},
        {2, 2000, 751.6, 724.2, 2081.1, 2053.6},
        {4, 1, 110.1, 86.2, 110.9, 87.1},
        {4, 1000, 549.7, 406.2, 1192.3, 1070.3},
        {4, 2000, 979.5, 726.5, 2264.3, 2058.1},
        {8, 1, 117.8, 95.6, 118.7, 96.6},
        {8, 1000, 551.9, 414.7, 1196.2, 1081.6},
        {8, 2000, 981.7, 735.6, 2265.6, 2065.7},
    };

    /** Table 2 rows: P, payload words, throughput Mb/s: no processing trad, care; with processing trad, care. */
    public static final double[][] TABLE_2_THROUGHPUT_MBPS = {
        {2, 1, 0.26, 0.33, 0.26, 0.32},
        {2, 200, 49.8, 65.4, 24.8, 25.1},
        {2, 1000, 95.3, 95.5, 40.0, 40.6},
        {2, 2000, 97.6, 97.7, 43.6, 44.0},
        {4, 1, 0.53, 0.68, 0.53, 0.67},
        {4, 200, 70.6, 85.6, 50.4, 62.6},
        {4, 1000, 94.8, 96.9, 85.5, 91.4},
        {4, 2000, 97.5, 98.4, 95.1, 95.1},
        {8, 1, 0.67, 0.78, 0.67, 0.77},
        {8, 200, 76.7, 84.4, 59.3, 68.2},
        {8, 1000, 96.1, 96.6, 92.9, 95.2},
        {8, 2000, 98.2, 98.3, 96.5, 97.3},
    };

    /**
     * Table 3 rows: P, payload words, n, k, time ms: no processing trad, care; with processing trad, care. NaN where
     * the paper has "n/a" (the traditional protocol livelocked; one careful run lost a frame).
     */
    public static final double[][] TABLE_3_FLOODING_MS = {
        {2, 1, 10, 16, 2.1, 2.2, 2.1, 2.3},
        {2, 1000, 10, 16, 10.5, 11.7, 15.9, 14.2},
        {2, 2000, 10, 16, 20.7, 23.0, 30.4, 27.7},
        {4, 1, 10, 8, 42.9, 2.5, Double.NaN, 2.5},
        {4, 1000, 10, 8, Double.NaN, 10.5, Double.NaN, 15.6},
        {4, 2000, 10, 8, Double.NaN, 20.8, Double.NaN, 29.2},
        {8, 1, 10, 4, Double.NaN, 3.5, Double.NaN, 3.5},
        {8, 1000, 10, 4, Double.NaN, 10.8, Double.NaN, 18.4},
        {8, 2000, 10, 4, Double.NaN, 21.0, Double.NaN, Double.NaN},
    };

    /**
     * Table 4 rows: P, then per grid 8, 16, 32, 64 the time in s: trad, care (P = 1: the single-node run, the same
     * figure in both columns).
     */
    public static final double[][] TABLE_4_JACOBI_S = {
        {1, 0.19, 0.19, 0.38, 0.38, 1.18, 1.18, 4.37, 4.37},
        {2, 0.42, 0.28, 0.50, 0.36, 0.81, 0.76, 2.40, 2.39},
        {4, 0.48, 0.35, 0.53, 0.40, 0.71, 0.58, 1.53, 1.44},
        {8, 0.57, 0.42, 0.63, 0.47, 0.61, 0.60, 1.25, 1.12},
    };

    /** Table 4's grid sizes, in its column order. */
    public static final int[] TABLE_4_GRIDS = {8, 16, 32, 64};

    /**
     * Section 6.1, after Table 2: with one on-board buffer, two nodes and 2000-word messages, the time per message
     * was 1.15 ms (traditional) and 0.72 ms (careful).
     */
    public static final double ONE_BUFFER_TRAD_MS = 1.15;
    public static final double ONE_BUFFER_CARE_MS = 0.72;

    /** Appendix A: "Execution times are reported in number of cycles (20 ns/cycle)". */
    public static final double APPENDIX_A_NS_PER_CYCLE = 20;

    /**
     * Appendix A, the traditional protocol's extra operations (1418 cycles in all) in the paper's order, send (318)
     * then interrupt (1100), by the names the cost table prices them under ({@code traditional.<name>}): cycles each.
     * Collect TX buffers and the careful protocol's window operations are the paper's in-kernel figures (its
     * histograms' less the 169-cycle user-level mutex, as its text subtracts).
     */
    public static final Map<String, Integer> APPENDIX_A_TRADITIONAL_CYCLES = ordered(
            "decide-ack-flag", 7, "fill-fragment-descriptor", 109, "set-ack-mask", 24, "get-tx-event-slot", 32,
            "push-fragment-descriptor", 58, "collect-tx-buffers", 62, "check-bitset", 26,
            "maintain-buffer-counter", 14, "fragment-priority", 69, "check-copy-out", 32, "implicit-ack", 779,
            "check-fragment-number", 66, "check-explicit-ack", 6, "check-retransmission", 36, "check-all-to-all", 9,
            "check-complete", 89);

    /** Appendix A, the careful protocol's extra operations (151 cycles in all): send (42), interrupt (109). */
    public static final Map<String, Integer> APPENDIX_A_CAREFUL_CYCLES = ordered(
            "shrink-window", 21, "fill-in-window-update", 21, "process-window-update", 52, "track-last-event", 24,
            "decrement-sender-window", 29, "skip-copy-out", 4);

    private static Map<String, Integer> ordered(Object... nameCycles) {
        Map<String, Integer> m = new LinkedHashMap<>();
        for (int i = 0; i < nameCycles.length; i += 2) {
            m.put((String) nameCycles[i], (Integer) nameCycles[i + 1]);
        }
        return Collections.unmodifiableMap(m);
    }

    /** @return Table 4's {trad, care} seconds for (p, grid), or null when the paper has none */
    public static double[] jacobi(int p, int grid) {
        for (double[] r : TABLE_4_JACOBI_S) {
            if ((int) r[0] == p) {
                for (int g = 0; g < TABLE_4_GRIDS.length; g++) {
                    if (TABLE_4_GRIDS[g] == grid) {
                        return new double[] {r[1 + 2 * g], r[2 + 2 * g]};
                    }
                }
            }
        }
        return null;
    }

    private PaperTables() {
    }

    /** @return the row for (p, words), or null when the paper has none */
    public static double[] row(double[][] table, int p, int words) {
        for (double[] r : table) {
            if ((int) r[0] == p && (int) r[1] == words) {
                return r;
            }
        }
        return null;
    }
}
