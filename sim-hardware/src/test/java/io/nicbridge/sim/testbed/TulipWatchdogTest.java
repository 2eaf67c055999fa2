package io.nicbridge.sim.testbed;

import static io.nicbridge.sim.testing.TulipTestFrames.SEQ;
import static io.nicbridge.sim.testing.TulipTestFrames.checkFrame;
import static io.nicbridge.sim.testing.TulipTestFrames.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.driver.tulip.TulipStatistics.Counter;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.contract.Dec21140;
import io.nicbridge.sim.dec21140.Dec21140AddressFilter;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Tulip driver's periodic watchdog against a 21140 that is reset behind its back
 * ({@link TulipTestbed#resetCard}), frame by frame: what is recovered, what is counted, and when; and against
 * healthy chips (idle, busy, out of receive descriptors, stopped by the driver), which it must never reset.
 */
class TulipWatchdogTest {
    static final long T = TimeUnit.MILLISECONDS.toNanos(1);

    static TulipTestbed bed() {
        TulipTestbed bed = TulipTestbed.builder().mode(EngineMode.VIRTUAL).watchdog(T).build();
        bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
        return bed;
    }

    /** Polls {@code d} for frames with SEQ values, checks and releases them. */
    static void drain(TulipDriver d, List<Integer> into) {
        int h;
        while ((h = d.poll()) != FramePort.NONE) {
            int seq = d.rxBuffer(h).get(SEQ, 14);
            checkFrame(d, h, seq, 100);
            into.add(seq);
            d.release(h);
        }
    }

    @Test
    void framesAcceptedBeforeTheResetAreSentAfterItOnceAndInOrder() {
        try (TulipTestbed bed = bed()) {
            TulipDriver a = bed.driver(0);
            TulipDriver b = bed.driver(1);
            VirtualTimeBase vt = bed.virtualTime();
            long t0 = vt.nanoTime();
            for (int seq = 0; seq < 5; seq++) { // committed, and the chip has not run yet: none is taken
                assertTrue(send(a, a.stationAddress(), b.stationAddress().value(), seq, 100));
            }
            bed.resetCard(0);
            assertEquals(0, bed.card(0).registers().read(Dec21140.CSR6) & (Dec21140.CSR6_SR | Dec21140.CSR6_ST),
                    "the reset stopped both processes");
            assertEquals(Dec21140AddressFilter.MODE_NONE, bed.card(0).model().filterMode(), "and emptied the filter");
            assertTrue(vt.runUntil(() -> a.statistics().get(Counter.CARD_RESETS) == 1, t0 + T));
            assertTrue(vt.nanoTime() - t0 <= T, "found at the next tick, at " + (vt.nanoTime() - t0) + " ns");
            List<Integer> got = new ArrayList<>();
            assertTrue(vt.runUntil(() -> {
                drain(b, got);
                return got.size() >= 5;
            }, vt.nanoTime() + T));
            vt.runUntil(vt.nanoTime() + 4 * T);
            drain(b, got);
            assertEquals(List.of(0, 1, 2, 3, 4), got, "every accepted frame, once, in order");
            assertEquals(0, a.transmitInFlight(), "all handed back");
            assertEquals(0, a.statistics().get(Counter.TX_TIMEOUTS), "found by CSR6, not as a stuck transmission");
            assertEquals(2, a.statistics().get(Counter.SETUP_FRAMES), "the filter was loaded again");
            assertEquals(Dec21140.CSR6_SR | Dec21140.CSR6_ST,
                    bed.card(0).registers().read(Dec21140.CSR6) & (Dec21140.CSR6_SR | Dec21140.CSR6_ST));
            // and the re-initialised chip receives again
            assertTrue(send(b, b.stationAddress(), a.stationAddress().value(), 9, 100));
            List<Integer> back = new ArrayList<>();
            assertTrue(vt.runUntil(() -> {
                drain(a, back);
                return !back.isEmpty();
            }, vt.nanoTime() + T));
            assertEquals(List.of(9), back);
        }
    }

    @Test
    void receivedFramesNotYetPolledAreLostAndCounted() {
        try (TulipTestbed bed = bed()) {
            TulipDriver a = bed.driver(0);
            TulipDriver b = bed.driver(1);
            VirtualTimeBase vt = bed.virtualTime();
            for (int seq = 0; seq < 3; seq++) {
                assertTrue(send(b, b.stationAddress(), a.stationAddress().value(), seq, 100));
            }
            vt.runUntil(vt.nanoTime() + T / 10); // in a's ring, not polled (a tick is a period away)
            bed.resetCard(0);
            assertTrue(send(a, a.stationAddress(), b.stationAddress().value(), 7, 100));
            long t0 = vt.nanoTime();
            assertTrue(vt.runUntil(() -> a.statistics().get(Counter.CARD_RESETS) == 1, t0 + T));
            assertEquals(3, a.statistics().get(Counter.RX_LOST_IN_RESET));
            assertEquals(3, a.counters().rxDrops());
            vt.runUntil(vt.nanoTime() + T / 2);
            List<Integer> atB = new ArrayList<>();
            drain(b, atB);
            assertEquals(List.of(7), atB);
            for (int seq = 3; seq < 5; seq++) {
                assertTrue(send(b, b.stationAddress(), a.stationAddress().value(), seq, 100));
            }
            vt.runUntil(vt.nanoTime() + T / 2);
            List<Integer> atA = new ArrayList<>();
            drain(a, atA);
            assertEquals(List.of(3, 4), atA, "the ring starts over at descriptor 0 and the driver with it");
        }
    }

    @Test
    void aResetNodeThatOnlyReceivesIsFoundByTheHealthCheck() {
        // The schedule 162/3/14/reset@1:1814064 of the ethernet campaign, reduced: the reset node has nothing left to
        // send, so no transmission is ever pending on it; only a look at CSR6 finds that its receive process stopped.
        try (TulipTestbed bed = bed()) {
            TulipDriver a = bed.driver(0);
            TulipDriver b = bed.driver(1);
            VirtualTimeBase vt = bed.virtualTime();
            bed.resetCard(0);
            long t0 = vt.nanoTime();
            assertEquals(0, a.transmitInFlight(), "a sends nothing");
            assertEquals(0, bed.card(0).registers().read(Dec21140.CSR5) & Dec21140.CSR5_RS_MASK,
                    "the reset stopped the receive process");
            assertTrue(vt.runUntil(() -> a.statistics().get(Counter.CARD_RESETS) == 1, t0 + T),
                    () -> "not found within one period: " + a.statistics());
            assertEquals(0, a.statistics().get(Counter.TX_TIMEOUTS));
            assertTrue(send(b, b.stationAddress(), a.stationAddress().value(), 11, 100));
            List<Integer> atA = new ArrayList<>();
            assertTrue(vt.runUntil(() -> {
                drain(a, atA);
                return !atA.isEmpty();
            }, vt.nanoTime() + T / 2), "the re-initialised chip receives again");
            assertEquals(List.of(11), atA);
            assertEquals(0, a.transmitInFlight(), "a sent only the new setup frame, and got it back");
            assertEquals(2, a.statistics().get(Counter.SETUP_FRAMES), "the filter was loaded again");
            assertEquals(0, b.statistics().get(Counter.CARD_RESETS), "the sender's chip was fine");
        }
    }

    @Test
    void aHealthyChipIsNeverResetIdleBusyOutOfReceiveDescriptorsOrStopped() {
        try (TulipTestbed bed = bed()) {
            TulipDriver a = bed.driver(0);
            TulipDriver b = bed.driver(1);
            VirtualTimeBase vt = bed.virtualTime();
            assertEquals(T, a.watchdogNanos());
            vt.runUntil(vt.nanoTime() + 20 * T); // idle: twenty ticks read a running chip
            for (int seq = 0; seq < 20; seq++) { // busy: frames pending across ticks
                assertTrue(send(a, a.stationAddress(), b.stationAddress().value(), seq, 100));
                vt.runUntil(vt.nanoTime() + T / 2);
            }
            // b never polls: its receive ring fills and its receive process suspends (RU), SR still set
            int sent = 0;
            for (int k = 0; k < 200; k++) {
                if (send(a, a.stationAddress(), b.stationAddress().value(), 100 + k, 100)) {
                    sent++;
                }
                vt.runUntil(vt.nanoTime() + T / 20);
            }
            assertTrue(sent > 64, "enough to exhaust b's ring, sent " + sent);
            vt.runUntil(vt.nanoTime() + 5 * T);
            int csr5 = bed.card(1).registers().read(Dec21140.CSR5);
            assertEquals(Dec21140.RS_SUSPENDED, (csr5 & Dec21140.CSR5_RS_MASK) >>> Dec21140.CSR5_RS_SHIFT,
                    "b ran out of receive descriptors: CSR5 0x" + Integer.toHexString(csr5));
            assertEquals(0, a.statistics().get(Counter.CARD_RESETS), a.statistics()::toString);
            assertEquals(0, b.statistics().get(Counter.CARD_RESETS), b.statistics()::toString);
            assertEquals(0, a.statistics().get(Counter.TX_TIMEOUTS), "every transmission came back within a period");
            // a chip the driver stopped itself reads CSR6 as the driver wrote it: not a reset either
            assertTrue(a.stop());
            vt.runUntil(vt.nanoTime() + 5 * T);
            assertEquals(0, a.statistics().get(Counter.CARD_RESETS));
        }
    }
}
