package io.nicbridge.bridge.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class LinuxCapabilitiesTest {
    @Test
    void parsesEffectiveSetAsHex() {
        List<String> status = List.of("Name:\tjava", "CapPrm:\t0000000000000000", "CapEff:\t0000000000002000");
        assertEquals(1L << LinuxCapabilities.CAP_NET_RAW, LinuxCapabilities.parseCapEff(status));
    }

    @Test
    void missingLineMeansNoCapabilities() {
        assertEquals(0, LinuxCapabilities.parseCapEff(List.of("Name:\tjava")));
    }

    @Test
    void fullRootSetParses() {
        assertEquals(0x000001fffeffffffL, LinuxCapabilities.parseCapEff(List.of("CapEff:\t000001fffeffffff")));
    }
}
