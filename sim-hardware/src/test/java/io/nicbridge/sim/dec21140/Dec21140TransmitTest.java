package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;
import static io.nicbridge.sim.dec21140.CardHarness.*;
import static org.junit.jupiter.api.Assertions.*;

import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class Dec21140TransmitTest {
    private static final int OWN = TDES0_OWN;
    private final CardHarness h = new CardHarness();

    @AfterEach
    void close() {
        h.close();
    }

    /** TX descriptor i of a plain ring (stride 16). */
    private static long d(int i) {
        return TX_RING + 16L * i;
    }

    private void post(long desc, int control, byte[] data, long bufOffset) {
        h.put(bufOffset, data);
        h.desc(desc, OWN, control | data.length, h.bus(bufOffset), 0);
    }

    @Test
    void singleDescriptorFrameIsPaddedGetsFcsAndCompletes() {
        h.write(CSR7, CSR7_MASK_ALL);
        byte[] f = frame(PEER, MAC, 0x0800, 10); // 24 bytes
        post(d(0), TDES1_FS | TDES1_LS | TDES1_IC, f, TX_BUF);
        h.start(0);
        assertEquals(1, h.wire.frames.size());
        byte[] sent = h.wire.frames.get(0);
        assertEquals(ETH_MIN_FRAME, sent.length);
        byte[] padded = Arrays.copyOf(f, ETH_MIN_FRAME_NOFCS);
        assertArrayEquals(withFcs(padded), sent);
        assertEquals(0, h.word(d(0)), "status 0 and OWN clear");
        int csr5 = h.read(CSR5);
        assertEquals(CSR5_TI | CSR5_TU, csr5 & (CSR5_TI | CSR5_TU));
        assertEquals(TS_SUSPENDED, h.ts());
        assertEquals(1, h.card.counters().txFrames());
        assertEquals(64, h.card.counters().txBytes());
    }

    @Test
    void disablePaddingAndAddCrcDisable() {
        byte[] f = frame(PEER, MAC, 0x0800, 10);
        post(d(0), TDES1_FS | TDES1_LS | TDES1_DPD, f, TX_BUF);
        post(d(1), TDES1_FS | TDES1_LS | TDES1_AC, frame(PEER, MAC, 0x0800, 100), TX_BUF + 0x800);
        post(d(2), TDES1_FS | TDES1_LS | TDES1_AC | TDES1_DPD, f, TX_BUF + 0x1000);
        h.start(0);
        assertEquals(3, h.wire.frames.size());
        assertArrayEquals(withFcs(f), h.wire.frames.get(0), "DPD: no padding, FCS still added");
        assertArrayEquals(frame(PEER, MAC, 0x0800, 100), h.wire.frames.get(1), "AC: no FCS");
        assertArrayEquals(f, h.wire.frames.get(2), "AC|DPD: as given");
    }

    /**
     * No carrier (A.6): with the cable pulled the frame still goes out, into a wire that leads nowhere, and its
     * descriptor is closed with NC|LO|ES (Linux's 0x0C00 carrier errors); TI as asked, the process goes on. Loopback
     * frames never reach the PHY; with the carrier back the status is clean again.
     */
    @Test
    void withoutCarrierTheDescriptorReportsNoCarrierAndLossOfCarrier() {
        byte[] f = frame(PEER, MAC, 0x0800, 60);
        h.card.carrier(false);
        post(d(0), TDES1_FS | TDES1_LS | TDES1_IC, f, TX_BUF);
        post(d(1), TDES1_FS | TDES1_LS, f, TX_BUF);
        h.start(0);
        assertEquals(TDES0_NC | TDES0_LO | TDES0_ES, h.word(d(0)));
        assertEquals(LINUX_TDES0_CARRIER, h.word(d(1)) & LINUX_TDES0_CARRIER);
        assertEquals(CSR5_TI, h.read(CSR5) & CSR5_TI);
        assertEquals(TS_SUSPENDED, h.ts());
        assertEquals(2, h.card.counters().txNoCarrier());
        h.write(CSR6, h.read(CSR6) | (OM_INTERNAL_LOOPBACK << CSR6_OM_SHIFT));
        post(d(2), TDES1_FS | TDES1_LS, f, TX_BUF);
        h.write(CSR1, 0);
        assertEquals(0, h.word(d(2)), "loopback: the PHY is not involved");
        h.write(CSR6, h.read(CSR6) & ~CSR6_OM_MASK);
        h.card.carrier(true);
        post(d(3), TDES1_FS | TDES1_LS, f, TX_BUF);
        h.write(CSR1, 0);
        assertEquals(0, h.word(d(3)));
        assertEquals(2, h.card.counters().txNoCarrier());
    }

    @Test
    void noInterruptBitNoTi() {
        post(d(0), TDES1_FS | TDES1_LS, frame(PEER, MAC, 0x0800, 60), TX_BUF);
        h.start(0);
        assertEquals(0, h.read(CSR5) & CSR5_TI);
        assertEquals(CSR5_TU, h.read(CSR5) & CSR5_TU);
    }

    @Test
    void suspendsOnHostOwnedDescriptorAndResumesOnCsr1() {
        h.start(0);
        assertEquals(TS_SUSPENDED, h.ts());
        post(d(0), TDES1_FS | TDES1_LS, frame(PEER, MAC, 0x0800, 60), TX_BUF);
        assertEquals(0, h.wire.frames.size(), "no poll demand yet");
        h.write(CSR5, CSR5_TU);
        h.write(CSR1, 0);
        assertEquals(1, h.wire.frames.size());
        assertEquals(TS_SUSPENDED, h.ts());
        assertEquals(CSR5_TU, h.read(CSR5) & CSR5_TU, "suspends again at the next host-owned one");
    }

    @Test
    void ringModeWithSkipLengthAndEndOfRing() {
        int dsl = 3; // 12 bytes skipped: stride 28
        h.write(CSR0, dsl << CSR0_DSL_SHIFT);
        int stride = 16 + 4 * dsl;
        for (int i = 0; i < 3; i++) {
            byte[] f = frame(PEER, MAC, 0x0800, 50 + i);
            h.put(TX_BUF + 0x100L * i, f);
            int control = TDES1_FS | TDES1_LS | f.length | (i == 2 ? TDES1_TER : 0);
            h.desc(TX_RING + (long) stride * i, OWN, control, h.bus(TX_BUF + 0x100L * i), 0xDEAD0000L);
        }
        h.start(0);
        assertEquals(3, h.wire.frames.size());
        for (int i = 0; i < 3; i++) {
            assertEquals(68 + i, h.wire.frames.get(i).length, "frame " + i + " in ring order");
            assertEquals(0, h.word(TX_RING + (long) stride * i) & OWN);
        }
        // wrapped to descriptor 0 (TER), which is host-owned now: suspended there
        assertEquals(TS_SUSPENDED, h.ts());
        byte[] f = frame(PEER, MAC, 0x0800, 99);
        post(TX_RING, TDES1_FS | TDES1_LS, f, TX_BUF + 0x1000);
        h.write(CSR1, 0);
        assertEquals(4, h.wire.frames.size());
        assertEquals(99 + 14 + 4, h.wire.frames.get(3).length);
    }

    @Test
    void chainModeFollowsWordThreeAndEndOfRingWinsOverChain() {
        long[] at = {TX_RING, TX_RING + 0x200, TX_RING + 0x80};
        for (int i = 0; i < 3; i++) {
            byte[] f = frame(PEER, MAC, 0x0800, 70 + i);
            h.put(TX_BUF + 0x100L * i, f);
            int control = TDES1_FS | TDES1_LS | TDES1_TCH | f.length | (i == 2 ? TDES1_TER : 0);
            long next = i == 2 ? TX_RING + 0x300 : at[i + 1]; // the last one's chain pointer must be ignored
            h.desc(at[i], OWN, control, h.bus(TX_BUF + 0x100L * i), h.bus(next));
        }
        h.desc(TX_RING + 0x300, OWN, TDES1_FS | TDES1_LS | 60, h.bus(TX_BUF), 0); // never reached
        h.start(0);
        assertEquals(3, h.wire.frames.size());
        for (int i = 0; i < 3; i++) {
            assertEquals(70 + i + 14 + 4, h.wire.frames.get(i).length);
        }
        assertEquals(OWN, h.word(TX_RING + 0x300) & OWN, "TER went back to CSR4, not to word 3");
        assertEquals(TS_SUSPENDED, h.ts());
    }

    @Test
    void ringModeIgnoresWordThreeWithoutTheChainBit() {
        // Linux style: word 3 holds the next descriptor, TBS2 = 0, TCH clear
        byte[] f = frame(PEER, MAC, 0x0800, 80);
        h.put(TX_BUF, f);
        h.desc(d(0), OWN, TDES1_FS | TDES1_LS | f.length, h.bus(TX_BUF), h.bus(d(1)));
        h.start(0);
        assertEquals(1, h.wire.frames.size());
        assertArrayEquals(withFcs(f), h.wire.frames.get(0), "no buffer 2 read from word 3");
    }

    @Test
    void frameSpanningDescriptorsAndBothBuffers() {
        byte[] f = frame(PEER, MAC, 0x86DD, 300);
        // d0: FS, buf1 = 20 bytes, buf2 = 30 bytes; d1: buf1 = 100; d2: LS, buf1 = rest - 50, buf2 = 50
        int rest = f.length - 150;
        h.put(TX_BUF, java.util.Arrays.copyOfRange(f, 0, 20));
        h.put(TX_BUF + 0x100, java.util.Arrays.copyOfRange(f, 20, 50));
        h.put(TX_BUF + 0x200, java.util.Arrays.copyOfRange(f, 50, 150));
        h.put(TX_BUF + 0x400, java.util.Arrays.copyOfRange(f, 150, 150 + rest - 50));
        h.put(TX_BUF + 0x600, java.util.Arrays.copyOfRange(f, 100 + rest, f.length));
        h.desc(d(1), OWN, 100, h.bus(TX_BUF + 0x200), 0);
        h.desc(d(2), OWN, TDES1_LS | TDES1_IC | (rest - 50) | (50 << TDES1_TBS2_SHIFT), h.bus(TX_BUF + 0x400),
            h.bus(TX_BUF + 0x600));
        h.desc(d(0), OWN, TDES1_FS | 20 | (30 << TDES1_TBS2_SHIFT), h.bus(TX_BUF), h.bus(TX_BUF + 0x100));
        h.start(0);
        assertEquals(1, h.wire.frames.size());
        assertArrayEquals(withFcs(f), h.wire.frames.get(0));
        for (int i = 0; i < 3; i++) {
            assertEquals(0, h.word(d(i)), "OWN cleared, status 0 in descriptor " + i);
        }
        assertEquals(CSR5_TI, h.read(CSR5) & CSR5_TI);
        assertEquals(3, h.card.counters().txDescriptors());
    }

    @Test
    void hostOwnedDescriptorMidFrameSuspendsAndTheFrameResumes() {
        byte[] f = frame(PEER, MAC, 0x0800, 200);
        h.put(TX_BUF, java.util.Arrays.copyOfRange(f, 0, 100));
        h.put(TX_BUF + 0x200, java.util.Arrays.copyOfRange(f, 100, f.length));
        h.desc(d(0), OWN, TDES1_FS | 100, h.bus(TX_BUF), 0);
        h.desc(d(1), 0, TDES1_LS | (f.length - 100), h.bus(TX_BUF + 0x200), 0);
        h.start(0);
        assertEquals(0, h.wire.frames.size());
        assertEquals(TS_SUSPENDED, h.ts());
        assertEquals(1, h.card.counters().txUnderflowSuspends());
        h.desc(d(1), OWN, TDES1_LS | (f.length - 100), h.bus(TX_BUF + 0x200), 0);
        h.write(CSR1, 0);
        assertEquals(1, h.wire.frames.size());
        assertArrayEquals(withFcs(f), h.wire.frames.get(0));
    }

    @Test
    void zeroLengthDescriptorsHaveDefinedOutcomes() {
        // Linux's erratum dummy: no FS/LS, length 0, buffer address 0 (never translated)
        h.desc(d(0), OWN, 0, 0, 0);
        // an FS..LS frame with no bytes
        h.desc(d(1), OWN, TDES1_FS | TDES1_LS, 0, 0);
        // a zero-length descriptor inside a frame contributes nothing
        byte[] f = frame(PEER, MAC, 0x0800, 60);
        h.put(TX_BUF, f);
        h.desc(d(2), OWN, TDES1_FS, 0, 0);
        h.desc(d(3), OWN, TDES1_LS | f.length, h.bus(TX_BUF), 0);
        h.start(0);
        assertEquals(0, h.word(d(0)));
        assertEquals(TDES0_ES, h.word(d(1)));
        assertEquals(1, h.wire.frames.size());
        assertArrayEquals(withFcs(f), h.wire.frames.get(0));
        assertEquals(1, h.card.counters().txNullDescriptors());
        assertEquals(1, h.card.counters().txEmptyFrames());
        assertEquals(0, h.read(CSR5) & CSR5_FBE);
    }

    @Test
    void frameOverTheFifoTripsTheJabberTimerAndIsNotSent() {
        // 2047 + 2047 bytes: over the 2048-byte FIFO
        h.desc(d(0), OWN, TDES1_FS | TDES1_LS | 2047 | (2047 << TDES1_TBS2_SHIFT), h.bus(TX_BUF), h.bus(TX_BUF + 0x1000));
        byte[] ok = frame(PEER, MAC, 0x0800, 1500); // 1514 + FCS = 1518: fine
        h.put(TX_BUF + 0x2000, ok);
        h.desc(d(1), OWN, TDES1_FS | TDES1_LS | ok.length, h.bus(TX_BUF + 0x2000), 0);
        byte[] longOne = frame(PEER, MAC, 0x0800, 1800); // 1818 + FCS: longer than 1518, still fits the FIFO
        h.put(TX_BUF + 0x3000, longOne);
        h.desc(d(2), OWN, TDES1_FS | TDES1_LS | longOne.length, h.bus(TX_BUF + 0x3000), 0);
        h.start(0);
        assertEquals(TDES0_TO | TDES0_ES, h.word(d(0)));
        assertEquals(CSR5_TJT, h.read(CSR5) & CSR5_TJT);
        // the jabber timer aborts the transmit process into the stopped state (TPS): nothing more until a restart
        assertEquals(TS_STOPPED, h.ts());
        assertEquals(CSR5_TPS, h.read(CSR5) & CSR5_TPS);
        assertEquals(OWN, h.word(d(1)) & OWN);
        assertEquals(0, h.wire.frames.size());
        h.write(CSR6, h.read(CSR6) & ~(CSR6_SR | CSR6_ST)); // tulip_restart_rxtx: stop, then start again
        h.write(CSR6, h.read(CSR6) | CSR6_SR | CSR6_ST);
        assertEquals(2, h.wire.frames.size());
        assertEquals(1518, h.wire.frames.get(0).length);
        assertEquals(1818, h.wire.frames.get(1).length, "the 21140 does not police the maximum; receivers flag TL");
        assertEquals(1, h.card.counters().txJabber());
    }

    /**
     * Threshold mode (SF clear, TR = 128 bytes) on a bus slower than the wire (100 ns a byte against 80): the FIFO runs
     * dry mid-frame. TDES0 = UF|ES, CSR5.UNF, the process suspends (TS 6); only a fragment reaches the wire: the bytes
     * sent before the FIFO ran dry (more than the threshold, fewer than the frame), ended by an FCS that does not
     * match, which a receiving 21140 flags as a CRC error (RDES0 CE|ES, counted) and Linux drops. Linux's
     * TxFIFOUnderflow branch then raises TR (csr6 += 0x4000) or sets SF and restarts: at TR = 3 (1024 bytes) or with
     * SF the same frame goes out. Store-and-forward never underflows.
     */
    @Test
    void thresholdModeUnderflowsWhenTheDmaCannotKeepUpAndLinuxsRemedyWorks() {
        Dec21140Timing slowBus = new Dec21140Timing(240, 100_000, 120);
        byte[] f = frame(PEER, MAC, 0x0800, 986); // 1000 bytes read by DMA: 100.24 us against 80 us on the wire
        try (CardHarness v = new CardHarness(true, slowBus)) {
            v.put(TX_BUF, f);
            for (int i = 0; i < 2; i++) {
                v.desc(d(i), OWN, TDES1_FS | TDES1_LS | f.length, v.bus(TX_BUF), 0);
            }
            v.write(CSR3, v.bus32(RX_RING));
            v.write(CSR4, v.bus32(TX_RING));
            v.write(CSR7, CSR7_MASK_ALL);
            int csr6 = CSR6_MBO | CSR6_PS | CSR6_SR | CSR6_ST; // TR = 0: 128 bytes, SF clear
            v.write(CSR6, csr6);
            v.time.advance(1_000_000);
            assertEquals(TDES0_UF | TDES0_ES, v.word(d(0)));
            assertEquals(CSR5_UNF | CSR5_AIS, v.read(CSR5) & (CSR5_UNF | CSR5_AIS));
            assertEquals(TS_SUSPENDED, v.ts());
            assertEquals(OWN, v.word(d(1)) & OWN, "suspended: d1 waits");
            assertEquals(1, v.wire.frames.size(), "the fragment");
            byte[] fragment = v.wire.frames.get(0);
            assertTrue(fragment.length > 128 + ETH_FCS_LEN && fragment.length < f.length, "" + fragment.length);
            assertArrayEquals(Arrays.copyOf(f, fragment.length - ETH_FCS_LEN),
                Arrays.copyOf(fragment, fragment.length - ETH_FCS_LEN), "the frame's first bytes");
            assertEquals(1, v.card.counters().txUnderflows());
            assertEquals(0, v.card.counters().txFrames(), "no whole frame left");
            try (CardHarness receiver = new CardHarness()) {
                receiver.desc(RX_RING, RDES0_OWN, LINUX_RX_BUF_SIZE | RDES1_RER, receiver.bus(RX_BUF), 0);
                receiver.start(CSR6_PR);
                receiver.arrive(fragment);
                assertEquals(RDES0_CE | RDES0_ES, receiver.word(RX_RING) & (RDES0_CE | RDES0_ES | RDES0_OWN));
                assertEquals(1, receiver.card.counters().rxCrcErrors());
            }
            // Linux: raise the threshold to the top (TR = 3), restart (stop, start), CSR1
            v.write(CSR5, v.read(CSR5) & LINUX_CSR5_ACK_MASK);
            csr6 |= 3 << CSR6_TR_SHIFT;
            v.write(CSR6, csr6 & ~(CSR6_SR | CSR6_ST));
            v.write(CSR6, csr6);
            v.write(CSR1, 0);
            v.time.advance(1_000_000);
            assertEquals(0, v.word(d(1)), "1024-byte threshold: the whole frame is in the FIFO before it starts");
            assertEquals(2, v.wire.frames.size());
            assertArrayEquals(withFcs(f), v.wire.frames.get(1));
            // store-and-forward at the lowest threshold: no underflow either
            v.write(CSR6, (csr6 & ~CSR6_TR_MASK) | CSR6_SF);
            v.desc(d(2), OWN, TDES1_FS | TDES1_LS | TDES1_TER | f.length, v.bus(TX_BUF), 0);
            v.write(CSR1, 0);
            v.time.advance(1_000_000);
            assertEquals(0, v.word(d(2)));
            assertEquals(3, v.wire.frames.size());
            assertEquals(1, v.card.counters().txUnderflows());
        }
    }

    @Test
    void newFirstSegmentAbandonsAnUnfinishedFrame() {
        byte[] f = frame(PEER, MAC, 0x0800, 60);
        h.put(TX_BUF, f);
        h.desc(d(0), OWN, TDES1_FS | 30, h.bus(TX_BUF), 0);
        h.desc(d(1), OWN, TDES1_FS | TDES1_LS | f.length, h.bus(TX_BUF), 0);
        h.start(0);
        assertEquals(1, h.wire.frames.size());
        assertArrayEquals(withFcs(f), h.wire.frames.get(0));
        assertEquals(1, h.card.counters().txAbortedFrames());
    }

    @Test
    void stopMidFrameDiscardsThePartAndRestartContinuesAtTheCurrentDescriptor() {
        byte[] f = frame(PEER, MAC, 0x0800, 60);
        h.put(TX_BUF, f);
        h.desc(d(0), OWN, TDES1_FS | 30, h.bus(TX_BUF), 0);
        h.start(0); // suspends at d1 in the middle of the frame
        h.write(CSR6, CSR6_MBO | CSR6_SR);
        assertEquals(0, h.ts());
        assertEquals(1, h.card.counters().txAbortedFrames());
        h.desc(d(1), OWN, TDES1_FS | TDES1_LS | f.length, h.bus(TX_BUF), 0);
        h.write(CSR6, CSR6_MBO | CSR6_SR | CSR6_ST);
        assertEquals(1, h.wire.frames.size());
        assertArrayEquals(withFcs(f), h.wire.frames.get(0));
    }

    @Test
    void virtualTimeCompletesAfterTheCardDelayAndTheWireTime() {
        try (CardHarness v = new CardHarness(true, Dec21140Timing.PCI_33MHZ)) {
            v.wire.wireNanos = 6720;
            byte[] f = frame(PEER, MAC, 0x0800, 46);
            v.put(TX_BUF, f);
            v.desc(d(0), OWN, TDES1_FS | TDES1_LS | TDES1_IC | f.length, v.bus(TX_BUF), 0);
            v.start(0);
            assertEquals(0, v.wire.frames.size(), "the frame is still being read into the FIFO");
            assertEquals(TS_READ_BUFFER, v.ts());
            v.time.advance(Dec21140Timing.PCI_33MHZ.transmitStartNanos(1, 60) - 1);
            assertEquals(0, v.wire.frames.size());
            v.time.advance(1);
            assertEquals(1, v.wire.frames.size());
            assertEquals(TS_WAIT_END, v.ts());
            assertEquals(OWN, v.word(d(0)) & OWN, "not complete while on the wire");
            v.time.advance(6720 + Dec21140Timing.PCI_33MHZ.transmitCloseNanos() - 1);
            assertEquals(OWN, v.word(d(0)) & OWN);
            v.time.advance(1);
            assertEquals(0, v.word(d(0)));
            assertEquals(CSR5_TI, v.read(CSR5) & CSR5_TI);
            assertEquals(TS_SUSPENDED, v.ts());
        }
    }

    /**
     * Clearing ST while a frame is in flight is not instantaneous (tulip_stop_rxtx polls CSR5 until TS reads 0):
     * the frame goes on the wire, its descriptor is closed, and only then TS reads 0 and TPS is raised. No
     * descriptor write lands after the stop is reported.
     */
    @Test
    void stopWithAFrameInFlightLetsItFinishAndReportsStoppedOnlyAfterTheDescriptorIsWritten() {
        try (CardHarness v = new CardHarness(true, Dec21140Timing.PCI_33MHZ)) {
            v.wire.wireNanos = 6720;
            byte[] f = frame(PEER, MAC, 0x0800, 46);
            v.put(TX_BUF, f);
            v.desc(d(0), OWN, TDES1_FS | TDES1_LS | TDES1_IC | f.length, v.bus(TX_BUF), 0);
            v.desc(d(1), OWN, TDES1_FS | TDES1_LS | f.length, v.bus(TX_BUF), 0);
            v.start(0);
            assertEquals(TS_READ_BUFFER, v.ts());
            v.write(CSR6, CSR6_MBO | CSR6_SR); // stop while d0's frame is read into the FIFO
            assertNotEquals(TS_STOPPED, v.ts(), "the frame in flight finishes first");
            assertEquals(0, v.read(CSR5) & CSR5_TPS);
            long closeAt = Dec21140Timing.PCI_33MHZ.transmitStartNanos(1, 60) + 6720
                + Dec21140Timing.PCI_33MHZ.transmitCloseNanos();
            v.time.advance(closeAt - 1);
            assertEquals(1, v.wire.frames.size());
            assertEquals(OWN, v.word(d(0)) & OWN, "not yet closed");
            assertNotEquals(TS_STOPPED, v.ts());
            v.time.advance(1);
            assertEquals(0, v.word(d(0)), "closed");
            assertEquals(TS_STOPPED, v.ts());
            assertEquals(CSR5_TPS | CSR5_TI, v.read(CSR5) & (CSR5_TPS | CSR5_TI));
            v.time.advance(1_000_000);
            assertEquals(OWN, v.word(d(1)), "nothing after the stop: d1 untouched");
            assertEquals(1, v.wire.frames.size());
        }
    }

    @Test
    void txAutoPollResumesASuspendedProcess() {
        try (CardHarness v = new CardHarness(true, Dec21140Timing.ZERO)) {
            v.write(CSR0, TAP_12_8US << CSR0_TAP_SHIFT);
            v.start(0);
            assertEquals(TS_SUSPENDED, v.ts());
            byte[] f = frame(PEER, MAC, 0x0800, 60);
            v.put(TX_BUF, f);
            v.desc(d(0), OWN, TDES1_FS | TDES1_LS | f.length, v.bus(TX_BUF), 0);
            v.time.advance(TAP4_PERIOD_NS - 1);
            assertEquals(0, v.wire.frames.size());
            v.time.advance(1);
            assertEquals(1, v.wire.frames.size(), "auto-poll found it without a CSR1 write");
        }
    }
}
