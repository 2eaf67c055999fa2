package io.nicbridge.bench.medusa;

/**
 * Published figures of Mosberger, Turner and Peterson, "Exploiting Highly Reliable Networks with Careful
 * Protocols" (TR 94-14), quoted as data so that our simulated figures can be printed beside them. Nothing here
 * feeds the simulation.
 */
final class PaperTables {
    /** Table 1 rows: P, payload words, latency us: no processing trad, care; with processing trad, care. */
    static final double[][] TABLE_1_LATENCY_US = {
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
    static final double[][] TABLE_2_THROUGHPUT_MBPS = {
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

    private PaperTables() {
    }

    /** @return the row for (p, words), or null when the paper has none */
    static double[] row(double[][] table, int p, int words) {
        for (double[] r : table) {
            if ((int) r[0] == p && (int) r[1] == words) {
                return r;
            }
        }
        return null;
    }
}
