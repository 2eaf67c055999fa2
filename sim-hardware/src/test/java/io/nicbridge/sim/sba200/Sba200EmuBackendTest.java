package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.bridge.driver.unet.UnetKernelDriver;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.sim.emu.EmuBackendProvider;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import org.junit.jupiter.api.Test;

class Sba200EmuBackendTest {
    @Test
    void testbedBuildsSba200sOnAnAtmSwitch() {
        try (EmulatedTestbed bed = EmulatedTestbed.create(EngineMode.INLINE, 1);
             CommSegment segA = CommSegment.allocate("a", 4096); CommSegment segB = CommSegment.allocate("b", 4096)) {
            Sba200Network net = bed.atm("lab", s -> s.ports(2));
            assertSame(net, bed.atm("lab"));
            Sba200Card a = bed.sba200("a", net);
            Sba200Card b = bed.sba200("b", net);
            assertEquals(0, a.port());
            assertEquals(1, b.port());
            UnetEndpoint ea = net.kernel(a).createEndpoint(segA, 8);
            UnetEndpoint eb = net.kernel(b).createEndpoint(segB, 8);
            UnetKernelDriver.Connection c = net.connect(a, ea, b, eb);
            Pair.Side sa = new Pair.Side(ea, c.channelA());
            Pair.Side sb = new Pair.Side(eb, c.channelB());
            assertTrue(sa.sendInline(Pair.bytes(12, 3)));
            long d = sb.ep.poll();
            assertArrayEquals(Pair.bytes(12, 3), sb.payload(d));
        }
    }

    @Test
    void emuBackendOpensSba200Cards() {
        EmuBackendProvider emu = new EmuBackendProvider();
        assertTrue(emu.cards().contains("sba200"));
        try (Card a = emu.open(DeviceSpec.parse("emu:sba200?mode=inline&switch=t1&ports=2&name=x"));
             Card b = emu.open(DeviceSpec.parse("emu:sba200?mode=inline&switch=t1"))) {
            assertInstanceOf(Sba200Card.class, a);
            assertEquals("x", a.name());
            assertEquals(BOOT_CP_RUNNING, a.registers().read(MONITOR_OFS + MONITOR_BOOT_STATUS_OFS));
            EmulatedTestbed bed = EmuBackendProvider.testbed(a).orElseThrow();
            assertSame(bed, EmuBackendProvider.testbed(b).orElseThrow());
            assertEquals(1, ((Sba200Card) b).port());
            assertNotNull(bed.atm("t1").kernel((Sba200Card) a));
        }
        assertThrows(IllegalArgumentException.class, () -> emu.open(DeviceSpec.parse("emu:sba200?wire=x")));
    }
}
