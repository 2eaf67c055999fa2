package io.nicbridge.sim.medusa;

import static io.nicbridge.contract.Medusa.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.spi.Backends;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.sim.emu.EmuBackendProvider;
import io.nicbridge.sim.fddi.FddiRing;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import org.junit.jupiter.api.Test;

/** {@code emu:medusa}: two opens with the same ring name give two stations of one ring that can talk. */
class MedusaBackendTest {
    @Test
    void twoOpensShareARingAndExchangeAFrame() {
        Card a = Backends.open("emu:medusa?ring=lab&mac=02-00-00-00-00-01&mode=virtual&seed=77");
        Card b = Backends.open("emu:medusa?ring=lab&mac=02-00-00-00-00-02&mode=virtual&seed=77");
        try {
            assertInstanceOf(MedusaCard.class, a);
            EmulatedTestbed bed = EmuBackendProvider.testbed(a).orElseThrow();
            assertSame(bed, EmuBackendProvider.testbed(b).orElseThrow());
            FddiRing ring = bed.ring("lab").orElseThrow();
            assertEquals(0, a.dma().regions().size(), "no DMA on a Medusa");
            MedusaHost ha = new MedusaHost((MedusaCard) a);
            MedusaHost hb = new MedusaHost((MedusaCard) b);
            ha.init(MedusaRingEndToEndTest.ON, 64, 64);
            hb.init(MedusaRingEndToEndTest.ON, 64, 64);
            bed.virtualEngine().runFor(1_000_000);
            assertEquals(2, ring.memberCount());
            ha.frame(0, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(2), MedusaHost.mac(1), 32, 0);
            ha.write(REG_TX_FIFO, 0);
            assertTrue(bed.virtualEngine().runUntil(() -> (hb.read(REG_FIFO_LEVEL) & FIFO_LEVEL_RX_MASK) != 0,
                bed.timeBase().nanoTime() + 5_000_000));
            assertEquals(FIFO_VALID, hb.read(REG_RX_FIFO) & FIFO_VALID);
            assertTrue(a.name().startsWith("medusa#"), a.name());
        } finally {
            a.close();
            b.close();
        }
        assertTrue(EmuBackendProvider.testbed(a).isEmpty());
    }

    @Test
    void badSpecsSayWhatIsWrong() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Backends.open("emu:medusa?colour=blue"));
        assertTrue(e.getMessage().contains("colour"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Backends.open("emu:medusa?mac=02-00-00"));
        e = assertThrows(IllegalArgumentException.class, () -> Backends.open("emu:medusa?wire=lab"));
        assertTrue(e.getMessage().contains("ring=NAME"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Backends.open("emu:dec21140?ring=lab"));
        assertTrue(Backends.provider("emu").orElseThrow().cards().contains("medusa"));
    }
}
