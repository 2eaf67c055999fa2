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
}
