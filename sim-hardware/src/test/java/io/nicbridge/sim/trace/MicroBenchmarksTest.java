package io.nicbridge.sim.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.sim.traffic.FabricPorts;
import io.nicbridge.sim.traffic.IdealFabric;
import org.junit.jupiter.api.Test;

class MicroBenchmarksTest {
    private static final TraceCosts COSTS = TraceCosts.defaults();

    private static TraceResult runOnIdeal(BlockTrace t) {
        TraceResult r = new TraceEngine(t, new IdealFabric(t.nodes(), 5, 1, 4, -1), 0).run(5_000_000);
        assertTrue(r.completed(), t.name() + " did not complete: " + r);
        assertEquals(t.networkMessageCount(FabricPorts.REQUEST), r.requestPackets());
        assertEquals(t.networkMessageCount(FabricPorts.REPLY), r.replyPackets());
        assertEquals(t.networkFlits(), r.flitsDelivered());
        assertTrue(r.completionCycle() >= t.idealCompletion(5), r.completionCycle() + " < ideal "
                + t.idealCompletion(5));
        return r;
    }

    @Test
    void addComputesPrefixSums() {
        MicroBenchmarks.Program p = MicroBenchmarks.add(64, COSTS);
        assertTrue(p.resultCorrect());
        runOnIdeal(p.trace());
    }

    @Test
    void reverseSendsOneStoreAndOneAckPerEntryPlusTheForkTree() {
        MicroBenchmarks.Program p = MicroBenchmarks.reverse(64, 16, COSTS);
        assertTrue(p.resultCorrect());
        BlockTrace t = p.trace();
        // 64 remote stores + 15 remote forks + 15 remote joins; 64 acks.
        assertEquals(64 + 15 + 15, t.networkMessageCount(FabricPorts.REQUEST));
        assertEquals(64, t.networkMessageCount(FabricPorts.REPLY));
        runOnIdeal(t);
    }

    @Test
    void quicksortSortsAndRunsToCompletion() {
        MicroBenchmarks.Program p = MicroBenchmarks.quicksort(512, 16, 3, COSTS);
        assertTrue(p.resultCorrect());
        TraceResult r = runOnIdeal(p.trace());
        assertTrue(r.replyPackets() > 0);
    }

    @Test
    void nbodyBroadcastsEveryPositionToEveryNode() {
        MicroBenchmarks.Program p = MicroBenchmarks.nbody(16, 1, 5, COSTS);
        assertTrue(p.resultCorrect());
        BlockTrace t = p.trace();
        // Row phase: 16 nodes x 3 row peers x 2 words; column phase: 16 x 4 bodies x 3 peers x 2 words.
        assertEquals(16 * 3 * 2 + 16 * 4 * 3 * 2, t.networkMessageCount(FabricPorts.REPLY));
        runOnIdeal(t);
        assertThrows(IllegalArgumentException.class, () -> MicroBenchmarks.nbody(15, 1, 5, COSTS));
    }

    @Test
    void sameSeedSameTrace() {
        BlockTrace a = MicroBenchmarks.quicksort(256, 16, 8, COSTS).trace();
        BlockTrace b = MicroBenchmarks.quicksort(256, 16, 8, COSTS).trace();
        assertEquals(a.messageCount(), b.messageCount());
        assertEquals(a.idealCompletion(5), b.idealCompletion(5));
    }
}
