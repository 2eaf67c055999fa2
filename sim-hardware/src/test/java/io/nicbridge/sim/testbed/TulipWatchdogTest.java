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
 * The Tulip driver's transmit watchdog against a 21140 that is reset behind its back
 * ({@link TulipTestbed#resetCard}), frame by frame: what is recovered, what is counted, and when.
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
            assertTrue(vt.runUntil(() -> a.statistics().get(Counter.CARD_RESETS) == 1, t0 + 2 * T));
            assertTrue(vt.nanoTime() - t0 <= 2 * T, "found at " + (vt.nanoTime() - t0) + " ns");
            List<Integer> got = new ArrayList<>();
            assertTrue(vt.runUntil(() -> {
                drain(b, got);
                return got.size() >= 5;
            }, vt.nanoTime() + T));
            vt.runUntil(vt.nanoTime() + 4 * T);
            drain(b, got);
            assertEquals(List.of(0, 1, 2, 3, 4), got, "every accepted frame, once, in order");
            assertEquals(0, a.transmitInFlight(), "all handed back");
            assertEquals(1, a.statistics().get(Counter.TX_TIMEOUTS));
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
            vt.runUntilIdle(); // in a's ring, not polled
            bed.resetCard(0);
            assertTrue(send(a, a.stationAddress(), b.stationAddress().value(), 7, 100));
            long t0 = vt.nanoTime();
            assertTrue(vt.runUntil(() -> a.statistics().get(Counter.CARD_RESETS) == 1, t0 + 2 * T));
            assertEquals(3, a.statistics().get(Counter.RX_LOST_IN_RESET));
            assertEquals(3, a.counters().rxDrops());
            vt.runUntilIdle();
            List<Integer> atB = new ArrayList<>();
            drain(b, atB);
            assertEquals(List.of(7), atB);
            for (int seq = 3; seq < 5; seq++) {
                assertTrue(send(b, b.stationAddress(), a.stationAddress().value(), seq, 100));
            }
            vt.runUntilIdle();
            List<Integer> atA = new ArrayList<>();
            drain(a, atA);
            assertEquals(List.of(3, 4), atA, "the ring starts over at descriptor 0 and the driver with it");
        }
    }

    @Test
    void withNothingInFlightTheWatchdogStaysDisarmedAndAHealthyChipIsNeverReset() {
        try (TulipTestbed bed = bed()) {
            TulipDriver a = bed.driver(0);
            VirtualTimeBase vt = bed.virtualTime();
            for (int seq = 0; seq < 20; seq++) {
                assertTrue(send(a, a.stationAddress(), bed.driver(1).stationAddress().value(), seq, 100));
                vt.runUntil(vt.nanoTime() + T / 2);
            }
            vt.runUntilIdle(); // returns: no timer left armed once everything was handed back
            assertEquals(0, a.statistics().get(Counter.TX_TIMEOUTS));
            assertEquals(0, a.statistics().get(Counter.CARD_RESETS));
        }
    }
}
