package io.nicbridge.sim.emu;

import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.spi.Card;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.sim.dec21140.Dec21140Card;
import io.nicbridge.sim.medusa.MedusaCard;
import io.nicbridge.sim.sba200.Sba200Card;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import org.junit.jupiter.api.Test;

/** The one open path of the {@code emu} backend: its error messages per card, and default-testbed bookkeeping. */
class EmuBackendProviderTest {
    private final EmuBackendProvider emu = new EmuBackendProvider();

    @Test
    void eachCardGetsItsOwnMessageForBadSpecs() {
        assertRejected("emu:dec21140?colour=blue", "backend 'emu' has no parameter 'colour'; it takes ");
        assertRejected("emu:medusa?switch=a", "backend 'emu' has no parameter 'switch'; it takes ");
        assertRejected("emu:sba200?wire=x", "backend 'emu' card 'sba200' has no parameter 'wire'; it takes ");
        assertRejected("emu:nic9", "backend 'emu' builds [dec21140, sba200, medusa], not 'nic9'");
        assertRejected("emu:medusa?wire=lab",
            "parameter 'wire' does not apply to medusa (a Medusa sits on an FDDI ring: use ring=NAME)");
        assertRejected("emu:dec21140?ring=lab",
            "parameter 'ring' does not apply to dec21140 (a 21140 sits on an Ethernet segment: use wire=NAME)");
        assertRejected("emu:dec21140?seed=x", "seed 'x' is not a whole number");
        assertRejected("emu:medusa?seed=1.5", "seed '1.5' is not a whole number");
        assertRejected("emu:sba200?seed=x", "seed and ports must be whole numbers");
        assertRejected("emu:sba200?ports=many", "seed and ports must be whole numbers");
    }

    @Test
    void cardsOfOneWorldShareItsDefaultTestbedUntilTheLastCloses() {
        // A seed no other test uses, so this test owns the default testbed of (virtual, 8101).
        String world = "?mode=virtual&seed=8101";
        EmulatedTestbed bed;
        try (Card a = emu.open(DeviceSpec.parse("emu:dec21140" + world));
             Card b = emu.open(DeviceSpec.parse("emu:medusa" + world));
             Card c = emu.open(DeviceSpec.parse("emu:sba200" + world + "&switch=s8101"))) {
            assertInstanceOf(Dec21140Card.class, a);
            assertInstanceOf(MedusaCard.class, b);
            assertInstanceOf(Sba200Card.class, c);
            assertEquals("dec21140#0", a.name());
            assertEquals("medusa#1", b.name());
            assertEquals("sba200#2", c.name());
            bed = EmuBackendProvider.testbed(a).orElseThrow();
            assertSame(bed, EmuBackendProvider.testbed(b).orElseThrow());
            assertSame(bed, EmuBackendProvider.testbed(c).orElseThrow());
            a.close();
            assertTrue(EmuBackendProvider.testbed(a).isEmpty());
            assertFalse(bed.isClosed(), "two cards still open");
        }
        assertTrue(bed.isClosed(), "the last card closed its default testbed");
    }

    @Test
    void aSegmentIsBuiltWithTheMediumItsFirstCardAsksFor() {
        String world = "?mode=virtual&seed=8102&wire=hub8102";
        try (Card a = emu.open(DeviceSpec.parse("emu:dec21140" + world + "&medium=hub"));
             Card b = emu.open(DeviceSpec.parse("emu:dec21140" + world + "&medium=hub"))) {
            EmulatedTestbed bed = EmuBackendProvider.testbed(a).orElseThrow();
            assertEquals(io.nicbridge.sim.ethernet.EthernetMode.HUB, bed.wire("hub8102").orElseThrow().mode());
            assertRejected("emu:dec21140" + world + "&medium=switched", "segment 'hub8102' is hub, not switched");
            assertRejected("emu:medusa" + world.replace("&wire=hub8102", "") + "&medium=hub",
                "parameter 'medium' does not apply to medusa");
        }
        assertThrows(IllegalArgumentException.class,
            () -> emu.open(DeviceSpec.parse("emu:dec21140?mode=virtual&seed=8103&medium=token-ring")));
    }

    private void assertRejected(String spec, String detail) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> emu.open(DeviceSpec.parse(spec)));
        assertTrue(e.getMessage().startsWith("device spec '" + DeviceSpec.parse(spec) + "': " + detail),
            e.getMessage());
    }
}
