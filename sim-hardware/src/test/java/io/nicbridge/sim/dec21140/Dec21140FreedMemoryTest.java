package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;
import static io.nicbridge.sim.dec21140.CardHarness.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.memory.BusError;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A host that frees memory it left registered (breaking the unregister-before-close rule): every access of the
 * card checks its region first, so the card reports a fatal bus error the chip's way (CSR5.FBE, master abort,
 * {@link BusError#REGION_CLOSED} at the address it tried) - for a descriptor fetch, a buffer write and a
 * descriptor hand-back alike - and nothing is thrown.
 */
class Dec21140FreedMemoryTest {
    private final CardHarness h = new CardHarness(true, Dec21140Timing.PCI_33MHZ);
    private final Arena hostArena = Arena.ofShared();
    private final MemorySegment freed = hostArena.allocate(0x4000, 4096);
    private final long freedBus = h.card.dma().register("to-be-freed", freed);

    @AfterEach
    void close() {
        if (hostArena.scope().isAlive()) {
            hostArena.close();
        }
        h.close();
    }

    private void assertFreedMemoryFault(long address) {
        int csr5 = h.read(CSR5);
        assertEquals(CSR5_FBE, csr5 & CSR5_FBE);
        assertEquals(EB_MASTER_ABORT, (csr5 & CSR5_EB_MASK) >>> CSR5_EB_SHIFT);
        assertEquals(0, csr5 & CSR5_RS_TS_MASK, "TS and RS stopped");
        assertEquals(BusError.REGION_CLOSED, h.card.lastBusErrorCode());
        assertEquals(address, h.card.lastBusErrorAddress());
        assertEquals(1, h.card.counters().busErrors());
    }

    @Test
    void transmitDescriptorFreedWhileItsFrameIsOnTheWire() {
        byte[] f = frame(PEER, MAC, 0x0800, 46);
        MemorySegment.copy(MemorySegment.ofArray(f), 0, freed, 0x1000, f.length);
        freed.set(LE, 4, TDES1_FS | TDES1_LS | f.length);
        freed.set(LE, 8, (int) (freedBus + 0x1000));
        freed.set(LE, 0, TDES0_OWN);
        h.wire.wireNanos = 10_000;
        h.write(CSR4, (int) freedBus);
        h.write(CSR6, CSR6_MBO | CSR6_ST);
        h.time.advance(5_000); // read and sent; the descriptor is closed when the wire says the frame left
        assertEquals(1, h.wire.frames.size());
        assertEquals(TS_WAIT_END, h.ts());

        hostArena.close();
        h.time.runUntilIdle();
        assertFreedMemoryFault(freedBus);
    }

    @Test
    void receiveBufferFreedBeforeTheFrameArrives() {
        h.desc(RX_RING, RDES0_OWN, 1536 | RDES1_RER, freedBus + 0x2000, 0);
        h.write(CSR3, h.bus32(RX_RING));
        h.write(CSR6, CSR6_MBO | CSR6_PR | CSR6_SR);
        hostArena.close();
        h.arrive(withFcs(frame(MAC, PEER, 0x0800, 46)));
        h.time.runUntilIdle();
        assertFreedMemoryFault(freedBus + 0x2000);
        assertEquals(RDES0_OWN, h.word(RX_RING), "the descriptor was not handed back");
        assertEquals(1, h.card.counters().busErrorDrops());
    }

    @Test
    void transmitListFreedWhileSuspended() {
        h.write(CSR4, (int) freedBus); // all zero: host-owned, the process suspends
        h.write(CSR6, CSR6_MBO | CSR6_ST);
        h.time.runUntilIdle();
        assertEquals(TS_SUSPENDED, h.ts());
        hostArena.close();
        h.write(CSR1, 0);
        h.time.runUntilIdle();
        assertFreedMemoryFault(freedBus);
    }
}
