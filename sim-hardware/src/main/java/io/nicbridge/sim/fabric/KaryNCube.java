package io.nicbridge.sim.fabric;

import java.util.SplittableRandom;

/**
 * n-dimensional mesh or torus with one node per router. Router (and node) id is the mixed-radix number of its
 * coordinates, dimension 0 least significant.
 *
 * <pre>
 * ports of every router:  0 = node (injection in, ejection out)
 *                         1 + 2d = link towards +d     2 + 2d = link towards -d
 * output port 1+2d of r  -->  input port 2+2d of r's +d neighbour (the port that faces back to r)
 * </pre>
 *
 * Routing: dimension order (lowest dimension first); on a torus the minimal direction, ties (distance k/2) going
 * +. Tori use dateline VC halves: a packet uses half 0 in a dimension until it crosses that dimension's wrap link
 * and half 1 from the crossing hop on, which breaks the ring's cyclic channel dependency. With
 * {@code adaptive} the route offers the dimension-order port first and every other productive port after it
 * ("any productive channel", as the idempotent-messaging paper's grids); accepted only in drop mode.
 */
public final class KaryNCube extends Topology {
    private final int[] radix;
    private final int[] stride;
    private final boolean torus;
    private final boolean adaptive;

    public KaryNCube(int[] radix, boolean torus, boolean adaptive) {
        super(describe(radix, torus, adaptive), product(radix), product(radix), 1 + 2 * radix.length);
        this.radix = radix.clone();
        this.torus = torus;
        this.adaptive = adaptive;
        this.stride = new int[radix.length];
        int s = 1;
        for (int d = 0; d < radix.length; d++) {
            stride[d] = s;
            s *= radix[d];
        }
        int n = nodes();
        for (int r = 0; r < n; r++) {
            attachInjection(r, r, 0);
            attachEjection(r, r, 0);
            for (int d = 0; d < radix.length; d++) {
                int k = radix[d];
                int c = coord(r, d);
                if (k == 1) {
                    continue;
                }
                if (c + 1 < k) {
                    connect(r, 1 + 2 * d, r + stride[d], 2 + 2 * d);
                    connect(r + stride[d], 2 + 2 * d, r, 1 + 2 * d);
                } else if (torus) {
                    // wrap link: k-1 -> 0 going +, 0 -> k-1 going -
                    int first = r - c * stride[d];
                    connect(r, 1 + 2 * d, first, 2 + 2 * d);
                    connect(first, 2 + 2 * d, r, 1 + 2 * d);
                }
            }
        }
    }

    private static int product(int[] radix) {
        if (radix == null || radix.length < 1 || radix.length > 8) {
            throw new IllegalArgumentException("mesh/torus needs 1 to 8 dimensions");
        }
        long p = 1;
        for (int k : radix) {
            if (k < 1) {
                throw new IllegalArgumentException("every radix must be >= 1, got " + k);
            }
            p *= k;
            if (p > 1 << 22) {
                throw new IllegalArgumentException("mesh/torus larger than 4M nodes");
            }
        }
        return (int) p;
    }

    private static String describe(int[] radix, boolean torus, boolean adaptive) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < radix.length; i++) {
            b.append(i == 0 ? "" : "x").append(radix[i]);
        }
        return b.append(torus ? " torus" : " mesh").append(adaptive ? " (adaptive)" : " (DOR)").toString();
    }

    /** Coordinate of node/router {@code id} in dimension {@code d}. */
    public int coord(int id, int d) {
        return (id / stride[d]) % radix[d];
    }

    public int dimensions() {
        return radix.length;
    }

    public int radix(int d) {
        return radix[d];
    }

    public boolean isTorus() {
        return torus;
    }

    @Override
    public int route(int router, int inPort, int src, int dst, SplittableRandom random, int[] outPorts,
                     int[] outSubclass) {
        int count = 0;
        for (int d = 0; d < radix.length; d++) {
            int c = coord(router, d);
            int t = coord(dst, d);
            if (c == t) {
                continue;
            }
            int k = radix[d];
            boolean plus;
            int sub = 0;
            if (torus) {
                int delta = t - c;
                if (delta < 0) {
                    delta += k;
                }
                plus = 2 * delta <= k;
                int s = coord(src, d);
                sub = plus ? (c < s || c == k - 1 ? 1 : 0) : (c > s || c == 0 ? 1 : 0);
            } else {
                plus = t > c;
            }
            outPorts[count] = plus ? 1 + 2 * d : 2 + 2 * d;
            outSubclass[count] = sub;
            count++;
            if (!adaptive) {
                return 1;
            }
        }
        if (count == 0) {
            outPorts[0] = 0;
            outSubclass[0] = 0;
            return 1;
        }
        return count;
    }

    @Override
    public int vcSubclasses() {
        return torus ? 2 : 1;
    }

    @Override
    public int maxCandidates() {
        return adaptive ? radix.length : 1;
    }

    @Override
    public boolean deadlockFreeWhenBuffered() {
        return !adaptive;
    }
}
