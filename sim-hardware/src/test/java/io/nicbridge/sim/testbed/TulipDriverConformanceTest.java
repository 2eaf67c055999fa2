package io.nicbridge.sim.testbed;

import static io.nicbridge.contract.Dec21140.*;
import static io.nicbridge.sim.testing.TulipTestFrames.SEQ;
import static io.nicbridge.sim.testing.TulipTestFrames.TIMEOUT;
import static io.nicbridge.sim.testing.TulipTestFrames.checkFrame;
import static io.nicbridge.sim.testing.TulipTestFrames.receive;
import static io.nicbridge.sim.testing.TulipTestFrames.send;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipConfig.InterruptMode;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.driver.tulip.TulipStatistics.Counter;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing;
import io.nicbridge.sim.engine.EngineMode;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The Tulip driver checks that only the emulated 21140 can make: a frame with a bad FCS on the wire, virtual time
 * (equal round trips, a world that does not run), the inline engine's synchronous delivery (a filtered frame is
 * decided before commit returns), and handle misuse. The checks every backend must pass - ring layout, accept test,
 * FL - 4, stop, acknowledge, filters, overrun, interrupts - are in
 * {@link io.nicbridge.sim.backends.TulipBackendConformanceTest}, run on the emulator and on the native shim.
 */
class TulipDriverConformanceTest {

    static TulipTestbed bed(EngineMode mode, TulipConfig config) {
        TulipTestbed bed = TulipTestbed.builder().mode(mode).config(config).build();
        bed.awaitFiltersLoaded(TIMEOUT);
        return bed;
    }

    static TulipConfig polling() {
        return TulipConfig.builder().interruptMode(InterruptMode.POLLING).build();
    }


    // ------------------------------------------------------------------ what only an emulated wire can do

    @Test
    void badFcsIsDeliveredAsCrcErrorAndCounted() throws Exception {
        try (TulipTestbed bed = bed(EngineMode.INLINE, polling())) {
            TulipDriver b = bed.driver(1);
            byte[] frame = new byte[64];
            TulipTestbed.mac(1).writeTo(MemorySegment.ofArray(frame), 0);
            TulipTestbed.mac(0).writeTo(MemorySegment.ofArray(frame), 6);
            frame[60] = 0x12; // a wrong FCS
            bed.card(1).model().frameArrived(MemorySegment.ofArray(frame), 0, frame.length);
            int h = receive(b);
            int rdes0 = b.rxDescriptorStatus(h);
            assertTrue((rdes0 & RDES0_CE) != 0);
            assertNotEquals(LINUX_RX_ACCEPT_VALUE, rdes0 & LINUX_RX_ACCEPT_MASK);
            assertEquals(FrameStatus.CRC_ERROR, b.rxStatus(h) & FrameStatus.CRC_ERROR);
            assertEquals(60, b.rxLength(h));
            b.release(h);
            assertEquals(1, b.statistics().get(Counter.RX_CRC_ERRORS));
            assertEquals(1, b.counters().rxErrors());
            assertEquals(0, b.counters().rxFrames());
        }
    }

    // ------------------------------------------------------------------ CSR8 as Linux counts it

    /**
     * CSR8 with MFO set: the 16-bit missed-frame counter saturated, and the driver counts 0x10000 as Linux's
     * tulip_interrupt does ({@code missed & 0x10000 ? 0x10000 : missed}), not the saturated count plus 0x10000.
     * Without MFO it counts the field. The card's counters are set raw: 65536 real misses would only slow the test.
     */
    @Test
    void missedFrameOverflowCountsAsLinuxDoes() {
        try (TulipTestbed bed = bed(EngineMode.INLINE, polling())) {
            TulipDriver b = bed.driver(1);
            var csr = bed.card(1).model().registers();
            csr.getAndBitwiseOrRaw(CSR5, CSR5_RU);
            csr.storeRaw(CSR8, CSR8_MFO | CSR8_MFC_MASK);
            b.acknowledge();
            assertEquals(0x10000, b.statistics().get(Counter.RX_MISSED));
            csr.getAndBitwiseOrRaw(CSR5, CSR5_RU);
            csr.storeRaw(CSR8, 7);
            b.acknowledge();
            assertEquals(0x10000 + 7, b.statistics().get(Counter.RX_MISSED));
            assertEquals(0x10000 + 7, b.counters().rxDrops());
        }
    }

    // ------------------------------------------------------------------ IC and reclaim: the driver's choice

    /**
     * The driver's IC choice (TulipDriver's "Transmit interrupts and reclaim"): with frames piling up (virtual time
     * stands still while they are committed), TI is asked for by the frame committed with half the ring outstanding
     * and by those from ring - 2 on, and by no other; and, unlike Linux, not at the wrap: one frame at a time through
     * the whole ring carries no IC, each completion reported by the TU of the suspending chip instead.
     */
    @Test
    void transmitInterruptsAtHalfAndNearlyFullRingOnly() {
        int ring = 16;
        TulipConfig config = TulipConfig.builder().interruptMode(InterruptMode.POLLING).txRingSize(ring).build();
        try (TulipTestbed bed = bed(EngineMode.VIRTUAL, config)) {
            TulipDriver a = bed.driver(0);
            var csr = bed.card(0).registers();
            var chip = bed.card(0).counters();
            long dst = bed.driver(1).stationAddress().value();
            int committed = 0;
            while (send(a, a.stationAddress(), dst, committed, 64)) {
                committed++;
            }
            assertTrue(committed >= ring - 1, "a full ring: " + committed);
            csr.write(CSR5, LINUX_CSR5_ACK_MASK);
            List<Boolean> ti = new ArrayList<>();
            long done = chip.txDescriptors();
            while (ti.size() < committed && bed.virtualTime().step()) {
                if (chip.txDescriptors() > done) { // one frame's descriptor closed: did it raise TI?
                    done = chip.txDescriptors();
                    ti.add((csr.read(CSR5) & CSR5_TI) != 0);
                    csr.write(CSR5, CSR5_TI);
                }
            }
            for (int k = 0; k < committed; k++) {
                assertEquals(k == ring / 2 || k >= ring - 2, ti.get(k), "IC on frame " + k);
            }
            bed.virtualTime().runUntilIdle();
            for (int k = 0; k < ring + 1; k++) { // one at a time: each completes before the next; the wrap included
                csr.write(CSR5, LINUX_CSR5_ACK_MASK);
                assertTrue(send(a, a.stationAddress(), dst, committed + k, 64));
                bed.virtualTime().runUntilIdle();
                assertEquals(0, csr.read(CSR5) & CSR5_TI, "no IC on a lone frame, " + k);
                assertEquals(CSR5_TU, csr.read(CSR5) & CSR5_TU, "TU reports it");
            }
        }
    }

    /**
     * The driver's reclaim choice: descriptors come back on the sending thread, in claim(), not in the line's
     * handler, which only signals TX_SPACE on TI/TU. What makes that enough: a claim refused for a full ring is always
     * followed by TX_SPACE, after which a claim succeeds and every frame is accounted for.
     */
    @Test
    void aRefusedClaimIsFollowedByTxSpaceAndTheNextClaimReclaims() {
        int ring = 16;
        TulipConfig config = TulipConfig.builder().interruptMode(InterruptMode.INTERRUPT).txRingSize(ring).build();
        try (TulipTestbed bed = bed(EngineMode.VIRTUAL, config)) {
            TulipDriver a = bed.driver(0);
            AtomicInteger txSpace = new AtomicInteger();
            assertTrue(a.readinessListener(events -> {
                if ((events & io.nicbridge.bridge.port.PortReadiness.TX_SPACE) != 0) {
                    txSpace.incrementAndGet();
                }
            }));
            long dst = bed.driver(1).stationAddress().value();
            int committed = 0;
            while (send(a, a.stationAddress(), dst, committed, 64)) {
                committed++;
            }
            assertEquals(FramePort.NONE, a.claim(), "full ring: back-pressure");
            int before = txSpace.get();
            bed.virtualTime().runUntilIdle();
            assertTrue(txSpace.get() > before, "TX_SPACE after the refusal");
            assertTrue(send(a, a.stationAddress(), dst, committed, 64), "the claim reclaims and succeeds");
            bed.virtualTime().runUntilIdle();
            assertEquals(0, a.transmitInFlight(), "everything sent and reclaimed");
            assertEquals(0, a.statistics().get(Counter.TX_ERRORS));
            assertEquals(committed + 1, bed.card(0).counters().txFrames());
        }
    }

    // ------------------------------------------------------------------ two drivers on one wire

    @Test
    void twoDriversExchangeFramesInVirtualTimeWithEqualRoundTrips() {
        exchangeInVirtualTime(300);
    }

    private void exchangeInVirtualTime(int frames) {
        try (TulipTestbed bed = bed(EngineMode.VIRTUAL, TulipConfig.defaults())) {
            TulipDriver a = bed.driver(0);
            TulipDriver b = bed.driver(1);
            AtomicInteger got = new AtomicInteger();
            List<Long> times = new ArrayList<>();
            b.onInterrupt((d, csr5) -> {
                int h;
                while ((h = d.poll()) != FramePort.NONE) {
                    int seq = d.rxBuffer(h).get(SEQ, 14);
                    checkFrame(d, h, seq, 64);
                    d.release(h);
                    assertTrue(send(d, d.stationAddress(), a.stationAddress().value(), seq, 64));
                }
            });
            a.onInterrupt((d, csr5) -> {
                int h;
                while ((h = d.poll()) != FramePort.NONE) {
                    int seq = d.rxBuffer(h).get(SEQ, 14);
                    assertEquals(got.get(), seq);
                    d.release(h);
                    times.add(bed.virtualTime().nanoTime());
                    if (got.incrementAndGet() < frames) {
                        assertTrue(send(d, d.stationAddress(), b.stationAddress().value(), seq + 1, 64));
                    }
                }
            });
            assertTrue(send(a, a.stationAddress(), b.stationAddress().value(), 0, 64));
            bed.virtualTime().runUntilIdle();
            assertEquals(frames, got.get());
            // every round trip takes the same simulated time
            long rtt = times.get(1) - times.get(0);
            for (int i = 2; i < times.size(); i++) {
                assertEquals(rtt, times.get(i) - times.get(i - 1));
            }
        }
    }

    // ------------------------------------------------------------------ filter

    @Test
    void runtimeFilterChangeUsesHashModeBehindLinuxDummyDescriptor() throws Exception {
        try (TulipTestbed bed = bed(EngineMode.INLINE, polling())) {
            TulipDriver a = bed.driver(0);
            TulipDriver b = bed.driver(1);
            // move B's TX ring off entry 0 first
            assertTrue(send(b, b.stationAddress(), a.stationAddress().value(), 0, 64));
            a.release(receive(a));
            List<MacAddress> groups = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                groups.add(MacAddress.of(0x0100_5E00_1000L + i));
            }
            assertTrue(b.setReceiveFilter(groups, false, false));
            Dec21140DescriptorRing tx = b.transmitRing();
            // entry 0 = first setup, 1 = frame, 2 = dummy (no FS/LS, length 0), 3 = hash setup frame
            assertEquals(0, tx.control(2) & ~TDES1_TER);
            assertEquals(LINUX_TDES1_SETUP_HASH, tx.control(3) & ~TDES1_TER);
            assertTrue(b.awaitFilterLoaded(TIMEOUT, null), "the hash setup frame was not processed");
            assertTrue(tx.isHostOwned(2) && tx.isHostOwned(3));
            assertTrue(send(a, a.stationAddress(), groups.get(7).value(), 7, 64));
            int h = receive(b);
            checkFrame(b, h, 7, 64);
            b.release(h);
            // a group whose hash bit is not set is filtered
            long outsider = 0;
            boolean[] used = new boolean[512];
            used[255] = true;
            for (MacAddress g : groups) {
                used[io.nicbridge.bridge.driver.tulip.TulipSetupFrame.hashIndex(g.value())] = true;
            }
            for (long c = 0x0100_5E00_2000L; outsider == 0; c++) {
                if (!used[io.nicbridge.bridge.driver.tulip.TulipSetupFrame.hashIndex(c)]) {
                    outsider = c;
                }
            }
            assertTrue(send(a, a.stationAddress(), outsider, 8, 64));
            assertEquals(FramePort.NONE, b.poll());
            assertTrue(send(a, a.stationAddress(), b.stationAddress().value(), 9, 64));
            h = receive(b);
            checkFrame(b, h, 9, 64);
            b.release(h);
        }
    }

    // ------------------------------------------------------------------ back-pressure and overrun

    @Test
    void fullTransmitRingIsBackPressureNotAnException() {
        TulipConfig small = TulipConfig.builder().txRingSize(4).build();
        try (TulipTestbed bed = TulipTestbed.builder().mode(EngineMode.VIRTUAL).config(small).build()) {
            bed.awaitFiltersLoaded(TIMEOUT);
            TulipDriver a = bed.driver(0);
            long peer = bed.driver(1).stationAddress().value();
            int sent = 0;
            while (send(a, a.stationAddress(), peer, sent, 64)) { // the world does not run: nothing completes
                sent++;
            }
            assertEquals(4, sent);
            assertEquals(FramePort.NONE, a.claim());
            assertEquals(2, a.counters().txBackPressure());
            bed.virtualTime().runUntilIdle();
            assertTrue(send(a, a.stationAddress(), peer, sent, 64), "space again once the chip finished");
            assertEquals(5, a.counters().txFrames());
        }
    }

    @Test
    void misuseOfHandlesThrows() {
        try (TulipTestbed bed = bed(EngineMode.INLINE, polling())) {
            TulipDriver a = bed.driver(0);
            assertThrows(IllegalStateException.class, () -> a.commit(0, 64));
            assertThrows(IllegalStateException.class, () -> a.release(0));
            int h = a.claim();
            assertThrows(IllegalArgumentException.class, () -> a.commit(h, TulipDriver.MAX_FRAME + 1));
            assertThrows(IllegalArgumentException.class, () -> a.commit(h, 0));
            a.abort(h);
            assertThrows(IllegalStateException.class, () -> a.txBuffer(h));
            assertThrows(IllegalArgumentException.class,
                () -> a.setReceiveFilter(List.of(TulipTestbed.mac(1)), false, false));
            assertArrayEquals(TulipTestbed.mac(0).toBytes(), java.util.Arrays.copyOfRange(a.serialRom(),
                SROM_MAC_OFS, SROM_MAC_OFS + 6));
        }
    }
}
