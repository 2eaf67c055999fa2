package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;
import static io.nicbridge.sim.dec21140.CardHarness.*;
import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The card as Linux's tulip driver uses it (docs/hardware-facts.md A.3, A.4, A.7). */
class Dec21140LinuxConformanceTest {
    private final CardHarness h = new CardHarness();

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void linuxStyleRingsAcceptTestLengthStopAndAcknowledge() {
        int rxRing = LINUX_RX_RING_SIZE / 16; // 8 descriptors are enough to wrap several times
        int txRing = LINUX_TX_RING_SIZE / 4;
        for (int i = 0; i < rxRing; i++) { // ring mode, word 3 = next descriptor, RCH clear, RBS2 = 0
            h.desc(RX_RING + 16L * i, RDES0_OWN, LINUX_RX_BUF_SIZE | (i == rxRing - 1 ? RDES1_RER : 0),
                h.bus(RX_BUF + 0x800L * i), h.bus(RX_RING + 16L * ((i + 1) % rxRing)));
        }
        for (int i = 0; i < txRing; i++) {
            h.desc(TX_RING + 16L * i, 0, i == txRing - 1 ? TDES1_TER : 0, 0, h.bus(TX_RING + 16L * ((i + 1) % txRing)));
        }
        h.write(CSR0, CSR0_SWR);
        h.write(CSR0, LINUX_CSR0_MWI_FALLBACK);
        h.write(CSR3, h.bus32(RX_RING));
        h.write(CSR4, h.bus32(TX_RING));
        h.write(CSR5, LINUX_VALID_INTRS);
        h.write(CSR7, LINUX_VALID_INTRS);
        h.write(CSR6, CSR6_MBO | CSR6_PS | CSR6_SF | CSR6_SR | CSR6_ST);
        // dummy zero-length descriptor (the erratum workaround), then the setup frame
        h.desc(TX_RING, TDES0_OWN, 0, 0, h.bus(TX_RING + 16));
        h.put(TX_BUF, perfectSetup(BROADCAST, MAC));
        h.desc(TX_RING + 16, TDES0_OWN, LINUX_TDES1_SETUP_PERFECT, h.bus(TX_BUF), h.bus(TX_RING + 32));
        h.write(CSR1, 0);
        assertEquals(0, h.word(TX_RING + 16) & TDES0_OWN);
        for (int k = 0; k < 3 * rxRing; k++) {
            int slot = k % rxRing;
            byte[] f = withFcs(frame(MAC, PEER, 0x0800, 46 + k * 30));
            h.arrive(f);
            long d = RX_RING + 16L * slot;
            int status = h.word(d);
            assertEquals(LINUX_RX_ACCEPT_VALUE, status & LINUX_RX_ACCEPT_MASK, "Linux accepts frame " + k);
            int pktLen = ((status >>> 16) & 0x7FF) - 4;
            assertEquals(f.length - 4, pktLen);
            assertArrayEquals(java.util.Arrays.copyOf(f, pktLen), h.get(RX_BUF + 0x800L * slot, pktLen));
            h.desc(d, RDES0_OWN, LINUX_RX_BUF_SIZE | (slot == rxRing - 1 ? RDES1_RER : 0),
                h.bus(RX_BUF + 0x800L * slot), h.bus(RX_RING + 16L * ((slot + 1) % rxRing)));
            // interrupt handler: acknowledge what was seen
            int csr5 = h.read(CSR5);
            assertTrue(h.card.interrupt().isAsserted());
            h.write(CSR5, csr5 & LINUX_CSR5_ACK_MASK);
            assertFalse(h.card.interrupt().isAsserted());
        }
        // transmit like start_xmit: FS|LS per descriptor, IC at half ring, then CSR1 = 0
        for (int k = 0; k < txRing; k++) {
            int slot = 2 + k;
            if (slot >= txRing) {
                break;
            }
            byte[] f = frame(PEER, MAC, 0x0800, 100);
            h.put(TX_BUF + 0x200L * slot, f);
            int flags = slot == txRing / 2 ? LINUX_TDES1_FRAME_IC : LINUX_TDES1_FRAME;
            h.desc(TX_RING + 16L * slot, TDES0_OWN, flags | f.length | (slot == txRing - 1 ? TDES1_TER : 0),
                h.bus(TX_BUF + 0x200L * slot), h.bus(TX_RING + 16L * ((slot + 1) % txRing)));
            h.write(CSR1, 0);
        }
        assertEquals(txRing - 2, h.wire.frames.size());
        // stop: clear SR|ST, then wait until (CSR5 & 0x007E0000) == 0 - it already is
        h.write(CSR6, h.read(CSR6) & ~(CSR6_SR | CSR6_ST));
        assertEquals(0, h.read(CSR5) & CSR5_RS_TS_MASK);
        h.write(CSR5, LINUX_CSR5_ABNORMAL_CLEAR);
        assertEquals(0, h.read(CSR5) & (CSR5_TPS | CSR5_RPS));
    }
}
