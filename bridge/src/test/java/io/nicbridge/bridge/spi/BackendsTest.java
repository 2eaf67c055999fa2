package io.nicbridge.bridge.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BackendsTest {
    @Test
    void providersAreFoundSortedByScheme() {
        List<BackendProvider> providers = Backends.providers();
        // bridge's own provider (the native shim) and the two test providers; emu lives in sim-hardware
        assertEquals(List.of("rawtest", "shim", "test"), providers.stream().map(BackendProvider::scheme).toList());
        assertTrue(Backends.provider("test").isPresent());
        assertTrue(Backends.provider("emu").isEmpty());
        List<String> specs = Backends.availableSpecs();
        assertTrue(specs.containsAll(List.of("test:statuscard", "test:other")), specs.toString());
        boolean shim = Backends.provider("shim").orElseThrow().availability().available();
        assertEquals(shim, specs.stream().anyMatch(s -> s.startsWith("shim:")), "shim specs iff it works here");
    }

    @Test
    void openBuildsACardWhoseInterruptFollowsStatusAndMask() throws Exception {
        try (Card card = Backends.open("test:statuscard?order=be")) {
            assertEquals("statuscard#test", card.name());
            assertEquals(ByteOrder.BIG_ENDIAN, card.registers().order());
            assertEquals("be", card.spec().param("order").orElseThrow());
            TestCardProvider.StatusCard sc = (TestCardProvider.StatusCard) card;
            sc.raiseStatus(0b10);
            assertFalse(card.interrupt().isAsserted(), "masked");
            card.registers().write(TestCardProvider.MASK, 0b10);
            assertTrue(card.interrupt().await(1, TimeUnit.SECONDS));
            assertEquals(0b10, card.registers().read(TestCardProvider.STATUS));
            card.registers().write(TestCardProvider.STATUS, 0b10); // acknowledge (write 1 to clear)
            assertFalse(card.interrupt().isAsserted());
            assertEquals(1, card.interrupt().assertions());
        }
    }

    @Test
    void unknownSchemeListsEverySpecThatWouldWork() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Backends.open("emu:dec21140"));
        String m = e.getMessage();
        assertTrue(m.contains("unknown backend scheme 'emu'"), m);
        assertTrue(m.contains("test:statuscard") && m.contains("test:other"), m);
        assertTrue(m.contains("rawtest:afpacket?if=<iface>&card=dec21140 (unavailable: needs CAP_NET_RAW)"), m);
    }

    @Test
    void unknownCardListsTheBackendsCards() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Backends.open("test:sba200"));
        assertTrue(e.getMessage().contains("backend 'test' has no card 'sba200'"), e.getMessage());
        assertTrue(e.getMessage().contains("[statuscard, other]"), e.getMessage());
    }

    @Test
    void unavailableBackendSaysWhy() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> Backends.open("rawtest:afpacket?if=veth0&card=dec21140"));
        assertTrue(e.getMessage().contains("not available here: needs CAP_NET_RAW"), e.getMessage());
    }

    @Test
    void malformedSpecsAndBackendParameterErrorsReachTheCaller() {
        assertThrows(IllegalArgumentException.class, () -> Backends.open("test"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Backends.open("test:statuscard?order=middle"));
        assertTrue(e.getMessage().contains("order must be le or be"), e.getMessage());
    }

    @Test
    void availabilityMustExplainItself() {
        assertThrows(IllegalArgumentException.class, () -> new Availability(false, " "));
        assertTrue(Availability.ok().available());
        assertEquals("x", Availability.unavailable("x").reason());
    }
}
