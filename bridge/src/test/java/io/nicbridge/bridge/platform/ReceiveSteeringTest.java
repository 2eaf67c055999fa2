package io.nicbridge.bridge.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.io.IOException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ReceiveSteeringTest {
    @BeforeEach
    void requireNamespaces() {
        Availability a = VethPair.availability();
        Requirements.assume(Capability.NET, a.available(), a.reason());
    }

    @Test
    void setsEachEndsMaskAndRestoresTheOldOnes() throws Exception {
        int cpuB = CpuAffinity.cpus() > 1 ? 1 : 0;
        try (VethPair pair = VethPair.builder().ipv4(false).create()) {
            String nsA = pair.namespaceA().name();
            String nsB = pair.namespaceB().name();
            String beforeA = readOrSkip(nsA, pair.interfaceA());
            String beforeB = ReceiveSteering.read(nsB, pair.interfaceB());
            assertEquals(0, Integer.parseInt(beforeA.replace(",", ""), 16), "a new veth has no steering: " + beforeA);
            try (ReceiveSteering steering = ReceiveSteering.rps(pair, 0, cpuB)) {
                assertEquals(1, mask(ReceiveSteering.read(nsA, pair.interfaceA())), "end A -> CPU 0");
                assertEquals(1 << cpuB, mask(ReceiveSteering.read(nsB, pair.interfaceB())), "end B -> CPU " + cpuB);
                assertEquals(cpuB, steering.cpuB());
                assertTrue(steering.toString().contains(pair.interfaceB() + " rx-0 -> CPU " + cpuB), steering.toString());
                steering.close();
                steering.close(); // idempotent
                assertEquals(beforeA, ReceiveSteering.read(nsA, pair.interfaceA()), "end A restored");
                assertEquals(beforeB, ReceiveSteering.read(nsB, pair.interfaceB()), "end B restored");
            }
            ReceiveSteering left = ReceiveSteering.rps(pair, 0, 0);
            pair.close();
            left.close(); // the pair's namespaces are gone: nothing to restore, and no exception
        }
    }

    @Test
    void aCpuOutsideTheMachineIsRefusedByName() throws Exception {
        try (VethPair pair = VethPair.builder().ipv4(false).create()) {
            IllegalArgumentException a = assertThrows(IllegalArgumentException.class,
                () -> ReceiveSteering.rps(pair, -1, 0));
            assertTrue(a.getMessage().startsWith("cpuA must be in [0, "), a.getMessage());
            IllegalArgumentException b = assertThrows(IllegalArgumentException.class,
                () -> ReceiveSteering.rps(pair, 0, CpuAffinity.cpus()));
            assertTrue(b.getMessage().startsWith("cpuB must be in [0, "), b.getMessage());
            assertEquals(0, mask(ReceiveSteering.read(pair.namespaceA().name(), pair.interfaceA())), "nothing written");
        }
    }

    private static String readOrSkip(String namespace, String ifname) {
        try {
            return ReceiveSteering.read(namespace, ifname);
        } catch (IOException e) {
            Requirements.assume(Capability.NET, false, "no receive packet steering here: " + e.getMessage());
            throw new AssertionError("unreachable");
        }
    }

    private static int mask(String text) {
        return Integer.parseInt(text.replace(",", ""), 16);
    }
}
