package io.nicbridge.protocols.cards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.medusa.MedusaStatistics;
import io.nicbridge.bridge.driver.medusa.MedusaStatistics.Counter;
import io.nicbridge.contract.Medusa;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.fault.FaultPlan;
import io.nicbridge.sim.fddi.FddiRing;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A Medusa is reset in the middle of an all-to-all go-back-N exchange on a four-station FDDI ring
 * ({@link io.nicbridge.sim.medusa.MedusaCard#hardwareReset}): it drops off the ring, its FIFOs and registers are
 * gone. Its driver's periodic watchdog sees CTRL without RX_EN/TX_EN/RING_JOIN at its next tick (within one period;
 * two are asserted), re-initialises the card, re-queues the frames the card forgot, and the ring re-forms; the
 * cores' retransmissions then deliver every message exactly once, in order. Without the watchdog the station stays
 * off the ring and the exchange cannot finish.
 */
class MedusaCardResetTest {
    static final int NODES = 4;
    static final int MESSAGES = 150;
    static final int SIZE = 200;
    static final long WATCHDOG = TimeUnit.MILLISECONDS.toNanos(20);

    @Test
    void resetMidStreamIsDetectedWithinTwoTimeoutsAndGoBackNDeliversEverythingOnce() {
        int victim = 2;
        try (MedusaRing ring = new MedusaRing(NODES, EngineMode.VIRTUAL, 31, FaultPlan.NONE)) {
            VirtualTimeBase vt = ring.virtualTime();
            ring.drivers.forEach(d -> d.watchdog(vt, WATCHDOG));
            Run run = start(ring);
            assertTrue(vt.runUntil(() -> run.app.delivered() >= run.app.expectedTotal() / 3, vt.nanoTime()
                    + TimeUnit.SECONDS.toNanos(10)), "the exchange got going");
            long before = run.app.delivered();
            long resetAt = vt.nanoTime();
            ring.cards.get(victim).hardwareReset();
            assertEquals(0, ring.cards.get(victim).registers().read(Medusa.REGS_OFS + Medusa.REG_CTRL) & Medusa.CTRL_RING_JOIN,
                    "the reset card no longer asks to be on the ring");
            MedusaStatistics stats = ring.drivers.get(victim).statistics();
            assertTrue(vt.runUntil(() -> stats.get(Counter.CARD_RESETS) == 1, resetAt + 2 * WATCHDOG),
                    () -> "reset not found within 2 x " + WATCHDOG + " ns; " + stats);
            long detected = vt.nanoTime() - resetAt;
            assertTrue(vt.runUntil(run.app::isDone, vt.nanoTime() + TimeUnit.SECONDS.toNanos(30)),
                    () -> "delivered " + run.app.delivered() + " of " + run.app.expectedTotal() + " after the reset");
            assertEquals(0, run.app.errors(), run.app::firstError);
            assertTrue(run.app.delivered() > before);
            assertEquals(1, stats.get(Counter.CARD_RESETS));
            assertEquals(1, ring.drivers.get(victim).counters().cardResets(), "the port's counters tell a protocol too");
            for (int i = 0; i < NODES; i++) {
                if (i != victim) {
                    assertEquals(0, ring.drivers.get(i).statistics().get(Counter.CARD_RESETS), "node " + i);
                }
            }
            assertEquals(NODES, ring.ring.memberCount(), "the station is back on the ring");
            assertEquals(FddiRing.STATE_OPERATIONAL, ring.ring.state());
            assertTrue(detected <= 2 * WATCHDOG, "detected after " + detected + " ns");
            System.out.printf("Medusa reset of node %d: detected after %d us (watchdog %d us), %d retransmitted, %s%n",
                    victim, detected / 1000, WATCHDOG / 1000,
                    MedusaGoBackNTest.retransmitted(run.runner::node, NODES), stats);
        }
    }

    @Test
    void withoutTheWatchdogTheResetStationStaysOffTheRing() {
        try (MedusaRing ring = new MedusaRing(NODES, EngineMode.VIRTUAL, 31, FaultPlan.NONE)) {
            VirtualTimeBase vt = ring.virtualTime();
            Run run = start(ring);
            assertTrue(vt.runUntil(() -> run.app.delivered() >= run.app.expectedTotal() / 3, vt.nanoTime()
                    + TimeUnit.SECONDS.toNanos(10)));
            ring.cards.get(2).hardwareReset();
            assertFalse(vt.runUntil(run.app::isDone, vt.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500)));
            assertEquals(NODES - 1, ring.ring.memberCount());
            assertEquals(0, run.app.errors(), run.app::firstError);
        }
    }

    record Run(Exchange app, NodeRunner runner) {
    }

    static Run start(MedusaRing ring) {
        VirtualTimeBase vt = ring.virtualTime();
        Exchange app = new Exchange(NODES, MESSAGES, SIZE);
        GoBackNConfig cfg = new GoBackNConfig(4, SIZE, TimeUnit.MILLISECONDS.toNanos(2));
        NodeRunner runner = new NodeRunner(vt, ring.links(), HostCpu.forNodes(NODES, CostTable.zero(), vt),
                (l, s, cpu) -> new GoBackNCore(l, s, cfg, cpu), app, NodeSlowness.NONE);
        app.start(vt, runner);
        return new Run(app, runner);
    }
}
