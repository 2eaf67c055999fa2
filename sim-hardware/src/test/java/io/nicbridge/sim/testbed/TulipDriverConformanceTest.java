package io.nicbridge.sim.testbed;

import static io.nicbridge.contract.Dec21140.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipConfig.InterruptMode;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.driver.tulip.TulipStatistics.Counter;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing.ListMode;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.sim.engine.EngineMode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Tulip driver against the emulated 21140, checking that the chip is used the way Linux's tulip driver uses it
 * (ring layout, accept test, FL - 4, stop, acknowledge mask) and that frames move between two drivers on one wire
 * in every engine mode.
 */
class TulipDriverConformanceTest {
    static final ValueLayout.OfInt SEQ = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final long TIMEOUT = TimeUnit.SECONDS.toNanos(5);

    static TulipTestbed bed(EngineMode mode, TulipConfig config) {
        TulipTestbed bed = TulipTestbed.builder().mode(mode).config(config).build();
        bed.awaitFiltersLoaded(TIMEOUT);
        return bed;
    }

    static TulipConfig polling() {
        return TulipConfig.builder().interruptMode(InterruptMode.POLLING).build();
    }

    /** Composes a frame to {@code dst} with {@code seq} at byte 14 and a pattern after it. */
    static boolean send(FramePort p, MacAddress src, long dst, int seq, int length) {
        int h = p.claim();
        if (h == FramePort.NONE) {
            return false;
        }
        MemorySegment b = p.txBuffer(h);
        MacAddress.write(dst, b, 0);
        src.writeTo(b, 6);
        b.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 12, (short) 0x88B5);
        b.set(SEQ, 14, seq);
        for (int i = 18; i < length; i++) {
            b.set(ValueLayout.JAVA_BYTE, i, (byte) (seq + i));
        }
        p.commit(h, length);
        return true;
    }

    static int receive(FramePort p) throws InterruptedException {
        int h = p.await(TIMEOUT, TimeUnit.NANOSECONDS);
        assertNotEquals(FramePort.NONE, h, p.name() + ": no frame within the timeout");
        return h;
    }

    static void checkFrame(FramePort p, int h, int seq, int length) {
        assertEquals(FrameStatus.OK, p.rxStatus(h), FrameStatus.describe(p.rxStatus(h)));
        assertEquals(length, p.rxLength(h));
        MemorySegment b = p.rxBuffer(h);
        assertEquals(seq, b.get(SEQ, 14));
        for (int i = 18; i < length; i++) {
            assertEquals((byte) (seq + i), b.get(ValueLayout.JAVA_BYTE, i), "byte " + i);
        }
    }

    // ------------------------------------------------------------------ ring layout, Linux style

    @Test
    void ringModeStoresNextDescriptorInWord3WithChainBitsClear() {
        try (TulipTestbed bed = bed(EngineMode.INLINE, polling())) {
            TulipDriver d = bed.driver(0);
            for (Dec21140DescriptorRing ring : List.of(d.receiveRing(), d.transmitRing())) {
                int n = ring.count();
                for (int i = 0; i < n; i++) {
                    int control = ring.control(i);
                    assertEquals(0, control & RDES1_RCH, "chain bit must be clear, descriptor " + i);
                    assertEquals(i == n - 1, (control & RDES1_RER) != 0, "end of ring only on the last, " + i);
                    assertEquals(ring.busAddress((i + 1) % n), ring.word3(i), "word 3 = next descriptor, " + i);
                }
            }
            Dec21140DescriptorRing rx = d.receiveRing();
            assertEquals(LINUX_RX_RING_SIZE, rx.count());
            assertEquals(LINUX_TX_RING_SIZE, d.transmitRing().count());
            for (int i = 0; i < rx.count(); i++) {
                assertEquals(LINUX_RX_BUF_SIZE, rx.control(i) & RDES1_RBS1_MASK);
                assertEquals(0, (rx.control(i) & RDES1_RBS2_MASK) >>> RDES1_RBS2_SHIFT, "no buffer 2");
                assertTrue((rx.status(i) & RDES0_OWN) != 0, "armed");
            }
            // The setup frame went first, at entry 0: SET, 192 bytes, no dummy needed, processed by the chip.
            Dec21140DescriptorRing tx = d.transmitRing();
            assertEquals(LINUX_TDES1_SETUP_PERFECT, tx.control(0) & ~TDES1_TER);
            assertTrue(tx.isHostOwned(0));
            assertTrue(d.isFilterLoaded());
            Registers csr = bed.card(0).registers();
            assertEquals((int) rx.busBase(), csr.read(CSR3));
            assertEquals((int) tx.busBase(), csr.read(CSR4));
            int csr6 = csr.read(CSR6);
            assertEquals(CSR6_SR | CSR6_ST, csr6 & (CSR6_SR | CSR6_ST));
            assertEquals(LINUX_CSR0_MWI_FALLBACK, csr.read(CSR0) & (CSR0_PBL_MASK | CSR0_CAL_MASK));
            assertEquals(TulipTestbed.mac(0), d.stationAddress());
            assertEquals(SROM_ADDR_BITS_SMALL, d.serialRomAddressBits());
        }
    }

    @Test
    void chainModeAndSkipLengthAlsoCarryFrames() throws Exception {
        TulipConfig chain = TulipConfig.builder().interruptMode(InterruptMode.POLLING).listMode(ListMode.CHAIN)
            .rxRingSize(8).txRingSize(8).build();
        TulipConfig skip = TulipConfig.builder().interruptMode(InterruptMode.POLLING).skipLongwords(3)
            .rxRingSize(8).txRingSize(8).build();
        try (TulipTestbed bed = TulipTestbed.builder().config(i -> i == 0 ? chain : skip).build()) {
            bed.awaitFiltersLoaded(TIMEOUT);
            TulipDriver a = bed.driver(0);
            TulipDriver b = bed.driver(1);
            assertTrue((a.receiveRing().control(0) & RDES1_RCH) != 0);
            assertEquals(16 + 12, b.receiveRing().stride());
            for (int seq = 0; seq < 40; seq++) { // 5 laps of both rings
                assertTrue(send(a, a.stationAddress(), b.stationAddress().value(), seq, 100));
                int h = receive(b);
                checkFrame(b, h, seq, 100);
                b.release(h);
                assertTrue(send(b, b.stationAddress(), a.stationAddress().value(), seq, 200));
                h = receive(a);
                checkFrame(a, h, seq, 200);
                a.release(h);
            }
        }
    }

    // ------------------------------------------------------------------ accept test, FL - 4

    @Test
    void acceptedFramesPassLinuxTestAndLengthIsFlMinusFcs() throws Exception {
        try (TulipTestbed bed = bed(EngineMode.INLINE, polling())) {
            TulipDriver a = bed.driver(0);
            TulipDriver b = bed.driver(1);
            for (int length : new int[] {60, 61, 64, 100, 1000, 1514}) {
                assertTrue(send(a, a.stationAddress(), b.stationAddress().value(), length, length));
                int h = receive(b);
                int rdes0 = b.rxDescriptorStatus(h);
                assertEquals(LINUX_RX_ACCEPT_VALUE, rdes0 & LINUX_RX_ACCEPT_MASK);
                assertEquals(length + ETH_FCS_LEN, Dec21140DescriptorRing.frameLength(rdes0));
                checkFrame(b, h, length, length);
                // the chip stored the real FCS after the frame
                MemorySegment buf = b.rxBuffer(h);
                CRC32 crc = new CRC32();
                crc.update(buf.asSlice(0, length).asByteBuffer());
                assertEquals((int) crc.getValue(), buf.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(
                    ByteOrder.LITTLE_ENDIAN), length));
                b.release(h);
            }
            // Short frames are padded by the chip to 60 + FCS.
            assertTrue(send(a, a.stationAddress(), b.stationAddress().value(), 7, 20));
            int h = receive(b);
            assertEquals(ETH_MIN_FRAME_NOFCS, b.rxLength(h));
            b.release(h);
            assertEquals(7, b.counters().rxFrames());
            assertEquals(0, b.counters().rxErrors());
        }
    }

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

    @Test
    void frameLongerThanOneBufferIsCountedAsLengthErrorNotLost() throws Exception {
        try (TulipTestbed bed = bed(EngineMode.INLINE, polling())) {
            TulipDriver b = bed.driver(1);
            byte[] frame = new byte[1600];
            MemorySegment f = MemorySegment.ofArray(frame);
            TulipTestbed.mac(1).writeTo(f, 0);
            TulipTestbed.mac(0).writeTo(f, 6);
            CRC32 crc = new CRC32();
            crc.update(frame, 0, 1596);
            f.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 1596, (int) crc.getValue());
            bed.card(1).model().frameArrived(f, 0, frame.length);
            assertEquals(FramePort.NONE, b.poll()); // both descriptors of the spread frame are consumed and counted
            assertTrue(b.statistics().get(Counter.RX_LENGTH_ERRORS) >= 1);
            assertTrue(b.counters().rxErrors() >= 1);
            // and the ring still works
            assertTrue(send(bed.driver(0), TulipTestbed.mac(0), TulipTestbed.mac(1).value(), 1, 64));
            int h = receive(b);
            checkFrame(b, h, 1, 64);
            b.release(h);
        }
    }

    // ------------------------------------------------------------------ stop, acknowledge

    @Test
    void stopClearsSrStAndWaitsForBothProcessStates() {
        try (TulipTestbed bed = bed(EngineMode.INLINE, polling())) {
            TulipDriver d = bed.driver(0);
            Registers csr = bed.card(0).registers();
            assertNotEquals(0, csr.read(CSR5) & CSR5_RS_TS_MASK, "running before stop");
            assertTrue(d.stop());
            assertEquals(0, csr.read(CSR5) & CSR5_RS_TS_MASK);
            assertEquals(0, csr.read(CSR6) & (CSR6_SR | CSR6_ST));
            assertEquals(0, csr.read(CSR7));
        }
    }

    @Test
    void acknowledgeWritesCsr5MaskedWith0001FFFFAndLowersTheLine() throws Exception {
        try (TulipTestbed bed = bed(EngineMode.INLINE, TulipConfig.defaults())) {
            TulipDriver a = bed.driver(0);
            TulipDriver b = bed.driver(1);
            Registers csr = bed.card(1).registers();
            assertEquals(LINUX_VALID_INTRS, csr.read(CSR7));
            b.acknowledge();
            assertTrue(send(a, a.stationAddress(), b.stationAddress().value(), 1, 64));
            int before = csr.read(CSR5);
            assertTrue((before & CSR5_RI) != 0);
            assertTrue((before & CSR5_NIS) != 0);
            assertTrue(bed.card(1).interrupt().isAsserted());
            int seen = b.acknowledge();
            assertEquals(before & LINUX_CSR5_ACK_MASK, seen & LINUX_CSR5_ACK_MASK);
            int after = csr.read(CSR5);
            assertEquals(0, after & LINUX_CSR5_ACK_MASK & before, "every source that was set is cleared");
            assertEquals(before & CSR5_RS_TS_MASK, after & CSR5_RS_TS_MASK, "process states are read-only");
            assertFalse(bed.card(1).interrupt().isAsserted());
            int h = b.poll();
            checkFrame(b, h, 1, 64);
            b.release(h);
        }
    }

    // ------------------------------------------------------------------ two drivers on one wire

    @ParameterizedTest
    @EnumSource(EngineMode.class)
    void twoDriversExchangeFramesInEveryEngineMode(EngineMode mode) throws Exception {
        int frames = 300;
        if (mode == EngineMode.VIRTUAL) {
            exchangeInVirtualTime(frames);
            return;
        }
        try (TulipTestbed bed = bed(mode, mode == EngineMode.INLINE ? polling() : TulipConfig.defaults())) {
            TulipDriver a = bed.driver(0);
            TulipDriver b = bed.driver(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread echo = Thread.ofPlatform().start(() -> {
                try {
                    for (int seq = 0; seq < frames; seq++) {
                        int h = receive(b);
                        checkFrame(b, h, seq, 64 + seq);
                        b.release(h);
                        while (!send(b, b.stationAddress(), a.stationAddress().value(), seq, 64 + seq)) {
                            Thread.yield();
                        }
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            for (int seq = 0; seq < frames && failure.get() == null; seq++) {
                while (!send(a, a.stationAddress(), b.stationAddress().value(), seq, 64 + seq)) {
                    Thread.yield();
                }
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
    void perfectMulticastFilterPassesListedGroupsOnly() throws Exception {
        MacAddress g1 = MacAddress.parse("01:00:5e:00:00:01");
        MacAddress g2 = MacAddress.parse("01:00:5e:00:00:02");
        TulipConfig withGroup = TulipConfig.builder().interruptMode(InterruptMode.POLLING).addMulticast(g1).build();
        try (TulipTestbed bed = TulipTestbed.builder().config(i -> i == 1 ? withGroup : polling()).build()) {
            bed.awaitFiltersLoaded(TIMEOUT);
            TulipDriver a = bed.driver(0);
            TulipDriver b = bed.driver(1);
            assertTrue(send(a, a.stationAddress(), g2.value(), 2, 64));
            assertTrue(send(a, a.stationAddress(), MacAddress.parse("02:00:00:00:00:09").value(), 3, 64));
            assertTrue(send(a, a.stationAddress(), g1.value(), 1, 64));
            assertTrue(send(a, a.stationAddress(), MacAddress.BROADCAST.value(), 4, 64));
            int h = receive(b);
            checkFrame(b, h, 1, 64);
            b.release(h);
            h = receive(b);
            checkFrame(b, h, 4, 64);
            b.release(h);
            assertEquals(FramePort.NONE, b.poll());
            assertEquals(2, bed.card(1).counters().rxFiltered());
        }
    }

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
            long deadline = System.nanoTime() + TIMEOUT;
            while (!b.isFilterLoaded()) {
                assertTrue(System.nanoTime() < deadline);
                Thread.yield();
            }
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
    void receiveRingOverrunCountsMissedFramesNoneLostSilently() throws Exception {
        TulipConfig smallRx = TulipConfig.builder().interruptMode(InterruptMode.POLLING).rxRingSize(4).build();
        try (TulipTestbed bed = bed(EngineMode.INLINE, smallRx)) {
            TulipDriver a = bed.driver(0);
            TulipDriver b = bed.driver(1);
            int sent = 10;
            for (int seq = 0; seq < sent; seq++) {
                assertTrue(send(a, a.stationAddress(), b.stationAddress().value(), seq, 64));
            }
            int received = 0;
            int h;
            while ((h = b.poll()) != FramePort.NONE) {
                checkFrame(b, h, received, 64);
                b.release(h);
                received++;
            }
            assertEquals(4, received);
            assertEquals(sent - received, b.statistics().get(Counter.RX_MISSED), b.statistics().toString());
            assertEquals(sent - received, b.counters().rxDrops());
            assertEquals(sent, b.counters().rxFrames() + b.counters().rxDrops());
            // and reception resumes
            assertTrue(send(a, a.stationAddress(), b.stationAddress().value(), 99, 64));
            h = receive(b);
            checkFrame(b, h, 99, 64);
            b.release(h);
        }
    }

    // ------------------------------------------------------------------ interrupt vs polling

    @Test
    void interruptModeRaisesTheLinePollingModeNever() throws Exception {
        TulipConfig irq = TulipConfig.defaults();
        try (TulipTestbed bed = TulipTestbed.builder().mode(EngineMode.THREADED)
            .config(i -> i == 0 ? irq : polling()).build()) {
            bed.awaitFiltersLoaded(TIMEOUT);
            TulipDriver a = bed.driver(0);
            TulipDriver b = bed.driver(1);
            assertEquals(LINUX_VALID_INTRS, bed.card(0).registers().read(CSR7));
            assertEquals(0, bed.card(1).registers().read(CSR7));
            long edgesA = bed.card(0).interrupt().assertions();
            long edgesB = bed.card(1).interrupt().assertions();
            for (int seq = 0; seq < 20; seq++) {
                assertTrue(send(a, a.stationAddress(), b.stationAddress().value(), seq, 64));
                int h = receive(b);
                checkFrame(b, h, seq, 64);
                b.release(h);
                assertTrue(send(b, b.stationAddress(), a.stationAddress().value(), seq, 64));
                h = receive(a); // parks on the interrupt line
                checkFrame(a, h, seq, 64);
                a.release(h);
            }
            assertTrue(bed.card(0).interrupt().assertions() - edgesA >= 20);
            assertEquals(edgesB, bed.card(1).interrupt().assertions());
            assertTrue(a.statistics().get(Counter.INTERRUPTS) >= 1);
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
