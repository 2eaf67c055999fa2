package io.nicbridge.sim.testbed;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.bridge.driver.unet.UnetKernelDriver;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An SBA-200's i960 firmware restarts behind its kernel driver's back ({@link UnetLinkTestbed#resetCard}): the
 * driver's periodic check finds it, replays what it had set up through the command queue, and the endpoint resumes;
 * what was lost is reported, the link counts the restart as a card reset ({@code PortCounters.cardResets()}), and it
 * works again.
 */
class UnetFirmwareRestartTest {
    static final long PERIOD = TimeUnit.MICROSECONDS.toNanos(200);

    static boolean send(Link l, int peer, int seq) {
        int h = l.claim(peer);
        if (h < 0) {
            return false;
        }
        l.txBuffer(h).set(ValueLayout.JAVA_INT_UNALIGNED, 0, seq);
        l.commit(h, 100);
        return true;
    }

    static void drain(Link l, List<Integer> into) {
        l.poll(new LinkHandler() {
            @Override
            public void onFrame(Link link, int rx) {
                into.add(link.rxBuffer(rx).get(ValueLayout.JAVA_INT_UNALIGNED, 0));
                link.release(rx);
            }

            @Override
            public void onWritable(Link link) {
            }
        }, 64);
    }

    @Test
    void theKernelFindsTheRestartReplaysItsSetupAndTheEndpointResumes() {
        try (UnetLinkTestbed tb = UnetLinkTestbed.builder(EngineMode.VIRTUAL).seed(9).watchdog(PERIOD).build()) {
            VirtualTimeBase vt = tb.virtualTimeBase();
            Link a = tb.link(0);
            Link b = tb.link(1);
            UnetKernelDriver kernel = tb.kernel(0);
            UnetEndpoint ep = tb.endpoint(0);
            vt.runFor(PERIOD * 3);
            for (int seq = 0; seq < 4; seq++) {
                assertTrue(send(a, 1, seq)); // in the card's send queue, not yet taken
            }
            long t0 = vt.nanoTime();
            tb.resetCard(0);
            assertEquals(BOOT_COLD_START, tb.card(0).registers().read(MONITOR_OFS + MONITOR_BOOT_STATUS_OFS));
            assertTrue(vt.runUntil(() -> kernel.firmwareRestarts() == 1, t0 + PERIOD + 1));
            assertTrue(ep.isRestarting());
            assertThrows(IllegalStateException.class, kernel::nop, "the kernel's own commands wait for the replay");
            assertTrue(vt.runUntil(() -> !kernel.isRecovering(), vt.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2)));
            assertFalse(ep.isRestarting());
            assertEquals(0, kernel.replayErrors());
            assertEquals(EP_ACTIVE, ep.epcbWord(EPCB_EP_STATUS_OFS) & EP_ACTIVE, "EP_CREATE replayed");
            assertEquals(UPCALL_NONEMPTY, ep.epcbWord(EPCB_UPCALL_MODE_OFS), "EP_UPCALL replayed");
            assertTrue(ep.isChannelOpen(0));
            assertEquals(4, ep.sendsLostInRestart(), "the send queue in board RAM was lost");
            // The link collects the lost sends as failed completions and gets its buffers back; both ways work again.
            List<Integer> atB = new ArrayList<>();
            List<Integer> atA = new ArrayList<>();
            for (int seq = 10; seq < 14; seq++) {
                assertTrue(send(a, 1, seq));
                assertTrue(send(b, 0, seq + 100));
            }
            assertTrue(vt.runUntil(() -> {
                drain(b, atB);
                drain(a, atA);
                return atB.size() >= 4 && atA.size() >= 4;
            }, vt.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5)));
            assertEquals(List.of(10, 11, 12, 13), atB);
            assertEquals(List.of(110, 111, 112, 113), atA, "the card holds receive buffers again");
            assertEquals(4, ep.sendCompletions(7), "lost sends counted as failed completions");
            assertEquals(48, ep.freeBuffersPosted(), "every receive buffer the link owns is the card's again");
            kernel.nop(); // and the kernel's command queue works after the replay
            assertEquals(1, a.counters().cardResets(), "the restart is a card reset of node 0's link");
            assertEquals(0, b.counters().cardResets(), "node 1's card ran on");
        }
    }

    @Test
    void aSendThatMeetsTheWipedPageBeforeTheCheckIsLostInTheRestartNotAFullQueue() {
        // The atm campaign's 8/3/15/reset@0:1691732,slow@0:608423:2193947:276675, reduced: the 33rd send after set-up
        // comes between the restart and the kernel's next check. The wiped page reads sq_cons 0, so the producer end
        // sees 32 uncollected (full) where the link's claim had counted none: "send queue full after a successful
        // claim" (and past 32 sends an impossible sq_cons, thrown as a corrupt card).
        try (UnetLinkTestbed tb = UnetLinkTestbed.builder(EngineMode.VIRTUAL).seed(9).watchdog(PERIOD).build()) {
            VirtualTimeBase vt = tb.virtualTimeBase();
            Link a = tb.link(0);
            Link b = tb.link(1);
            UnetKernelDriver kernel = tb.kernel(0);
            UnetEndpoint ep = tb.endpoint(0);
            List<Integer> atB = new ArrayList<>();
            for (int seq = 0; seq < SQ_LEN; seq++) { // sq_prod 32
                assertTrue(send(a, 1, seq));
                vt.runFor(PERIOD / 20);
                drain(b, atB);
            }
            vt.runFor(PERIOD / 2);
            drain(b, atB);
            tb.resetCard(0);
            vt.runFor(1_000); // the firmware booted again: the page is blank, the kernel has not looked yet
            assertEquals(0, ep.epcbWord(EPCB_EP_STATUS_OFS) & EP_ACTIVE, "the page is blank");
            assertEquals(0, kernel.firmwareRestarts());
            assertTrue(send(a, 1, 100), "claim and commit on the blank page: no exception");
            assertEquals(1, kernel.firmwareRestarts(), "the send had the kernel look at once");
            assertTrue(ep.isRestarting());
            assertTrue(send(a, 1, 101));
            assertTrue(vt.runUntil(() -> !kernel.isRecovering(), vt.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2)));
            assertTrue(ep.sendsLostInRestart() >= 2, "both sends were lost in the restart: " + ep.sendsLostInRestart());
            assertTrue(send(a, 1, 102));
            assertTrue(vt.runUntil(() -> {
                drain(b, atB);
                return atB.contains(102);
            }, vt.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2)));
            assertFalse(atB.contains(100) || atB.contains(101), "lost, for the protocol above to send again");
            assertEquals(1, kernel.firmwareRestarts());
        }
    }

    @Test
    void aRestartDuringTheReplayStartsTheReplayOver() {
        // The atm campaign's 68/2/1/reset@0:478964,reset@0:563104: the second restart wiped the commands the replay
        // had posted, and the kernel waited for their completion for ever.
        try (UnetLinkTestbed tb = UnetLinkTestbed.builder(EngineMode.VIRTUAL).seed(9).watchdog(PERIOD).build()) {
            VirtualTimeBase vt = tb.virtualTimeBase();
            Link a = tb.link(0);
            Link b = tb.link(1);
            UnetKernelDriver kernel = tb.kernel(0);
            UnetEndpoint ep = tb.endpoint(0);
            vt.runFor(PERIOD * 3);
            tb.resetCard(0);
            assertTrue(vt.runUntil(() -> kernel.firmwareRestarts() == 1, vt.nanoTime() + PERIOD + 1));
            assertTrue(kernel.isRecovering());
            vt.runFor(25_000); // the replay has posted its EP_CREATE (20 us after the check) and not collected it
            tb.resetCard(0);
            assertTrue(vt.runUntil(() -> !kernel.isRecovering(), vt.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2)),
                    "the replay never ended");
            assertEquals(2, kernel.firmwareRestarts());
            assertEquals(2, ep.restarts());
            assertEquals(0, kernel.replayErrors());
            assertEquals(EP_ACTIVE, ep.epcbWord(EPCB_EP_STATUS_OFS) & EP_ACTIVE);
            List<Integer> atB = new ArrayList<>();
            List<Integer> atA = new ArrayList<>();
            assertTrue(send(a, 1, 7));
            assertTrue(send(b, 0, 8));
            assertTrue(vt.runUntil(() -> {
                drain(b, atB);
                drain(a, atA);
                return !atB.isEmpty() && !atA.isEmpty();
            }, vt.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5)));
            assertEquals(List.of(7), atB);
            assertEquals(List.of(8), atA, "the card holds receive buffers again after the second re-creation");
            assertEquals(48, ep.freeBuffersPosted());
            assertEquals(2, a.counters().cardResets(), "each restart counts, the one during the replay too");
            assertEquals(0, b.counters().cardResets());
        }
    }
}
