package io.nicbridge.bridge.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.bridge.time.Timer;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HostCpuTest {
    /** A scheduler whose clock the test sets. */
    private static final class ManualScheduler implements Scheduler {
        final boolean virtual;
        long now;

        ManualScheduler(boolean virtual) {
            this.virtual = virtual;
        }

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public Timer newTimer(String name, Runnable action) {
            throw new UnsupportedOperationException("no timers in this test");
        }

        @Override
        public boolean isVirtual() {
            return virtual;
        }
    }

    private static CostTable prices() {
        Map<CostItem, Long> ps = new EnumMap<>(CostItem.class);
        for (CostItem item : CostItem.values()) {
            ps.put(item, 0L);
        }
        ps.put(CostItem.HANDLER_DISPATCH, 2_500L);
        ps.put(CostItem.COPY, 100L);
        return CostTable.of("test", "by hand", "none", "2026-11-24", ps, Map.of());
    }

    @Test
    void inVirtualTimeChargesKeepTheCpuBusyRoundedUpToTheNanosecond() {
        ManualScheduler s = new ManualScheduler(true);
        HostCpu cpu = HostCpu.on(s, prices(), "n0");
        assertFalse(cpu.busyAfter(0));
        s.now = 100;
        cpu.charge(CostItem.HANDLER_DISPATCH); // 100 ns + 2.5 ns
        assertEquals(103, cpu.busyUntil());
        assertTrue(cpu.busyAfter(102));
        assertFalse(cpu.busyAfter(103));
        assertEquals(103, cpu.now());
        cpu.charge(CostItem.COPY, 5); // + 0.5 ns: exactly 103
        assertEquals(103, cpu.busyUntil());
        cpu.charge(CostItem.COPY, 1_000); // + 100 ns, still at the present (the clock has not moved)
        assertEquals(203, cpu.busyUntil());
        s.now = 150; // an event during the busy time: work queues behind what is charged
        cpu.charge(CostItem.HANDLER_DISPATCH);
        assertEquals(206, cpu.busyUntil()); // 203 + 2.5 = 205.5, rounded up
        s.now = 1_000; // idle since: new work starts now, the carry is dropped
        cpu.charge(CostItem.HANDLER_DISPATCH);
        assertEquals(1_003, cpu.busyUntil());
        assertEquals(1_000, s.nanoTime());
        assertEquals(3, cpu.units(CostItem.HANDLER_DISPATCH));
        assertEquals(1_005, cpu.units(CostItem.COPY));
        assertEquals(3 * 2_500 + 1_005 * 100, cpu.totalPicos());
        assertTrue(cpu.summary().contains("handler-dispatch 3 calls = 7.5 ns"), cpu.summary());
    }

    @Test
    void inRealTimeChargesAreOnlyCounted() {
        ManualScheduler s = new ManualScheduler(false);
        HostCpu cpu = HostCpu.on(s, prices(), "n0");
        s.now = 100;
        cpu.charge(CostItem.HANDLER_DISPATCH);
        cpu.charge(CostItem.COPY, 64);
        assertFalse(cpu.delays());
        assertEquals(Long.MIN_VALUE, cpu.busyUntil());
        assertFalse(cpu.busyAfter(0));
        assertEquals(100, cpu.now());
        assertEquals(2_500 + 6_400, cpu.totalPicos());
        assertEquals(64, cpu.units(CostItem.COPY));
    }

    @Test
    void zeroChargesNeverMakeACpuBusy() {
        ManualScheduler s = new ManualScheduler(true);
        HostCpu cpu = HostCpu.on(s, CostTable.zero(), "n0");
        s.now = 42;
        cpu.charge(CostItem.INTERRUPT);
        cpu.charge(CostItem.CHECKSUM, 1_500);
        assertEquals(42, cpu.busyUntil());
        assertFalse(cpu.busyAfter(42));
        assertEquals(0, cpu.totalPicos());
    }

    @Test
    void badArgumentsAreRefused() {
        HostCpu cpu = HostCpu.on(new ManualScheduler(true), CostTable.zero(), "n0");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> cpu.charge(CostItem.COPY, -1)).getMessage()
                .contains("copy"));
        assertThrows(IllegalArgumentException.class, () -> HostCpu.forNodes(0, CostTable.zero(),
                new ManualScheduler(true)));
        assertEquals("node2", HostCpu.forNodes(3, CostTable.zero(), new ManualScheduler(true))[2].name());
    }

    @Test
    void protocolOperationsArePricedByNameAndChargedLikeItems() {
        String text = prices().format("test") + "op.careful.shrink-window.ps-per-call = 21000\n"
                + "rule.op.careful.shrink-window = by hand, for this test\n";
        CostTable table = CostTable.parse(text, "test table");
        assertEquals(21_000, table.operationPicos("careful.shrink-window"));
        assertEquals("by hand, for this test", table.operationRule("careful.shrink-window"));
        assertEquals(table.operations(), CostTable.parse(table.format("again"), "round trip").operations());
        ManualScheduler s = new ManualScheduler(true);
        HostCpu cpu = HostCpu.on(s, table, "n0");
        HostCpu.Operation shrink = cpu.operation("careful.shrink-window");
        assertTrue(shrink == cpu.operation("careful.shrink-window"), "one object per name and CPU");
        s.now = 1_000;
        shrink.charge();
        cpu.charge(CostItem.HANDLER_DISPATCH);
        assertEquals(1_024, cpu.busyUntil()); // 1000 + 21 + 2.5, rounded up
        assertEquals(1, shrink.calls());
        assertEquals(21_000 + 2_500, cpu.totalPicos());
        assertTrue(cpu.summary().contains("careful.shrink-window 1 call = 21.0 ns"), cpu.summary());

        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> cpu.operation("traditional.implicit-ack"));
        assertTrue(missing.getMessage().contains("op.traditional.implicit-ack.ps-per-call"), missing.getMessage());
        HostCpu free = HostCpu.on(s, CostTable.zero(), "n1");
        free.operation("traditional.implicit-ack").charge();
        assertFalse(free.busyAfter(s.now), "the zero table prices every operation at 0");
        assertThrows(IllegalArgumentException.class, () -> CostTable.parse(
                prices().format("bad") + "op.x.ps-per-call = -1\n", "negative"));
    }
}
