package io.nicbridge.bridge.driver.tulip;

import static io.nicbridge.contract.Dec21140.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.queue.Dec21140DescriptorRing.ListMode;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class TulipConfigTest {
    @Test
    void defaultsAreLinuxs() {
        TulipConfig c = TulipConfig.defaults();
        assertEquals(LINUX_RX_RING_SIZE, c.rxRingSize());
        assertEquals(LINUX_TX_RING_SIZE, c.txRingSize());
        assertEquals(LINUX_RX_BUF_SIZE, c.rxBufferSize());
        assertEquals(ListMode.RING, c.listMode());
        assertEquals(LINUX_CSR0_MWI_FALLBACK, c.burstLength() << CSR0_PBL_SHIFT | c.cacheAlignment() << CSR0_CAL_SHIFT);
        assertEquals(TulipConfig.InterruptMode.INTERRUPT, c.interruptMode());
        assertTrue(c.multicast().isEmpty());
    }

    static void rejects(String fragment, UnaryOperator<TulipConfig.Builder> bad) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> bad.apply(TulipConfig.builder()).build());
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }

    @Test
    void badValuesAreRejectedWithTheirName() {
        rejects("RX ring size", b -> b.rxRingSize(0));
        rejects("RX ring size", b -> b.rxRingSize(TulipConfig.MAX_RING + 1));
        rejects("TX ring size", b -> b.txRingSize(2));
        rejects("RX buffer size", b -> b.rxBufferSize(1516));  // smaller than a maximum frame with FCS
        rejects("RX buffer size", b -> b.rxBufferSize(1538));  // not a multiple of 4
        rejects("RX buffer size", b -> b.rxBufferSize(2048));  // does not fit RBS1
        rejects("CSR0.DSL", b -> b.skipLongwords(32));
        rejects("CSR0.PBL", b -> b.burstLength(3));
        rejects("CSR0.CAL", b -> b.cacheAlignment(4));
        rejects("not a group address", b -> b.addMulticast(MacAddress.parse("02:00:00:00:00:01")));
        rejects("timeouts", b -> b.stopTimeoutNanos(0));
    }

    @Test
    void macAddressParsingAndBits() {
        MacAddress m = MacAddress.parse("01:00:5E:7f:00:01");
        assertTrue(m.isMulticast());
        assertFalse(m.isValidStation());
        assertEquals("01:00:5e:7f:00:01", m.toString());
        assertEquals(m, MacAddress.of(m.toBytes()));
        assertTrue(MacAddress.BROADCAST.isBroadcast());
        assertThrows(IllegalArgumentException.class, () -> MacAddress.parse("01:00:5e:7f:00"));
        assertThrows(IllegalArgumentException.class, () -> MacAddress.parse("01:00:5e:7f:00:0g"));
        assertThrows(IllegalArgumentException.class, () -> MacAddress.of(1L << 48));
        assertFalse(MacAddress.of(0).isValidStation());
    }
}
