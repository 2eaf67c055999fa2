package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;
import static io.nicbridge.sim.dec21140.CardHarness.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.queue.Dec21140DescriptorRing;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class Dec21140ReceiveTest {
    private static final int OWN = RDES0_OWN;
    private final CardHarness h = new CardHarness();

    @AfterEach
    void close() {
        h.close();
    }

    private static long d(int i) {
        return RX_RING + 16L * i;
    }

    private static long buf(int i) {
        return RX_BUF + 0x800L * i;
    }

    /** Linux-style ring: one 1536-byte buffer per descriptor, word 3 = next descriptor, RER on the last. */
    private void linuxRing(int n) {
        for (int i = 0; i < n; i++) {
            int control = LINUX_RX_BUF_SIZE | (i == n - 1 ? RDES1_RER : 0);
            h.desc(d(i), OWN, control, h.bus(buf(i)), h.bus(d((i + 1) % n)));
        }
    }

    @Test
    void singleBufferFrameWithFcsInBufferAndFl() {
        linuxRing(4);
        h.write(CSR7, CSR7_MASK_ALL);
        h.start(CSR6_PR);
        byte[] f = withFcs(frame(MAC, PEER, 0x0800, 100));
        h.arrive(f);
        int st = h.word(d(0));
        assertTrue(Dec21140DescriptorRing.isGoodReceive(st), Integer.toHexString(st));
        assertEquals(f.length, Dec21140DescriptorRing.frameLength(st));
        assertEquals(RDES0_FT, st & RDES0_FT, "type 0x0800 > 1500");
        assertArrayEquals(f, h.get(buf(0), f.length), "the real FCS is in the buffer");
        assertEquals(CSR5_RI, h.read(CSR5) & CSR5_RI);
        assertEquals(RS_WAIT_PACKET, h.rs());
        assertTrue(h.card.interrupt().isAsserted());
        assertEquals(OWN, h.word(d(1)), "next untouched");
        assertEquals(1, h.card.counters().rxFrames());
        assertEquals(f.length, h.card.counters().rxBytes());
    }

    @Test
    void corruptedFrameSetsCe() {
        linuxRing(4);
        h.start(CSR6_PR);
        byte[] f = withFcs(frame(MAC, PEER, 0x0800, 100));
        f[30] ^= 0x10;
        h.arrive(f);
        int st = h.word(d(0));
        assertEquals(RDES0_CE | RDES0_ES, st & (RDES0_CE | RDES0_ES));
        assertFalse(Dec21140DescriptorRing.isGoodReceive(st));
        assertEquals(1, h.card.counters().rxCrcErrors());
        byte[] g = withFcs(frame(MAC, PEER, 0x0800, 100));
        h.arrive(g);
        assertTrue(Dec21140DescriptorRing.isGoodReceive(h.word(d(1))));
        assertArrayEquals(g, Arrays.copyOf(h.get(buf(1), g.length), g.length));
    }

    @Test
    void frameFillsBufferOneThenBufferTwoThenTheNextDescriptors() {
        // d0: 64 + 32 bytes; d1 (chained): 100 bytes; d2: 1024 bytes
        h.desc(d(0), OWN, 64 | (32 << RDES1_RBS2_SHIFT), h.bus(buf(0)), h.bus(buf(1)));
        h.desc(d(1), OWN, RDES1_RCH | 100, h.bus(buf(2)), h.bus(d(5)));
        h.desc(d(5), OWN, 1024 | RDES1_RER, h.bus(buf(3)), 0);
        h.write(CSR7, CSR7_MASK_ALL);
        h.start(CSR6_PR);
        byte[] f = withFcs(frame(MAC, PEER, 0x0800, 400)); // 418 bytes
        h.arrive(f);
        int s0 = h.word(d(0));
        int s1 = h.word(d(1));
        int s2 = h.word(d(5));
        assertEquals(RDES0_FS, s0, "first: FS only, OWN clear");
        assertEquals(0, s1, "middle: nothing");
        assertEquals(RDES0_LS, s2 & (RDES0_LS | RDES0_FS | RDES0_OWN));
        assertEquals(f.length, Dec21140DescriptorRing.frameLength(s2));
        assertArrayEquals(Arrays.copyOfRange(f, 0, 64), h.get(buf(0), 64));
        assertArrayEquals(Arrays.copyOfRange(f, 64, 96), h.get(buf(1), 32));
        assertArrayEquals(Arrays.copyOfRange(f, 96, 196), h.get(buf(2), 100));
        assertArrayEquals(Arrays.copyOfRange(f, 196, f.length), h.get(buf(3), f.length - 196));
        assertEquals(CSR5_RI, h.read(CSR5) & CSR5_RI);
        assertEquals(3, h.card.counters().rxDescriptors());
        // RER of d5 wraps to d0, which the host now owns
        h.arrive(withFcs(frame(MAC, PEER, 0x0800, 100)));
        assertEquals(RS_SUSPENDED, h.rs());
    }

    /**
     * ERI (A.3): set when the frame's first data buffer is full and more of the frame follows; RI, raised when the
     * frame is closed, clears it. A frame that fits its first buffer never sets it; a spanning frame that closes
     * leaves only RI; a spanning frame whose second buffer is gone (bus error) leaves ERI set beside FBE, under the
     * normal summary with CSR7.ERE, and never RI.
     */
    @Test
    void earlyReceiveMarksAFilledFirstBufferAndRiClearsIt() {
        h.desc(d(0), OWN, 1536, h.bus(buf(0)), 0);
        h.desc(d(1), OWN, 64 | (1024 << RDES1_RBS2_SHIFT), h.bus(buf(1)), h.bus(buf(2)));
        h.desc(d(2), OWN, 64 | RDES1_RER | (1024 << RDES1_RBS2_SHIFT), h.bus(buf(3)), h.bus(MEM_BYTES + 0x1000));
        h.write(CSR7, CSR7_MASK_ALL);
        h.start(CSR6_PR);
        h.arrive(withFcs(frame(MAC, PEER, 0x0800, 100)));
        assertEquals(CSR5_RI, h.read(CSR5) & (CSR5_RI | CSR5_ERI), "fits its first buffer: no ERI");
        h.write(CSR5, LINUX_CSR5_ACK_MASK);
        h.arrive(withFcs(frame(MAC, PEER, 0x0800, 400))); // 64 bytes in buffer 1, the rest in buffer 2
        assertEquals(CSR5_RI, h.read(CSR5) & (CSR5_RI | CSR5_ERI), "RI cleared the ERI of the closed frame");
        h.write(CSR5, LINUX_CSR5_ACK_MASK);
        h.arrive(withFcs(frame(MAC, PEER, 0x0800, 400))); // buffer 2's address is outside every region
        int csr5 = h.read(CSR5);
        assertEquals(CSR5_ERI | CSR5_FBE | CSR5_NIS | CSR5_AIS, csr5 & (CSR5_ERI | CSR5_FBE | CSR5_RI | CSR5_NIS
            | CSR5_AIS), Integer.toHexString(csr5));
        assertEquals(h.get(buf(3), 64)[0], MAC[0], "the first buffer holds the frame's start");
        h.write(CSR5, CSR5_FBE);
        h.write(CSR7, CSR7_MASK_ALL & ~CSR5_ERI);
        assertEquals(CSR5_ERI, h.read(CSR5) & (CSR5_ERI | CSR5_NIS), "ERE clear: ERI stays, no normal summary");
        assertFalse(h.card.interrupt().isAsserted());
    }

    @Test
    void runtsAreDroppedUnlessPassBadFramesAndThenFlaggedRf() {
        linuxRing(4);
        h.start(CSR6_PR);
        byte[] runt = withFcs(frame(MAC, PEER, 0x0800, 20)); // 38 bytes
        h.arrive(runt);
        assertEquals(OWN, h.word(d(0)));
        assertEquals(1, h.card.counters().rxRunts());
        h.write(CSR6, h.read(CSR6) | CSR6_PB);
        h.arrive(runt);
        int st = h.word(d(0));
        assertEquals(RDES0_RF | RDES0_ES, st & (RDES0_RF | RDES0_ES));
        assertEquals(runt.length, Dec21140DescriptorRing.frameLength(st));
        assertFalse(Dec21140DescriptorRing.isGoodReceive(st));
        h.arrive(new byte[] {1, 2, 3}); // too short to hold an address even with PB
        assertEquals(2, h.card.counters().rxRunts());
    }

    /**
     * Over 1518 bytes a frame is flagged TL; over 2048 the receive watchdog cuts it: its first 2048 bytes are
     * received (across two 1540-byte buffers here), the last descriptor says RW|TL|ES with FL 2048, and CSR5 has
     * RWT as well as RI. Linux counts it as a length error.
     */
    @Test
    void longFramesAreFlaggedTlAndOverTheWatchdogCutWithRw() {
        linuxRing(4);
        h.write(CSR7, CSR7_MASK_ALL);
        h.start(CSR6_PR);
        byte[] big = withFcs(frame(MAC, PEER, 0x0800, 1510)); // 1528 bytes
        h.arrive(big);
        int st = h.word(d(0));
        assertEquals(RDES0_TL | RDES0_ES, st & (RDES0_TL | RDES0_ES));
        assertEquals(big.length, Dec21140DescriptorRing.frameLength(st));
        assertEquals(1, h.card.counters().rxTooLong());
        h.write(CSR5, LINUX_CSR5_ACK_MASK);
        byte[] huge = withFcs(frame(MAC, PEER, 0x0800, 2100));
        h.arrive(huge);
        assertEquals(RDES0_FS, h.word(d(1)) & (RDES0_FS | RDES0_LS | OWN));
        int last = h.word(d(2));
        assertEquals(RDES0_LS | RDES0_RW | RDES0_TL | RDES0_ES, last & (RDES0_LS | RDES0_RW | RDES0_TL | RDES0_ES
            | RDES0_CE | OWN), Integer.toHexString(last));
        assertEquals(2048, Dec21140DescriptorRing.frameLength(last));
        assertArrayEquals(Arrays.copyOf(huge, LINUX_RX_BUF_SIZE), h.get(buf(1), LINUX_RX_BUF_SIZE));
        assertArrayEquals(Arrays.copyOfRange(huge, LINUX_RX_BUF_SIZE, 2048), h.get(buf(2), 2048 - LINUX_RX_BUF_SIZE));
        assertEquals(CSR5_RWT | CSR5_RI, h.read(CSR5) & (CSR5_RWT | CSR5_RI));
        assertEquals(1, h.card.counters().rxOversize());
        assertEquals(1, h.card.counters().rxFrames(), "the cut frame is not counted as received");
    }

    @Test
    void lengthFieldFrameHasNoFtAndMulticastHasMf() {
        linuxRing(4);
        h.start(CSR6_PR);
        h.arrive(withFcs(frame(new byte[] {1, 0, 0x5E, 0, 0, 1}, PEER, 100, 100)));
        int st = h.word(d(0));
        assertEquals(0, st & RDES0_FT);
        assertEquals(RDES0_MF, st & RDES0_MF);
        assertTrue(Dec21140DescriptorRing.isGoodReceive(st));
    }

    @Test
    void truncatedFrameGetsDeAndTheProcessSuspends() {
        h.desc(d(0), OWN, 128, h.bus(buf(0)), 0);
        h.desc(d(1), 0, 128, h.bus(buf(1)), 0);
        h.write(CSR7, CSR7_MASK_ALL);
        h.start(CSR6_PR);
        byte[] f = withFcs(frame(MAC, PEER, 0x0800, 300));
        h.arrive(f);
        int st = h.word(d(0));
        assertEquals(RDES0_FS | RDES0_LS | RDES0_DE | RDES0_ES, st & (RDES0_FS | RDES0_LS | RDES0_DE | RDES0_ES | OWN));
        assertEquals(128, Dec21140DescriptorRing.frameLength(st), "FL counts what was written");
        assertFalse(Dec21140DescriptorRing.isGoodReceive(st));
        assertEquals(RS_SUSPENDED, h.rs());
        assertEquals(CSR5_RU | CSR5_RI, h.read(CSR5) & (CSR5_RU | CSR5_RI));
        assertEquals(1, h.card.counters().rxTruncated());
        assertArrayEquals(Arrays.copyOf(f, 128), h.get(buf(0), 128));
    }

    @Test
    void unavailableDescriptorSuspendsCountsMissedAndResumesOnCsr2OrTheNextFrame() {
        linuxRing(2);
        h.write(CSR7, CSR7_MASK_ALL);
        h.start(CSR6_PR);
        byte[] f = withFcs(frame(MAC, PEER, 0x0800, 100));
        h.arrive(f);
        h.arrive(f);
        h.arrive(f); // ring full: missed
        assertEquals(RS_SUSPENDED, h.rs());
        assertEquals(CSR5_RU, h.read(CSR5) & CSR5_RU);
        assertEquals(CSR5_AIS, h.read(CSR5) & CSR5_AIS, "RU is abnormal");
        h.write(CSR5, h.read(CSR5) & LINUX_CSR5_ACK_MASK);
        // host refills d0 and demands a poll: RS goes back to waiting
        h.desc(d(0), OWN, LINUX_RX_BUF_SIZE, h.bus(buf(0)), 0);
        h.write(CSR2, 0);
        assertEquals(RS_WAIT_PACKET, h.rs());
        h.arrive(f);
        assertTrue(Dec21140DescriptorRing.isGoodReceive(h.word(d(0))));
        // d1 is still host-owned: missed again; refill without CSR2, the next frame resumes
        h.arrive(f);
        assertEquals(RS_SUSPENDED, h.rs());
        h.desc(d(1), OWN, LINUX_RX_BUF_SIZE | RDES1_RER, h.bus(buf(1)), 0);
        h.arrive(f);
        assertTrue(Dec21140DescriptorRing.isGoodReceive(h.word(d(1))));
        assertEquals(RS_WAIT_PACKET, h.rs());
        assertEquals(2, h.card.counters().rxMissed());
        assertEquals(2, h.read(CSR8) & CSR8_MFC_MASK);
        assertEquals(4, h.card.counters().rxFrames());
    }

    /**
     * RU marks the transition into suspended: a frame that finds the ring still full while the receive process is
     * already suspended is counted in CSR8 but raises no new RU, so a non-NAPI driver takes one abnormal interrupt
     * per overload, not one per dropped frame. Leaving suspended and running out again is a new transition.
     */
    @Test
    void ruIsRaisedOncePerTransitionIntoSuspendedNotPerMissedFrame() {
        linuxRing(1);
        h.write(CSR7, CSR7_MASK_ALL);
        h.start(CSR6_PR);
        byte[] f = withFcs(frame(MAC, PEER, 0x0800, 100));
        h.arrive(f); // fills the only descriptor
        h.arrive(f); // missed: suspended, RU
        assertEquals(RS_SUSPENDED, h.rs());
        assertEquals(CSR5_RU, h.read(CSR5) & CSR5_RU);
        h.write(CSR5, h.read(CSR5) & LINUX_CSR5_ACK_MASK);
        assertFalse(h.card.interrupt().isAsserted());
        for (int i = 0; i < 5; i++) {
            h.arrive(f); // missed while suspended: counted, no new RU
        }
        assertEquals(RS_SUSPENDED, h.rs());
        assertEquals(0, h.read(CSR5) & (CSR5_RU | CSR5_AIS), "no RU while already suspended");
        assertFalse(h.card.interrupt().isAsserted());
        assertEquals(6, h.read(CSR8) & CSR8_MFC_MASK);
        h.desc(d(0), OWN, LINUX_RX_BUF_SIZE | RDES1_RER, h.bus(buf(0)), 0);
        h.arrive(f); // the refilled descriptor takes it: running again
        assertEquals(RS_WAIT_PACKET, h.rs());
        h.write(CSR5, h.read(CSR5) & LINUX_CSR5_ACK_MASK);
        h.arrive(f); // a new transition into suspended: RU again
        assertEquals(CSR5_RU, h.read(CSR5) & CSR5_RU);
        assertEquals(7, h.card.counters().rxMissed());
    }

    @Test
    void zeroSizeDescriptorIsSkipped() {
        h.desc(d(0), OWN, 0, 0, 0);
        h.desc(d(1), OWN, LINUX_RX_BUF_SIZE, h.bus(buf(1)), 0);
        h.start(CSR6_PR);
        byte[] f = withFcs(frame(MAC, PEER, 0x0800, 100));
        h.arrive(f);
        assertEquals(RDES0_DE | RDES0_ES, h.word(d(0)));
        assertEquals(RDES0_FS | RDES0_LS, h.word(d(1)) & (RDES0_FS | RDES0_LS | RDES0_DE | OWN));
        assertArrayEquals(f, h.get(buf(1), f.length));
        assertEquals(1, h.card.counters().rxZeroSizeDescriptors());
    }

    @Test
    void ringOfEmptyDescriptorsCannotHoldTheCardForever() {
        for (int i = 0; i < 4; i++) {
            h.desc(d(i), OWN, RDES1_RCH, 0, h.bus(d((i + 1) % 4)));
        }
        h.start(CSR6_PR);
        h.arrive(withFcs(frame(MAC, PEER, 0x0800, 100)));
        // four skipped, then d0 again is host-owned: the frame is cut (DE) with nothing in it
        assertEquals(RS_SUSPENDED, h.rs());
        assertEquals(1, h.card.counters().rxTruncated());
    }

    @Test
    void stopWhileWaitingKeepsTheFifoAndRestartDeliversIt() {
        linuxRing(4);
        h.start(CSR6_PR);
        h.write(CSR6, CSR6_MBO | CSR6_ST | CSR6_PR);
        assertEquals(RS_STOPPED, h.rs());
        h.arrive(withFcs(frame(MAC, PEER, 0x0800, 100)));
        assertEquals(1, h.card.counters().rxWhileStopped(), "SR clear: not received");
        h.write(CSR6, CSR6_MBO | CSR6_ST | CSR6_SR | CSR6_PR);
        h.arrive(withFcs(frame(MAC, PEER, 0x0800, 100)));
        assertTrue(Dec21140DescriptorRing.isGoodReceive(h.word(d(0))));
    }

    @Test
    void virtualTimeReceiveTakesTheModelledDma() {
        try (CardHarness v = new CardHarness(true, Dec21140Timing.PCI_33MHZ)) {
            for (int i = 0; i < 2; i++) {
                v.desc(d(i), OWN, LINUX_RX_BUF_SIZE | (i == 1 ? RDES1_RER : 0), v.bus(buf(i)), 0);
            }
            v.start(CSR6_PR);
            byte[] f = withFcs(frame(MAC, PEER, 0x0800, 46));
            v.arrive(f);
            assertEquals(RS_QUEUE_FIFO, v.rs());
            long t = Dec21140Timing.PCI_33MHZ.receiveNanos(64);
            assertEquals(840, t);
            v.time.advance(t - 1);
            assertEquals(OWN, v.word(d(0)));
            v.time.advance(1);
            assertTrue(Dec21140DescriptorRing.isGoodReceive(v.word(d(0))));
            assertEquals(RS_WAIT_PACKET, v.rs());
        }
    }

    /**
     * Clearing SR while a frame is being moved into host memory lets it finish: RS stays in its running states
     * until the descriptor is written, and only then reads 0 with RPS; the frame behind it waits in the FIFO.
     */
    @Test
    void stopDuringReceiveDmaLetsTheFrameFinishThenReportsStopped() {
        try (CardHarness v = new CardHarness(true, Dec21140Timing.PCI_33MHZ)) {
            for (int i = 0; i < 2; i++) {
                v.desc(d(i), OWN, LINUX_RX_BUF_SIZE | (i == 1 ? RDES1_RER : 0), v.bus(buf(i)), 0);
            }
            v.start(CSR6_PR);
            byte[] f = withFcs(frame(MAC, PEER, 0x0800, 46));
            v.arrive(f);
            v.arrive(f);
            assertEquals(RS_QUEUE_FIFO, v.rs());
            v.write(CSR6, CSR6_MBO | CSR6_ST | CSR6_PR);
            assertEquals(RS_QUEUE_FIFO, v.rs(), "the frame under DMA finishes first");
            assertEquals(0, v.read(CSR5) & CSR5_RPS);
            v.time.advance(Dec21140Timing.PCI_33MHZ.receiveNanos(64));
            assertTrue(Dec21140DescriptorRing.isGoodReceive(v.word(d(0))));
            assertEquals(RS_STOPPED, v.rs());
            assertEquals(CSR5_RPS | CSR5_RI, v.read(CSR5) & (CSR5_RPS | CSR5_RI));
            v.time.advance(1_000_000);
            assertEquals(OWN, v.word(d(1)), "nothing written after the stop");
            v.write(CSR6, CSR6_MBO | CSR6_ST | CSR6_SR | CSR6_PR);
            v.time.advance(1_000_000);
            assertTrue(Dec21140DescriptorRing.isGoodReceive(v.word(d(1))), "the second frame waited in the FIFO");
        }
    }

    @Test
    void internalLoopbackReceivesOurOwnFramesWithDt() {
        linuxRing(4);
        h.start(CSR6_PR | (OM_INTERNAL_LOOPBACK << CSR6_OM_SHIFT));
        byte[] f = frame(MAC, MAC, 0x0800, 100);
        h.put(TX_BUF, f);
        h.desc(TX_RING, TDES0_OWN, TDES1_FS | TDES1_LS | f.length, h.bus(TX_BUF), 0);
        h.write(CSR1, 0);
        assertEquals(0, h.wire.frames.size(), "nothing on the wire");
        int st = h.word(d(0));
        assertEquals(DT_INTERNAL_LOOPBACK, (st & RDES0_DT_MASK) >>> RDES0_DT_SHIFT);
        assertEquals(LINUX_RX_ACCEPT_VALUE, st & LINUX_RX_ACCEPT_MASK);
        assertArrayEquals(withFcs(f), h.get(buf(0), f.length + 4));
        h.arrive(withFcs(frame(MAC, PEER, 0x0800, 100)));
        assertEquals(OWN, h.word(d(1)), "the wire is not listened to in loopback");
        assertEquals(1, h.card.counters().rxDuringLoopback());
        assertEquals(1, h.card.counters().txLoopback());
        assertEquals(0, h.card.counters().txFrames());
    }
}
