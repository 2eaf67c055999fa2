package io.nicbridge.protocols.unet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.protocols.am.AmCore;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.sim.atm.AtmSwitch;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.testbed.UnetLinkTestbed;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * U-Net Active Messages, unchanged, on two emulated SBA-200s through the ATM switch in virtual time, with the
 * paper's configuration (w = 8, 4160-byte buffers): requests go as single-cell inline PDUs, store and get chunks as
 * buffer PDUs of up to 88 cells; lost cells (the card drops the damaged PDU) are repaired by go-back-N.
 */
class ActiveMessagesOnSba200Test {
    static final int OPERATIONS = 150;

    record Run(long digest, long endNanos, long completed, long retransmitted, long rxErrors, long inlineRequests) {
    }

    static Run run(long seed, Consumer<AtmSwitch.Builder> faults) {
        AmExchange app = new AmExchange(AmExchange.PAPER, OPERATIONS);
        int mtu = AmExchange.PAPER.linkMtu();
        try (UnetLinkTestbed tb = UnetLinkTestbed.builder(EngineMode.VIRTUAL).seed(seed).switchOptions(faults)
                .buffers(mtu, 16, 40).build()) {
            VirtualTimeBase world = tb.virtualTimeBase();
            NodeRunner runner = new NodeRunner(world, tb.links(), HostCpu.forNodes(2, CostTable.zero(), world),
                    app.cores(), app, NodeSlowness.NONE);
            Timer start = world.newTimer("start", () -> {
                for (int i = 0; i < 2; i++) {
                    app.afterEvent(runner.node(i));
                    runner.node(i).applicationActed();
                }
            });
            start.armAfter(0);
            boolean finished = world.runUntil(app::done, world.nanoTime() + TimeUnit.SECONDS.toNanos(20));
            AmCore a = (AmCore) runner.node(0).core();
            AmCore b = (AmCore) runner.node(1).core();
            assertEquals(0, app.errors(), app.firstError());
            assertTrue(finished, "completed " + app.completed() + " of " + 2 * OPERATIONS + ": " + a + " / " + b);
            return new Run(runner.traceDigest(), world.nanoTime(), app.completed(),
                    a.channel().counters().retransmitted() + b.channel().counters().retransmitted(),
                    tb.link(0).counters().rxErrors() + tb.link(1).counters().rxErrors(),
                    a.counters().requestsSent() + b.counters().requestsSent());
        }
    }

    @Test
    void requestsStoresAndGetsAllCompleteCheckedAndTheSameSeedGivesTheSameTrace() {
        Run first = run(5, sw -> { });
        assertEquals(2L * OPERATIONS, first.completed());
        assertEquals(0, first.retransmitted(), "a lossless switch needs no retransmission");
        assertEquals(first, run(5, sw -> { }));
    }

    @Test
    void lostCellsAreRepairedByGoBackN() {
        Run lossy = run(9, sw -> {
            for (int p = 0; p < 2; p++) {
                sw.downlinkFaults(p, io.nicbridge.sim.fault.FaultPlan.builder().seed(90 + p).drop(0.0005).build());
            }
        });
        assertEquals(2L * OPERATIONS, lossy.completed());
        assertTrue(lossy.rxErrors() > 0 && lossy.retransmitted() > 0, lossy.toString());
    }
}
