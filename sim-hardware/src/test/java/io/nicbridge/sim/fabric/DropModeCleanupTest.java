package io.nicbridge.sim.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * A dropped worm must give back everything it held: after heavy lossy traffic with long worms over short
 * buffers, stopping the load must leave no VC allocated, no credit missing and no packet handle alive -
 * otherwise a channel would stay blocked forever.
 */
class DropModeCleanupTest {

    private static void leavesNothingBehind(Topology topo, FabricConfig cfg) {
        Network net = new Network(topo, cfg, 11);
        TestLoad[] loads = TestLoad.attachAll(net, 0.9, 8, null, 12);
        net.run(20_000);
        assertTrue(net.packetsDropped() > 100, topo + ": the load should cause drops");
        TestLoad.stopAll(loads);
        assertTrue(net.drain(10_000), topo + ": lossy fabric did not drain");
        assertNull(net.leakedResource(), topo.name());
        assertEquals(net.flitsInjected(), net.flitsEjected() + net.flitsDropped());
    }

    @Test
    void adaptiveMeshWormhole() {
        leavesNothingBehind(Topologies.adaptiveMesh(8, 8), FabricConfig.defaults().withBufferDepth(2)
            .withDiscipline(Discipline.DROP_WHEN_BLOCKED));
    }

    @Test
    void fatTreeWithTimeoutAndTwoVcs() {
        leavesNothingBehind(Topologies.fatTree(4, 3), FabricConfig.defaults().withBufferDepth(2).withVcsPerClass(2)
            .withDiscipline(Discipline.DROP_WHEN_BLOCKED).withDropTimeoutCycles(3).withRouterDelay(2));
    }

    @Test
    void bufferedFabricsAlsoLeaveNothingBehind() {
        Network net = new Network(Topologies.torus(4, 4), FabricConfig.defaults().withVcsPerClass(2), 1);
        TestLoad[] loads = TestLoad.attachAll(net, 0.9, 8, null, 2);
        net.run(5_000);
        TestLoad.stopAll(loads);
        assertTrue(net.drain(50_000));
        assertNull(net.leakedResource());
    }
}
