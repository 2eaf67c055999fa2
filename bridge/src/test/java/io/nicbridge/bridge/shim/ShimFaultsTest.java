package io.nicbridge.bridge.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.spi.Backends;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.contract.NicShim;
import io.nicbridge.contract.NicShimFaults;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shim's fault configuration on the Java side: the device spec's {@code drop/dup/reorder/corrupt/seed/faults}
 * parameters, the checks at that boundary (each naming the bad parameter), and the {@code nicshim_faults_t} it
 * writes. The faults themselves are tested in C (fault_test, shim_veth_test) and end to end by the TCP interop test.
 */
class ShimFaultsTest {
    private static ShimFaults parse(String params) {
        return ShimBackendProvider.faults(DeviceSpec.parse("shim:afpacket?if=veth0&card=dec21140" + params));
    }

    @Test
    void noParametersMeansNoFaults() {
        ShimFaults f = parse("");
        assertFalse(f.enabled());
        assertEquals("no faults", f.toString());
    }

    @Test
    void specParametersBecomeTheNativeStruct() {
        ShimFaults f = parse("&drop=0.01&dup=0.005&reorder=0.002&corrupt=0.000001&seed=7&faults=tx");
        assertTrue(f.enabled());
        assertEquals(NicShim.FAULT_TX, f.directions());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(NicShimFaults.LAYOUT);
            f.writeTo(s);
            assertEquals(32, NicShimFaults.size(s, 0));
            assertEquals(NicShim.FAULT_TX, NicShimFaults.directions(s, 0));
            assertEquals(7, NicShimFaults.seed(s, 0));
            assertEquals(10_000, NicShimFaults.dropPpm(s, 0));
            assertEquals(5_000, NicShimFaults.duplicatePpm(s, 0));
            assertEquals(2_000, NicShimFaults.reorderPpm(s, 0));
            assertEquals(1, NicShimFaults.corruptPpm(s, 0));
        }
        assertEquals(ShimFaults.BOTH, parse("&drop=0.5").directions());
        assertEquals(NicShim.FAULT_RX, parse("&drop=0.5&faults=rx").directions());
        assertEquals(1, parse("&drop=0.5").seed());
    }

    @ParameterizedTest
    @ValueSource(strings = {"&drop=1.5", "&dup=-0.1", "&reorder=NaN", "&corrupt=abc", "&drop=0.6&dup=0.5",
        "&drop=0.0000001", "&faults=sideways&drop=0.1", "&seed=x&drop=0.1"})
    void badParametersAreRejectedByName(String params) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(params));
        String key = params.substring(1, params.indexOf('='));
        String named = switch (key) {
            case "dup" -> "dup";
            default -> key;
        };
        assertTrue(e.getMessage().contains("device spec") && (e.getMessage().contains(named)
            || e.getMessage().contains("duplicate") || e.getMessage().contains("sum")
            || e.getMessage().contains("add up")), e.getMessage());
    }

    @Test
    void probabilitiesMayAddUpToOneButNotMore() {
        assertTrue(new ShimFaults(ShimFaults.BOTH, 1, 0.25, 0.25, 0.25, 0.25).enabled());
        assertThrows(IllegalArgumentException.class, () -> new ShimFaults(ShimFaults.BOTH, 1, 0.25, 0.25, 0.25, 0.26));
        assertThrows(IllegalArgumentException.class, () -> new ShimFaults(4, 1, 0.1, 0, 0, 0));
        assertFalse(new ShimFaults(0, 1, 0.1, 0, 0, 0).enabled()); // no direction: off
    }

    @Test
    void anUnknownParameterIsStillRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Backends.open("shim:afpacket?if=veth0&card=dec21140&lose=0.1"));
        assertTrue(e.getMessage().contains("lose") && e.getMessage().contains("drop"), e.getMessage());
    }
}
