package io.nicbridge.bench.pupa.apps;

import io.nicbridge.protocols.core.MessageChannel;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * LES, the Laplace equation solver of the paper's Table 3: Jacobi iteration on an {@code n x n} grid with fixed edge
 * temperatures, the rows split evenly over the nodes. Every iteration a node sends its first row to the node above
 * and its last row to the node below, receives their boundary rows, sweeps its rows, and takes part in a global
 * reduction of the largest change (node 0 gathers the partial maxima and multicasts the maximum); the solver stops
 * when that falls below {@code tolerance} or after {@code maxIterations}. {@link #serial} is the one-node program:
 * the same expression for every point in the same order and the same stopping rule, so the grids must be equal bit
 * for bit.
 */
final class Les extends StepProgram {
    static final int K_ROW = 1;
    static final int PHASES = 3;
    /** Bytes one point update touches: four doubles read, one written. */
    static final int BYTES_PER_POINT = 40;

    private final int n;
    private final int rows;
    private final int maxIterations;
    private final double tolerance;
    private final double[][] cur;
    private final double[][] nxt;
    /** Per node, parity and side (0 above, 1 below): the ghost row and the iteration it belongs to. */
    private final double[][][][] ghost;
    private final int[][][] ghostIteration;
    private final double[] change;
    private final boolean[] stopped;
    private final int[] iterations;

    Les(int nodes, int n, int maxIterations, double tolerance) {
        super(nodes);
        if (n < 3 * nodes || n % nodes != 0) {
            throw new IllegalArgumentException("grid size n must be a multiple of the nodes (" + nodes + ") and >= "
                    + 3 * nodes + ", was " + n);
        }
        if (maxIterations < 1) {
            throw new IllegalArgumentException("iterations must be >= 1, was " + maxIterations);
        }
        this.n = n;
        this.rows = n / nodes;
        this.maxIterations = maxIterations;
        this.tolerance = tolerance;
        cur = new double[nodes][];
        nxt = new double[nodes][];
        ghost = new double[nodes][2][2][n];
        ghostIteration = new int[nodes][2][2];
        for (int p = 0; p < nodes; p++) {
            cur[p] = initial(n);
            nxt[p] = initial(n);
            for (int[] g : ghostIteration[p]) {
                Arrays.fill(g, -1);
            }
        }
        change = new double[nodes];
        stopped = new boolean[nodes];
        iterations = new int[nodes];
    }

    @Override
    String name() {
        return "LES";
    }

    int size() {
        return n;
    }

    int maxIterations() {
        return maxIterations;
    }

    @Override
    String computeRule() {
        return "LES: each grid-point update (4 doubles read, 1 written) charged as COPY x " + BYTES_PER_POINT
                + " bytes";
    }

    static double[] initial(int n) {
        double[] g = new double[n * n];
        for (int j = 0; j < n; j++) {
            g[j] = 100.0;
            g[(n - 1) * n + j] = 25.0;
        }
        for (int i = 1; i < n - 1; i++) {
            g[i * n] = 50.0;
            g[i * n + n - 1] = 75.0;
        }
        return g;
    }

    /** Sweeps inner rows {@code [lo, hi)} from {@code from} into {@code to}. @return the largest change */
    static double sweep(double[] from, double[] to, int n, int lo, int hi) {
        double max = 0;
        for (int i = Math.max(1, lo); i < Math.min(n - 1, hi); i++) {
            for (int j = 1; j < n - 1; j++) {
                double v = (from[(i - 1) * n + j] + from[(i + 1) * n + j] + from[i * n + j - 1]
                        + from[i * n + j + 1]) * 0.25;
                to[i * n + j] = v;
                max = Math.max(max, Math.abs(v - from[i * n + j]));
            }
        }
        return max;
    }

    static long points(int n, int lo, int hi) {
        return (long) Math.max(0, Math.min(n - 1, hi) - Math.max(1, lo)) * (n - 2);
    }

    /** The one-node program. @return the final grid, and in {@code iterationsOut[0]} the iterations it took */
    static double[] serial(int n, int maxIterations, double tolerance, int[] iterationsOut) {
        double[] a = initial(n);
        double[] b = initial(n);
        int it = 0;
        while (it < maxIterations) {
            double max = sweep(a, b, n, 0, n);
            double[] t = a;
            a = b;
            b = t;
            it++;
            if (max < tolerance) {
                break;
            }
        }
        iterationsOut[0] = it;
        return a;
    }

    @Override
    boolean finished(int p, int s) {
        return stopped[p];
    }

    @Override
    int sends(int p, int s) {
        int phase = s % PHASES;
        if (phase == 0) {
            return 2;
        }
        return phase == 1 ? (p == 0 ? 0 : 1) : (p == 0 ? 1 : 0);
    }

    @Override
    int send(int p, int s, int i) {
        int it = s / PHASES;
        return switch (s % PHASES) {
            case 0 -> {
                int dst = i == 0 ? p - 1 : p + 1;
                if (dst < 0 || dst >= nodes) {
                    yield MessageChannel.OK;
                }
                int row = i == 0 ? p * rows : p * rows + rows - 1;
                yield sendDoubles(p, dst, cur[p], row * n, n, K_ROW, it);
            }
            case 1 -> reduceStep(p, it, change[p]);
            default -> resultStep(it, change[0]);
        };
    }

    @Override
    boolean ready(int p, int s) {
        int it = s / PHASES;
        return switch (s % PHASES) {
            case 0 -> (p == 0 || ghostIteration[p][it & 1][0] == it)
                    && (p == nodes - 1 || ghostIteration[p][it & 1][1] == it);
            case 1 -> p != 0 || partialsIn(it);
            default -> p == 0 || resultIn(p, it);
        };
    }

    @Override
    void compute(int p, int s) {
        int it = s / PHASES;
        int lo = p * rows;
        switch (s % PHASES) {
            case 0 -> {
                if (p > 0) {
                    System.arraycopy(ghost[p][it & 1][0], 0, cur[p], (lo - 1) * n, n);
                }
                if (p < nodes - 1) {
                    System.arraycopy(ghost[p][it & 1][1], 0, cur[p], (lo + rows) * n, n);
                }
                change[p] = sweep(cur[p], nxt[p], n, lo, lo + rows);
                charge(p, BYTES_PER_POINT * points(n, lo, lo + rows));
                double[] t = cur[p];
                cur[p] = nxt[p];
                nxt[p] = t;
            }
            case 1 -> {
                if (p == 0) {
                    change[0] = combine(it, change[0], Math::max);
                }
            }
            default -> {
                double max = p == 0 ? change[0] : result(p);
                iterations[p] = it + 1;
                stopped[p] = max < tolerance || it + 1 >= maxIterations;
            }
        }
    }

    @Override
    void received(int p, int src, int kind, int it, MemorySegment data, long offset, int length) {
        int side = src == p - 1 ? 0 : src == p + 1 ? 1 : -1;
        if (kind != K_ROW || side < 0 || length != n * 8) {
            fail("LES node " + p + ": unexpected message kind " + kind + " of " + length + " bytes from " + src);
            return;
        }
        MemorySegment.copy(data, ValueLayout.JAVA_DOUBLE_UNALIGNED, offset, ghost[p][it & 1][side], 0, n);
        ghostIteration[p][it & 1][side] = it;
    }

    /** @return the grid the nodes computed, each row from its owner */
    double[] result() {
        double[] g = new double[n * n];
        for (int p = 0; p < nodes; p++) {
            System.arraycopy(cur[p], p * rows * n, g, p * rows * n, rows * n);
        }
        return g;
    }

    @Override
    boolean matchesSerial() {
        int[] it = new int[1];
        double[] reference = serial(n, maxIterations, tolerance, it);
        for (int p = 0; p < nodes; p++) {
            if (iterations[p] != it[0]) {
                return false;
            }
        }
        return Answers.sameBits(result(), reference);
    }

    @Override
    String comparison() {
        return n + "x" + n + " grid after " + iterations[0] + " iterations equals the one-node solver's bit for bit"
                + " (same expression, same order, same stopping rule)";
    }
}
