package io.nicbridge.sim.fabric;

import java.util.SplittableRandom;

/**
 * k-ary fat tree of {@code k^levels} nodes with a configurable number of parents per router level, which covers
 * the full k-ary n-tree (every router has k parents) and tapered trees such as the CM-5 data network (nodes with
 * two up-links, routers at the two lowest levels with two parents, four above).
 *
 * <pre>
 * level l router (l, g, r): g = subtree of k^(l+1) nodes, r = replica in [0, m_l)
 *     m_0 = nodeLinks, m_(l+1) = m_l * parents[l]
 * ports: 0..k-1 down (child subtree g' = g*k + port, or the node g*k + port at level 0), k..k+parents[l]-1 up
 * up port k+j of (l, g, r) <-> down port (g mod k) of (l+1, g/k, r*parents[l] + j)
 * node x <-> down port (x mod k) of each (0, x/k, j), j < nodeLinks
 * </pre>
 *
 * Routing: nearest common ancestor. Up while the destination is outside the router's subtree, on an up port
 * drawn at random per hop (so delivery is not in order); then the unique down path, port = digit l of the
 * destination in base k. Up*-then-down* routing has no cyclic channel dependency, so buffered operation is
 * deadlock-free.
 */
public final class FatTree extends Topology {
    private final int k;
    private final int levels;
    private final int[] parents;
    private final int nodeLinks;
    private final int[] levelOf;
    private final int[] groupOf;
    private final int[] span; // span[l] = k^l

    /**
     * @param k         down ports per router (arity)
     * @param levels    router levels; nodes = k^levels
     * @param nodeLinks up-links per node, to that many distinct level-0 routers
     * @param parents   parents per router at levels 0 .. levels-2 (length levels-1)
     */
    public FatTree(String name, int k, int levels, int nodeLinks, int[] parents) {
        super(name, pow(k, levels), routerCount(k, levels, nodeLinks, parents), k + max(parents));
        this.k = k;
        this.levels = levels;
        this.parents = parents.clone();
        this.nodeLinks = nodeLinks;
        this.span = new int[levels + 1];
        span[0] = 1;
        for (int l = 1; l <= levels; l++) {
            span[l] = span[l - 1] * k;
        }
        levelOf = new int[routers()];
        groupOf = new int[routers()];
        int[] offset = new int[levels];
        int[] m = new int[levels];
        int id = 0;
        for (int l = 0; l < levels; l++) {
            m[l] = l == 0 ? nodeLinks : m[l - 1] * parents[l - 1];
            offset[l] = id;
            int groups = span[levels] / span[l + 1];
            for (int g = 0; g < groups; g++) {
                for (int r = 0; r < m[l]; r++) {
                    levelOf[id] = l;
                    groupOf[id] = g;
                    id++;
                }
            }
        }
        for (int l = 0; l + 1 < levels; l++) {
            int groups = span[levels] / span[l + 1];
            for (int g = 0; g < groups; g++) {
                for (int r = 0; r < m[l]; r++) {
                    int child = offset[l] + g * m[l] + r;
                    for (int j = 0; j < parents[l]; j++) {
                        int parent = offset[l + 1] + (g / k) * m[l + 1] + r * parents[l] + j;
                        connect(child, k + j, parent, g % k);
                        connect(parent, g % k, child, k + j);
                    }
                }
            }
        }
        for (int x = 0; x < nodes(); x++) {
            for (int j = 0; j < nodeLinks; j++) {
                int leaf = offset[0] + (x / k) * m[0] + j;
                attachInjection(x, leaf, x % k);
                attachEjection(x, leaf, x % k);
            }
        }
    }

    /** Full k-ary tree: one link per node, k parents per router (BookSim's k-ary n-tree). */
    public static FatTree full(int k, int levels) {
        int[] p = new int[Math.max(0, levels - 1)];
        java.util.Arrays.fill(p, k);
        return new FatTree("full " + k + "-ary fat tree, " + pow(k, levels) + " nodes", k, levels, 1, p);
    }

    /**
     * CM-5-style tapered 4-ary tree: two up-links per node, two parents at the two lowest router levels, four
     * above; per-node bandwidth ratio 2 : 1 : 1/2 within 4, within 16, beyond (20/10/5 MB/s on the CM-5).
     */
    public static FatTree cm5(int levels) {
        int[] p = new int[Math.max(0, levels - 1)];
        for (int l = 0; l < p.length; l++) {
            p[l] = l < 2 ? 2 : 4;
        }
        return new FatTree("CM-5 tapered 4-ary fat tree, " + pow(4, levels) + " nodes", 4, levels, 2, p);
    }

    private static int pow(int k, int n) {
        if (k < 2 || n < 1) {
            throw new IllegalArgumentException("fat tree needs k >= 2 and levels >= 1, got k=" + k + " levels=" + n);
        }
        long p = 1;
        for (int i = 0; i < n; i++) {
            p *= k;
            if (p > 1 << 22) {
                throw new IllegalArgumentException("fat tree larger than 4M nodes");
            }
        }
        return (int) p;
    }

    private static int routerCount(int k, int levels, int nodeLinks, int[] parents) {
        int n = pow(k, levels);
        if (parents == null || parents.length != levels - 1) {
            throw new IllegalArgumentException("parents must have levels-1 = " + (levels - 1) + " entries");
        }
        if (nodeLinks < 1) {
            throw new IllegalArgumentException("nodeLinks must be >= 1, got " + nodeLinks);
        }
        long total = 0;
        long m = nodeLinks;
        long groups = n / k;
        for (int l = 0; l < levels; l++) {
            total += groups * m;
            if (l < parents.length) {
                if (parents[l] < 1) {
                    throw new IllegalArgumentException("parents[" + l + "] must be >= 1, got " + parents[l]);
                }
                m *= parents[l];
            }
            groups /= k;
            if (total > 1 << 22) {
                throw new IllegalArgumentException("fat tree has more than 4M routers");
            }
        }
        return (int) total;
    }

    private static int max(int[] a) {
        int m = 0;
        for (int v : a) {
            m = Math.max(m, v);
        }
        return m;
    }

    public int arity() {
        return k;
    }

    public int levels() {
        return levels;
    }

    /** @return up-links per node (1 for a full tree, 2 on the CM-5) */
    public int nodeLinks() {
        return nodeLinks;
    }

    /** @return parents of each router at {@code level} (0 .. levels-2) */
    public int parents(int level) {
        return parents[level];
    }

    @Override
    public int route(int router, int inPort, int src, int dst, SplittableRandom random, int[] outPorts,
                     int[] outSubclass) {
        int l = levelOf[router];
        outSubclass[0] = 0;
        if (dst / span[l + 1] == groupOf[router]) {
            outPorts[0] = (dst / span[l]) % k;
        } else {
            int p = parents[l];
            outPorts[0] = k + (p == 1 ? 0 : random.nextInt(p));
        }
        return 1;
    }
}
