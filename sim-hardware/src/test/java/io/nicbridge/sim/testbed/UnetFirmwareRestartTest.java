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
 * what was lost is reported, and the link works again.
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
        }
    }
}
