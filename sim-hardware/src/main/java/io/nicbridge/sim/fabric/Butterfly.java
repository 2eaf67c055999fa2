package io.nicbridge.sim.fabric;

import java.util.SplittableRandom;

/**
 * k-ary n-fly butterfly, and the multibutterfly of dilation d. Stage s (0..n-1) has k^(n-1) routers; nodes inject
 * at stage 0 and eject at stage n-1; every packet crosses exactly n routers.
 *
 * <pre>
 * router id = s * k^(n-1) + w;  node x injects at (0, x/k) input x mod k, ejects at (n-1, x/k) output x mod k
 * output port j*d + c = direction j (destination digit), copy c in [0, d)
 * stage s -> s+1: routers sharing the top s digits form a block of k*B (B = k^(n-2-s)); direction j of the
 * block leads to the sub-block of B routers whose digit (n-2-s) is j. Source i of the block, copy c goes to
 * sub-block router (pi(i) + c) mod B, pi a seeded random permutation (the identity for d = 1, which gives the
 * plain butterfly: only digit n-2-s is replaced).
 * </pre>
 *
 * Routing: destination tag; a multibutterfly offers all d copies of the direction, starting at a random copy,
 * and takes the first with a free VC. The network is unidirectional stage to stage, hence deadlock-free.
 */
public final class Butterfly extends Topology {
    private final int k;
    private final int n;
    private final int dilation;
    private final int rows;
    private final int[] span;

    public Butterfly(int k, int n, int dilation, long wiringSeed) {
        super(name(k, n, dilation), pow(k, n), Math.max(1, n) * pow(k, n - 1), k * dilation);
        if (n < 1 || dilation < 1) {
            throw new IllegalArgumentException("butterfly needs n >= 1 and dilation >= 1, got n=" + n + " dilation=" + dilation);
        }
        this.k = k;
        this.n = n;
        this.dilation = dilation;
        this.rows = pow(k, n - 1);
        this.span = new int[n + 1];
        span[0] = 1;
        for (int i = 1; i <= n; i++) {
            span[i] = span[i - 1] * k;
        }
        SplittableRandom wiring = new SplittableRandom(wiringSeed);
        int[] nextIn = new int[routers()];
        for (int s = 0; s + 1 < n; s++) {
            int b = span[n - 2 - s];
            int block = k * b;
            int[] perm = new int[block];
            for (int bs = 0; bs < rows; bs += block) {
                for (int j = 0; j < k; j++) {
                    for (int i = 0; i < block; i++) {
                        perm[i] = i;
                    }
                    if (dilation > 1) {
                        for (int i = block - 1; i > 0; i--) {
                            int x = wiring.nextInt(i + 1);
                            int t = perm[i];
                            perm[i] = perm[x];
                            perm[x] = t;
                        }
                    }
                    for (int i = 0; i < block; i++) {
                        for (int c = 0; c < dilation; c++) {
                            int target = (s + 1) * rows + bs + j * b + (perm[i] + c) % b;
                            connect(s * rows + bs + i, j * dilation + c, target, nextIn[target]++);
                        }
                    }
                }
            }
        }
        for (int x = 0; x < nodes(); x++) {
            attachInjection(x, x / k, x % k);
            attachEjection(x, (n - 1) * rows + x / k, x % k);
        }
    }

    private static String name(int k, int n, int d) {
        return d == 1 ? k + "-ary " + n + "-fly butterfly" : k + "-ary " + n + "-fly multibutterfly, dilation " + d;
    }

    private static int pow(int k, int n) {
        if (k < 2 || n < 0) {
            throw new IllegalArgumentException("butterfly needs k >= 2 and n >= 1, got k=" + k + " n=" + (n + 1));
        }
        long p = 1;
        for (int i = 0; i < n; i++) {
            p *= k;
            if (p > 1 << 22) {
                throw new IllegalArgumentException("butterfly larger than 4M nodes");
            }
        }
        return (int) p;
    }

    @Override
    public int route(int router, int inPort, int src, int dst, SplittableRandom random, int[] outPorts,
                     int[] outSubclass) {
        int s = router / rows;
        int digit = (dst / span[n - 1 - s]) % k;
        if (s == n - 1) {
            outPorts[0] = digit;
            outSubclass[0] = 0;
            return 1;
        }
        int start = dilation == 1 ? 0 : random.nextInt(dilation);
        for (int c = 0; c < dilation; c++) {
            int copy = start + c;
            if (copy >= dilation) {
                copy -= dilation;
            }
            outPorts[c] = digit * dilation + copy;
            outSubclass[c] = 0;
        }
        return dilation;
    }

    @Override
    public int maxCandidates() {
        return dilation;
    }
}
