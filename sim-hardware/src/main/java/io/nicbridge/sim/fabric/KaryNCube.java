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
 * Routing: dimension order (lowest dimension first); on a torus the minimal direction, ties (distance k/2) split
 * by the parity of the coordinate where the packet enters the ring (even +, odd -), so tie traffic loads both
 * directions equally and uniform traffic meets the 8/k channel-load bound.
 *
 * <h2>Dateline VC halves</h2>
 * Tori split each message class's VCs into halves to break each ring's cyclic channel dependency. Per ring
 * (dimension) a packet either crosses the wrap link (the dateline) or never does:
 * <pre>
 * crossing packet:      half 0 up to the wrap link, either half on it, half 1 after it
 * non-crossing packet:  either half, never from half 1 back to half 0 while it stays in the ring; it tries
 *                       first the half no crossing packet can use on that link: with minimal routes
 *                       (distance <= k/2) going +, links from c < k/2 carry only post-crossing packets
 *                       (half 1) and links from c >= k/2 only pre-crossing ones (half 0); mirrored going -
 * </pre>
 * Deadlock freedom: half 0 never holds a channel after the wrap link of a crossing packet and half 1 never
 * leads into the wrap link (a packet on a half-1 channel before the wrap is non-crossing and leaves the ring
 * before it); halves only rise along a ring and dimensions are taken in order, so the channel dependency graph
 * is acyclic.
 *
 * <p>Root cause of an earlier anomaly (8x8 torus, 2 VCs per class, 4-flit buffers: uniform saturation 0.34
 * flits/node/cycle, below the 8x8 mesh's 0.375 although its channel-load bound is twice the mesh's; tornado
 * nodes starving to 0): (1) non-crossing packets were confined to half 0 and the wrap link and ejection to one
 * half, so with 2 VCs per class every worm had exactly one VC per hop - a single wormhole lane with head-of-line
 * blocking behind every stalled worm, while the mesh's packets could pick either of 2 VCs; (2) ties at distance
 * k/2 all went +, loading + channels with 10/8 of the tie-free share (uniform bound 0.8 instead of 1.0 on 8x8).
 * Remaining limitation: with one VC per half, crossing flows still have a single VC where they meet
 * non-crossing flows, and round-robin allocation favours flows that merge less often (the parking-lot effect),
 * so tornado's worst node gets about a sixth of the average; 4 VCs per class make it fair.
 *
 * <p>With
 * {@code adaptive} the route offers the dimension-order port first and every other productive port after it
 * ("any productive channel", as the idempotent-messaging paper's grids); accepted only in drop mode.
 */
public final class KaryNCube extends Topology {
    private final int[] radix;
    private final int[] stride;
    private final boolean torus;
    private final boolean adaptive;
    /** coordinates[id * n + d]: precomputed so routing does no division. */
    private final int[] coordinates;

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
        coordinates = new int[n * radix.length];
        for (int id = 0; id < n; id++) {
            for (int d = 0; d < radix.length; d++) {
                coordinates[id * radix.length + d] = (id / stride[d]) % radix[d];
            }
        }
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
        return coordinates[id * radix.length + d];
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

    /** @return true if routes may leave dimension order (the adaptive mesh and torus) */
    public boolean isAdaptive() {
        return adaptive;
    }

    @Override
    public int route(int router, int inPort, int src, int dst, SplittableRandom random, int[] outPorts,
                     int[] outSubclass) {
        int count = 0;
        int dims = radix.length;
        for (int d = 0; d < dims; d++) {
            int c = coordinates[router * dims + d];
            int t = coordinates[dst * dims + d];
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
                // Ties (distance k/2) can only occur at the router where the packet enters this ring (after one
                // hop the distance is k/2 - 1), so deciding them by that router's coordinate parity is consistent
                // along the route and splits tie traffic evenly over + and -; always going + put 1/k of the
                // traffic on + channels only, lowering the uniform channel-load bound from 8/k to 6.4/k.
                plus = 2 * delta < k || (2 * delta == k && (c & 1) == 0);
                int s = coordinates[src * dims + d];
                boolean crossed = plus ? c < s : c > s;
                boolean crossesHere = plus ? c == k - 1 : c == 0;
                boolean willCross = plus ? t < c : t > c;
                if (crossesHere) {
                    sub = EITHER_HALF; // only crossing packets use the wrap link: both halves
                } else if (crossed) {
                    sub = 1;
                } else if (willCross) {
                    sub = 0;
                } else {
                    // never crosses: either half, preferring the one no crossing packet uses on this link, and
                    // never falling from half 1 to half 0 while it continues along the ring
                    boolean preferZero = plus ? 2 * c < k : 2 * c >= k;
                    boolean continuing = inPort == (plus ? 2 + 2 * d : 1 + 2 * d);
                    sub = continuing
                        ? (preferZero ? UPWARD_PREFER_0 : UPWARD_PREFER_1)
                        : (preferZero ? EITHER_HALF : EITHER_PREFER_1);
                }
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
            // the NI sink always drains, so ejection needs no dateline split: every VC of the class
            outSubclass[0] = torus ? EITHER_HALF : 0;
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
