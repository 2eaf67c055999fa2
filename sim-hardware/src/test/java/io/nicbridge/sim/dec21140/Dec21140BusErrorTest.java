package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;
import static io.nicbridge.sim.dec21140.CardHarness.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.memory.BusError;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** DMA outside registered memory: CSR5.FBE with the EB code, both processes stopped, never an exception. */
class Dec21140BusErrorTest {
    private final CardHarness h = new CardHarness();

    @AfterEach
    void close() {
        h.close();
    }

    private int eb() {
        return (h.read(CSR5) & CSR5_EB_MASK) >>> CSR5_EB_SHIFT;
    }

    private void assertFatal(int eb, int code) {
        int csr5 = h.read(CSR5);
        assertEquals(CSR5_FBE, csr5 & CSR5_FBE);
        assertEquals(0, csr5 & CSR5_RS_TS_MASK, "TS and RS stopped");
        assertEquals(eb, eb());
        assertEquals(code, h.card.lastBusErrorCode());
        assertTrue(h.card.interrupt().isAsserted(), "FBE is abnormal and enabled");
        assertEquals(CSR5_AIS, csr5 & CSR5_AIS);
    }

    @Test
    void unregisteredTransmitListBase() {
        h.write(CSR7, CSR7_MASK_ALL);
        h.write(CSR4, 0x00000100); // below every region
        h.write(CSR6, CSR6_MBO | CSR6_ST | CSR6_SR);
        assertFatal(EB_MASTER_ABORT, BusError.NO_REGION);
        assertEquals(1, h.card.counters().busErrors());
    }

    @Test
    void transmitBufferStraddlingTheEndOfTheRegion() {
        h.write(CSR7, CSR7_MASK_ALL);
        long last = MEM_BYTES - 10;
        h.desc(TX_RING, TDES0_OWN, TDES1_FS | TDES1_LS | 100, h.bus(last), 0);
        h.start(0);
        assertFatal(EB_TARGET_ABORT, BusError.OUT_OF_REGION);
        assertEquals(0, h.wire.frames.size());
        assertEquals(TDES0_OWN, h.word(TX_RING), "the descriptor stays the card's: it was never completed");
        assertEquals(1, h.card.counters().busErrorDrops());
        // the host may restart after clearing: with a good descriptor everything works again
        h.write(CSR5, h.read(CSR5) & LINUX_CSR5_ACK_MASK);
        h.write(CSR0, CSR0_SWR);
        byte[] f = frame(PEER, MAC, 0x0800, 60);
        h.put(TX_BUF, f);
        h.desc(TX_RING, TDES0_OWN, TDES1_FS | TDES1_LS | f.length, h.bus(TX_BUF), 0);
        h.start(0);
        assertEquals(1, h.wire.frames.size());
    }

    @Test
    void receiveBufferUnregistered() {
        h.write(CSR7, CSR7_MASK_ALL);
        h.desc(RX_RING, RDES0_OWN, LINUX_RX_BUF_SIZE, 0x20, 0);
        h.start(CSR6_PR);
        h.arrive(withFcs(frame(MAC, PEER, 0x0800, 100)));
        assertFatal(EB_MASTER_ABORT, BusError.NO_REGION);
        assertEquals(RDES0_OWN, h.word(RX_RING));
        assertEquals(1, h.card.counters().busErrorDrops());
    }

    @Test
    void receiveBufferMisaligned() {
        h.write(CSR7, CSR7_MASK_ALL);
        h.desc(RX_RING, RDES0_OWN, LINUX_RX_BUF_SIZE, h.bus(RX_BUF + 2), 0);
        h.start(CSR6_PR);
        h.arrive(withFcs(frame(MAC, PEER, 0x0800, 100)));
        assertFatal(EB_TARGET_ABORT, BusError.MISALIGNED);
    }

    @Test
    void misalignedDescriptorPointerInAChain() {
        h.write(CSR7, CSR7_MASK_ALL);
        byte[] f = frame(PEER, MAC, 0x0800, 60);
        h.put(TX_BUF, f);
        h.desc(TX_RING, TDES0_OWN, TDES1_FS | TDES1_LS | TDES1_TCH | f.length, h.bus(TX_BUF), h.bus(0x102));
        h.start(0);
        assertEquals(1, h.wire.frames.size(), "the frame went out");
        assertFatal(EB_TARGET_ABORT, BusError.MISALIGNED);
    }

    @Test
    void setupFrameBufferUnregistered() {
        h.desc(TX_RING, TDES0_OWN, LINUX_TDES1_SETUP_PERFECT, 0xFFFF_F000L, 0);
        h.start(0);
        assertEquals(CSR5_FBE, h.read(CSR5) & CSR5_FBE);
        assertEquals(EB_MASTER_ABORT, eb());
    }

    @Test
    void descriptorListFreedUnderTheCard() {
        // The host unregisters its ring while the card is suspended on it: the next poll is a bus error.
        h.start(0);
        h.card.dma().unregister(h.busBase);
        h.write(CSR1, 0);
        assertEquals(CSR5_FBE, h.read(CSR5) & CSR5_FBE);
        assertEquals(EB_MASTER_ABORT, eb());
    }

    @Test
    void receiveBufferLargerThanItsRegionFaultsOnlyWhenTheFrameReachesTheEnd() {
        h.write(CSR7, CSR7_MASK_ALL);
        // an oversized RBS1 (2044) on a buffer 200 bytes before the end of registered memory
        long tight = MEM_BYTES - 200;
        h.desc(RX_RING, RDES0_OWN, 2044, h.bus(tight), 0);
        h.desc(RX_RING + 16, RDES0_OWN, 2044 | RDES1_RER, h.bus(tight), 0);
        h.start(CSR6_PR);
        byte[] small = withFcs(frame(MAC, PEER, 0x0800, 100)); // 118 bytes: fits what is really there
        h.arrive(small);
        assertEquals(0, h.read(CSR5) & CSR5_FBE);
        assertArrayEquals(small, h.get(tight, small.length));
        h.arrive(withFcs(frame(MAC, PEER, 0x0800, 400))); // runs past the end of the region
        assertFatal(EB_TARGET_ABORT, BusError.OUT_OF_REGION);
        assertEquals(RDES0_OWN, h.word(RX_RING + 16));
    }

    @Test
    void transmitBuffersMayBeByteAligned() {
        byte[] f = frame(PEER, MAC, 0x0800, 77);
        h.put(TX_BUF + 3, f);
        h.desc(TX_RING, TDES0_OWN, TDES1_FS | TDES1_LS | f.length, h.bus(TX_BUF + 3), 0);
        h.start(0);
        assertEquals(0, h.read(CSR5) & CSR5_FBE);
        assertArrayEquals(withFcs(f), h.wire.frames.get(0));
    }

    @Test
    void receiveSizeNotAMultipleOfFourIsUsedAsGiven() {
        h.desc(RX_RING, RDES0_OWN, 61, h.bus(RX_BUF), 0);
        h.desc(RX_RING + 16, RDES0_OWN, 1024 | RDES1_RER, h.bus(RX_BUF + 0x800), 0);
        h.start(CSR6_PR);
        byte[] f = withFcs(frame(MAC, PEER, 0x0800, 100));
        h.arrive(f);
        assertEquals(RDES0_FS, h.word(RX_RING));
        assertArrayEquals(java.util.Arrays.copyOf(f, 61), h.get(RX_BUF, 61));
        assertArrayEquals(java.util.Arrays.copyOfRange(f, 61, f.length), h.get(RX_BUF + 0x800, f.length - 61));
    }

    @Test
    void badDmaNeverThrowsToTheHost() {
        // a fuzz of nonsense descriptors: every outcome is a status or FBE, never an exception
        java.util.SplittableRandom r = new java.util.SplittableRandom(21140);
        for (int round = 0; round < 200; round++) {
            h.write(CSR0, CSR0_SWR);
            for (int i = 0; i < 4; i++) {
                long w2 = r.nextBoolean() ? h.bus(r.nextInt((int) MEM_BYTES)) : r.nextLong() & 0xFFFF_FFFFL;
                long w3 = r.nextBoolean() ? h.bus(r.nextInt((int) MEM_BYTES) & ~3) : r.nextLong() & 0xFFFF_FFFFL;
                h.desc(TX_RING + 16L * i, TDES0_OWN | r.nextInt(), r.nextInt(), w2, w3);
                h.desc(RX_RING + 16L * i, RDES0_OWN | r.nextInt(), r.nextInt(), w2, w3);
            }
            h.start(CSR6_PR | CSR6_PB);
            byte[] f = new byte[1 + r.nextInt(2100)];
            r.nextBytes(f);
            h.arrive(f);
            h.write(CSR1, 0);
            h.write(CSR2, 0);
        }
        assertTrue(h.card.counters().busErrors() > 0);
    }
}
