package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;
import static io.nicbridge.sim.dec21140.CardHarness.*;
import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Setup frames (perfect, hash, inverse, hash-only) and the receive filter with PR, PM and RA. */
class Dec21140FilterTest {
    private static final byte[] OTHER = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
    private static final byte[] MCAST = {0x01, 0x00, 0x5E, 0x00, 0x00, 0x01}; // all-hosts group
    private static final byte[] MCAST2 = {0x01, 0x00, 0x5E, 0x7F, 0x12, 0x34};
    private static final int RING = 16;
    private final CardHarness h = new CardHarness();
    private int next;

    @AfterEach
    void close() {
        h.close();
    }

    private void rxRing() {
        for (int i = 0; i < RING; i++) {
            h.desc(RX_RING + 16L * i, RDES0_OWN, LINUX_RX_BUF_SIZE | (i == RING - 1 ? RDES1_RER : 0),
                h.bus(RX_BUF + 0x800L * i), 0);
        }
    }

    private void setup(byte[] frame, int control) {
        h.put(TX_BUF, frame);
        h.desc(TX_RING, TDES0_OWN, control, h.bus(TX_BUF), 0);
        h.desc(TX_RING + 16, 0, TDES1_TER, 0, 0);
        h.write(CSR1, 0);
    }

    private void start(int csr6) {
        rxRing();
        h.start(csr6);
    }

    /** @return the RDES0 of the descriptor the frame landed in, or -1 when it was dropped */
    private int deliver(byte[] dst) {
        long before = h.card.counters().rxFrames();
        h.arrive(withFcs(frame(dst, PEER, 0x0800, 80)));
        if (h.card.counters().rxFrames() == before) {
            return -1;
        }
        return h.word(RX_RING + 16L * next++);
    }

    @Test
    void hashIndexOfBroadcastIs255() {
        assertEquals(SETUP_HASH_BROADCAST_INDEX, Dec21140AddressFilter.hashIndexOf(BROADCAST));
        // (~crc32) & 0x1FF for 01:00:5e:00:00:01, computed independently from zlib's CRC-32
        java.util.zip.CRC32 c = new java.util.zip.CRC32();
        c.update(MCAST);
        assertEquals((int) (~c.getValue() & 0x1FF), Dec21140AddressFilter.hashIndexOf(MCAST));
    }

    @Test
    void perfectFilterAcceptsItsSixteenAddressesOnly() {
        start(0);
        setup(perfectSetup(MCAST, BROADCAST, MAC), LINUX_TDES1_SETUP_PERFECT);
        assertEquals(0, h.word(TX_RING), "setup done: status 0, OWN clear");
        assertEquals(FT_PERFECT, h.card.filterMode());
        assertEquals(0, h.read(CSR6) & CSR6_FILTER_RO_MASK);
        assertEquals(0, h.wire.frames.size(), "setup frames are not sent");
        assertEquals(1, h.card.counters().txSetupFrames());
        assertNotEquals(-1, deliver(MAC));
        int st = deliver(BROADCAST);
        assertEquals(RDES0_MF, st & RDES0_MF);
        assertNotEquals(-1, deliver(MCAST));
        assertEquals(-1, deliver(OTHER));
        assertEquals(-1, deliver(MCAST2));
        assertEquals(2, h.card.counters().rxFiltered());
    }

    @Test
    void broadcastIsNotSpecialInAPerfectTableWithoutIt() {
        start(0);
        setup(perfectSetup(MAC), LINUX_TDES1_SETUP_PERFECT);
        assertEquals(-1, deliver(BROADCAST));
        assertNotEquals(-1, deliver(MAC));
    }

    @Test
    void hashFilterUsesTheTableForMulticastAndThePhysicalAddressForUnicast() {
        start(0);
        setup(hashSetup(MAC, BROADCAST, MCAST), LINUX_TDES1_SETUP_HASH);
        assertEquals(FT_HASH, h.card.filterMode());
        assertEquals(CSR6_HP, h.read(CSR6) & CSR6_FILTER_RO_MASK);
        assertNotEquals(-1, deliver(MAC));
        assertNotEquals(-1, deliver(BROADCAST));
        assertNotEquals(-1, deliver(MCAST));
        assertEquals(-1, deliver(OTHER), "unicast is not hashed in hash mode");
        assertNotEquals(Dec21140AddressFilter.hashIndexOf(MCAST), Dec21140AddressFilter.hashIndexOf(MCAST2));
        assertEquals(-1, deliver(MCAST2));
    }

    @Test
    void hashOnlyHashesUnicastToo() {
        start(0);
        setup(hashSetup(OTHER, MAC, BROADCAST), LINUX_TDES1_SETUP_HASH | TDES1_FT1);
        assertEquals(FT_HASH_ONLY, h.card.filterMode());
        assertEquals(CSR6_HP | CSR6_HO, h.read(CSR6) & CSR6_FILTER_RO_MASK);
        assertNotEquals(-1, deliver(MAC));
        assertNotEquals(-1, deliver(BROADCAST));
        assertEquals(-1, deliver(OTHER), "the physical-address slot means nothing in hash-only mode");
    }

    @Test
    void inversePerfectRejectsItsAddresses() {
        start(0);
        setup(perfectSetup(OTHER, MCAST2), LINUX_TDES1_SETUP_PERFECT | TDES1_FT1);
        assertEquals(FT_INVERSE, h.card.filterMode());
        assertEquals(CSR6_IF, h.read(CSR6) & CSR6_FILTER_RO_MASK);
        assertEquals(-1, deliver(OTHER));
        assertEquals(-1, deliver(MCAST2));
        assertNotEquals(-1, deliver(MAC));
        assertNotEquals(-1, deliver(BROADCAST));
    }

    @Test
    void setupFrameOfTheWrongSizeIsRejectedAndTheFilterKept() {
        start(0);
        setup(perfectSetup(MAC), LINUX_TDES1_SETUP_PERFECT);
        byte[] small = java.util.Arrays.copyOf(perfectSetup(OTHER), 128);
        h.put(TX_BUF + 0x400, small);
        h.desc(TX_RING + 16, TDES0_OWN, TDES1_SET | TDES1_IC | TDES1_TER | 128, h.bus(TX_BUF + 0x400), 0);
        h.write(CSR1, 0);
        assertEquals(TDES0_ES, h.word(TX_RING + 16));
        assertEquals(CSR5_TI, h.read(CSR5) & CSR5_TI);
        assertEquals(1, h.card.counters().txSetupRejected());
        assertNotEquals(-1, deliver(MAC));
        assertEquals(-1, deliver(OTHER));
    }

    @Test
    void promiscuousPassAllMulticastAndReceiveAll() {
        start(0);
        setup(perfectSetup(MAC), LINUX_TDES1_SETUP_PERFECT);
        assertEquals(-1, deliver(MCAST));
        h.write(CSR6, h.read(CSR6) | CSR6_PM);
        assertNotEquals(-1, deliver(MCAST));
        assertNotEquals(-1, deliver(BROADCAST));
        assertEquals(-1, deliver(OTHER));
        h.write(CSR6, h.read(CSR6) & ~CSR6_PM | CSR6_PR);
        int st = deliver(OTHER);
        assertNotEquals(-1, st);
        assertEquals(0, st & RDES0_FF, "promiscuous passes: no filtering fail");
        h.write(CSR6, h.read(CSR6) & ~CSR6_PR | CSR6_RA);
        st = deliver(OTHER);
        assertEquals(RDES0_FF, st & RDES0_FF, "receive-all: passed, marked as failing the filter");
        st = deliver(MAC);
        assertEquals(0, st & RDES0_FF);
    }

    @Test
    void nothingPassesBeforeTheFirstSetupFrame() {
        start(0);
        h.write(CSR6, h.read(CSR6) & ~CSR6_PR); // the reset value of CSR6 has PR; start() does not set it
        assertEquals(-1, deliver(MAC));
        assertEquals(-1, deliver(BROADCAST));
    }
}
