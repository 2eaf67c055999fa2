package io.nicbridge.bench.pupa.apps;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * LRS, the long-range particle dynamics of the paper's Table 3: {@code N} unit-mass particles in the plane under a
 * softened inverse-square attraction, every particle acting on every other, split evenly over the nodes. Every time
 * step each node sends the positions of its particles to every other node (a unicast to each: the paper's "every node
 * exchanges its entire data set with every other node in every time step", the traffic that fills the secondary send
 * pool), computes the force on its own particles from all N in index order, advances them (semi-implicit Euler), and
 * takes part in a global sum of the kinetic energy through node 0 (the result multicast). {@link #serial} computes
 * the same sums in the same order, so positions, velocities and every step's energy must be equal bit for bit.
 */
final class Lrs extends StepProgram {
    static final int K_POSITIONS = 4;
    static final int PHASES = 3;
    static final double DT = 1e-3;
    static final double SOFTENING2 = 1e-2;
    /** Bytes one pair interaction touches: four doubles read, two accumulated. */
    static final int BYTES_PER_PAIR = 48;

    private final int particles;
    private final int block;
    private final int steps;
    private final double[] x0;
    private final double[] v0;
    /** Per node, parity: all positions (x, y interleaved) of a step, and how many blocks of which step are in. */
    private final double[][][] pos;
    private final int[][] blocksIn;
    private final int[][] blocksStep;
    private final double[][] vel;
    private final double[][] own;
    private final double[] kinetic;
    private final double[][] energy;

    Lrs(int nodes, int particles, int steps, long seed) {
        super(nodes);
        if (particles < nodes || particles % nodes != 0 || steps < 1) {
            throw new IllegalArgumentException("particles must be a multiple of the nodes (" + nodes + ") and steps"
                    + " >= 1, were " + particles + " and " + steps);
        }
        this.particles = particles;
        this.block = particles / nodes;
        this.steps = steps;
        x0 = new double[2 * particles];
        v0 = new double[2 * particles];
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < 2 * particles; i++) {
            x0[i] = r.nextDouble(-1, 1);
            v0[i] = r.nextDouble(-0.1, 0.1);
        }
        pos = new double[nodes][2][2 * particles];
        blocksIn = new int[nodes][2];
        blocksStep = new int[nodes][2];
        vel = new double[nodes][2 * block];
        own = new double[nodes][2 * block];
        for (int p = 0; p < nodes; p++) {
            System.arraycopy(x0, 2 * p * block, own[p], 0, 2 * block);
            System.arraycopy(v0, 2 * p * block, vel[p], 0, 2 * block);
            Arrays.fill(blocksStep[p], -1);
        }
        kinetic = new double[nodes];
        energy = new double[nodes][steps];
    }

    @Override
    String name() {
        return "LRS";
    }

    int particles() {
        return particles;
    }

    int steps() {
        return steps;
    }

    @Override
    String computeRule() {
        return "LRS: each pair interaction (4 doubles read, 2 accumulated) charged as COPY x " + BYTES_PER_PAIR
                + " bytes";
    }

    /**
     * Advances particles {@code [lo, hi)} one step from positions {@code all}: their positions ({@code mine}, x, y
     * interleaved, index 0 = particle lo) and velocities {@code v}. @return their kinetic energy, summed in index order
     */
    static double advance(double[] all, int count, double[] mine, double[] v, int lo, int hi) {
        for (int i = lo; i < hi; i++) {
            double xi = all[2 * i];
            double yi = all[2 * i + 1];
            double ax = 0;
            double ay = 0;
            for (int j = 0; j < count; j++) {
                if (j == i) {
                    continue;
                }
                double dx = all[2 * j] - xi;
                double dy = all[2 * j + 1] - yi;
                double d2 = dx * dx + dy * dy + SOFTENING2;
                double f = 1.0 / (d2 * Math.sqrt(d2)) / count;
                ax += f * dx;
                ay += f * dy;
            }
            int k = 2 * (i - lo);
            v[k] += ax * DT;
            v[k + 1] += ay * DT;
        }
        double e = 0;
        for (int i = lo; i < hi; i++) {
            int k = 2 * (i - lo);
            mine[k] = all[2 * i] + v[k] * DT;
            mine[k + 1] = all[2 * i + 1] + v[k + 1] * DT;
            e += 0.5 * (v[k] * v[k] + v[k + 1] * v[k + 1]);
        }
        return e;
    }

    /** The one-node program. @return positions then velocities (4N doubles) and, in {@code energyOut}, each step's */
    static double[] serial(double[] x, double[] v, int nodes, int steps, double[] energyOut) {
        int n = x.length / 2;
        int block = n / nodes;
        double[] all = x.clone();
        double[] vel = v.clone();
        double[] next = new double[all.length];
        double[] partial = new double[nodes];
        for (int s = 0; s < steps; s++) {
            for (int p = 0; p < nodes; p++) {
                double[] mine = new double[2 * block];
                double[] vp = new double[2 * block];
                System.arraycopy(vel, 2 * p * block, vp, 0, 2 * block);
                partial[p] = advance(all, n, mine, vp, p * block, (p + 1) * block);
                System.arraycopy(mine, 0, next, 2 * p * block, 2 * block);
                System.arraycopy(vp, 0, vel, 2 * p * block, 2 * block);
            }
            double e = partial[0];
            for (int p = 1; p < nodes; p++) {
                e += partial[p];
            }
            energyOut[s] = e;
            double[] t = all;
            all = next;
            next = t;
        }
        double[] out = new double[4 * n];
        System.arraycopy(all, 0, out, 0, 2 * n);
        System.arraycopy(vel, 0, out, 2 * n, 2 * n);
        return out;
    }

    @Override
    boolean finished(int p, int s) {
        return s >= PHASES * steps;
    }

    @Override
    void prepare(int p, int s) {
        if (s % PHASES == 0) {
            int t = s / PHASES;
            System.arraycopy(own[p], 0, pos[p][t & 1], 2 * p * block, 2 * block);
        }
    }

    @Override
    int sends(int p, int s) {
        return switch (s % PHASES) {
            case 0 -> nodes - 1;
            case 1 -> p == 0 ? 0 : 1;
            default -> p == 0 ? 1 : 0;
        };
    }

    @Override
    int send(int p, int s, int i) {
        int t = s / PHASES;
        return switch (s % PHASES) {
            case 0 -> {
                int dst = (p + 1 + i) % nodes; // everyone starts with a different peer: the hub sees all pairs
                yield sendDoubles(p, dst, own[p], 0, 2 * block, K_POSITIONS, t);
            }
            case 1 -> reduceStep(p, t, kinetic[p]);
            default -> resultStep(t, kinetic[0]);
        };
    }

    @Override
    boolean ready(int p, int s) {
        int t = s / PHASES;
        return switch (s % PHASES) {
            case 0 -> blocksStep[p][t & 1] == t && blocksIn[p][t & 1] == nodes - 1;
            case 1 -> p != 0 || partialsIn(t);
            default -> p == 0 || resultIn(p, t);
        };
    }

    @Override
    void compute(int p, int s) {
        int t = s / PHASES;
        switch (s % PHASES) {
            case 0 -> {
                kinetic[p] = advance(pos[p][t & 1], particles, own[p], vel[p], p * block, (p + 1) * block);
                charge(p, (long) BYTES_PER_PAIR * block * (particles - 1));
                blocksStep[p][t & 1] = -1;
            }
            case 1 -> {
                if (p == 0) {
                    kinetic[0] = combine(t, kinetic[0], Double::sum);
                }
            }
            default -> energy[p][t] = p == 0 ? kinetic[0] : result(p);
        }
    }

    @Override
    void received(int p, int src, int kind, int t, MemorySegment data, long offset, int length) {
        if (kind != K_POSITIONS || length != 16 * block || src == p) {
            fail("LRS node " + p + ": unexpected message kind " + kind + " of " + length + " bytes from " + src);
            return;
        }
        int slot = t & 1;
        if (blocksStep[p][slot] != t) {
            blocksStep[p][slot] = t;
            blocksIn[p][slot] = 0;
        }
        MemorySegment.copy(data, ValueLayout.JAVA_DOUBLE_UNALIGNED, offset, pos[p][slot], 2 * src * block,
                2 * block);
        blocksIn[p][slot]++;
    }

    @Override
    boolean matchesSerial() {
        double[] e = new double[steps];
        double[] reference = serial(x0, v0, nodes, steps, e);
        for (int p = 0; p < nodes; p++) {
            for (int i = 0; i < 2 * block; i++) {
                if (Double.doubleToRawLongBits(own[p][i]) != Double.doubleToRawLongBits(reference[2 * p * block + i])
                        || Double.doubleToRawLongBits(vel[p][i]) != Double.doubleToRawLongBits(
                        reference[2 * particles + 2 * p * block + i])) {
                    return false;
                }
            }
            if (!Answers.sameBits(energy[p], e)) {
                return false;
            }
        }
        return true;
    }

    @Override
    String comparison() {
        return particles + " particles after " + steps + " steps: positions, velocities and every step's kinetic"
                + " energy on every node equal the one-node program's bit for bit";
    }
}
