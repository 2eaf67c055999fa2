package io.nicbridge.sim.backends;

import static io.nicbridge.contract.Dec21140.*;
import static io.nicbridge.sim.testing.TulipTestFrames.SEQ;
import static io.nicbridge.sim.testing.TulipTestFrames.TIMEOUT;
import static io.nicbridge.sim.testing.TulipTestFrames.checkFrame;
import static io.nicbridge.sim.testing.TulipTestFrames.receive;
import static io.nicbridge.sim.testing.TulipTestFrames.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipConfig.InterruptMode;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.driver.tulip.TulipStatistics.Counter;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing.ListMode;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing;
import io.nicbridge.bridge.regs.Registers;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import java.util.zip.CRC32;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Tulip driver's conformance checks, run unchanged on every backend that serves the 21140 contract: the
 * emulator (inline and threaded engines) and the native shim over a veth pair in two network namespaces (threaded
 * and inline card work). A backend that cannot run here (no CAP_NET_RAW, no namespaces, no library) is skipped with
 * the reason, or fails where NICBRIDGE_REQUIRE requires it (io.nicbridge.testing.Requirements). Checks are written for a real link: they wait for frames instead of assuming synchronous delivery.
 */
class TulipBackendConformanceTest {

    static TulipConfig polling() {
        return TulipConfig.builder().interruptMode(InterruptMode.POLLING).build();
    }

    /** Polling drivers, except where the backend needs a thread waiting on the line to move frames. */
    static TulipConfig usual(TulipBackend backend) {
        return backend.needsInterruptDriver() ? TulipConfig.defaults() : polling();
    }

    static TulipPair pair(TulipBackend backend, IntFunction<TulipConfig> configs) {
        TulipPair p = backend.open(configs);
        awaitFilters(p);
        return p;
    }

    static TulipPair pair(TulipBackend backend, TulipConfig config) {
        return pair(backend, i -> config);
    }

    static void awaitFilters(TulipPair p) {
        for (int i = 0; i < 2; i++) {
            assertTrue(p.driver(i).awaitFilterLoaded(TIMEOUT, p::idle), p.card(i).name() + ": setup frame not processed");
        }
    }

    static void sendOrFail(TulipPair p, int from, int to, int seq, int length) {
        long deadline = System.nanoTime() + TIMEOUT;
        while (!send(p.driver(from), p.mac(from), p.mac(to).value(), seq, length)) {
            assertTrue(System.nanoTime() < deadline, "transmit ring stayed full");
            p.idle();
        }
    }


    // ------------------------------------------------------------------ ring layout, SROM

    @ParameterizedTest
    @EnumSource(TulipBackend.class)
    void ringsAreLinuxStyleAndTheStationAddressComesFromTheSrom(TulipBackend backend) {
        try (TulipPair p = pair(backend, usual(backend))) {
            TulipDriver d = p.driver(0);
            for (Dec21140DescriptorRing ring : List.of(d.receiveRing(), d.transmitRing())) {
                int n = ring.count();
                for (int i = 0; i < n; i++) {
                    assertEquals(0, ring.control(i) & RDES1_RCH, "chain bit must be clear, descriptor " + i);
                    assertEquals(i == n - 1, (ring.control(i) & RDES1_RER) != 0, "end of ring only on the last");
                    assertEquals(ring.busAddress((i + 1) % n), ring.word3(i), "word 3 = next descriptor, " + i);
                }
            }
            Registers csr = p.card(0).registers();
            assertEquals((int) d.receiveRing().busBase(), csr.read(CSR3));
            assertEquals((int) d.transmitRing().busBase(), csr.read(CSR4));
            assertEquals(CSR6_SR | CSR6_ST, csr.read(CSR6) & (CSR6_SR | CSR6_ST));
            assertNotEquals(0, csr.read(CSR5) & CSR5_RS_TS_MASK, "both processes running");
            assertEquals(LINUX_CSR0_MWI_FALLBACK, csr.read(CSR0) & (CSR0_PBL_MASK | CSR0_CAL_MASK));
            assertEquals(p.mac(0), d.stationAddress(), "the MAC read from the SROM by bit-banging CSR9");
            assertEquals(p.mac(1), p.driver(1).stationAddress());
            assertEquals(SROM_ADDR_BITS_SMALL, d.serialRomAddressBits());
            assertTrue(d.transmitRing().isHostOwned(0), "the setup frame was processed and handed back");
        }
    }

    // ------------------------------------------------------------------ frames, FL - 4, FCS, padding

    @ParameterizedTest
    @EnumSource(TulipBackend.class)
    void framesPassLinuxAcceptTestWithFlMinusFcsAndTheRealFcs(TulipBackend backend) throws Exception {
        try (TulipPair p = pair(backend, usual(backend))) {
            TulipDriver b = p.driver(1);
            for (int length : new int[] {60, 61, 64, 100, 1000, 1514}) {
                sendOrFail(p, 0, 1, length, length);
                int h = receive(b);
                int rdes0 = b.rxDescriptorStatus(h);
                assertEquals(LINUX_RX_ACCEPT_VALUE, rdes0 & LINUX_RX_ACCEPT_MASK, Integer.toHexString(rdes0));
                assertEquals(length + ETH_FCS_LEN, Dec21140DescriptorRing.frameLength(rdes0));
                checkFrame(b, h, length, length);
                MemorySegment buf = b.rxBuffer(h);
                CRC32 crc = new CRC32();
                crc.update(buf.asSlice(0, length).asByteBuffer());
                assertEquals((int) crc.getValue(), buf.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(
                    ByteOrder.LITTLE_ENDIAN), length), "the card stored the FCS after the frame");
                b.release(h);
            }
            sendOrFail(p, 0, 1, 7, 20); // a short frame is padded to 60 + FCS
            int h = receive(b);
            assertEquals(ETH_MIN_FRAME_NOFCS, b.rxLength(h));
            assertEquals(7, b.rxBuffer(h).get(SEQ, 14));
            b.release(h);
            assertEquals(7, b.counters().rxFrames());
            assertEquals(0, b.counters().rxErrors());
            assertEquals(7, p.driver(0).counters().txFrames());
        }
    }

    @ParameterizedTest
    @EnumSource(TulipBackend.class)
    void chainModeAndSkipLengthAlsoCarryFrames(TulipBackend backend) throws Exception {
        TulipConfig.Builder base = backend.needsInterruptDriver() ? TulipConfig.builder()
            : TulipConfig.builder().interruptMode(InterruptMode.POLLING);
        TulipConfig chain = base.listMode(ListMode.CHAIN).rxRingSize(8).txRingSize(8).build();
        TulipConfig.Builder base2 = backend.needsInterruptDriver() ? TulipConfig.builder()
            : TulipConfig.builder().interruptMode(InterruptMode.POLLING);
        TulipConfig skip = base2.skipLongwords(3).rxRingSize(8).txRingSize(8).build();
        try (TulipPair p = pair(backend, i -> i == 0 ? chain : skip)) {
            TulipDriver a = p.driver(0);
            TulipDriver b = p.driver(1);
            assertTrue((a.receiveRing().control(0) & RDES1_RCH) != 0);
            assertEquals(16 + 12, b.receiveRing().stride());
            for (int seq = 0; seq < 40; seq++) { // 5 laps of both rings
                sendOrFail(p, 0, 1, seq, 100);
                int h = receive(b);
                checkFrame(b, h, seq, 100);
                b.release(h);
                sendOrFail(p, 1, 0, seq, 200);
                h = receive(a);
                checkFrame(a, h, seq, 200);
                a.release(h);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(TulipBackend.class)
    void frameLongerThanOneBufferIsALengthErrorAndTheRingGoesOn(TulipBackend backend) throws Exception {
        try (TulipPair p = pair(backend, usual(backend))) {
            TulipDriver b = p.driver(1);
            byte[] frame = new byte[1596];
            MemorySegment f = MemorySegment.ofArray(frame);
            p.mac(1).writeTo(f, 0);
            p.mac(0).writeTo(f, 6);
            p.inject(1, frame);
            p.awaitFramesSeen(1, 1, TIMEOUT);
            long deadline = System.nanoTime() + TIMEOUT;
            while (b.statistics().get(Counter.RX_LENGTH_ERRORS) == 0) {
                assertEquals(FramePort.NONE, b.poll(), "both descriptors of the spread frame are consumed");
                assertTrue(System.nanoTime() < deadline, "no length error counted");
                p.idle();
            }
            assertTrue(b.counters().rxErrors() >= 1);
            sendOrFail(p, 0, 1, 1, 64);
            int h = receive(b);
            checkFrame(b, h, 1, 64);
            b.release(h);
        }
    }

    // ------------------------------------------------------------------ stop, acknowledge, interrupts

    @ParameterizedTest
    @EnumSource(TulipBackend.class)
    void stopClearsSrStAndWaitsForBothProcessStates(TulipBackend backend) {
        try (TulipPair p = pair(backend, usual(backend))) {
            Registers csr = p.card(0).registers();
            assertTrue(p.driver(0).stop());
            assertEquals(0, csr.read(CSR5) & CSR5_RS_TS_MASK);
            assertEquals(0, csr.read(CSR6) & (CSR6_SR | CSR6_ST));
            assertEquals(0, csr.read(CSR7));
        }
    }

    @ParameterizedTest
    @EnumSource(TulipBackend.class)
    void acknowledgeClearsEverySourceThatWasSetAndLowersTheLine(TulipBackend backend) throws Exception {
        try (TulipPair p = pair(backend, TulipConfig.defaults())) {
            TulipDriver b = p.driver(1);
            Registers csr = p.card(1).registers();
            assertEquals(LINUX_VALID_INTRS, csr.read(CSR7));
            b.acknowledge();
            sendOrFail(p, 0, 1, 1, 64);
            long deadline = System.nanoTime() + TIMEOUT;
            while ((csr.read(CSR5) & CSR5_RI) == 0) { // other sources (TU after the setup frame) may come first
                assertTrue(p.card(1).interrupt().await(TIMEOUT, TimeUnit.NANOSECONDS), "RI raises the line");
                assertTrue(System.nanoTime() < deadline, "no RI");
                p.idle();
            }
            // A threaded card drives the Java line right after its poll, a moment after CSR5 shows RI: wait for it.
            assertTrue(p.card(1).interrupt().await(TIMEOUT, TimeUnit.NANOSECONDS), "RI raises the line");
            int before = csr.read(CSR5);
            assertTrue((before & CSR5_RI) != 0, Integer.toHexString(before));
            assertTrue((before & CSR5_NIS) != 0);
            int seen = b.acknowledge();
            assertEquals(before & LINUX_CSR5_ACK_MASK, seen & LINUX_CSR5_ACK_MASK & before);
            int after = csr.read(CSR5);
            assertEquals(0, after & LINUX_CSR5_ACK_MASK & before, "every source that was set is cleared");
            assertNotEquals(0, after & CSR5_RS_MASK, "RS is read-only: writing 1s did not stop the receive process");
            assertFalse(p.card(1).interrupt().isAsserted());
            int h = b.poll();
            checkFrame(b, h, 1, 64);
            b.release(h);
        }
    }

    @ParameterizedTest
    @EnumSource(TulipBackend.class)
    void interruptModeRaisesTheLinePollingModeNever(TulipBackend backend) throws Exception {
        try (TulipPair p = pair(backend, i -> i == 0 || backend.needsInterruptDriver() ? TulipConfig.defaults()
            : polling())) {
            TulipDriver a = p.driver(0);
            TulipDriver b = p.driver(1);
            a.acknowledge(); // start low: whatever the setup frame raised is not one of the 20
            long edgesA = p.card(0).interrupt().assertions();
            long edgesB = p.card(1).interrupt().assertions();
            for (int seq = 0; seq < 20; seq++) {
                sendOrFail(p, 0, 1, seq, 64);
                int h = receive(b);
                checkFrame(b, h, seq, 64);
                b.release(h);
                sendOrFail(p, 1, 0, seq, 64);
                h = receive(a); // waits on the interrupt line
                checkFrame(a, h, seq, 64);
                a.release(h);
                a.acknowledge(); // the line falls, so the next frame's RI is a new edge on every backend
            }
            assertTrue(p.card(0).interrupt().assertions() - edgesA >= 20, "edges: " + (p.card(0).interrupt().assertions() - edgesA));
            if (!backend.needsInterruptDriver()) {
                assertEquals(0, p.card(1).registers().read(CSR7));
                assertEquals(edgesB, p.card(1).interrupt().assertions(), "CSR7 = 0: the line never rises");
            }
            assertTrue(a.statistics().get(Counter.INTERRUPTS) >= 1);
        }
    }

    // ------------------------------------------------------------------ two drivers exchange

    @ParameterizedTest
    @EnumSource(TulipBackend.class)
    void twoDriversExchangeFramesInOrder(TulipBackend backend) throws Exception {
        int frames = 300;
        try (TulipPair p = pair(backend, backend == TulipBackend.EMU_INLINE ? polling() : TulipConfig.defaults())) {
            TulipDriver a = p.driver(0);
            TulipDriver b = p.driver(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread echo = Thread.ofPlatform().start(() -> {
                try {
                    for (int seq = 0; seq < frames; seq++) {
                        int h = receive(b);
                        checkFrame(b, h, seq, 64 + seq);
                        b.release(h);
                        sendOrFail(p, 1, 0, seq, 64 + seq);
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            for (int seq = 0; seq < frames && failure.get() == null; seq++) {
                sendOrFail(p, 0, 1, seq, 64 + seq);
                int h = receive(a);
                checkFrame(a, h, seq, 64 + seq);
                a.release(h);
            }
            echo.join(TIMEOUT / 1_000_000);
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertEquals(frames, a.counters().rxFrames());
            assertEquals(frames, b.counters().rxFrames());
            assertEquals(0, a.counters().rxDrops() + b.counters().rxDrops());
        }
    }

    // ------------------------------------------------------------------ filter

    @ParameterizedTest
    @EnumSource(TulipBackend.class)
    void perfectMulticastFilterPassesListedGroupsOnly(TulipBackend backend) throws Exception {
        MacAddress g1 = MacAddress.parse("01:00:5e:00:00:01");
        MacAddress g2 = MacAddress.parse("01:00:5e:00:00:02");
        TulipConfig.Builder withGroup = backend.needsInterruptDriver() ? TulipConfig.builder()
            : TulipConfig.builder().interruptMode(InterruptMode.POLLING);
        TulipConfig group = withGroup.addMulticast(g1).build();
        try (TulipPair p = pair(backend, i -> i == 1 ? group : usual(backend))) {
            TulipDriver a = p.driver(0);
            TulipDriver b = p.driver(1);
            long filteredBefore = p.framesFiltered(1);
            long seenBefore = p.framesSeen(1);
            assertTrue(send(a, p.mac(0), g2.value(), 2, 64));
            assertTrue(send(a, p.mac(0), MacAddress.parse("02:00:00:00:00:09").value(), 3, 64));
            assertTrue(send(a, p.mac(0), g1.value(), 1, 64));
            assertTrue(send(a, p.mac(0), MacAddress.BROADCAST.value(), 4, 64));
            int h = receive(b);
            checkFrame(b, h, 1, 64);
            b.release(h);
            h = receive(b);
            checkFrame(b, h, 4, 64);
            b.release(h);
            p.awaitFramesSeen(1, seenBefore + 4, TIMEOUT);
            assertEquals(FramePort.NONE, b.poll());
            assertEquals(2, p.framesFiltered(1) - filteredBefore);
        }
    }

    // ------------------------------------------------------------------ overrun, bus errors

    @ParameterizedTest
    @EnumSource(TulipBackend.class)
    void receiveRingOverrunCountsMissedFramesNoneLostSilently(TulipBackend backend) throws Exception {
        TulipConfig.Builder builder = backend.needsInterruptDriver() ? TulipConfig.builder()
            : TulipConfig.builder().interruptMode(InterruptMode.POLLING);
        TulipConfig smallRx = builder.rxRingSize(4).build();
        try (TulipPair p = pair(backend, smallRx)) {
            TulipDriver b = p.driver(1);
            int sent = 10;
            long seenBefore = p.framesSeen(1);
            for (int seq = 0; seq < sent; seq++) {
                sendOrFail(p, 0, 1, seq, 64);
            }
            p.awaitFramesSeen(1, seenBefore + sent, TIMEOUT);
            int received = 0;
            int h;
            while ((h = b.poll()) != FramePort.NONE) {
                checkFrame(b, h, received, 64);
                b.release(h);
                received++;
            }
            assertEquals(4, received);
            assertEquals(sent - received, b.statistics().get(Counter.RX_MISSED), b.statistics().toString());
            assertEquals(sent, b.counters().rxFrames() + b.counters().rxDrops());
            sendOrFail(p, 0, 1, 99, 64); // and reception resumes
            h = receive(b);
            checkFrame(b, h, 99, 64);
            b.release(h);
        }
    }

    /**
     * A pulled cable: the card's signal detect drops, and frames sent meanwhile come back with NC|LO|ES, which the
     * driver counts as Linux does (tx_errors and tx_carrier_errors, not packets); nothing reaches the peer. With the
     * cable back frames flow again.
     */
    @ParameterizedTest
    @EnumSource(TulipBackend.class)
    void framesSentWithoutCarrierAreCarrierErrors(TulipBackend backend) throws Exception {
        try (TulipPair p = pair(backend, usual(backend))) {
            TulipDriver a = p.driver(0);
            TulipDriver b = p.driver(1);
            Registers csr = p.card(0).registers();
            p.plug(0, false);
            awaitCsr12(p, csr, 0);
            long seenBefore = p.framesSeen(1);
            for (int seq = 0; seq < 3; seq++) {
                sendOrFail(p, 0, 1, seq, 64);
            }
            long deadline = System.nanoTime() + TIMEOUT;
            while (a.statistics().get(Counter.TX_CARRIER) < 3) {
                assertTrue(System.nanoTime() < deadline, a.statistics().toString());
                a.transmitInFlight(); // reclaims
                p.idle();
            }
            assertEquals(3, a.statistics().get(Counter.TX_ERRORS));
            assertEquals(seenBefore, p.framesSeen(1), "nothing crossed the pulled cable");
            p.plug(0, true);
            awaitCsr12(p, csr, SMC9332_GPIO_SD_100MB);
            sendOrFail(p, 0, 1, 7, 64);
            int h = receive(b);
            checkFrame(b, h, 7, 64);
            b.release(h);
            assertEquals(3, a.statistics().get(Counter.TX_CARRIER));
        }
    }

    private static void awaitCsr12(TulipPair p, Registers csr, int signalDetect) {
        long deadline = System.nanoTime() + TIMEOUT;
        while ((csr.read(CSR12) & SMC9332_GPIO_SD_100MB) != signalDetect) {
            assertTrue(System.nanoTime() < deadline, "CSR12 signal detect never became " + signalDetect);
            p.idle();
        }
    }

    @ParameterizedTest
    @EnumSource(TulipBackend.class)
    void receiveBufferOutsideTheDmaSpaceIsAFatalBusError(TulipBackend backend) throws Exception {
        try (TulipPair p = pair(backend, TulipConfig.defaults())) {
            TulipDriver b = p.driver(1);
            Dec21140DescriptorRing rx = b.receiveRing();
            // Descriptor 0 is where the chip will put the next frame: point its buffer at an unmapped bus address.
            // (A buggy driver: it rewrites RDES2 of a descriptor the card owns.)
            rx.segment().set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), rx.offsetOf(0) + 8,
                0xFFF0_0000);
            long errorsBefore = p.busErrors(1);
            sendOrFail(p, 0, 1, 1, 64);
            long deadline = System.nanoTime() + TIMEOUT;
            Registers csr = p.card(1).registers();
            while ((csr.read(CSR5) & CSR5_FBE) == 0) {
                assertTrue(System.nanoTime() < deadline, "no fatal bus error: CSR5 0x"
                    + Integer.toHexString(csr.read(CSR5)));
                p.idle();
            }
            int csr5 = csr.read(CSR5);
            assertEquals(EB_MASTER_ABORT, (csr5 & CSR5_EB_MASK) >>> CSR5_EB_SHIFT);
            assertEquals(0, csr5 & CSR5_RS_TS_MASK, "both processes stopped");
            assertEquals(errorsBefore + 1, p.busErrors(1));
            assertFalse(rx.isHostOwned(0), "the descriptor is not completed");
        }
    }
}
