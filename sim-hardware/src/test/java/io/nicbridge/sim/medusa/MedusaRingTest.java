package io.nicbridge.sim.medusa;

import static io.nicbridge.contract.Medusa.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import io.nicbridge.sim.fault.FaultPlan;
import io.nicbridge.sim.fddi.FddiRing;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Executables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Medusa cards on a virtual-time FDDI ring: indicators, stripping, faults, claim via registers, capture. */
class MedusaRingTest {
    static final int ON = CTRL_RX_EN | CTRL_TX_EN | CTRL_RING_JOIN | CTRL_FRAME_OFS3;

    @TempDir
    Path dir;

    EmulatedTestbed bed;
    FddiRing ring;
    VirtualTimeEngine vt;
    List<MedusaHost> hosts = new ArrayList<>();

    void ring(int stations, Consumer<FddiRing.Builder> options) {
        bed = EmulatedTestbed.create(EngineMode.VIRTUAL, 11);
        vt = bed.virtualEngine();
        ring = bed.fddiRing("fddi0", options);
        for (int i = 1; i <= stations; i++) {
            MedusaHost h = new MedusaHost(bed.medusa("m" + i, ring, MedusaHost.mac(i)));
            h.init(ON, 64, 64);
            hosts.add(h);
        }
        vt.runFor(1_000_000);
        assertEquals(FddiRing.STATE_OPERATIONAL, ring.state());
    }

    MedusaHost h(int i) {
        return hosts.get(i - 1);
    }

    void runUntilTxDone(MedusaHost h) {
        assertTrue(vt.runUntil(() -> (h.read(REG_FIFO_LEVEL) & FIFO_LEVEL_TXDONE_MASK) != 0,
            bed.timeBase().nanoTime() + 20_000_000), "TX completes");
    }

    @org.junit.jupiter.api.AfterEach
    void tearDown() {
        if (bed != null) {
            bed.close();
        }
    }

    @Test
    void broadcastReachesEveryOtherStationAndIsStrippedByItsSender() {
        ring(3, b -> { });
        h(1).frame(0, FC_LLC_ASYNC_DEFAULT, new byte[] {-1, -1, -1, -1, -1, -1}, MedusaHost.mac(1), 64, 1);
        h(1).write(REG_TX_FIFO, 0);
        runUntilTxDone(h(1));
        assertEquals(FIFO_VALID | 0, h(1).read(REG_TXDONE_FIFO));
        assertEquals(STAT_DONE_BIT | STAT_A_BIT | STAT_C_BIT, h(1).stat(0) & STAT_CODE_MASK);
        assertEquals(0, h(1).read(REG_RX_FIFO), "the sender strips its own frame: it never receives it");
        for (int i = 2; i <= 3; i++) {
            int e = h(i).read(REG_RX_FIFO);
            assertEquals(FIFO_VALID, e & FIFO_VALID, "station " + i);
            assertArrayEquals(h(1).frameBytes(0, 77), h(i).frameBytes(e & FIFO_BUF_MASK, 77));
        }
        assertEquals(1, ring.frames());
    }

    @Test
    void indicatorsTellTheSenderWhetherItsFrameWasRecognisedAndCopied() {
        ring(3, b -> { });
        // nobody has address 02:..:09
        h(1).frame(0, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(9), MedusaHost.mac(1), 10, 0);
        h(1).write(REG_TX_FIFO, 0);
        runUntilTxDone(h(1));
        h(1).read(REG_TXDONE_FIFO);
        assertEquals(STAT_DONE_BIT, h(1).stat(0) & STAT_CODE_MASK, "A = 0, C = 0");

        // station 2 recognises its address but has RX disabled
        h(2).write(REG_CTRL, ON & ~CTRL_RX_EN);
        h(1).frame(1, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(2), MedusaHost.mac(1), 10, 0);
        h(1).write(REG_TX_FIFO, 1);
        runUntilTxDone(h(1));
        h(1).read(REG_TXDONE_FIFO);
        assertEquals(STAT_DONE_BIT | STAT_A_BIT, h(1).stat(1) & STAT_CODE_MASK, "A = 1, C = 0");

        // station 3 has no free buffer
        h(3).write(REG_CTRL, CTRL_RESET);
        h(3).write(REG_CTRL, ON);
        vt.runFor(1_000_000);
        h(1).frame(2, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(3), MedusaHost.mac(1), 10, 0);
        h(1).write(REG_TX_FIFO, 2);
        runUntilTxDone(h(1));
        h(1).read(REG_TXDONE_FIFO);
        assertEquals(STAT_DONE_BIT | STAT_A_BIT, h(1).stat(2) & STAT_CODE_MASK);
        assertEquals(1, h(3).card.model().counter(REG_CNT_NOBUF_DROPS));
        assertTrue((h(3).read(REG_ISR) & INT_RX_DROP_NOBUF) != 0);

        // promiscuous station 2 (RX on) copies a frame for station 3 without recognising it
        h(2).write(REG_CTRL, ON | CTRL_PROMISC);
        h(1).frame(3, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(3), MedusaHost.mac(1), 10, 0);
        h(1).write(REG_TX_FIFO, 3);
        runUntilTxDone(h(1));
        h(1).read(REG_TXDONE_FIFO);
        assertEquals(STAT_DONE_BIT | STAT_A_BIT | STAT_C_BIT, h(1).stat(3) & STAT_CODE_MASK);
        int e = h(2).read(REG_RX_FIFO);
        assertEquals(STAT_DONE_BIT | STAT_C_BIT, h(2).stat(e & FIFO_BUF_MASK) & STAT_CODE_MASK,
            "station 2 copied (C) but did not recognise (no A of its own; station 3 is downstream)");
    }

    @Test
    void aCorruptedFrameIsDetectedByFcsAndCounted() {
        ring(2, b -> b.faults(FaultPlan.builder().corruptFrame(2).build()));
        for (int n = 0; n < 3; n++) {
            h(1).frame(n, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(2), MedusaHost.mac(1), 200, n);
            h(1).write(REG_TX_FIFO, n);
        }
        assertTrue(vt.runUntil(() -> ((h(1).read(REG_FIFO_LEVEL) & FIFO_LEVEL_TXDONE_MASK) >>> FIFO_LEVEL_TXDONE_SHIFT) == 3,
            bed.timeBase().nanoTime() + 20_000_000));
        assertEquals(1, ring.corruptedFrames());
        assertEquals(1, h(2).card.model().counter(REG_CNT_FCS_ERRORS));
        assertEquals(3, h(2).card.model().counter(REG_CNT_FRAMES_RX), "stored, marked, so the host can see it");
        int[] stats = new int[3];
        for (int k = 0; k < 3; k++) {
            int e = h(2).read(REG_RX_FIFO);
            stats[k] = h(2).stat(e & FIFO_BUF_MASK) & STAT_CODE_MASK;
        }
        assertEquals(STAT_DONE_BIT | STAT_A_BIT | STAT_C_BIT, stats[0]);
        assertEquals(STAT_DONE_BIT | STAT_FCS_ERR_BIT | STAT_E_BIT | STAT_A_BIT, stats[1]);
        assertEquals(STAT_DONE_BIT | STAT_A_BIT | STAT_C_BIT, stats[2]);
        assertTrue((h(2).read(REG_ISR) & INT_RX_ERR) != 0);
        for (int k = 0; k < 3; k++) {
            assertEquals(FIFO_VALID | k, h(1).read(REG_TXDONE_FIFO));
        }
        assertEquals(STAT_DONE_BIT | STAT_E_BIT | STAT_A_BIT, h(1).stat(1) & STAT_CODE_MASK,
            "the sender learns of the error from E, and of the missing copy from C = 0");
    }

    @Test
    void aLostFrameReachesNobodyAndComesBackWithoutIndicators() {
        ring(2, b -> b.faults(FaultPlan.builder().dropFrame(1).build()));
        h(1).frame(0, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(2), MedusaHost.mac(1), 50, 0);
        h(1).write(REG_TX_FIFO, 0);
        runUntilTxDone(h(1));
        assertEquals(FIFO_VALID | 0, h(1).read(REG_TXDONE_FIFO));
        assertEquals(STAT_DONE_BIT, h(1).stat(0) & STAT_CODE_MASK);
        assertEquals(0, h(2).read(REG_RX_FIFO));
        assertEquals(1, ring.lostFrames());
    }

    @Test
    void aLongFrameToAStationWithoutLongFramesIsStoredTruncated() {
        ring(2, b -> { });
        h(1).write(REG_CTRL, ON | CTRL_LONG_FRAMES);
        int len = h(1).frame(0, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(2), MedusaHost.mac(1), 6000, 0);
        h(1).write(REG_TX_FIFO, 0);
        runUntilTxDone(h(1));
        int e = h(2).read(REG_RX_FIFO);
        int n = e & FIFO_BUF_MASK;
        assertEquals(MAX_FRAME - 4, h(2).len(n), "stored up to the 4500-byte limit (FCS not kept)");
        assertEquals(STAT_DONE_BIT | STAT_A_BIT | STAT_TRUNCATED_BIT, h(2).stat(n) & STAT_CODE_MASK);
        assertArrayEquals(h(1).frameBytes(0, MAX_FRAME - 4), h(2).frameBytes(n, MAX_FRAME - 4));
        assertEquals(1, h(2).card.model().counter(REG_CNT_RX_TRUNCATED));
        assertEquals(STAT_DONE_BIT | STAT_A_BIT, h(1).stat(0) & STAT_CODE_MASK, "not copied completely: C = 0");
        assertTrue(len > MAX_FRAME);
    }

    @Test
    void treqBidsSetTtrtAndRingChangesAreReported() {
        ring(2, b -> { });
        assertEquals(8_000_000, ring.ttrtNanos(), "default TREQ 8000 us");
        assertEquals(8_000_000, h(1).card.model().ttrtNanos());
        h(2).write(REG_CTRL, ON & ~CTRL_RING_JOIN);
        h(2).write(REG_TREQ_US, 5000);
        vt.runFor(100_000); // the card acts on CTRL when serviced: let it leave before it joins again
        h(2).write(REG_ISR, INT_ALL);
        h(1).write(REG_ISR, INT_ALL);
        int reinits = h(1).card.model().counter(REG_CNT_RING_REINITS);
        h(2).write(REG_CTRL, ON);
        vt.runFor(1_000_000);
        assertEquals(5_000_000, ring.ttrtNanos());
        assertEquals(INT_RING_CHANGE, h(1).read(REG_ISR) & INT_RING_CHANGE);
        assertEquals(reinits + 1, h(1).card.model().counter(REG_CNT_RING_REINITS));
        assertEquals(STATUS_RING_OP | RING_STATE_OPERATIONAL << STATUS_RING_STATE_SHIFT, h(2).read(REG_STATUS));
        h(2).write(REG_CTRL, ON & ~CTRL_RING_JOIN);
        vt.runFor(1_000_000);
        assertEquals(RING_STATE_ISOLATED, STATUS_RING_STATE(h(2).read(REG_STATUS)));
        assertEquals(1, ring.memberCount());
        int tokens = h(1).read(REG_CNT_TOKENS_SEEN);
        vt.runFor(1_000_000);
        long expected = 1_000_000 / ring.idleRotationNanos();
        assertEquals(expected, h(1).read(REG_CNT_TOKENS_SEEN) - tokens, 1.0,
            "an idle token passes once per idle rotation, counted when the host reads the counter");
    }

    private static int STATUS_RING_STATE(int status) {
        return (status & STATUS_RING_STATE_MASK) >>> STATUS_RING_STATE_SHIFT;
    }

    @Test
    void resetWhileAFrameIsOnTheRingForgetsItsCompletion() {
        ring(2, b -> b.linkPropagationNanos(100_000)); // long fibre: the frame is out for a while
        h(1).frame(0, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(2), MedusaHost.mac(1), 50, 0);
        h(1).write(REG_TX_FIFO, 0);
        assertTrue(vt.runUntil(() -> ring.frames() == 1, bed.timeBase().nanoTime() + 5_000_000));
        h(1).write(REG_CTRL, CTRL_RESET);
        vt.runFor(5_000_000);
        assertEquals(0, h(1).read(REG_TXDONE_FIFO), "sent before the reset: no completion after it");
        assertEquals(FIFO_VALID, h(2).read(REG_RX_FIFO) & FIFO_VALID, "the frame itself was on the fibre already");
        assertEquals(0, h(1).card.model().counter(REG_CNT_FRAMES_TX));
    }

    @Test
    void saturatingMedusaStationsKeepRotationWithinTwiceTtrt() {
        ring(4, b -> { });
        for (MedusaHost h : hosts) {
            h.write(REG_TREQ_US, 2000);
            h.write(REG_CTRL, ON & ~CTRL_RING_JOIN);
        }
        vt.runFor(10_000);
        for (MedusaHost h : hosts) {
            h.write(REG_CTRL, ON);
        }
        vt.runFor(100_000);
        long ttrt = ring.ttrtNanos();
        assertEquals(2_000_000, ttrt);
        for (int i = 0; i < hosts.size(); i++) {
            MedusaHost h = hosts.get(i);
            for (int n = 0; n < 32; n++) { // 32 frames of 4000 bytes to the next station, queued at once
                h.frame(n, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(i % 4 + 2 > 4 ? 1 : i + 2), MedusaHost.mac(i + 1),
                    3987, n);
                h.write(REG_TX_FIFO, n);
            }
        }
        ring.resetRotationStats();
        long end = bed.timeBase().nanoTime() + 60_000_000;
        while (bed.timeBase().nanoTime() < end) {
            vt.runFor(200_000);
            for (MedusaHost h : hosts) { // keep every TX FIFO full: re-queue what completed; recycle RX buffers
                int e;
                while ((e = h.read(REG_TXDONE_FIFO)) != 0) {
                    h.write(REG_TX_FIFO, e & FIFO_BUF_MASK);
                }
                while ((e = h.read(REG_RX_FIFO)) != 0) {
                    h.write(REG_FREE_FIFO, e & FIFO_BUF_MASK);
                }
            }
        }
        assertTrue(ring.rotations() > 50);
        assertEquals(0, ring.rotationOverruns(), "max rotation " + ring.maxRotationNanos());
        assertTrue(ring.maxRotationNanos() <= 2 * ttrt);
        assertTrue(ring.maxRotationNanos() > ttrt, "the load was saturating: some rotations exceed TTRT");
        assertTrue(ring.lateTokens() > 0, "and some tokens arrive late");
        for (MedusaHost h : hosts) {
            assertTrue(h.card.model().counter(REG_CNT_FRAMES_TX) > 20, h.card.name() + " sent "
                + h.card.model().counter(REG_CNT_FRAMES_TX));
            assertEquals(0, h.card.model().counter(REG_CNT_NOBUF_DROPS));
        }
    }

    @Test
    void captureIsLinktype10AndTsharkShowsCanonicalAddresses() throws Exception {
        Path file = dir.resolve("fddi.pcap");
        byte[] a = {0x08, 0x00, 0x09, 0x01, 0x02, 0x03};
        byte[] b = {0x00, 0x60, (byte) 0xB0, 0x44, 0x55, 0x66};
        bed = EmulatedTestbed.create(EngineMode.VIRTUAL, 3);
        vt = bed.virtualEngine();
        ring = bed.fddiRing("cap", o -> o.capture(file));
        MedusaHost ha = new MedusaHost(bed.medusa("a", ring, a));
        MedusaHost hb = new MedusaHost(bed.medusa("b", ring, b));
        ha.init(ON, 64, 64);
        hb.init(ON, 64, 64);
        vt.runFor(1_000_000);
        // FC 0x54 (async LLC priority 4), LLC/SNAP AA AA 03 00 00 00 08 00 then a payload
        int len = ha.frame(0, FC_LLC_ASYNC_DEFAULT, b, a, 8 + 20, 0);
        int at = 3 + 13;
        int[] snap = {0xAA, 0xAA, 0x03, 0, 0, 0, 0x08, 0x00};
        for (int i = 0; i < snap.length; i++) {
            ha.ram.writeByte(at + i, snap[i]);
        }
        ha.write(REG_TX_FIFO, 0);
        runUntilTxDone(ha);
        hb.frame(1, 0x50, a, b, 40, 1);
        hb.write(REG_TX_FIFO, 1);
        runUntilTxDone(hb);
        bed.close();
        byte[] pcap = Files.readAllBytes(file);
        assertEquals(10, pcap[20] & 0xFF, "linktype 10 (little-endian header)");
        assertEquals(2, countRecords(pcap));
        // the record holds DA/SA bit-reversed per byte: 0x08 -> 0x10
        assertEquals(0x54, pcap[24 + 16] & 0xFF);
        assertEquals(0x00, pcap[24 + 16 + 1] & 0xFF);
        assertEquals(0x06, pcap[24 + 16 + 2] & 0xFF, "0x60 bit-reversed");
        assertEquals(len, readInt(pcap, 24 + 8), "incl_len = FC .. INFO, no FCS");

        Path tshark = Executables.require(Capability.TSHARK, "tshark");
        Process p = new ProcessBuilder(tshark.toString(), "-n", "-r", file.toString(), "-T", "fields", "-E",
            "separator=/t", "-E", "occurrence=f", "-e", "fddi.fc", "-e", "fddi.dst", "-e", "fddi.src", "-e", "llc.type", "-e", "_ws.malformed")
            .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        List<String> lines = out.lines().toList();
        assertEquals(2, lines.size(), out);
        HexFormat hex = HexFormat.ofDelimiter(":");
        String[] first = lines.get(0).split("\t", -1);
        assertEquals("0x54", first[0], lines.get(0));
        assertEquals(hex.formatHex(b), first[1], "DA canonical");
        assertEquals(hex.formatHex(a), first[2], "SA canonical");
        assertEquals("0x0800", first[3], "LLC/SNAP carries IP");
        String[] second = lines.get(1).split("\t", -1);
        assertEquals("0x50", second[0]);
        assertEquals(hex.formatHex(a), second[1]);
        assertEquals(hex.formatHex(b), second[2]);
    }

    private static int readInt(byte[] b, int at) {
        return (b[at] & 0xFF) | (b[at + 1] & 0xFF) << 8 | (b[at + 2] & 0xFF) << 16 | (b[at + 3] & 0xFF) << 24;
    }

    private static int countRecords(byte[] pcap) {
        int at = 24;
        int n = 0;
        while (at + 16 <= pcap.length) {
            at += 16 + readInt(pcap, at + 8);
            n++;
        }
        return n;
    }
}
