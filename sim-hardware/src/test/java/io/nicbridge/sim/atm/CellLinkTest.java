package io.nicbridge.sim.atm;

import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.contract.Sba200Unet;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.engine.RealTimeBase;
import io.nicbridge.sim.fault.FaultKind;
import io.nicbridge.sim.fault.FaultPlan;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CellLinkTest {
    private final List<Integer> seen = new ArrayList<>();
    private final List<Long> at = new ArrayList<>();

    private static MemorySegment cell(int n) {
        MemorySegment c = MemorySegment.ofArray(new byte[53]);
        AtmCells.writeHeader(c, 0, AtmCells.header(0, 40, 0, 0));
        c.set(ValueLayout.JAVA_INT_UNALIGNED, 5, n);
        return c;
    }

    private CellSink recorder(VirtualTimeBase t) {
        return (c, o) -> {
            seen.add(c.get(ValueLayout.JAVA_INT_UNALIGNED, o + 5));
            at.add(t == null ? 0L : t.nanoTime());
        };
    }

    @Test
    void nCellsTakeNCellTimesInVirtualTime() {
        VirtualTimeBase t = new VirtualTimeBase(1);
        CellLink link = CellLink.builder(t, recorder(t)).propagationNanos(500).build();
        int n = 100;
        for (int i = 0; i < n; i++) {
            assertTrue(link.transmit(cell(i), 0));
        }
        assertEquals((n * (long) Sba200Unet.CELL_TIME_PS + 999) / 1000, link.lastDepartureNanos(), "N x 3.028571 us");
        t.runUntilIdle();
        assertEquals(n, seen.size());
        for (int i = 0; i < n; i++) {
            assertEquals(i, seen.get(i));
            assertEquals(((i + 1) * (long) Sba200Unet.CELL_TIME_PS + 999) / 1000 + 500, at.get(i), "cell " + i);
        }
        assertEquals(Sba200Unet.CELL_TIME_NS, at.get(0) - 500);
    }

    @Test
    void notBeforeDelaysTheStart() {
        VirtualTimeBase t = new VirtualTimeBase(1);
        CellLink link = CellLink.builder(t, recorder(t)).propagationNanos(0).build();
        link.transmit(cell(0), 0, 10_000);
        t.runUntilIdle();
        assertEquals(10_000 + Sba200Unet.CELL_TIME_NS, at.get(0));
    }

    @Test
    void fullRingDropsAndReportsBackPressure() {
        VirtualTimeBase t = new VirtualTimeBase(1);
        CellLink link = CellLink.builder(t, recorder(t)).capacity(4).build();
        for (int i = 0; i < 4; i++) {
            assertTrue(link.transmit(cell(i), 0));
        }
        assertFalse(link.transmit(cell(4), 0));
        assertEquals(1, link.overflows());
        t.runUntilIdle();
        assertEquals(List.of(0, 1, 2, 3), seen);
    }

    @Test
    void scheduledFaultsPerCell() {
        VirtualTimeBase t = new VirtualTimeBase(1);
        FaultPlan plan = FaultPlan.builder().dropFrame(2).duplicateFrame(3).reorderFrame(4).corruptFrame(6, 8 * 5)
            .delayFrame(7, 100_000).build();
        CellLink link = CellLink.builder(t, (c, o) -> {
            seen.add(c.get(ValueLayout.JAVA_INT_UNALIGNED, o + 5));
            at.add(t.nanoTime());
        }).faults(plan).build();
        for (int i = 1; i <= 8; i++) {
            link.transmit(cell(i), 0);
        }
        t.runUntilIdle();
        // 2 lost, 3 twice, 4 after 5, 6 with its first payload byte flipped (bit 40 = byte 5 bit 0), 7 late, 8 behind 7
        assertEquals(List.of(1, 3, 3, 5, 4, 6 ^ 1, 7, 8), seen);
        assertTrue(at.get(6) >= 100_000, "delayed cell");
        assertTrue(at.get(7) >= at.get(6), "cells keep their order behind a delayed one");
        assertEquals(1, link.faultCount(FaultKind.DROP));
        assertEquals(1, link.faultCount(FaultKind.CORRUPT));
        assertEquals(1, link.faultCount(FaultKind.DUPLICATE));
        assertEquals(1, link.faultCount(FaultKind.REORDER));
        assertEquals(1, link.faultCount(FaultKind.DELAY));
    }

    @Test
    void realTimeDeliversSynchronously() {
        RealTimeBase t = new RealTimeBase();
        CellLink link = CellLink.builder(t, recorder(null)).faults(FaultPlan.builder().dropFrame(2).build()).build();
        link.transmit(cell(1), 0);
        assertEquals(List.of(1), seen, "delivered during transmit");
        link.transmit(cell(2), 0);
        link.transmit(cell(3), 0);
        assertEquals(List.of(1, 3), seen);
        assertEquals(3, link.transmitted());
        assertEquals(2, link.delivered());
    }
}
