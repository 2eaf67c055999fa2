package io.nicbridge.sim.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.sim.fabric.Discipline;
import io.nicbridge.sim.fabric.Network;
import io.nicbridge.sim.trace.MicroBenchmarks;
import io.nicbridge.sim.trace.TraceCosts;
import io.nicbridge.sim.trace.TraceEngine;
import io.nicbridge.sim.trace.TraceResult;
import org.junit.jupiter.api.Test;

/** The traffic layer on the real flit-level fabric. */
class FabricSetupTest {
    private static final String MESH4 = "topology = mesh; k = 4; n = 2; packet_size = 4; sample_period = 500;";

    @Test
    void lowLoadOnAMeshMatchesTheAverageHopInvariant() {
        SimConfig c = SimConfig.parse("topology = mesh; k = 8; n = 2; sample_period = 1000;", "t");
        LoadResult r = FabricSetup.runPoint(c, 0.05, true);
        assertTrue(r.stable(), r.verdict());
        // Uniform incl. self on an 8x8 mesh: 6.25 routers on average (statistical over the sample).
        assertEquals(6.25, r.hops(), 0.15);
        assertEquals(0.05, r.acceptedAverage(), 0.006);
    }

    @Test
    void sweepFindsSaturationOfASmallMesh() {
        SimConfig c = SimConfig.parse(MESH4, "t");
        LoadSweep.Saturation s = LoadSweep.saturation(load -> FabricSetup.runPoint(c, load, true), 0.1, 0.025, 1.0,
                LoadSweep.Progress.NONE);
        // A 4x4 mesh under uniform traffic: DOR channel bound 4/k = 1.0 flit/node/cycle (the NI's one flit
        // per cycle too); a wormhole router with 2 VCs and 4-flit buffers reaches a good fraction of it.
        assertTrue(s.saturationLoad() >= 0.4 && s.saturationLoad() <= 0.9, "saturation " + s.saturationLoad());
        assertTrue(s.points().size() >= 4);
    }

    @Test
    void tornadoOnAnEightByEightMeshIsHeldUnderItsChannelBound() {
        // DOR channel-load bound for tornado on an 8x8 mesh: 1/3 flit/node/cycle.
        SimConfig c = SimConfig.parse("topology = mesh; k = 8; n = 2; traffic = tornado; sample_period = 500;", "t");
        LoadResult r = FabricSetup.runPoint(c, 0.6, false);
        assertTrue(!r.stable() && r.acceptedMinimum() <= 1.0 / 3 + 0.02, "tornado min accepted " + r.acceptedMinimum());
    }

    @Test
    void dropModeCountsDrops() {
        SimConfig c = SimConfig.parse(MESH4 + " discipline = drop; num_vcs = 1;", "t");
        LoadResult high = FabricSetup.runPoint(c, 0.8, false);
        LoadResult low = FabricSetup.runPoint(c, 0.05, false);
        assertTrue(high.droppedPackets() > 0);
        assertTrue(high.dropRate() > low.dropRate(), low.dropRate() + " vs " + high.dropRate());
        assertEquals(Discipline.DROP_WHEN_BLOCKED, FabricSetup.fabricConfig(c).discipline());
    }

    @Test
    void configErrorsNameTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FabricSetup.topology(SimConfig.parse("topology = ring;", "t")));
        assertTrue(e.getMessage().contains("ring"));
        assertThrows(IllegalArgumentException.class,
                () -> FabricSetup.fabricConfig(SimConfig.parse("switching = teleport;", "t")));
    }

    @Test
    void traceRunsOnRequestAndReplyNetworksOfTheFabric() {
        Network net = FabricSetup.network(SimConfig.parse("topology = mesh; k = 4; n = 2;", "t"));
        MicroBenchmarks.Program p = MicroBenchmarks.reverse(64, 16, TraceCosts.defaults());
        TraceResult r = new TraceEngine(p.trace(), new NetworkFabricPorts(net), 0).run(1_000_000);
        assertTrue(r.completed(), r.toString());
        assertEquals(64, r.replyPackets());
        assertEquals(64 + 30, r.requestPackets());
        assertTrue(r.completionCycle() > p.trace().idealCompletion(0));
    }
}
