package io.nicbridge.sim.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The CM-5-style tapered tree: same nearest-common-ancestor distances as the full tree, but half a link per node
 * beyond a 16-node group (docs/interconnect-facts.md: 20 / 10 / 5 MB/s tiers), and request/reply time multiplexing.
 */
class Cm5FatTreeTest {

    private static int[] xor(int mask) {
        int[] p = new int[64];
        for (int i = 0; i < 64; i++) {
            p[i] = i ^ mask;
        }
        return p;
    }

    /** Accepted flits/node/cycle under permutation traffic at offered load 1.0, after a warm-up. */
    static double accepted(Topology topo, FabricConfig cfg, int[] permutation) {
        Network net = new Network(topo, cfg, 3);
        TestLoad.attachAll(net, 1.0, 4, permutation, 4);
        net.run(3_000);
        long before = net.flitsEjected();
        net.run(10_000);
        return (net.flitsEjected() - before) / 10_000.0 / topo.nodes();
    }

    @Test
    void wiringMatchesTheCm5Shape() {
        FatTree cm5 = Topologies.cm5FatTree(3);
        // 16 groups x 2 leaf routers, 4 groups x 4, 1 x 8 at the top
        assertEquals(32 + 16 + 8, cm5.routers());
        assertEquals(16 + 16 + 16, Topologies.fatTree(4, 3).routers());
    }

    @Test
    void trafficLeavingA16NodeGroupGetsHalfALinkPerNode() {
        FabricConfig cfg = FabricConfig.defaults().withBufferDepth(8);
        double local = accepted(Topologies.cm5FatTree(3), cfg, xor(1));
        double far = accepted(Topologies.cm5FatTree(3), cfg, xor(32));
        double fullFar = accepted(Topologies.fatTree(4, 3), cfg, xor(32));
        assertTrue(local > 0.85, "within a 4-node group: " + local);
        assertTrue(far <= 0.5, "beyond a 16-node group the CM-5 tree has half a link per node: " + far);
        assertTrue(far > 0.3, "but should come close to it: " + far);
        assertTrue(fullFar > far * 1.2, "the full tree keeps full bisection: " + fullFar + " vs " + far);
    }

    @Test
    void timeMultiplexedClassesHalveOneNetworksBandwidth() {
        FabricConfig demand = FabricConfig.defaults().withBufferDepth(8);
        FabricConfig timed = demand.withTimeMultiplexedClasses(true);
        double shared = accepted(Topologies.cm5FatTree(3), demand, xor(1));
        double slotted = accepted(Topologies.cm5FatTree(3), timed, xor(1));
        assertTrue(slotted <= 0.5, "requests only get every other cycle: " + slotted);
        assertTrue(shared > 0.85, "demand multiplexing gives requests the whole link: " + shared);
    }

    @Test
    void timeMultiplexedClassesEachGetTheirOwnSlotsAndNeitherStarves() {
        FabricConfig cfg = FabricConfig.defaults().withBufferDepth(8).withCyclesPerFlit(2)
            .withTimeMultiplexedClasses(true);
        // one link per node (the CM-5 tree's nodes have two, which lets a class alternate links)
        Network net = new Network(Topologies.fatTree(4, 3), cfg, 3);
        TestLoad[] loads = TestLoad.attachAll(net, 1.0, 4, xor(1), 4);
        for (int n = 1; n < 64; n += 2) {
            loads[n].packetClass = Network.REPLY;
        }
        net.run(3_000);
        long[] before = new long[64];
        for (int n = 0; n < 64; n++) {
            before[n] = net.flitsEjectedAt(n);
        }
        net.run(10_000);
        double requests = 0;
        double replies = 0;
        for (int n = 0; n < 64; n++) {
            double a = (net.flitsEjectedAt(n) - before[n]) / 10_000.0 / 32;
            if ((n & 1) == 0) {
                replies += a; // even nodes receive from odd partners, which send replies
            } else {
                requests += a;
            }
        }
        // 4-bit links, byte flits, every other cycle: one flit per 4 cycles per class
        assertTrue(requests <= 0.25 && replies <= 0.25, "requests " + requests + " replies " + replies);
        assertTrue(requests > 0.2 && replies > 0.2, "neither class starves: " + requests + " / " + replies);
    }
}
