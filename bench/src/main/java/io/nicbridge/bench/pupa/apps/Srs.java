package io.nicbridge.bench.pupa.apps;

import io.nicbridge.protocols.core.MessageChannel;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * SRS, the short-range particle dynamics of the paper's Table 3: {@code N} particles in a box {@code P x 2} with
 * reflecting walls, a soft repulsion between particles closer than {@link #CUTOFF}, the box cut into P vertical slabs
 * of width 1, one per node. Every time step a node sends its neighbours the particles near their common edge (ghosts:
 * id and position), computes the force on its own particles from its own and the ghosts, advances them, hands the
 * particles that left its slab to the neighbour they entered (migration: a message each way, often empty or a particle
 * or two), and takes part in a global sum of the kinetic energy through node 0 (the result multicast).
 *
 * <p>{@link #serial} is the one-node program. Forces are summed over the other particles in id order on both, the
 * ghost margin ({@link #MARGIN}) is wider than the cutoff so every interacting pair is seen, and the energy is summed
 * per slab in id order and then over the slabs in order: positions, velocities and energies must be equal bit for bit.
 */
final class Srs extends StepProgram {
    static final int K_GHOSTS = 5;
    static final int K_MIGRANTS = 6;
    static final int PHASES = 4;
    static final double CUTOFF = 0.1;
    static final double MARGIN = 1.5 * CUTOFF;
    static final double STIFFNESS = 50;
    static final double DT = 0.01;
    static final double HEIGHT = 2.0;
    /** Bytes one candidate pair touches: two positions read, a distance and two sums. */
    static final int BYTES_PER_PAIR = 40;
    private static final int GHOST = 3;
    private static final int MIGRANT = 5;

    private final int particles;
    private final int steps;
    private final double width;
    private final double[] init;
    /** Per node: its particles, sorted by id, 5 doubles each (id, x, y, vx, vy). */
    private final double[][] own;
    private final int[] count;
    private final double[][][] out;
    private final int[][] outCount;
    /** Per node, parity, side (0 left, 1 right): what arrived, its length in doubles, and its step. */
    private final double[][][][] in;
    private final int[][][] inLength;
    private final int[][][] inStep;
    private final double[] kinetic;
    private final double[][] energy;
    private long pairs;

    Srs(int nodes, int particles, int steps, long seed) {
        super(nodes);
        if (particles < nodes || steps < 1) {
            throw new IllegalArgumentException("particles must be >= the nodes (" + nodes + ") and steps >= 1, were "
                    + particles + " and " + steps);
        }
        this.particles = particles;
        this.steps = steps;
        this.width = nodes;
        init = new double[5 * particles];
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < particles; i++) {
            init[5 * i] = i;
            init[5 * i + 1] = r.nextDouble(0, width);
            init[5 * i + 2] = r.nextDouble(0, HEIGHT);
            init[5 * i + 3] = r.nextDouble(-0.5, 0.5);
            init[5 * i + 4] = r.nextDouble(-0.5, 0.5);
        }
        own = new double[nodes][5 * particles];
        count = new int[nodes];
        for (int i = 0; i < particles; i++) {
            int p = slab(init[5 * i + 1]);
            System.arraycopy(init, 5 * i, own[p], 5 * count[p]++, 5);
        }
        out = new double[nodes][2][5 * particles];
        outCount = new int[nodes][2];
        in = new double[nodes][2][2][5 * particles];
        inLength = new int[nodes][2][2];
        inStep = new int[nodes][2][2];
        for (int[][] a : inStep) {
            for (int[] b : a) {
                Arrays.fill(b, -1);
            }
        }
        kinetic = new double[nodes];
        energy = new double[nodes][steps];
    }

    @Override
    String name() {
        return "SRS";
    }

    int particles() {
        return particles;
    }

    int steps() {
        return steps;
    }

    @Override
    String computeRule() {
        return "SRS: each candidate pair examined (2 positions read, distance and 2 sums) charged as COPY x "
                + BYTES_PER_PAIR + " bytes";
    }

    private static double lo(int p) {
        return p * 1.0;
    }

    /** @return the slab (node) a particle at {@code x} belongs to */
    private int slab(double x) {
        int p = (int) Math.floor(x);
        p = Math.max(0, Math.min(nodes - 1, p));
        while (p > 0 && x < lo(p)) {
            p--;
        }
        while (p < nodes - 1 && x >= lo(p + 1)) {
            p++;
        }
        return p;
    }

    /**
     * The force on particle {@code (xi, yi)} with id {@code id} from the candidates {@code c} (n records of
     * {@code stride} doubles: id, x, y, ...), sorted by id, into {@code f[0..1]}. @return pairs examined
     */
    static int force(double id, double xi, double yi, double[] c, int n, int stride, double[] f) {
        double fx = 0;
        double fy = 0;
        for (int j = 0; j < n; j++) {
            int k = j * stride;
            if (c[k] == id) {
                continue;
            }
            double dx = c[k + 1] - xi;
            double dy = c[k + 2] - yi;
            double d2 = dx * dx + dy * dy;
            if (d2 < CUTOFF * CUTOFF) {
                double d = Math.sqrt(d2);
                double s = STIFFNESS * (CUTOFF - d) / d;
                fx -= s * dx;
                fy -= s * dy;
            }
        }
        f[0] = fx;
        f[1] = fy;
        return n - 1;
    }

    /** Advances one particle record (x, y, vx, vy at k + 1 .. k + 4) by force f, reflecting at the walls. */
    void move(double[] rec, int k, double[] f) {
        rec[k + 3] += f[0] * DT;
        rec[k + 4] += f[1] * DT;
        rec[k + 1] += rec[k + 3] * DT;
        rec[k + 2] += rec[k + 4] * DT;
        if (rec[k + 1] < 0) {
            rec[k + 1] = -rec[k + 1];
            rec[k + 3] = -rec[k + 3];
        }
        if (rec[k + 1] >= width) {
            rec[k + 1] = Math.nextDown(2 * width - rec[k + 1]);
            rec[k + 3] = -rec[k + 3];
        }
        if (rec[k + 2] < 0) {
            rec[k + 2] = -rec[k + 2];
            rec[k + 4] = -rec[k + 4];
        }
        if (rec[k + 2] >= HEIGHT) {
            rec[k + 2] = Math.nextDown(2 * HEIGHT - rec[k + 2]);
            rec[k + 4] = -rec[k + 4];
        }
    }

    static double kineticEnergy(double[] rec, int k) {
        return 0.5 * (rec[k + 3] * rec[k + 3] + rec[k + 4] * rec[k + 4]);
    }

    /** The one-node program. @return every particle's record by id, and in {@code energyOut} each step's energy */
    double[] serial(double[] energyOut) {
        double[] all = init.clone();
        double[] f = new double[2];
        double[] forces = new double[2 * particles];
        double[] partial = new double[nodes];
        for (int s = 0; s < steps; s++) {
            for (int i = 0; i < particles; i++) {
                force(all[5 * i], all[5 * i + 1], all[5 * i + 2], all, particles, 5, f);
                forces[2 * i] = f[0];
                forces[2 * i + 1] = f[1];
            }
            Arrays.fill(partial, 0);
            for (int i = 0; i < particles; i++) {
                f[0] = forces[2 * i];
                f[1] = forces[2 * i + 1];
                move(all, 5 * i, f);
            }
            for (int i = 0; i < particles; i++) {
                int p = slab(all[5 * i + 1]);
                partial[p] += kineticEnergy(all, 5 * i);
            }
            double e = partial[0];
            for (int p = 1; p < nodes; p++) {
                e += partial[p];
            }
            energyOut[s] = e;
        }
        return all;
    }

    @Override
    boolean finished(int p, int s) {
        return s >= PHASES * steps;
    }

    @Override
    void prepare(int p, int s) {
        int phase = s % PHASES;
        if (phase > 1) {
            return;
        }
        outCount[p][0] = 0;
        outCount[p][1] = 0;
        double[] o = own[p];
        if (phase == 0) { // ghosts: id and position of the particles within MARGIN of each edge
            for (int i = 0; i < count[p]; i++) {
                double x = o[5 * i + 1];
                if (p > 0 && x < lo(p) + MARGIN) {
                    System.arraycopy(o, 5 * i, out[p][0], GHOST * outCount[p][0]++, GHOST);
                }
                if (p < nodes - 1 && x >= lo(p + 1) - MARGIN) {
                    System.arraycopy(o, 5 * i, out[p][1], GHOST * outCount[p][1]++, GHOST);
                }
            }
        } else { // migrants: the particles that left the slab, removed from it
            int kept = 0;
            for (int i = 0; i < count[p]; i++) {
                int to = slab(o[5 * i + 1]);
                if (to == p) {
                    System.arraycopy(o, 5 * i, o, 5 * kept++, 5);
                } else if (to == p - 1 || to == p + 1) {
                    int side = to < p ? 0 : 1;
                    System.arraycopy(o, 5 * i, out[p][side], MIGRANT * outCount[p][side]++, MIGRANT);
                } else {
                    fail("SRS node " + p + ": particle " + (long) o[5 * i] + " jumped to slab " + to);
                }
            }
            count[p] = kept;
        }
    }

    @Override
    int sends(int p, int s) {
        return switch (s % PHASES) {
            case 0, 1 -> 2;
            case 2 -> p == 0 ? 0 : 1;
            default -> p == 0 ? 1 : 0;
        };
    }

    @Override
    int send(int p, int s, int i) {
        int t = s / PHASES;
        int phase = s % PHASES;
        return switch (phase) {
            case 0, 1 -> {
                int dst = i == 0 ? p - 1 : p + 1;
                if (dst < 0 || dst >= nodes) {
                    yield MessageChannel.OK;
                }
                int stride = phase == 0 ? GHOST : MIGRANT;
                yield sendDoubles(p, dst, out[p][i], 0, stride * outCount[p][i], phase == 0 ? K_GHOSTS : K_MIGRANTS,
                        t);
            }
            case 2 -> reduceStep(p, t, kinetic[p]);
            default -> resultStep(t, kinetic[0]);
        };
    }

    private boolean arrived(int p, int parity, int side, int t) {
        boolean exists = side == 0 ? p > 0 : p < nodes - 1;
        return !exists || inStep[p][parity][side] == t;
    }

    @Override
    boolean ready(int p, int s) {
        int t = s / PHASES;
        return switch (s % PHASES) {
            case 0 -> arrived(p, 0, 0, t) && arrived(p, 0, 1, t);
            case 1 -> arrived(p, 1, 0, t) && arrived(p, 1, 1, t);
            case 2 -> p != 0 || partialsIn(t);
            default -> p == 0 || resultIn(p, t);
        };
    }

    @Override
    void compute(int p, int s) {
        int t = s / PHASES;
        switch (s % PHASES) {
            case 0 -> forcesAndMove(p);
            case 1 -> {
                for (int side = 0; side < 2; side++) {
                    double[] m = in[p][1][side];
                    for (int k = 0; k < inLength[p][1][side]; k += MIGRANT) {
                        insert(p, m, k);
                    }
                }
                double e = 0;
                for (int i = 0; i < count[p]; i++) {
                    e += kineticEnergy(own[p], 5 * i);
                }
                kinetic[p] = e;
            }
            case 2 -> {
                if (p == 0) {
                    kinetic[0] = combine(t, kinetic[0], Double::sum);
                }
            }
            default -> energy[p][t] = p == 0 ? kinetic[0] : result(p);
        }
    }

    private void forcesAndMove(int p) {
        // candidates: own and both ghost lists, merged by id (each list is sorted by id)
        double[] c = new double[GHOST * (count[p] + inLength[p][0][0] / GHOST + inLength[p][0][1] / GHOST)];
        int n = 0;
        int a = 0;
        int l = 0;
        int r = 0;
        double[] gl = in[p][0][0];
        double[] gr = in[p][0][1];
        int nl = inLength[p][0][0] / GHOST;
        int nr = inLength[p][0][1] / GHOST;
        while (a < count[p] || l < nl || r < nr) {
            double ia = a < count[p] ? own[p][5 * a] : Double.MAX_VALUE;
            double il = l < nl ? gl[GHOST * l] : Double.MAX_VALUE;
            double ir = r < nr ? gr[GHOST * r] : Double.MAX_VALUE;
            if (ia <= il && ia <= ir) {
                System.arraycopy(own[p], 5 * a++, c, GHOST * n++, GHOST);
            } else if (il <= ir) {
                System.arraycopy(gl, GHOST * l++, c, GHOST * n++, GHOST);
            } else {
                System.arraycopy(gr, GHOST * r++, c, GHOST * n++, GHOST);
            }
        }
        double[] f = new double[2 * count[p]];
        double[] fi = new double[2];
        long examined = 0;
        for (int i = 0; i < count[p]; i++) {
            examined += force(own[p][5 * i], own[p][5 * i + 1], own[p][5 * i + 2], c, n, GHOST, fi);
            f[2 * i] = fi[0];
            f[2 * i + 1] = fi[1];
        }
        for (int i = 0; i < count[p]; i++) {
            fi[0] = f[2 * i];
            fi[1] = f[2 * i + 1];
            move(own[p], 5 * i, fi);
        }
        pairs += examined;
        charge(p, BYTES_PER_PAIR * examined);
    }

    /** Inserts a migrant record into node p's own list, keeping it sorted by id. */
    private void insert(int p, double[] m, int k) {
        double[] o = own[p];
        int at = count[p];
        while (at > 0 && o[5 * (at - 1)] > m[k]) {
            at--;
        }
        System.arraycopy(o, 5 * at, o, 5 * (at + 1), 5 * (count[p] - at));
        System.arraycopy(m, k, o, 5 * at, 5);
        count[p]++;
    }

    @Override
    void received(int p, int src, int kind, int t, MemorySegment data, long offset, int length) {
        int side = src == p - 1 ? 0 : src == p + 1 ? 1 : -1;
        int stride = kind == K_GHOSTS ? GHOST : MIGRANT;
        if ((kind != K_GHOSTS && kind != K_MIGRANTS) || side < 0 || length % (8 * stride) != 0) {
            fail("SRS node " + p + ": unexpected message kind " + kind + " of " + length + " bytes from " + src);
            return;
        }
        int parity = kind == K_GHOSTS ? 0 : 1;
        MemorySegment.copy(data, ValueLayout.JAVA_DOUBLE_UNALIGNED, offset, in[p][parity][side], 0, length / 8);
        inLength[p][parity][side] = length / 8;
        inStep[p][parity][side] = t;
    }

    @Override
    boolean matchesSerial() {
        double[] e = new double[steps];
        double[] reference = serial(e);
        int total = 0;
        for (int p = 0; p < nodes; p++) {
            total += count[p];
            for (int i = 0; i < count[p]; i++) {
                int id = (int) own[p][5 * i];
                for (int k = 0; k < 5; k++) {
                    if (Double.doubleToRawLongBits(own[p][5 * i + k]) != Double.doubleToRawLongBits(
                            reference[5 * id + k])) {
                        return false;
                    }
                }
            }
            if (!Answers.sameBits(energy[p], e)) {
                return false;
            }
        }
        return total == particles;
    }

    @Override
    String comparison() {
        return particles + " particles after " + steps + " steps: every particle's position and velocity and every"
                + " step's kinetic energy on every node equal the one-node program's bit for bit";
    }
}
