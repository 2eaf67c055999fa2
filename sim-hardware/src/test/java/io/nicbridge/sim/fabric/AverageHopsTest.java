package io.nicbridge.sim.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.IntBinaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The exact average-hop invariants of docs/interconnect-facts.md, measured from routed paths: one packet per
 * (src, dst) pair of the pattern is sent through the simulated fabric and the routers its head crossed are
 * averaged. Nothing here evaluates a closed formula.
 */
class AverageHopsTest {

    /** Sends one 1-flit packet per pair (dst = pattern(src, i), i over all choices), returns mean hops. */
    static double averageHops(Topology topo, FabricConfig cfg, int choices, IntBinaryOperator pattern) {
        Network net = new Network(topo, cfg.withInjectQueuePackets(Math.max(16, choices)), 7);
        long[] hops = new long[1];
        long[] count = new long[1];
        net.listener(new FabricListener() {
            @Override
            public void delivered(PacketRecord p, long cycle) {
                hops[0] += p.hops();
                count[0]++;
            }
        });
        int n = topo.nodes();
        for (int s = 0; s < n; s++) {
            for (int i = 0; i < choices; i++) {
                assertTrue(net.port(s).inject(pattern.applyAsInt(s, i), 1, Network.REQUEST, 0, i));
            }
        }
        assertTrue(net.drain(10_000_000), "fabric did not drain");
        assertEquals((long) n * choices, count[0]);
        assertEquals(net.flitsInjected(), net.flitsEjected());
        return (double) hops[0] / count[0];
    }

    static double uniform(Topology topo, FabricConfig cfg) {
        return averageHops(topo, cfg, topo.nodes(), (s, i) -> i);
    }

    static double permutation(Topology topo, FabricConfig cfg, java.util.function.IntUnaryOperator dst) {
        return averageHops(topo, cfg, 1, (s, i) -> dst.applyAsInt(s));
    }

    private static final FabricConfig MESH = FabricConfig.defaults();
    private static final FabricConfig TORUS = FabricConfig.defaults().withVcsPerClass(2);

    @Test
    void mesh8x8UniformIncludingSelf() {
        assertEquals(6.25, uniform(Topologies.mesh(8, 8), MESH), 1e-12);
    }

    @Test
    void torus8x8Uniform() {
        assertEquals(5.00, uniform(Topologies.torus(8, 8), TORUS), 1e-12);
    }

    @Test
    void mesh8x8BitComplement() {
        assertEquals(9.0, permutation(Topologies.mesh(8, 8), MESH, s -> 63 - s), 1e-12);
    }

    @Test
    void mesh8x8Tornado() {
        assertEquals(8.5, permutation(Topologies.mesh(8, 8), MESH, AverageHopsTest::tornado8), 1e-12);
    }

    @Test
    void torus8x8Tornado() {
        assertEquals(7.0, permutation(Topologies.torus(8, 8), TORUS, AverageHopsTest::tornado8), 1e-12);
    }

    @Test
    void butterfly4ary3fly() {
        assertEquals(3.0, uniform(Topologies.butterfly(4, 3), MESH), 1e-12);
    }

    @Test
    void multibutterflyDilation2() {
        assertEquals(3.0, uniform(Topologies.multibutterfly(4, 3, 2, 11), MESH), 1e-12);
    }

    @Test
    void torus4x4x4Uniform() {
        assertEquals(4.0, uniform(Topologies.torus(4, 4, 4), TORUS), 1e-12);
    }

    @Test
    void mesh4x4x4Uniform() {
        assertEquals(4.75, uniform(Topologies.mesh(4, 4, 4), MESH), 1e-12);
    }

    @Test
    void fatTree64Uniform() {
        assertEquals(4.375, uniform(Topologies.fatTree(4, 3), MESH), 1e-12);
    }

    @Test
    void cm5FatTree64UniformHasTheSameNearestCommonAncestorDistances() {
        assertEquals(4.375, uniform(Topologies.cm5FatTree(3), MESH), 1e-12);
    }

    /** BookSim tornado on k=8: each coordinate + (ceil(k/2) - 1) = +3 mod 8. */
    static int tornado8(int s) {
        int x = s % 8;
        int y = s / 8;
        return ((y + 3) % 8) * 8 + (x + 3) % 8;
    }
}
