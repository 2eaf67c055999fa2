package io.nicbridge.protocols.unet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.runner.ThreadPerNodeRunner;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.testbed.UnetLinkTestbed;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The same go-back-N core and the same application as in virtual time, in real time: two emulated SBA-200s through
 * the ATM switch, one event-loop thread per node, the cards on their own engine threads (threaded) or worked by the
 * nodes' own polls (inline). The endpoints' readiness signal wakes a node's loop from the card's thread.
 */
class GoBackNOnSba200RealTimeTest {
    static final int MTU = 256;
    static final int MESSAGES = 300;

    @ParameterizedTest
    @EnumSource(value = EngineMode.class, names = {"THREADED", "INLINE"})
    void everyMessageArrivesOnceAndInOrderBothWays(EngineMode mode) throws Exception {
        GoBackNConfig config = new GoBackNConfig(8, MTU - 16, TimeUnit.MILLISECONDS.toNanos(20));
        Exchange app = new Exchange(2, MESSAGES, config.maxMessage());
        try (UnetLinkTestbed tb = UnetLinkTestbed.builder(mode).buffers(MTU, 16, 48).build();
             ThreadPerNodeRunner runner = new ThreadPerNodeRunner("gbn-sba200-" + mode, tb.links(), CostTable.zero(),
                     (link, clock, cpu) -> new GoBackNCore(link, clock, config, cpu), app, TimeUnit.MICROSECONDS.toNanos(200))) {
            runner.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            IdleStrategy idle = BackoffIdle.cardWait(TimeUnit.MILLISECONDS.toNanos(1));
            while (!app.done() && System.nanoTime() < deadline) {
                idle.idle();
            }
            runner.close(); // joins the loops: their state is visible here
            assertEquals(0, app.errors(), app.firstError());
            assertEquals(2L * MESSAGES, app.delivered(), runner.node(0).core() + " / " + runner.node(1).core());
            assertTrue(tb.link(0).counters().txFrames() >= MESSAGES && tb.link(1).counters().rxFrames() >= MESSAGES,
                    tb.link(0) + " / " + tb.link(1));
        }
    }
}
