package io.nicbridge.sim.fabric;

/** Factories for the fabrics of the NIFDY and idempotent-messaging papers. */
public final class Topologies {
    private Topologies() {
    }

    /** Mesh with dimension-order routing, e.g. {@code mesh(8, 8)} or {@code mesh(4, 4, 4)}. */
    public static KaryNCube mesh(int... radix) {
        return new KaryNCube(radix, false, false);
    }

    /** Torus with dimension-order routing and dateline VCs (needs an even vcsPerClass >= 2). */
    public static KaryNCube torus(int... radix) {
        return new KaryNCube(radix, true, false);
    }

    /** Mesh routed on any productive channel, dimension order preferred (drop mode only). */
    public static KaryNCube adaptiveMesh(int... radix) {
        return new KaryNCube(radix, false, true);
    }

    /** Torus routed on any productive channel, dimension order preferred (drop mode only). */
    public static KaryNCube adaptiveTorus(int... radix) {
        return new KaryNCube(radix, true, true);
    }

    /** Full k-ary fat tree of k^levels nodes (4, 3 = the NIFDY paper's 64-node fat tree). */
    public static FatTree fatTree(int k, int levels) {
        return FatTree.full(k, levels);
    }

    /** CM-5-style tapered 4-ary fat tree of 4^levels nodes; pair with cyclesPerFlit 2 for its 4-bit links. */
    public static FatTree cm5FatTree(int levels) {
        return FatTree.cm5(levels);
    }

    /** k-ary n-fly butterfly. */
    public static Butterfly butterfly(int k, int n) {
        return new Butterfly(k, n, 1, 0);
    }

    /** k-ary n-fly multibutterfly of dilation d, randomly wired from {@code wiringSeed}. */
    public static Butterfly multibutterfly(int k, int n, int dilation, long wiringSeed) {
        return new Butterfly(k, n, dilation, wiringSeed);
    }
}
