package io.nicbridge.sim.atm;

import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.sim.engine.VirtualTimeEngine;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AtmSwitchTest {
    private static MemorySegment cell(int vpi, int vci, int pti) {
        MemorySegment c = MemorySegment.ofArray(new byte[53]);
        AtmCells.writeHeader(c, 0, AtmCells.header(vpi, vci, pti, 0));
        c.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 10, (byte) 0x5A);
        return c;
    }

    @Test
    void translatesVciRewritesHecAndCountsDrops() {
        try (VirtualTimeEngine e = new VirtualTimeEngine(1)) {
            AtmSwitch sw = AtmSwitch.builder(e.timeBase()).ports(3).propagationNanos(1000).build();
            sw.attach(e);
            List<List<Integer>> got = new ArrayList<>();
            AtmSwitch.Port[] ports = new AtmSwitch.Port[3];
            for (int p = 0; p < 3; p++) {
                List<Integer> mine = new ArrayList<>();
                got.add(mine);
                ports[p] = sw.connect((c, o) -> {
                    assertTrue(AtmCells.hecOk(c, o), "switch recomputes the HEC");
                    assertEquals(0x5A, c.get(java.lang.foreign.ValueLayout.JAVA_BYTE, o + 10), "payload untouched");
                    mine.add(AtmCells.readHeader(c, o));
                });
            }
            AtmNetworkService net = new AtmNetworkService(sw);
            AtmPath path = net.connect(0, 2);
            assertTrue(path.aTxVci() >= 32 && path.aRxVci() >= 32 && path.bTxVci() >= 32 && path.bRxVci() >= 32);
            assertNotEquals(path.aTxVci(), path.aRxVci());
            assertEquals(2 << 24 | path.bRxVci(), sw.routeOf(0, path.aTxVci()));
            ports[0].uplink().transmit(cell(0, path.aTxVci(), 1), 0);
            ports[2].uplink().transmit(cell(0, path.bTxVci(), 0), 0);
            ports[0].uplink().transmit(cell(0, 99, 0), 0); // no route
            ports[0].uplink().transmit(cell(3, path.aTxVci(), 0), 0); // wrong VPI
            MemorySegment bad = cell(0, path.aTxVci(), 0);
            bad.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 4, (byte) 0); // HEC wrong
            ports[0].uplink().transmit(bad, 0);
            long t0 = e.timeBase().nanoTime();
            e.runUntilIdle();
            assertEquals(1, got.get(2).size());
            int h = got.get(2).get(0);
            assertEquals(path.bRxVci(), AtmCells.vci(h));
            assertEquals(1, AtmCells.pti(h), "PTI kept");
            assertEquals(List.of(AtmCells.header(0, path.aRxVci(), 0, 0)), got.get(0));
            assertTrue(got.get(1).isEmpty());
            assertEquals(2, sw.switched());
            assertEquals(2, sw.unroutedDrops());
            assertEquals(1, sw.hecDrops());
            assertTrue(e.timeBase().nanoTime() - t0 >= 2 * 3028 + 2 * 1000, "two fibers and two cell times");
            net.disconnect(path);
            assertEquals(-1, sw.routeOf(0, path.aTxVci()));
            AtmPath again = net.connect(0, 2);
            assertEquals(path.aTxVci(), again.aTxVci(), "VCIs are reused after disconnect");
        }
    }

    @Test
    void badSetupIsRejected() {
        try (VirtualTimeEngine e = new VirtualTimeEngine(1)) {
            AtmSwitch sw = AtmSwitch.builder(e.timeBase()).ports(1).build();
            assertThrows(IllegalStateException.class, () -> sw.connect((c, o) -> { }), "not attached");
            sw.attach(e);
            sw.connect((c, o) -> { });
            assertThrows(IllegalStateException.class, () -> sw.connect((c, o) -> { }), "ports full");
            assertThrows(IllegalArgumentException.class, () -> sw.routeOf(1, 40));
            assertThrows(IllegalArgumentException.class, () -> sw.routeOf(0, 1024));
            assertThrows(IllegalArgumentException.class, () -> new AtmNetworkService(sw).connect(0, 5));
        }
    }
}
