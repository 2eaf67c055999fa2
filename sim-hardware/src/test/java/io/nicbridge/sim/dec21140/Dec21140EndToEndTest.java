package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;
import static io.nicbridge.sim.dec21140.CardHarness.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.queue.Dec21140DescriptorRing;
import io.nicbridge.bridge.spi.Backends;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.sim.emu.EmuBackendProvider;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import io.nicbridge.sim.ethernet.EthernetSegment;
import io.nicbridge.sim.fault.FaultPlan;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Two cards on one emulated segment, through the testbed and the emu backend. */
class Dec21140EndToEndTest {
    private static final int RING = 8;

    /** Linux-style setup: perfect filter {station, broadcast}, RX ring of 1536-byte buffers, TX ring. */
    static void bringUp(CardHarness h, byte[] mac) {
        h.write(CSR0, CSR0_SWR);
        h.write(CSR0, LINUX_CSR0_MWI_FALLBACK);
        for (int i = 0; i < RING; i++) {
            int control = LINUX_RX_BUF_SIZE | (i == RING - 1 ? RDES1_RER : 0);
            h.desc(RX_RING + 16L * i, RDES0_OWN, control, h.bus(RX_BUF + 0x800L * i),
                h.bus(RX_RING + 16L * ((i + 1) % RING)));
            h.desc(TX_RING + 16L * i, 0, i == RING - 1 ? TDES1_TER : 0, 0, h.bus(TX_RING + 16L * ((i + 1) % RING)));
        }
        h.put(TX_BUF, perfectSetup(BROADCAST, mac));
        h.desc(TX_RING, TDES0_OWN, LINUX_TDES1_SETUP_PERFECT, h.bus(TX_BUF), 0);
        h.write(CSR3, h.bus32(RX_RING));
        h.write(CSR4, h.bus32(TX_RING));
        h.write(CSR7, LINUX_VALID_INTRS);
        h.write(CSR6, CSR6_MBO | CSR6_PS | CSR6_SF | CSR6_ST | CSR6_SR);
        h.write(CSR1, 0);
    }

    static void send(CardHarness h, int slot, byte[] frame) {
        long buf = TX_BUF + 0x1000 + 0x800L * slot;
        h.put(buf, frame);
        int control = LINUX_TDES1_FRAME | frame.length | (slot == RING - 1 ? TDES1_TER : 0);
        h.desc(TX_RING + 16L * slot, TDES0_OWN, control, h.bus(buf), 0);
        h.write(CSR1, 0);
    }

    @Test
    void inlineTestbedDeliversAFrameAtOnce() {
        try (EmulatedTestbed bed = EmulatedTestbed.create(EngineMode.INLINE, 0)) {
            EthernetSegment lab = bed.ethernet("lab");
            Dec21140Card a = bed.dec21140("a", lab, "02:00:00:00:00:01");
            Dec21140Card b = bed.dec21140("b", lab, "02:00:00:00:00:02");
            assertEquals(Dec21140Timing.ZERO, a.timing());
            try (CardHarness ha = new CardHarness(a.model()); CardHarness hb = new CardHarness(b.model())) {
                bringUp(ha, MAC);
                bringUp(hb, PEER);
                assertEquals(1, a.counters().txSetupFrames());
                byte[] f = frame(PEER, MAC, 0x0800, 100);
                send(ha, 1, f);
                int st = hb.word(RX_RING);
                assertTrue(Dec21140DescriptorRing.isGoodReceive(st), Integer.toHexString(st));
                assertEquals(f.length + 4, Dec21140DescriptorRing.frameLength(st));
                assertArrayEquals(withFcs(f), hb.get(RX_BUF, f.length + 4));
                assertTrue(b.interrupt().isAsserted());
                // A frame for somebody else is filtered by b
                send(ha, 2, frame(new byte[] {2, 9, 9, 9, 9, 9}, MAC, 0x0800, 100));
                assertEquals(1, b.counters().rxFiltered());
                assertEquals(RDES0_OWN, hb.word(RX_RING + 16));
            }
        }
    }

    @Test
    void virtualRttIsWireArithmeticPlusTheCardModel() {
        try (EmulatedTestbed bed = EmulatedTestbed.create(EngineMode.VIRTUAL, 7)) {
            EthernetSegment lab = bed.ethernet("lab");
            Dec21140Card a = bed.dec21140("a", lab, MAC);
            Dec21140Card b = bed.dec21140("b", lab, PEER);
            VirtualTimeEngine engine = bed.virtualEngine();
            try (CardHarness ha = new CardHarness(a.model()); CardHarness hb = new CardHarness(b.model())) {
                bringUp(ha, MAC);
                bringUp(hb, PEER);
                engine.runUntilIdle();
                byte[] f = frame(PEER, MAC, 0x0800, 46); // 60 bytes + FCS = 64 on the wire
                long t0 = bed.timeBase().nanoTime();
                send(ha, 1, f);
                assertTrue(engine.runUntil(() -> (hb.word(RX_RING) & RDES0_OWN) == 0, t0 + 1_000_000));
                long arrived = bed.timeBase().nanoTime() - t0;
                Dec21140Timing m = Dec21140Timing.PCI_33MHZ;
                long wire = (64 + 8) * 80L + EthernetSegment.DEFAULT_PROPAGATION_NANOS;
                assertEquals(wire + m.oneWayNanos(64), arrived);
                assertEquals(7790, arrived);
                assertTrue(Dec21140DescriptorRing.isGoodReceive(hb.word(RX_RING)));
            }
        }
    }

    @Test
    void corruptingWireSetsCeAndEveryLossIsCounted() {
        try (EmulatedTestbed bed = EmulatedTestbed.create(EngineMode.INLINE, 0)) {
            EthernetSegment lab = bed.ethernet("lab", o -> o.faults(FaultPlan.parse("corrupt@2, drop@3")));
            Dec21140Card a = bed.dec21140("a", lab, MAC);
            Dec21140Card b = bed.dec21140("b", lab, PEER);
            try (CardHarness ha = new CardHarness(a.model()); CardHarness hb = new CardHarness(b.model())) {
                bringUp(ha, MAC);
                bringUp(hb, PEER);
                for (int i = 1; i <= 3; i++) {
                    send(ha, i, frame(PEER, MAC, 0x0800, 100));
                }
                // setup frames are not sent: wire frame 1 = data 1 (good), 2 = corrupted, 3 = dropped
                assertTrue(Dec21140DescriptorRing.isGoodReceive(hb.word(RX_RING)));
                int st = hb.word(RX_RING + 16);
                assertEquals(RDES0_CE, st & RDES0_CE);
                assertEquals(1, b.counters().rxCrcErrors());
                assertEquals(RDES0_OWN, hb.word(RX_RING + 32));
                assertEquals(1, lab.drops(EthernetSegment.DropReason.FAULT));
            }
        }
    }

    @Test
    void emuBackendOpensTwoCardsOnOneWireAndClosesTheTestbed() throws Exception {
        Card a = Backends.open("emu:dec21140?wire=e2e&mac=02-00-00-00-00-01&mode=inline&seed=5");
        Card b = Backends.open("emu:dec21140?wire=e2e&mac=02-00-00-00-00-02&mode=inline&seed=5");
        EmulatedTestbed bed = EmuBackendProvider.testbed(a).orElseThrow();
        assertSame(bed, EmuBackendProvider.testbed(b).orElseThrow());
        assertEquals(2, bed.cards().size());
        Dec21140Card da = (Dec21140Card) a;
        Dec21140Card db = (Dec21140Card) b;
        try (CardHarness ha = new CardHarness(da.model()); CardHarness hb = new CardHarness(db.model())) {
            bringUp(ha, MAC);
            bringUp(hb, PEER);
            send(ha, 1, frame(PEER, MAC, 0x0800, 200));
            assertTrue(b.interrupt().await(1, TimeUnit.SECONDS));
            assertTrue(Dec21140DescriptorRing.isGoodReceive(hb.word(RX_RING)));
        }
        a.close();
        assertFalse(bed.isClosed());
        b.close();
        assertTrue(bed.isClosed());
        assertThrows(IllegalArgumentException.class, () -> Backends.open("emu:dec21140?colour=blue"));
        assertThrows(IllegalArgumentException.class, () -> Backends.open("emu:dec21140?mac=02-00-00"));
        assertThrows(IllegalArgumentException.class, () -> Backends.open("emu:dec21140?mode=sideways"));
    }

    @Test
    void threadedTestbedDeliversAcrossEngineThreads() throws Exception {
        try (EmulatedTestbed bed = EmulatedTestbed.create(EngineMode.THREADED, 0)) {
            EthernetSegment lab = bed.ethernet("lab");
            Dec21140Card a = bed.dec21140("a", lab, MAC);
            Dec21140Card b = bed.dec21140("b", lab, PEER);
            try (CardHarness ha = new CardHarness(a.model()); CardHarness hb = new CardHarness(b.model())) {
                bringUp(ha, MAC);
                bringUp(hb, PEER);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (a.counters().txSetupFrames() == 0 || b.counters().txSetupFrames() == 0) {
                    assertTrue(System.nanoTime() < deadline, "setup frames processed");
                    Thread.sleep(1);
                }
                hb.write(CSR5, hb.read(CSR5) & LINUX_CSR5_ACK_MASK);
                send(ha, 1, frame(PEER, MAC, 0x0800, 300));
                while ((hb.word(RX_RING) & RDES0_OWN) != 0) {
                    assertTrue(System.nanoTime() < deadline, "frame received");
                    Thread.sleep(1);
                }
                assertTrue(Dec21140DescriptorRing.isGoodReceive(hb.word(RX_RING)));
            }
        }
    }
}
