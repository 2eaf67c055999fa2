package io.nicbridge.sim.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NifdyTrafficTest {
    @Test
    void heavyTrafficCompletesPhasesAndIsDeterministic() {
        NifdySyntheticTraffic heavy = NifdySyntheticTraffic.heavy(8);
        NifdySyntheticTraffic.Result a = heavy.run(new IdealFabric(16, 5, 1, 4, -1), 20_000, 9);
        NifdySyntheticTraffic.Result b = heavy.run(new IdealFabric(16, 5, 1, 4, -1), 20_000, 9);
        assertEquals(a, b);
        assertTrue(a.phasesCompleted() >= 2, "phases " + a.phasesCompleted());
        assertTrue(a.packetsDelivered() > 0 && a.packetsDelivered() <= a.packetsSent());
        assertEquals(3.0, heavy.meanMessageLength(), 1e-12);
    }

    @Test
    void lightTrafficSendsLessAndMostPacketsTravelInLongMessages() {
        NifdySyntheticTraffic light = NifdySyntheticTraffic.light(8);
        double longPackets = 10 * 0.12 + 20 * 0.06;
        assertTrue(longPackets / light.meanMessageLength() > 0.5);
        NifdySyntheticTraffic.Result l = light.run(new IdealFabric(16, 5, 1, 4, -1), 20_000, 9);
        NifdySyntheticTraffic.Result h = NifdySyntheticTraffic.heavy(8).run(new IdealFabric(16, 5, 1, 4, -1),
                20_000, 9);
        assertTrue(l.packetsSent() < h.packetsSent(), l + " vs " + h);
    }

    @Test
    void cyclicShiftDeliversEveryPacketWithAndWithoutBarriers() {
        int nodes = 8;
        for (boolean barriers : new boolean[] {true, false}) {
            CyclicShiftTraffic shift = new CyclicShiftTraffic(6, 5, barriers, 10);
            CyclicShiftTraffic.Result r = shift.run(new IdealFabric(nodes, 5, 1, 2, -1), 100_000);
            assertTrue(r.completed());
            assertEquals((long) nodes * (nodes - 1) * 5, r.packetsDelivered());
        }
        assertEquals(3, CyclicShiftTraffic.partner(1, 2, 8));
        assertEquals(0, CyclicShiftTraffic.partner(7, 1, 8));
    }
}
