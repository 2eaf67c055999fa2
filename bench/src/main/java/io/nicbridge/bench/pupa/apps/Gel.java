package io.nicbridge.bench.pupa.apps;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * GEL, the Gaussian elimination of the paper's Table 3: solves {@code A x = b} for a dense, diagonally dominant
 * {@code n x n} system (so no pivot search is needed), rows dealt out cyclically (row i on node i mod P). Step k of
 * the elimination: the owner of row k multicasts the pivot row ({@code a[k][k..n-1]} and {@code b[k]}, n - k + 1
 * doubles) and every node eliminates column k from its rows below k. Back substitution, k = n-1 .. 0: the owner of row
 * k computes {@code x[k]} and multicasts it (8 bytes). The pivot rows shrink from the card-buffer size through the
 * secondary-pool size to the FIFO's, the mix of the paper's rows 12-14. {@link #serial} does the same arithmetic in
 * the same order, so the solution must be equal bit for bit.
 */
final class Gel extends StepProgram {
    static final int K_PIVOT = 2;
    static final int K_X = 3;
    /** Bytes one multiply-subtract touches: two doubles read, one written. */
    static final int BYTES_PER_UPDATE = 24;

    private final int n;
    private final double[][] a;
    private final double[] b;
    /** Per node: its copy of the matrix rows it owns (others unused), the pivot rows and x as they arrive. */
    private final double[][][] rowsOf;
    private final double[][] bOf;
    private final double[][][] pivot;
    private final boolean[][] pivotIn;
    private final double[][] x;
    private final boolean[][] xIn;
    private final double[][] pivotRow;

    Gel(int nodes, int n, long seed) {
        super(nodes);
        if (n < nodes) {
            throw new IllegalArgumentException("matrix size n must be >= the nodes (" + nodes + "), was " + n);
        }
        this.n = n;
        a = new double[n][n];
        b = new double[n];
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < n; i++) {
            double sum = 0;
            for (int j = 0; j < n; j++) {
                a[i][j] = r.nextDouble(-1, 1);
                sum += Math.abs(a[i][j]);
            }
            a[i][i] = sum + 1; // strictly diagonally dominant: elimination without pivoting is stable
            b[i] = r.nextDouble(-10, 10);
        }
        rowsOf = new double[nodes][n][];
        bOf = new double[nodes][n];
        pivot = new double[nodes][n][];
        pivotIn = new boolean[nodes][n];
        x = new double[nodes][n];
        xIn = new boolean[nodes][n];
        pivotRow = new double[nodes][n];
        for (int i = 0; i < n; i++) {
            int p = i % nodes;
            rowsOf[p][i] = a[i].clone();
            bOf[p][i] = b[i];
        }
    }

    @Override
    String name() {
        return "GEL";
    }

    int size() {
        return n;
    }

    @Override
    String computeRule() {
        return "GEL: each multiply-subtract (2 doubles read, 1 written) charged as COPY x " + BYTES_PER_UPDATE
                + " bytes";
    }

    /** The one-node program: the same elimination and back substitution. @return x */
    static double[] serial(double[][] a0, double[] b0) {
        int n = b0.length;
        double[][] m = new double[n][];
        for (int i = 0; i < n; i++) {
            m[i] = a0[i].clone();
        }
        double[] v = b0.clone();
        for (int k = 0; k < n; k++) {
            for (int i = k + 1; i < n; i++) {
                eliminate(m[i], v, i, m[k], v[k], k, n);
            }
        }
        double[] out = new double[n];
        for (int k = n - 1; k >= 0; k--) {
            out[k] = backSubstitute(m[k], v[k], out, k, n);
        }
        return out;
    }

    /** Row i -= (row i [k] / pivot [k]) x pivot row, from column k + 1; and b[i] likewise. */
    private static void eliminate(double[] row, double[] rhs, int i, double[] pivotRow, double pivotB, int k, int n) {
        double l = row[k] / pivotRow[k];
        for (int j = k + 1; j < n; j++) {
            row[j] -= l * pivotRow[j];
        }
        rhs[i] -= l * pivotB;
    }

    private static double backSubstitute(double[] row, double bk, double[] xs, int k, int n) {
        double s = bk;
        for (int j = k + 1; j < n; j++) {
            s -= row[j] * xs[j];
        }
        return s / row[k];
    }

    private int owner(int row) {
        return row % nodes;
    }

    @Override
    boolean finished(int p, int s) {
        return s >= 2 * n;
    }

    @Override
    void prepare(int p, int s) {
        if (s < n) {
            int k = s;
            if (owner(k) == p) { // the pivot row as it goes on the wire: a[k][k..n-1], then b[k]
                double[] msg = new double[n - k + 1];
                System.arraycopy(rowsOf[p][k], k, msg, 0, n - k);
                msg[n - k] = bOf[p][k];
                pivot[p][k] = msg;
                pivotIn[p][k] = true;
            }
        } else {
            int k = 2 * n - 1 - s;
            if (owner(k) == p) {
                x[p][k] = backSubstitute(rowsOf[p][k], bOf[p][k], x[p], k, n);
                xIn[p][k] = true;
                charge(p, 16L * (n - 1 - k));
            }
        }
    }

    @Override
    int sends(int p, int s) {
        int k = s < n ? s : 2 * n - 1 - s;
        return owner(k) == p ? 1 : 0;
    }

    @Override
    int send(int p, int s, int i) {
        if (s < n) {
            return multicastDoubles(p, everyoneBut(p), pivot[p][s], 0, n - s + 1, K_PIVOT, s);
        }
        int k = 2 * n - 1 - s;
        return multicastDoubles(p, everyoneBut(p), x[p], k, 1, K_X, k);
    }

    @Override
    boolean ready(int p, int s) {
        return s < n ? pivotIn[p][s] : xIn[p][2 * n - 1 - s];
    }

    @Override
    void compute(int p, int s) {
        if (s >= n) {
            return;
        }
        int k = s;
        double[] piv = pivot[p][k];
        // the pivot row in row form (eliminate() reads pivotRow[k..n-1]): the message holds column j at j - k
        double[] row = pivotRow[p];
        System.arraycopy(piv, 0, row, k, n - k);
        long updates = 0;
        for (int i = k + 1; i < n; i++) {
            if (owner(i) == p) {
                eliminate(rowsOf[p][i], bOf[p], i, row, piv[n - k], k, n);
                updates += n - k;
            }
        }
        charge(p, BYTES_PER_UPDATE * updates);
    }

    @Override
    void received(int p, int src, int kind, int step, MemorySegment data, long offset, int length) {
        if (kind == K_PIVOT && step < n && src == owner(step) && length == (n - step + 1) * 8) {
            double[] msg = new double[n - step + 1];
            MemorySegment.copy(data, ValueLayout.JAVA_DOUBLE_UNALIGNED, offset, msg, 0, msg.length);
            pivot[p][step] = msg;
            pivotIn[p][step] = true;
        } else if (kind == K_X && step < n && src == owner(step) && length == 8) {
            x[p][step] = data.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset);
            xIn[p][step] = true;
        } else {
            fail("GEL node " + p + ": unexpected message kind " + kind + " step " + step + " of " + length
                    + " bytes from " + src);
        }
    }

    @Override
    boolean matchesSerial() {
        double[] reference = serial(a, b);
        for (int p = 0; p < nodes; p++) {
            if (!Answers.sameBits(x[p], reference)) {
                return false;
            }
        }
        return true;
    }

    @Override
    String comparison() {
        return n + "x" + n + " system: every node's x equals the one-node elimination's bit for bit (same operations,"
                + " same order)";
    }
}
