package io.nicbridge.protocols.pupa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.link.ForwardingLink;
import io.nicbridge.protocols.sim.FrameFaults;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PupaCoreTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final PupaConfig CONFIG = PupaConfig.defaults().withTimers(25 * MS, 10 * MS, 100_000);

    private static void assertClean(PupaWorld w) {
        w.drain(2_000 * MS);
        assertEquals(w.offered(), w.delivered, "everything offered was delivered");
        assertTrue(w.errors.isEmpty(), () -> w.errors.toString());
        assertNull(w.leaks(), "every FIFO, pool and held link buffer is back to empty");
    }

    @Test
    void smallMessagesArePackedUnlessTheFastPathIsAsked() {
        PupaWorld packed = new PupaWorld(2, 1498, CONFIG, FrameFaults.NONE);
        for (int i = 0; i < 200; i++) {
            packed.sendBlocking(0, 1, 8, false);
        }
        assertClean(packed);
        PupaWorld fast = new PupaWorld(2, 1498, CONFIG, FrameFaults.NONE);
        for (int i = 0; i < 200; i++) {
            fast.sendBlocking(0, 1, 8, true);
            fast.time.runFor(50_000); // 50 us apart: each goes alone
        }
        assertClean(fast);
        long packedData = packed.core(0).counters().packetsSent() - packed.core(0).counters().ackPacketsSent();
        long fastData = fast.core(0).counters().packetsSent() - fast.core(0).counters().ackPacketsSent();
        assertEquals(200, fastData, "fast path: one frame per message");
        assertTrue(packedData * 10 < 200, "packed: 200 messages in " + packedData + " frames");
        assertEquals(200, packed.core(1).counters().inPrimary(), "8-byte bodies live in the primary FIFO");
    }

    @Test
    void bodiesGoToThePrimaryFifoTheSecondaryPoolOrStayInTheLinkBuffer() {
        PupaWorld w = new PupaWorld(2, 1498, CONFIG, FrameFaults.NONE);
        int[] sizes = {0, 31, 32, 100, 128, 129, 1000, 1436, 1437, 2048, 4096, 10_000};
        for (int size : sizes) {
            w.sendBlocking(0, 1, size, true);
            w.sendBlocking(1, 0, size, false);
        }
        assertClean(w);
        PupaCounters rx = w.core(1).counters();
        // fragments: 0, 31 -> primary; 32, 100, 128 -> secondary; 129, 1000, 1436 -> mbuf; 1437 = 1436 + 1;
        // 2048 = 1436 + 612; 4096 = 2 x 1436 + 1224; 10000 = 6 x 1436 + 1384
        assertEquals(3, rx.inPrimary(), rx.toString());
        assertEquals(3, rx.inSecondary(), rx.toString());
        assertEquals(3 + 1 + 2 + 3 + 7, rx.inMbuf(), rx.toString());
        assertEquals(1436, w.core(0).fragmentSize());
    }

    @Test
    void aLossyMediumIsRepairedByNacksAndTimeouts() {
        FrameFaults lossy = (i, s, d, now, fate) -> fate.drop = i % 7 == 3;
        PupaWorld w = new PupaWorld(3, 1498, CONFIG, lossy);
        for (int i = 0; i < 300; i++) {
            w.sendBlocking(0, 1, 8 + i % 300, i % 3 == 0);
            w.sendBlocking(1, 0, 40, false);
            w.sendBlocking(2, i % 2, 200, true);
        }
        assertClean(w);
        long rexmit = 0;
        long nacks = 0;
        long outOfOrder = 0;
        for (int n = 0; n < 3; n++) {
            rexmit += w.core(n).counters().messagesRetransmitted();
            nacks += w.core(n).counters().validNacks();
            outOfOrder += w.core(n).counters().outOfOrder();
        }
        assertTrue(rexmit > 0 && nacks > 0 && outOfOrder > 0, "rexmit " + rexmit + ", nacks " + nacks + ", ooo "
                + outOfOrder);
    }

    /**
     * A go-back-N sender's frames in flight behind a loss all arrive out of order: one NACK answers them (the frames
     * echo the last NACK their sender acted on), and when the resent message is lost again the next out-of-order
     * frame draws a second NACK at once, so the gap is repaired by NACKs alone, long before the 25 ms timeout.
     */
    @Test
    void aResentMessageLostAgainIsNackedAgainAtOnceNotLeftToTheTimeout() {
        int[] dropsLeft = {2};
        PupaWorld w = PupaWorld.wrapped(2, 1498, CONFIG, (node, link) -> node != 0 ? link : new ForwardingLink(link) {
            @Override
            public void commit(int txHandle, int length) {
                MemorySegment f = txBuffer(txHandle);
                if (f.get(ValueLayout.JAVA_BYTE, PupaWire.OFF_TYPE) == PupaWire.DATA
                        && f.get(PupaWire.U32, PupaWire.FRAME_HEADER + PupaWire.M_SEQ) == 5 && dropsLeft[0] > 0) {
                    dropsLeft[0]--;
                    abort(txHandle); // lost on the wire: message 5, first sent and then resent
                    return;
                }
                super.commit(txHandle, length);
            }
        });
        long start = w.time.nanoTime();
        for (int i = 0; i < 40; i++) {
            w.sendBlocking(0, 1, 200, true);
        }
        w.drain(2_000 * MS);
        long took = w.time.nanoTime() - start;
        assertEquals(0, dropsLeft[0], "both copies of message 5 were dropped");
        assertEquals(w.offered(), w.delivered, () -> w.describe());
        assertTrue(w.errors.isEmpty(), () -> String.valueOf(w.errors));
        PupaCounters sender = w.core(0).counters();
        assertEquals(0, sender.timeouts(), () -> "repaired by NACKs, not timeouts: " + w.describe());
        assertEquals(2, sender.validNacks(), () -> "one NACK per loss, however many frames were behind it: "
                + w.describe());
        assertTrue(w.core(1).counters().outOfOrder() > 2, "several frames arrived behind each loss");
        assertTrue(took < CONFIG.rtoNanos(), "repaired in " + took + " ns, under one timeout");
    }

    @Test
    void aReceiverThatStopsTakingGetsOverflowZeroCreditThenCreditsBack() {
        PupaWorld w = new PupaWorld(2, 1498, CONFIG, FrameFaults.NONE);
        w.consume = false;
        for (int i = 0; i < 100; i++) {
            w.sendBlocking(0, 1, 8, true);
            w.time.runFor(20_000);
        }
        w.time.runFor(MS);
        assertEquals(0, w.core(1).receiveFifoFree(0), "the receive FIFO filled");
        assertTrue(w.core(1).counters().overflows() > 0);
        assertEquals(0, w.core(0).credit(1), "the overflow's NACK took the sender's credit to zero");
        long sentBefore = w.core(0).counters().messagesSent();
        w.time.runFor(3 * MS);
        assertTrue(w.core(0).counters().creditStalls() > 0);
        assertTrue(w.core(0).counters().messagesSent() == sentBefore, "no new data at zero credit");
        w.consume = true;
        w.runner.node(1).applicationActed();
        assertClean(w);
        assertEquals(PupaWire.UNLIMITED, w.core(0).credit(1), "unlimited again above the high-water mark");
        assertTrue(w.core(1).counters().creditUpdatesSent() > 0 || w.core(1).counters().ackPacketsSent() > 0);
    }

    @Test
    void withFlowControlOffAnOverflowOnlyNacksAndRetransmits() {
        PupaWorld w = new PupaWorld(2, 1498, CONFIG.withFlowControl(false), FrameFaults.NONE);
        w.consume = false;
        for (int i = 0; i < 100; i++) {
            w.sendBlocking(0, 1, 8, true);
            w.time.runFor(20_000);
        }
        w.time.runFor(MS);
        assertTrue(w.core(1).counters().overflows() > 0);
        assertEquals(PupaWire.UNLIMITED, w.core(0).credit(1));
        w.consume = true;
        w.runner.node(1).applicationActed();
        assertClean(w);
        assertTrue(w.core(0).counters().messagesRetransmitted() > 0);
    }

    @Test
    void senderControlledAcksSendFewerAckPacketsThanPerMessageAcks() {
        PupaWorld controlled = new PupaWorld(2, 1498, CONFIG, FrameFaults.NONE);
        PupaWorld each = new PupaWorld(2, 1498, CONFIG.withAckEveryMessage(true), FrameFaults.NONE);
        for (PupaWorld w : new PupaWorld[] {controlled, each}) {
            for (int i = 0; i < 500; i++) {
                w.sendBlocking(0, 1, 400, true);
                w.time.runFor(40_000); // about the wire's pace
            }
            assertClean(w);
        }
        long a = controlled.core(1).counters().ackPacketsSent();
        long b = each.core(1).counters().ackPacketsSent();
        assertTrue(a * 4 < b, "sender-controlled " + a + " ACK packets, per-message " + b);
        PupaCounters e = each.core(1).counters();
        assertTrue(e.requestedAcks() > 0 && e.requestedAcks() + e.timerAcks() <= e.ackPacketsSent()
            && e.requestedAcks() > 10 * e.timerAcks(), "per-message ACKs answer requests: " + e.requestedAcks()
            + " requested, " + e.timerAcks() + " by the timer, of " + e.ackPacketsSent());
        assertTrue(controlled.core(0).counters().validAcks() > 0);
    }

    @Test
    void theSenderEntersAckRequiredBelowTheLowWaterMarkAndLeavesAboveTheHighOne() {
        PupaWorld w = new PupaWorld(2, 1498, CONFIG.withTimers(50 * MS, 10 * MS, 1_000_000), FrameFaults.NONE);
        for (int i = 0; i < 50; i++) { // packed, not yet sent: the FIFO fills to 13 free
            assertTrue(w.send(0, 1, 8, false));
        }
        assertEquals(13, w.core(0).sendFifoFree(1));
        assertTrue(w.core(0).ackRequired(1));
        w.time.runFor(5 * MS); // the pack timer sends them asking for an ACK; the ACK lifts the state
        assertFalse(w.core(0).ackRequired(1));
        assertEquals(63, w.core(0).sendFifoFree(1));
        assertClean(w);
    }

    @Test
    void theAckTimerAcknowledgesAndEveryFiftiethExpirationBroadcasts() {
        boolean[] cut = {false};
        PupaWorld w = new PupaWorld(3, 1498, CONFIG, (i, s, d, now, fate) -> fate.drop = cut[0] && s == 1);
        w.sendBlocking(0, 1, 8, true); // not asking for an ACK: the receiver's timer answers
        w.time.runFor(5 * MS);
        assertEquals(62, w.core(0).sendFifoFree(1), "not acknowledged before the 10 ms timer");
        w.time.runFor(10 * MS);
        assertEquals(63, w.core(0).sendFifoFree(1), "acknowledged by the timer");
        assertTrue(w.core(1).counters().ackTimerExpirations() >= 1);
        assertEquals(1, w.core(1).counters().timerAcks(), "the one ACK-only packet is the timer's");
        assertEquals(0, w.core(1).counters().requestedAcks(), "nothing asked for an ACK");
        assertEquals(1, w.core(1).counters().ackPacketsSent());
        // node 1's answers are lost: node 0's timer keeps running while its message waits for an ACK
        cut[0] = true;
        w.sendBlocking(0, 1, 8, true);
        w.time.runFor(600 * MS);
        PupaCounters c = w.core(0).counters();
        assertTrue(c.ackTimerExpirations() >= 50 && c.broadcastAcks() >= 1, c.toString());
        assertTrue(c.timeouts() > 0);
        cut[0] = false;
        assertClean(w);
    }

    @Test
    void aFullSecondarySendPoolPushesBackAndAsksForAcks() {
        PupaWorld w = new PupaWorld(2, 1498, CONFIG.withSendPool(8, 512), FrameFaults.NONE);
        int accepted = 0;
        while (w.send(0, 1, 600, false)) { // two buffers each; one always stays free
            accepted++;
        }
        assertEquals(3, accepted);
        assertEquals(1, w.core(0).sendPoolAvailable(), "two free, one of them the buffer always kept");
        assertTrue(w.core(0).ackRequired(1));
        assertClean(w);
        assertEquals(7, w.core(0).sendPoolAvailable());
    }

    @Test
    void misuseIsRefusedWithTheBadArgumentNamed() {
        PupaWorld w = new PupaWorld(2, 1498, CONFIG, FrameFaults.NONE);
        MemorySegment m = MemorySegment.ofArray(new byte[16]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> w.core(0).offer(0, m, 0, 4));
        assertTrue(e.getMessage().contains("peer"));
        e = assertThrows(IllegalArgumentException.class, () -> w.core(0).offer(1, m, 0, -1));
        assertTrue(e.getMessage().contains("length"));
        assertThrows(IllegalArgumentException.class, () -> w.core(0).offer(1, m, 0, w.core(0).maxMessage() + 1));
        assertThrows(IllegalArgumentException.class, () -> PupaConfig.defaults().withSendPool(1, 512));
        assertThrows(IllegalArgumentException.class, () -> new PupaWorld(2, 40, CONFIG, FrameFaults.NONE));
    }

    @Test
    void tinyFramesFragmentEverything() {
        PupaWorld w = new PupaWorld(2, 64, CONFIG.withMaxMessage(200), FrameFaults.NONE);
        assertEquals(16, w.core(0).fragmentSize());
        for (int i = 0; i < 40; i++) {
            w.sendBlocking(0, 1, 8 + i * 4, i % 2 == 0);
        }
        assertClean(w);
    }
}
