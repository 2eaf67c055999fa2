package io.nicbridge.protocols.unet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.bridge.driver.unet.UnetKernelDriver;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.testbed.UnetLinkTestbed;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An SBA-200's i960 firmware restarts in the middle of a go-back-N stream ({@link UnetLinkTestbed#resetCard}): board
 * RAM is cleared, every endpoint and channel is forgotten. The node's U-Net kernel driver finds it with its periodic
 * firmware check within one period, replays EP_CREATE, CH_OPEN and EP_UPCALL through the command queue, and the
 * endpoint resumes on its fresh page; the sends the card lost complete as lost and the core's retransmissions deliver
 * every message exactly once and in order. Without the check the endpoint meets the blank page's indices and
 * refuses to go on (its documented answer to an impossible consumer index).
 */
class GoBackNOnSba200CardResetTest {
    static final int MESSAGES = 400;
    static final long PERIOD = TimeUnit.MICROSECONDS.toNanos(500);

    record World(UnetLinkTestbed tb, VirtualTimeBase vt, Exchange app, NodeRunner runner) {
    }

    static World start(UnetLinkTestbed tb) {
        VirtualTimeBase world = tb.virtualTimeBase();
        Exchange app = new Exchange(2, MESSAGES, GoBackNOnSba200VirtualTest.CONFIG.maxMessage());
        NodeRunner runner = new NodeRunner(world, tb.links(), HostCpu.forNodes(2, CostTable.zero(), world),
                (link, clock, cpu) -> new GoBackNCore(link, clock, GoBackNOnSba200VirtualTest.CONFIG, cpu), app,
                NodeSlowness.NONE);
        Timer t = world.newTimer("start", () -> {
            for (int i = 0; i < runner.nodeCount(); i++) {
                app.afterEvent(runner.node(i));
                runner.node(i).applicationActed();
            }
        });
        t.armAfter(0);
        return new World(tb, world, app, runner);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void firmwareRestartMidStreamIsFoundWithinOnePeriodAndGoBackNDeliversEverythingOnce(int victim) {
        try (UnetLinkTestbed tb = UnetLinkTestbed.builder(EngineMode.VIRTUAL).seed(5).buffers(256, 16, 48)
                .watchdog(PERIOD).build()) {
            World w = start(tb);
            VirtualTimeBase vt = w.vt();
            assertTrue(vt.runUntil(() -> w.app().delivered() >= MESSAGES / 2, vt.nanoTime()
                    + TimeUnit.SECONDS.toNanos(5)), "the stream got going");
            long before = w.app().delivered();
            long resetAt = vt.nanoTime();
            tb.resetCard(victim);
            UnetKernelDriver kernel = tb.kernel(victim);
            UnetEndpoint ep = tb.endpoint(victim);
            assertTrue(vt.runUntil(() -> kernel.firmwareRestarts() == 1, resetAt + PERIOD + 1),
                    "restart not found within one period");
            long detected = vt.nanoTime() - resetAt;
            assertTrue(vt.runUntil(() -> !kernel.isRecovering(), vt.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5)),
                    "endpoints re-created");
            long recovered = vt.nanoTime() - resetAt;
            assertFalse(ep.isRestarting());
            assertEquals(0, kernel.replayErrors());
            assertTrue(vt.runUntil(w.app()::done, vt.nanoTime() + TimeUnit.SECONDS.toNanos(20)),
                    () -> "delivered " + w.app().delivered() + " of " + 2 * MESSAGES + " after the restart");
            long finished = vt.nanoTime() - resetAt;
            assertEquals(0, w.app().errors(), w.app().firstError());
            assertEquals(2L * MESSAGES, w.app().delivered());
            assertTrue(w.app().delivered() > before);
            assertEquals(1, kernel.firmwareRestarts());
            assertEquals(0, tb.kernel(1 - victim).firmwareRestarts(), "the other card was fine");
            assertEquals(1, ep.restarts());
            assertTrue(detected <= PERIOD, "found after " + detected + " ns");
            // 200 messages each way take about 2 ms on a clean run: the rest must not crawl on retransmission
            // timeouts after the restart (a receive queue out of step with the card's did, at 126 ms).
            assertTrue(finished < TimeUnit.MILLISECONDS.toNanos(20), "stream done " + finished + " ns after the restart");
            assertEquals(48, ep.freeBuffersPosted() + ep.pendingReposts(), "every receive buffer is the card's again");
            System.out.printf("SBA-200 firmware restart of node %d: found after %d us (period %d us), endpoints back"
                    + " after %d us, stream done %d us after the restart; sends lost %d, messages dropped %d,"
                    + " retransmitted %d%n", victim, detected / 1000, PERIOD / 1000, recovered / 1000, finished / 1000, ep.sendsLostInRestart(), ep.messagesLostInRestart(),
                    ((GoBackNCore) w.runner().node(0).core()).counters().retransmitted()
                            + ((GoBackNCore) w.runner().node(1).core()).counters().retransmitted());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0})
    void withoutTheCheckTheStreamStops(int victim) {
        try (UnetLinkTestbed tb = UnetLinkTestbed.builder(EngineMode.VIRTUAL).seed(5).buffers(256, 16, 48).build()) {
            World w = start(tb);
            VirtualTimeBase vt = w.vt();
            assertTrue(vt.runUntil(() -> w.app().delivered() >= MESSAGES / 2, vt.nanoTime()
                    + TimeUnit.SECONDS.toNanos(5)));
            tb.resetCard(victim);
            // The endpoint, not told, reads the blank page's sq_cons 0 as impossible and refuses to go on.
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> vt.runUntil(w.app()::done, vt.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100)));
            assertTrue(refused.getMessage().contains("impossible"), refused.getMessage());
            assertFalse(w.app().done());
            assertEquals(0, w.app().errors(), w.app().firstError());
        }
    }
}
