package io.nicbridge.protocols.cstar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.careful.CarefulConfig;
import io.nicbridge.protocols.careful.CarefulCore;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.sim.engine.VirtualTimeBase;
import org.junit.jupiter.api.Test;

/** {@link Flooding#chargeProcessing}: the program's writing and reading of each fragment charged as copying. */
class FloodingProcessingTest {
    /** Copying costs 1 ns per byte; the careful core's operations are free (but priced, as a table must). */
    static CostTable copyPriced() {
        StringBuilder text = new StringBuilder(CostTable.zero().format("test").replace("copy.ps-per-byte = 0",
                "copy.ps-per-byte = 1000"));
        for (String op : new String[] {"shrink-window", "fill-in-window-update", "process-window-update",
            "track-last-event", "decrement-sender-window", "skip-copy-out"}) {
            text.append("op.careful.").append(op).append(".ps-per-call = 0\n");
        }
        return CostTable.parse(text.toString(), "test: 1 ns per copied byte");
    }

    record Run(Flooding.Outcome outcome, long copyPicos) {
    }

    static Run flood(CostTable table, boolean processing) {
        int nodes = 2;
        VirtualTimeBase time = new VirtualTimeBase(7);
        HostCpu[] cpus = HostCpu.forNodes(nodes, table, time);
        InMemoryMedium medium = new InMemoryMedium(time, new InMemoryMedium.Config(nodes, 4478, 64, 64, 5_000, 80),
                FrameFaults.NONE, cpus);
        Link[] links = {medium.link(0), medium.link(1)};
        Flooding app = new Flooding(nodes, new Flooding.Params(6, 2, 4, 1000));
        if (processing) {
            app.chargeProcessing(cpus);
        }
        CarefulConfig cfg = CarefulConfig.defaults().withReceiveBuffers(62).withEventSlots(16);
        NodeRunner runner = new NodeRunner(time, links, cpus, (l, c, cpu) -> new CarefulCore(l, cfg, cpu), app,
                NodeSlowness.NONE);
        Flooding.Outcome o = app.run(time, runner, links, 10_000_000, 10, 1_000_000_000L);
        return new Run(o, cpus[0].picos(CostItem.COPY) + cpus[1].picos(CostItem.COPY));
    }

    @Test
    void processingCostsTimeOnlyWhenChargedAndPricedAndChangesNothingElse() {
        Run plain = flood(copyPriced(), false);
        Run processed = flood(copyPriced(), true);
        assertEquals(Flooding.Verdict.COMPLETED, plain.outcome().verdict(), plain.toString());
        assertEquals(Flooding.Verdict.COMPLETED, processed.outcome().verdict(), processed.toString());
        assertEquals(plain.outcome().taken(), processed.outcome().taken());
        // each of 2 nodes writes its 6 x 4 fragments of 1000 bytes once and reads the other's 24 once: 48 000 bytes
        // per node at 1 ns per byte (a refused send composes again but is charged once)
        assertEquals(2 * 48_000L * 1000, processed.copyPicos() - plain.copyPicos());
        assertTrue(processed.outcome().endNanos() > plain.outcome().endNanos(), plain + " -> " + processed);
        assertEquals(flood(CostTable.zero(), false).outcome().endNanos(),
                flood(CostTable.zero(), true).outcome().endNanos(), "the zero table charges nothing");
    }

    @Test
    void oneCpuPerNode() {
        Flooding app = new Flooding(3, new Flooding.Params(1, 1, 1, 8));
        VirtualTimeBase time = new VirtualTimeBase(1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> app.chargeProcessing(HostCpu.forNodes(2, CostTable.zero(), time)));
        assertTrue(e.getMessage().contains("one per node wanted, 3, got 2"), e.getMessage());
    }
}
