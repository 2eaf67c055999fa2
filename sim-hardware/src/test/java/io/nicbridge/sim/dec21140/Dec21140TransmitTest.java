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
}
