package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.sim.testing.ManualVirtualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class Dec21140CsrTest {
    private final CardHarness h = new CardHarness();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void resetValuesAreQemus() {
        int[] expected = {CSR0_RESET, CSR1_RESET, CSR2_RESET, CSR3_RESET, CSR4_RESET, CSR5_RESET, CSR6_RESET,
            CSR7_RESET, CSR8_RESET, CSR9_RESET, CSR10_RESET, CSR11_RESET, CSR12_RESET, CSR13_RESET, CSR14_RESET,
            CSR15_RESET};
        for (int i = 0; i < 16; i++) {
            assertEquals(expected[i], h.read(i * CSR_STRIDE), "CSR" + i);
        }
        assertEquals(0xF0000000, CSR5_RESET);
        assertEquals(CSR_WINDOW_SIZE, h.csr.size());
    }

    @Test
    void softwareResetRestoresEveryCsr() {
        h.write(CSR7, CSR7_MASK_ALL);
        h.write(CSR3, h.bus32(CardHarness.RX_RING));
        h.write(CSR4, h.bus32(CardHarness.TX_RING));
        h.write(CSR0, 0x00004800 | (3 << CSR0_DSL_SHIFT));
        h.write(CSR6, CSR6_ST | CSR6_SR | CSR6_MBO);
        h.write(CSR12, CSR12_GPC | 0x3F);
        h.write(CSR12, 0x09);
        h.write(CSR11, 100);
        assertEquals(TS_SUSPENDED, h.ts());
        h.write(CSR0, CSR0_SWR);
        assertEquals(CSR0_RESET, h.read(CSR0));
        assertEquals(CSR3_RESET, h.read(CSR3));
        assertEquals(CSR5_RESET, h.read(CSR5));
        assertEquals(CSR6_RESET, h.read(CSR6));
        assertEquals(CSR7_RESET, h.read(CSR7));
        assertEquals(CSR12_RESET, h.read(CSR12));
        assertEquals(CSR11_RESET, h.read(CSR11));
        assertFalse(h.card.interrupt().isAsserted());
    }

    @Test
    void csr0StoresBurstFieldsAndSkipLength() {
        int v = (8 << CSR0_PBL_SHIFT) | (1 << CSR0_CAL_SHIFT) | (5 << CSR0_DSL_SHIFT) | CSR0_BAR;
        h.write(CSR0, v);
        assertEquals(v, h.read(CSR0));
    }

    @Test
    void csr5IsWriteOneToClearAndStateFieldsAreReadOnly() {
        h.write(CSR7, CSR7_MASK_ALL);
        h.start(0); // TX finds an empty ring: TU; RX waits
        int csr5 = h.read(CSR5);
        assertEquals(CSR5_TU, csr5 & CSR5_TU);
        assertEquals(TS_SUSPENDED, h.ts());
        assertEquals(RS_WAIT_PACKET, h.rs());
        h.write(CSR5, 0xFFFFFFFF); // every bit: only W1C bits clear
        csr5 = h.read(CSR5);
        assertEquals(0, csr5 & 0x0001FFFF);
        assertEquals(TS_SUSPENDED, h.ts());
        assertEquals(RS_WAIT_PACKET, h.rs());
        assertEquals(0xF0000000, csr5 & 0xF0000000);
    }

    @Test
    void writingZeroToCsr5ClearsNothing() {
        h.start(0);
        int before = h.read(CSR5);
        h.write(CSR5, 0);
        assertEquals(before, h.read(CSR5));
    }

    @Test
    void stopDropsStatesToZeroAtOnceAndRaisesTpsRps() {
        h.start(0);
        h.write(CSR5, LINUX_CSR5_ACK_MASK);
        h.write(CSR6, CSR6_MBO);
        assertEquals(0, h.read(CSR5) & CSR5_RS_TS_MASK);
        int csr5 = h.read(CSR5);
        assertEquals(CSR5_TPS | CSR5_RPS, csr5 & (CSR5_TPS | CSR5_RPS));
    }

    @Test
    void listBasesAreWritableOnlyWhileStopped() {
        h.write(CSR3, h.bus32(0x100) | 3);
        assertEquals(h.bus32(0x100), h.read(CSR3), "bits 1:0 ignored");
        h.start(0);
        h.write(CSR3, h.bus32(0x200));
        h.write(CSR4, h.bus32(0x300));
        assertEquals(h.bus32(CardHarness.RX_RING), h.read(CSR3));
        assertEquals(h.bus32(CardHarness.TX_RING), h.read(CSR4));
        assertEquals(2, h.card.counters().listBaseWritesIgnored());
        h.write(CSR6, CSR6_MBO | CSR6_SR); // TX stopped, RX running
        h.write(CSR4, h.bus32(0x300));
        h.write(CSR3, h.bus32(0x200));
        assertEquals(h.bus32(0x300), h.read(CSR4));
        assertEquals(h.bus32(CardHarness.RX_RING), h.read(CSR3));
    }

    @Test
    void filterModeBitsOfCsr6AreReadOnly() {
        h.write(CSR6, CSR6_MBO | CSR6_HP | CSR6_HO | CSR6_IF | CSR6_PM);
        assertEquals(CSR6_MBO | CSR6_PM, h.read(CSR6));
    }

    @Test
    void csr8CountsMissedFramesAndClearsOnRead() {
        h.start(0); // RX ring: all host-owned (zeroed memory)
        for (int i = 0; i < 3; i++) {
            h.arrive(CardHarness.withFcs(CardHarness.frame(CardHarness.MAC, CardHarness.PEER, 0x0800, 100)));
        }
        // filter: no setup frame yet - promiscuous makes them reach the descriptor fetch
        assertEquals(0, h.read(CSR8) & CSR8_MFC_MASK, "filtered frames are not missed frames");
        h.write(CSR6, h.read(CSR6) | CSR6_PR);
        for (int i = 0; i < 3; i++) {
            h.arrive(CardHarness.withFcs(CardHarness.frame(CardHarness.MAC, CardHarness.PEER, 0x0800, 100)));
        }
        int csr8 = h.read(CSR8);
        assertEquals(3, csr8 & CSR8_MFC_MASK);
        assertEquals(0xE0000000, csr8 & 0xE0000000);
        assertEquals(0, h.read(CSR8) & CSR8_MFC_MASK, "cleared by the read");
        assertEquals(3, h.card.counters().rxMissed());
        assertEquals(3, h.card.counters().rxFiltered());
        assertEquals(RS_SUSPENDED, h.rs());
        assertEquals(CSR5_RU, h.read(CSR5) & CSR5_RU);
    }

    @Test
    void csr8WritesAreIgnored() {
        h.write(CSR8, 0x1234);
        assertEquals(CSR8_RESET, h.read(CSR8));
    }

    @Test
    void interruptSummaryFollowsTheQemuRule() {
        h.start(0); // TU (normal) raised
        assertFalse(h.card.interrupt().isAsserted(), "everything masked at reset");
        assertEquals(0, h.read(CSR5) & (CSR5_NIS | CSR5_AIS));
        h.write(CSR7, CSR7_TUM); // source enabled, summary not
        assertEquals(CSR5_NIS, h.read(CSR5) & (CSR5_NIS | CSR5_AIS), "TU is normal");
        assertFalse(h.card.interrupt().isAsserted(), "NIM off: no INTA");
        h.write(CSR7, CSR7_TUM | CSR7_NIM);
        assertTrue(h.card.interrupt().isAsserted());
        h.write(CSR5, CSR5_TU);
        assertFalse(h.card.interrupt().isAsserted());
        assertEquals(0, h.read(CSR5) & CSR5_NIS);

        // RU is abnormal
        h.write(CSR7, CSR7_RUM | CSR7_NIM);
        h.write(CSR6, h.read(CSR6) | CSR6_PR);
        h.arrive(CardHarness.withFcs(CardHarness.frame(CardHarness.MAC, CardHarness.PEER, 0x0800, 100)));
        assertEquals(CSR5_AIS, h.read(CSR5) & (CSR5_NIS | CSR5_AIS));
        assertFalse(h.card.interrupt().isAsserted(), "AIM off");
        h.write(CSR7, CSR7_RUM | CSR7_AIM);
        assertTrue(h.card.interrupt().isAsserted());
        h.write(CSR5, h.read(CSR5) & LINUX_CSR5_ACK_MASK);
        assertFalse(h.card.interrupt().isAsserted());
    }

    @Test
    void gpioDirectionThenData() {
        h.write(CSR12, CSR12_GPC | SMC9332_GPIO_DIRECTION);
        h.write(CSR12, 0xFF);
        h.card.gpioInputs(0x40);
        assertEquals(0x3F | 0x40, h.read(CSR12) & 0xFF, "outputs as written, inputs as driven");
        h.write(CSR12, SMC9332_GPIO_100BASETX);
        assertEquals(0x09 | 0x40, h.read(CSR12) & 0xFF);
    }

    @Test
    void csr15StoresWatchdogBitsOnly() {
        h.write(CSR15, 0xFFFFFFFF);
        assertEquals((CSR15_RESET & ~0x37) | 0x37, h.read(CSR15));
    }

    @Test
    void pollDemandRegistersReadAllOnes() {
        h.write(CSR1, 0);
        h.write(CSR2, 0);
        assertEquals(0xFFFFFFFF, h.read(CSR1));
        assertEquals(0xFFFFFFFF, h.read(CSR2));
    }

    @Test
    void fifoOverflowCountsInCsr8Bits27To17() {
        ManualVirtualTime time = new ManualVirtualTime(false);
        Dec21140Model card = new Dec21140Model("idle-engine", CardHarness.MAC, time, Dec21140Timing.ZERO);
        card.connect(() -> { }, new RecordingPort()); // an engine that never gets round to servicing the card
        card.registers().write(CSR6, CSR6_MBO | CSR6_SR | CSR6_PR);
        byte[] f = CardHarness.withFcs(CardHarness.frame(CardHarness.MAC, CardHarness.PEER, 0x0800, 100));
        for (int i = 0; i < Dec21140Model.RX_FIFO_FRAMES + 3; i++) {
            card.frameArrived(java.lang.foreign.MemorySegment.ofArray(f), 0, f.length);
        }
        int csr8 = card.registers().read(CSR8);
        assertEquals(3, (csr8 & CSR8_FOC_MASK) >>> CSR8_FOC_SHIFT);
        assertEquals(0, csr8 & CSR8_OCO);
        assertEquals(3, card.counters().rxFifoOverflows());
        assertEquals(0, card.registers().read(CSR8) & CSR8_FOC_MASK, "cleared by the read");
        card.close();
    }

    @Test
    void missedFrameCounterSaturatesAndSetsItsOverflowBit() {
        h.write(CSR3, h.bus32(CardHarness.RX_RING)); // host-owned (zeroed) descriptors
        h.write(CSR6, CSR6_MBO | CSR6_SR | CSR6_PR);
        byte[] f = CardHarness.withFcs(CardHarness.frame(CardHarness.MAC, CardHarness.PEER, 0x0800, 46));
        for (int i = 0; i < CSR8_MFC_MASK + 2; i++) {
            h.arrive(f);
        }
        int csr8 = h.read(CSR8);
        assertEquals(CSR8_MFC_MASK, csr8 & CSR8_MFC_MASK);
        assertEquals(CSR8_MFO, csr8 & CSR8_MFO);
        assertEquals(0, h.read(CSR8) & (CSR8_MFC_MASK | CSR8_MFO));
        assertEquals(CSR8_MFC_MASK + 2L, h.card.counters().rxMissed(), "the card's own counter does not saturate");
    }
}
