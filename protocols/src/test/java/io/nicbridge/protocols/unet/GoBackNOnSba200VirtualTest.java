package io.nicbridge.protocols.unet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.unet.UnetLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.sim.atm.AtmSwitch;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.fault.FaultPlan;
import io.nicbridge.sim.testbed.UnetLinkTestbed;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The go-back-N core, unchanged, on two emulated SBA-200s through the ATM switch, in virtual time: the runner shares
 * the cards' {@link VirtualTimeBase}, so cards, switch, cores and application are one deterministic world.
 */
class GoBackNOnSba200VirtualTest {
    static final int MTU = 256;
    static final int MESSAGES = 400;
    static final GoBackNConfig CONFIG = new GoBackNConfig(8, MTU - 16, TimeUnit.MILLISECONDS.toNanos(1));

    /** What one run left behind. */
    record Run(long digest, long dispatches, long endNanos, long timeouts, long retransmitted, long rxErrors,
               long completedSends, long delivered, long txBackPressure) {
    }

    static Run run(long seed, Consumer<AtmSwitch.Builder> faults) {
        return run(2, MESSAGES, seed, faults);
    }

    static Run run(int nodes, int messages, long seed, Consumer<AtmSwitch.Builder> faults) {
        Exchange app = new Exchange(nodes, messages, CONFIG.maxMessage());
        try (UnetLinkTestbed tb = UnetLinkTestbed.builder(EngineMode.VIRTUAL).nodes(nodes).seed(seed)
                .switchOptions(faults).buffers(MTU, 16, 48).build()) {
            VirtualTimeBase world = tb.virtualTimeBase();
            NodeRunner runner = new NodeRunner(world, tb.links(),
                    HostCpu.forNodes(tb.links().length, CostTable.zero(), world),
                    (link, clock, cpu) -> new GoBackNCore(link, clock, CONFIG, cpu), app, NodeSlowness.NONE);
            Timer start = world.newTimer("start", () -> {
                for (int i = 0; i < runner.nodeCount(); i++) {
                    app.afterEvent(runner.node(i));
                    runner.node(i).applicationActed();
                }
            });
            start.armAfter(0);
            long limit = world.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            boolean finished = world.runUntil(app::done, limit);
            assertEquals(0, app.errors(), app.firstError());
            assertTrue(finished, "delivered " + app.delivered() + " of " + nodes * (nodes - 1) * messages + " by "
                    + world.nanoTime()
                    + " ns: " + runner.node(0).core() + " / " + runner.node(1).core());
            GoBackNCore a = (GoBackNCore) runner.node(0).core();
            GoBackNCore b = (GoBackNCore) runner.node(1).core();
            long completed = tb.endpoint(0).sendCompletions(io.nicbridge.contract.Sba200Unet.TX_STATUS_SENT);
            UnetLink la = tb.link(0);
            UnetLink lb = tb.link(1);
            System.out.println(runner.costSummary()); // the table this card run was priced by
            return new Run(runner.traceDigest(), runner.dispatches(), world.nanoTime(),
                    a.counters().timeouts() + b.counters().timeouts(),
                    a.counters().retransmitted() + b.counters().retransmitted(),
                    la.counters().rxErrors() + lb.counters().rxErrors(), completed, app.delivered(),
                    la.counters().txBackPressure() + lb.counters().txBackPressure());
        }
    }

    static Consumer<AtmSwitch.Builder> cellLoss(long seed, double probability) {
        return sw -> {
            for (int p = 0; p < 2; p++) {
                sw.downlinkFaults(p, FaultPlan.builder().seed(seed * 31 + p).drop(probability).build());
            }
        };
    }

    @Test
    void everyMessageArrivesOnceAndInOrderBothWaysAndTheSameSeedGivesTheSameTrace() {
        Run first = run(7, sw -> { });
        Run again = run(7, sw -> { });
        assertEquals(2L * MESSAGES, first.delivered());
        assertEquals(first, again, "same seed, same world: same trace digest, same end time, same counters");
        assertEquals(0, first.timeouts(), "a lossless switch needs no retransmission");
        assertTrue(first.endNanos() > 0);
    }

    @Test
    void fourNodesEachTalkToEachOverTheirOwnChannels() {
        Run four = run(4, 100, 3, sw -> { });
        assertEquals(4L * 3 * 100, four.delivered());
        // 16 TX buffers for three peers' windows of 8: claims are refused, and onWritable brings the cores back at
        // the next poll (an arrival's readiness or the links' writable probe: the card signals no send completion).
        assertTrue(four.txBackPressure() > 0, four.toString());
        assertEquals(four, run(4, 100, 3, sw -> { }));
    }

    @Test
    void lostCellsAreRepairedByRetransmissionOnTheCardModelAndTheRunStaysDeterministic() {
        Run lossy = run(11, cellLoss(11, 0.01));
        assertEquals(2L * MESSAGES, lossy.delivered());
        assertTrue(lossy.rxErrors() > 0, "cell loss reached the endpoints as damaged PDUs: " + lossy);
        assertTrue(lossy.timeouts() > 0 && lossy.retransmitted() > 0, "the core went back and resent: " + lossy);
        assertEquals(lossy, run(11, cellLoss(11, 0.01)), "same seed, same faults, same trace");
        assertNotEquals(lossy.digest(), run(12, cellLoss(12, 0.01)).digest(), "another seed, another schedule");
    }
}
