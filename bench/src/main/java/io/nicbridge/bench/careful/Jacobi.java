package io.nicbridge.bench.careful;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.cstar.FragmentHandler;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.RunnerNode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The paper's fourth test (TR 94-14 section 6.1, Table 4): a two-dimensional Jacobi iteration for Laplace's heat
 * equation on an {@code n x n} grid (n a power of two) whose edge points hold fixed temperatures; every iteration
 * sets each inner point to the average of its four neighbours' old values. The rows are split evenly over the P
 * nodes; in iteration i (event i) node p sends its first row to node p - 1 and its last row to node p + 1, receives
 * their boundary rows, and computes its rows. {@link #serial} is the single-node program; both compute each point
 * with the same expression in the same order, so the distributed answer must equal it bit for bit.
 *
 * <p>Computation is charged to the node's CPU by a stated rule: one point update (four doubles read, one written) is
 * priced as {@link CostItem#COPY} of {@value #BYTES_PER_POINT} bytes, the cost table's own measured copy price.
 */
final class Jacobi implements NodeApplication, FragmentHandler {
    /** Bytes one point update moves: four 8-byte operands read, one 8-byte result written. */
    static final int BYTES_PER_POINT = 40;
    static final String RULE = "computation = each grid-point update (4 doubles read, 1 written) charged as COPY x "
            + BYTES_PER_POINT + " bytes";

    private final int n;
    private final int nodes;
    private final int iterations;
    private final int rows;
    /** Per node: the whole grid (only its rows and the two ghost rows beside them are used), old and new. */
    private final double[][] cur;
    private final double[][] nxt;
    private final int[] iteration;
    private final int[] sentMask;
    private final int[] received;
    private CStarRing ring;
    private int receiver;
    private String wrong;

    Jacobi(int n, int nodes, int iterations) {
        if (Integer.bitCount(n) != 1 || n < 4 || nodes < 2 || n % nodes != 0) {
            throw new IllegalArgumentException("grid n must be a power of two >= 4 divisible by the nodes, were n = "
                    + n + ", nodes = " + nodes);
        }
        this.n = n;
        this.nodes = nodes;
        this.iterations = iterations;
        rows = n / nodes;
        cur = new double[nodes][];
        nxt = new double[nodes][];
        for (int p = 0; p < nodes; p++) {
            cur[p] = initial(n);
            nxt[p] = initial(n);
        }
        iteration = new int[nodes];
        sentMask = new int[nodes];
        received = new int[nodes];
    }

    /** The starting grid: the four edges at fixed, different temperatures, the inside at 0. */
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

    /** One iteration over rows {@code [lo, hi)} (inner points only) from {@code from} into {@code to}. */
    static void sweep(double[] from, double[] to, int n, int lo, int hi) {
        for (int i = Math.max(1, lo); i < Math.min(n - 1, hi); i++) {
            for (int j = 1; j < n - 1; j++) {
                to[i * n + j] = (from[(i - 1) * n + j] + from[(i + 1) * n + j] + from[i * n + j - 1]
                        + from[i * n + j + 1]) * 0.25;
            }
        }
    }

    /** @return inner points in rows {@code [lo, hi)} */
    static long points(int n, int lo, int hi) {
        return (long) Math.max(0, Math.min(n - 1, hi) - Math.max(1, lo)) * (n - 2);
    }

    /** The single-node program: the grid after {@code iterations}, its computation charged to {@code cpu}. */
    static double[] serial(int n, int iterations, HostCpu cpu) {
        double[] a = initial(n);
        double[] b = initial(n);
        for (int it = 0; it < iterations; it++) {
            sweep(a, b, n, 0, n);
            cpu.charge(CostItem.COPY, BYTES_PER_POINT * points(n, 0, n));
            double[] t = a;
            a = b;
            b = t;
        }
        return a;
    }

    boolean run(CStarRing ring, long limitNanos) {
        this.ring = ring;
        for (int p = 0; p < nodes; p++) {
            ring.kick(p, this);
        }
        return ring.time().runUntil(this::done, ring.time().nanoTime() + limitNanos) && wrong == null;
    }

    boolean done() {
        if (wrong != null) {
            return true;
        }
        for (int it : iteration) {
            if (it < iterations) {
                return false;
            }
        }
        return true;
    }

    String wrong() {
        return wrong;
    }

    /** @return the grid the nodes computed, each row from its owner */
    double[] result() {
        double[] g = new double[n * n];
        for (int p = 0; p < nodes; p++) {
            System.arraycopy(cur[p], p * rows * n, g, p * rows * n, rows * n);
        }
        return g;
    }

    private int neighbours(int p) {
        return (p > 0 ? 1 : 0) + (p < nodes - 1 ? 1 : 0);
    }

    @Override
    public void afterEvent(RunnerNode node) {
        int p = node.id();
        CStarNetwork core = (CStarNetwork) node.core();
        receiver = p;
        while (iteration[p] < iterations && wrong == null) {
            int it = iteration[p];
            int lo = p * rows;
            if (p > 0 && (sentMask[p] & 1) == 0) {
                if (send(core, p - 1, it, cur[p], lo) == CStarNetwork.BACK_PRESSURE) {
                    return;
                }
                sentMask[p] |= 1;
            }
            if (p < nodes - 1 && (sentMask[p] & 2) == 0) {
                if (send(core, p + 1, it, cur[p], lo + rows - 1) == CStarNetwork.BACK_PRESSURE) {
                    return;
                }
                sentMask[p] |= 2;
            }
            while (received[p] < neighbours(p)) {
                if (core.receive(CStarNetwork.ANY, it, this) == CStarNetwork.NOTHING) {
                    return;
                }
                received[p]++;
            }
            sweep(cur[p], nxt[p], n, lo, lo + rows);
            ring.cpu(p).charge(CostItem.COPY, BYTES_PER_POINT * points(n, lo, lo + rows));
            double[] t = cur[p];
            cur[p] = nxt[p];
            nxt[p] = t;
            sentMask[p] = 0;
            received[p] = 0;
            iteration[p]++;
        }
    }

    private int send(CStarNetwork core, int dst, int event, double[] grid, int row) {
        MemorySegment seg = MemorySegment.ofArray(grid);
        return core.send(dst, event, seg, (long) row * n * 8, n * 8, CStarNetwork.LAST_FRAG);
    }

    @Override
    public void onFragment(int src, int event, int status, MemorySegment data, long offset, int length) {
        int p = receiver;
        int row = src == p - 1 ? p * rows - 1 : src == p + 1 ? (p + 1) * rows : -1;
        if (row < 0 || length != n * 8) {
            wrong = "node " + p + " iteration " + event + ": " + length + " bytes from node " + src;
            return;
        }
        MemorySegment.copy(data, ValueLayout.JAVA_DOUBLE_UNALIGNED, offset, cur[p], row * n, n);
    }

    /** @return whether the two grids are equal bit for bit */
    static boolean same(double[] a, double[] b) {
        if (a.length != b.length) {
            return false;
        }
        for (int i = 0; i < a.length; i++) {
            if (Double.doubleToRawLongBits(a[i]) != Double.doubleToRawLongBits(b[i])) {
                return false;
            }
        }
        return true;
    }
}
