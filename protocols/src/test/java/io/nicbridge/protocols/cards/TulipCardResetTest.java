package io.nicbridge.protocols.cards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.tulip.TulipStatistics.Counter;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.sim.dec21140.Dec21140AddressFilter;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.testbed.TulipTestbed;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A 21140 loses its state in the middle of a go-back-N stream ({@link TulipTestbed#resetCard}): its driver's
 * periodic watchdog finds the reset through CSR6 at its next tick (within one period; two are asserted),
 * re-initialises the chip, and the
 * core's retransmissions then deliver every message exactly once and in order ({@link Exchange} checks it). Without
 * the watchdog the same reset stops the stream for good: the control that shows the recovery is the driver's.
 */
class TulipCardResetTest {
    static final int MESSAGES = 400;
    static final int SIZE = 64;
    static final long WATCHDOG = TimeUnit.MILLISECONDS.toNanos(1);

    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void resetMidStreamIsDetectedWithinTwoTimeoutsAndGoBackNDeliversEverythingOnce(int victim) {
        try (TulipTestbed bed = TulipTestbed.builder().mode(EngineMode.VIRTUAL).seed(21).watchdog(WATCHDOG)
                .build()) {
            Run run = start(bed);
            VirtualTimeBase vt = bed.virtualTime();
            assertTrue(vt.runUntil(() -> run.app.delivered() >= MESSAGES / 2, vt.nanoTime()
                    + TimeUnit.SECONDS.toNanos(5)), "the stream got going");
            long resetAt = vt.nanoTime();
            long before = run.app.delivered();
            bed.resetCard(victim);
            var stats = bed.driver(victim).statistics();
            assertTrue(vt.runUntil(() -> stats.get(Counter.CARD_RESETS) == 1, resetAt + 2 * WATCHDOG),
                    () -> "reset not found within 2 x " + WATCHDOG + " ns; " + stats);
            long detected = vt.nanoTime() - resetAt;
            assertTrue(vt.runUntil(run.app::isDone, vt.nanoTime() + TimeUnit.SECONDS.toNanos(5)),
                    () -> "delivered " + run.app.delivered() + " of " + run.app.expectedTotal() + " after the reset");
            assertEquals(0, run.app.errors(), run.app::firstError);
            assertEquals(1, stats.get(Counter.CARD_RESETS), stats::toString);
            assertEquals(0, bed.driver(1 - victim).statistics().get(Counter.CARD_RESETS), "the other card was fine");
            assertEquals(1, bed.driver(victim).counters().cardResets(), "the port's counters tell a protocol too");
            assertEquals(0, bed.driver(1 - victim).counters().cardResets());
            assertTrue(bed.card(victim).model().filterMode() != Dec21140AddressFilter.MODE_NONE,
                    "the setup frame was loaded again");
            assertTrue(run.app.delivered() > before);
            assertTrue(detected <= 2 * WATCHDOG, "detected after " + detected + " ns");
            long retransmitted = ((GoBackNCore) run.runner.node(0).core()).counters().retransmitted()
                    + ((GoBackNCore) run.runner.node(1).core()).counters().retransmitted();
            assertTrue(retransmitted > 0, "the frames the reset lost came back by retransmission");
            System.out.printf("21140 reset of node %d: detected after %d us (watchdog %d us), %d retransmitted, %s%n",
                    victim, detected / 1000, WATCHDOG / 1000, retransmitted, stats);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0})
    void withoutTheWatchdogTheResetStopsTheStream(int victim) {
        try (TulipTestbed bed = TulipTestbed.builder().mode(EngineMode.VIRTUAL).seed(21).build()) {
            Run run = start(bed);
            VirtualTimeBase vt = bed.virtualTime();
            assertTrue(vt.runUntil(() -> run.app.delivered() >= MESSAGES / 2, vt.nanoTime()
                    + TimeUnit.SECONDS.toNanos(5)));
            bed.resetCard(victim);
            assertFalse(vt.runUntil(run.app::isDone, vt.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50)),
                    "a reset chip sends nothing until a driver restarts it");
            assertEquals(0, run.app.errors(), run.app::firstError);
        }
    }

    record Run(Exchange app, NodeRunner runner) {
    }

    static Run start(TulipTestbed bed) {
        bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
        Link[] links = TulipGoBackNTest.links(bed);
        VirtualTimeBase vt = bed.virtualTime();
        Exchange app = new Exchange(2, MESSAGES, SIZE);
        GoBackNConfig cfg = new GoBackNConfig(8, SIZE, TimeUnit.MICROSECONDS.toNanos(400));
        NodeRunner runner = new NodeRunner(vt, links, HostCpu.forNodes(links.length, CostTable.zero(), vt),
                (l, s, cpu) -> new GoBackNCore(l, s, cfg, cpu), app, NodeSlowness.NONE);
        app.start(vt, runner);
        return new Run(app, runner);
    }
}
