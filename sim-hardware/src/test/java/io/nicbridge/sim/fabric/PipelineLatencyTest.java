package io.nicbridge.sim.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Zero-load latency of the router/link pipeline, one packet in an empty fabric: head leaves the NI at the cycle
 * of injection, every hop costs linkLatency + routerDelay, the ejection link linkLatency, the body
 * (flits - 1) * cyclesPerFlit; store-and-forward adds (flits - 1) per router.
 */
class PipelineLatencyTest {

    private static long oneWay(Topology topo, FabricConfig cfg, int src, int dst, int flits) {
        Network net = new Network(topo, cfg, 1);
        long[] at = {-1, -1};
        net.listener((p, c) -> {
            at[0] = c - p.createdCycle();
            at[1] = p.hops();
        });
        assertTrue(net.port(src).inject(dst, flits, Network.REQUEST, 0, 0));
        assertTrue(net.drain(10_000));
        assertEquals(flits, net.flitsEjected());
        return at[0];
    }

    @Test
    void wormholeMeshCornerToCorner() {
        FabricConfig cfg = FabricConfig.defaults().withLinkLatency(2).withRouterDelay(3).withBufferDepth(16);
        assertEquals(15 * 5 + 2 + 3, oneWay(Topologies.mesh(8, 8), cfg, 0, 63, 4));
    }

    @Test
    void slowLinksSerializeTheBody() {
        FabricConfig cfg = FabricConfig.defaults().withCyclesPerFlit(2).withBufferDepth(8);
        assertEquals(15 * 2 + 1 + 3 * 2, oneWay(Topologies.mesh(8, 8), cfg, 0, 63, 4));
    }

    @Test
    void virtualCutThroughEqualsWormholeWithoutContention() {
        FabricConfig cfg = FabricConfig.defaults().withSwitching(Switching.VIRTUAL_CUT_THROUGH).withBufferDepth(8);
        assertEquals(15 * 2 + 1 + 3, oneWay(Topologies.mesh(8, 8), cfg, 0, 63, 4));
    }

    @Test
    void storeAndForwardWaitsForTheTailAtEveryRouter() {
        FabricConfig cfg = FabricConfig.defaults().withSwitching(Switching.STORE_AND_FORWARD).withBufferDepth(8);
        assertEquals(15 * (2 + 3) + 1 + 3, oneWay(Topologies.mesh(8, 8), cfg, 0, 63, 4));
        // the NIFDY paper's store-and-forward fat tree: 5 routers between far leaves
        assertEquals(5 * (2 + 7) + 1 + 7, oneWay(Topologies.fatTree(4, 3), cfg, 0, 63, 8));
    }

    @Test
    void butterflyIsAlwaysThreeRouters() {
        assertEquals(3 * 2 + 1, oneWay(Topologies.butterfly(4, 3), FabricConfig.defaults(), 17, 42, 1));
        assertEquals(3 * 2 + 1, oneWay(Topologies.multibutterfly(4, 3, 2, 3), FabricConfig.defaults(), 63, 0, 1));
    }
}
