package io.nicbridge.sim.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Conservation, deadlock freedom under full load, the DOR throughput bound, drop behaviour and determinism. */
class FabricInvariantsTest {
    /** Deadlock smoke length; the full 10^6-cycle check: -Dfabric.deadlockCycles=1000000 (see final note). */
    private static final long DEADLOCK_CYCLES = Long.getLong("fabric.deadlockCycles", 100_000L);

    @Test
    void flitsAreConservedInBufferedMode() {
        Network net = new Network(Topologies.mesh(8, 8), FabricConfig.defaults().withVcsPerClass(2), 1);
        TestLoad.attachAll(net, 0.6, 5, null, 2);
        for (int i = 0; i < 20; i++) {
            net.run(500);
            assertEquals(net.flitsInjected(), net.flitsEjected() + net.flitsInNetwork(), "cycle " + net.cycle());
            assertEquals(0, net.flitsDropped());
        }
        assertTrue(net.flitsInNetwork() > 0, "a saturated mesh holds flits");
        assertTrue(net.packetsDelivered() > 0);
    }

    @Test
    void flitsAreConservedInDropMode() {
        FabricConfig cfg = FabricConfig.defaults().withDiscipline(Discipline.DROP_WHEN_BLOCKED);
        Network net = new Network(Topologies.adaptiveMesh(8, 8), cfg, 1);
        TestLoad.attachAll(net, 0.6, 5, null, 2);
        for (int i = 0; i < 20; i++) {
            net.run(500);
            assertEquals(net.flitsInjected(), net.flitsEjected() + net.flitsDropped() + net.flitsInNetwork(),
                "cycle " + net.cycle());
        }
        assertTrue(net.flitsDropped() > 0 && net.packetsDropped() > 0);
        assertEquals(net.packetsDropped(), net.drops(DropReason.HEAD_BLOCKED) + net.drops(DropReason.EJECT_BLOCKED));
    }

    /** Offered load 1.0 flit/node/cycle, long worms over short buffers; progress in every window, then drains. */
    private static void noDeadlock(Topology topo, FabricConfig cfg) {
        Network net = new Network(topo, cfg, 3);
        TestLoad[] loads = TestLoad.attachAll(net, 1.0, 8, null, 4);
        long window = Math.max(1000, DEADLOCK_CYCLES / 20);
        long last = 0;
        for (long c = 0; c < DEADLOCK_CYCLES; c += window) {
            net.run(window);
            assertTrue(net.flitsEjected() > last, topo + ": no flit ejected in cycles " + c + ".." + (c + window));
            last = net.flitsEjected();
        }
        TestLoad.stopAll(loads);
        assertTrue(net.drain(200_000), topo + ": did not drain after the load stopped");
        assertEquals(net.flitsInjected(), net.flitsEjected());
        assertEquals(net.packetsInjected(), net.packetsDelivered());
    }

    @Test
    void dimensionOrderMeshDoesNotDeadlockAtFullLoad() {
        noDeadlock(Topologies.mesh(8, 8), FabricConfig.defaults().withBufferDepth(2));
    }

    @Test
    void datelineTorusDoesNotDeadlockAtFullLoad() {
        noDeadlock(Topologies.torus(8, 8), FabricConfig.defaults().withVcsPerClass(2).withBufferDepth(2));
    }

    /**
     * The dateline halves let packets that never cross a ring's wrap link use either half (rising only): odd
     * radix (no distance ties), 3 dimensions and 1-flit buffers, where an 8-flit worm spans 8 routers and any
     * cyclic channel dependency would lock up at full load.
     */
    @Test
    void datelineTorusWithSharedHalvesDoesNotDeadlockWithOneFlitBuffers() {
        noDeadlock(Topologies.torus(7, 7), FabricConfig.defaults().withVcsPerClass(2).withBufferDepth(1));
        noDeadlock(Topologies.torus(4, 4, 4), FabricConfig.defaults().withVcsPerClass(2).withBufferDepth(1));
        noDeadlock(Topologies.torus(8, 8), FabricConfig.defaults().withVcsPerClass(4).withBufferDepth(1));
    }

    @Test
    void fatTreeDoesNotDeadlockAtFullLoad() {
        noDeadlock(Topologies.fatTree(4, 3), FabricConfig.defaults().withBufferDepth(2));
    }

    @Test
    void cm5TreeAndMultibutterflyDoNotDeadlockAtFullLoad() {
        noDeadlock(Topologies.cm5FatTree(3), FabricConfig.defaults().withBufferDepth(2).withCyclesPerFlit(2));
        noDeadlock(Topologies.multibutterfly(4, 3, 2, 5), FabricConfig.defaults().withBufferDepth(2));
    }

    @Test
    void dimensionOrderMeshAcceptsAtMostHalfAFlitPerNodeUnderUniformLoad() {
        Network net = new Network(Topologies.mesh(8, 8), FabricConfig.defaults().withVcsPerClass(4)
            .withBufferDepth(16), 5);
        TestLoad.attachAll(net, 1.0, 1, null, 6);
        net.run(5_000);
        long before = net.flitsEjected();
        net.run(20_000);
        double accepted = (net.flitsEjected() - before) / 20_000.0 / 64;
        assertTrue(accepted <= 0.5, "accepted " + accepted + " exceeds the DOR channel-load bound 0.5");
        assertTrue(accepted > 0.3, "accepted " + accepted + " far below the bound: the router wastes bandwidth");
    }

    @Test
    void dropsIncreaseWithLoad() {
        double[] loads = {0.05, 0.2, 0.5, 1.0};
        double previous = -1;
        for (double load : loads) {
            FabricConfig cfg = FabricConfig.defaults().withDiscipline(Discipline.DROP_WHEN_BLOCKED);
            Network net = new Network(Topologies.mesh(8, 8), cfg, 9);
            TestLoad.attachAll(net, load, 5, null, 10);
            net.run(10_000);
            double fraction = (double) net.packetsDropped() / net.packetsInjected();
            assertTrue(fraction > previous, "drop fraction " + fraction + " at load " + load
                + " not above " + previous);
            previous = fraction;
        }
        assertTrue(previous > 0.1, "full load should drop a large share, dropped " + previous);
    }

    @Test
    void dropModePacketsCarryAChecksumFlit() {
        FabricConfig cfg = FabricConfig.defaults().withDiscipline(Discipline.DROP_WHEN_BLOCKED);
        Network net = new Network(Topologies.mesh(4, 4), cfg, 1);
        int[] seen = new int[2];
        net.listener((p, c) -> {
            seen[0] = p.lengthFlits();
            seen[1] = p.payloadFlits();
        });
        assertTrue(net.port(0).inject(15, 3, Network.REQUEST, 0, 1));
        assertTrue(net.drain(1000));
        assertEquals(4, seen[0]);
        assertEquals(3, seen[1]);
        assertEquals(4, net.flitsEjected());
    }

    @Test
    void sameSeedSameRunDifferentSeedDifferentRun() {
        Supplier<long[]> run7 = () -> summary(7);
        assertArrayEqualsMessage(run7.get(), run7.get());
        assertNotEquals(java.util.Arrays.toString(summary(7)), java.util.Arrays.toString(summary(8)));
    }

    private static long[] summary(long seed) {
        Network net = new Network(Topologies.fatTree(4, 3), FabricConfig.defaults(), seed);
        TestLoad[] loads = TestLoad.attachAll(net, 0.5, 4, null, seed);
        net.run(5_000);
        return new long[] {net.flitsInjected(), net.flitsEjected(), net.flitHops(),
            TestLoad.sum(loads, l -> l.latencySum), TestLoad.sum(loads, l -> l.hopsSum)};
    }

    private static void assertArrayEqualsMessage(long[] a, long[] b) {
        assertEquals(java.util.Arrays.toString(a), java.util.Arrays.toString(b));
    }
}
