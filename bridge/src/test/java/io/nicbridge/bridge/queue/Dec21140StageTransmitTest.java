package io.nicbridge.bridge.queue;

import static io.nicbridge.contract.Dec21140.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.queue.Dec21140DescriptorRing.Direction;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing.ListMode;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** Linux's setup-frame sequence: a dummy staged host-owned, the setup descriptor owned, then the dummy owned. */
class Dec21140StageTransmitTest {
    static final long BUS = 0x10000;

    static Dec21140DescriptorRing ring(int n) {
        return new Dec21140DescriptorRing(MemorySegment.ofArray(new int[4 * n]), BUS, n, 0, Direction.TRANSMIT,
            ListMode.RING);
    }

    @Test
    void stagedDescriptorStaysHostOwnedUntilHandedOver() {
        Dec21140DescriptorRing r = ring(4);
        assertEquals(0, r.transmit(0x20000, 64, 0, 0, 0));
        int dummy = r.stageTransmit(0, 0, 0);
        int setup = r.stageTransmit(0x30000, SETUP_FRAME_SIZE, TDES1_SET);
        assertEquals(1, dummy);
        assertEquals(2, setup);
        assertEquals(0, r.control(dummy), "no FS/LS, length 0: Linux's dummy");
        assertEquals(LINUX_TDES1_SETUP_PERFECT, r.control(setup));
        assertEquals(BUS + 3 * DESC_SIZE, r.word3(setup), "word 3 = next descriptor, chain bit clear");
        assertTrue(r.isHostOwned(dummy) && r.isHostOwned(setup));
        r.handOver(setup);
        assertFalse(r.isHostOwned(setup));
        assertTrue(r.isHostOwned(dummy));
        r.handOver(dummy);
        assertFalse(r.isHostOwned(dummy));
        assertEquals(3, r.inFlight());
        assertThrows(IllegalStateException.class, () -> r.handOver(setup), "already the card's");
        assertThrows(IllegalStateException.class, () -> r.handOver(3), "not staged");
    }

    @Test
    void lastEntryKeepsEndOfRingAndFullRingIsBackPressure() {
        Dec21140DescriptorRing r = ring(2);
        assertEquals(0, r.stageTransmit(0, 0, 0));
        assertEquals(1, r.stageTransmit(0x30000, SETUP_FRAME_SIZE, TDES1_SET | TDES1_FT0));
        assertEquals(LINUX_TDES1_SETUP_HASH | TDES1_TER, r.control(1));
        assertEquals(QueueCode.FULL, r.stageTransmit(0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> ring(2).stageTransmit(0, 0, TDES1_TCH));
        assertThrows(IllegalArgumentException.class, () -> ring(2).stageTransmit(0x30000, 4096, 0));
    }
}
