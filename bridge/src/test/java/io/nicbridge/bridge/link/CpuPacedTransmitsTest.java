package io.nicbridge.bridge.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.bridge.time.Timer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CpuPacedTransmitsTest {
    /** A virtual clock with plain timers, run by hand: the earliest armed timer next. */
    private static final class Steps implements Scheduler {
        long now;
        final List<T> timers = new ArrayList<>();

        final class T implements Timer {
            final Runnable action;
            long deadline;
            boolean armed;

            T(Runnable action) {
                this.action = action;
            }

            @Override
            public void armAfter(long d) {
                armAt(now + d);
            }

            @Override
            public void armAt(long d) {
                deadline = Math.max(d, now);
                armed = true;
            }

            @Override
            public void cancel() {
                armed = false;
            }

            @Override
            public boolean isArmed() {
                return armed;
            }

            @Override
            public long deadline() {
                return deadline;
            }
        }

        @Override
        public Timer newTimer(String name, Runnable action) {
            T t = new T(action);
            timers.add(t);
            return t;
        }

        @Override
        public boolean isVirtual() {
            return true;
        }

        @Override
        public long nanoTime() {
            return now;
        }

        void runUntilIdle() {
            for (;;) {
                T next = null;
                for (T t : timers) {
                    if (t.armed && (next == null || t.deadline < next.deadline)) {
                        next = t;
                    }
                }
                if (next == null) {
                    return;
                }
                now = next.deadline;
                next.armed = false;
                next.action.run();
            }
        }
    }

    private static CostTable copyCosts(long picosPerByte) {
        Map<CostItem, Long> p = new EnumMap<>(CostItem.class);
        for (CostItem item : CostItem.values()) {
            p.put(item, 0L);
        }
        p.put(CostItem.COPY, picosPerByte);
        return CostTable.of("test", "CpuPacedTransmitsTest", "none", "2026-11-24", p, Map.of());
    }

    @Test
    void aDoorbellRingsWhenTheCpuGetsThereInCommitOrder() {
        Steps s = new Steps();
        s.now = 1_000;
        HostCpu cpu = HostCpu.on(s, copyCosts(1_000), "n0"); // 1 ns per byte
        List<long[]> rung = new ArrayList<>();
        CpuPacedTransmits t = new CpuPacedTransmits("link", 4, cpu, (h, len, x) -> rung.add(new long[] {s.now, h, len, x}));
        t.commit(3, 60, 9); // CPU idle: at once
        assertEquals(1, rung.size());
        assertEquals(1_000, rung.get(0)[0]);
        cpu.charge(CostItem.COPY, 100);
        t.commit(1, 64, 7);
        cpu.charge(CostItem.COPY, 50);
        t.commit(2, 65, 8);
        assertEquals(2, t.waiting());
        assertTrue(t.isWaiting(1) && t.isWaiting(2));
        s.runUntilIdle();
        assertEquals(3, rung.size());
        assertEquals(List.of(1_100L, 1L, 64L, 7L), List.of(rung.get(1)[0], rung.get(1)[1], rung.get(1)[2], rung.get(1)[3]));
        assertEquals(1_150, rung.get(2)[0]);
        assertEquals(2, rung.get(2)[1]);
        assertEquals(0, t.waiting());
    }

    @Test
    void flushRingsWhatWaitsAndTheZeroTableNeverWaits() {
        Steps s = new Steps();
        HostCpu busy = HostCpu.on(s, copyCosts(1_000), "n0");
        List<Integer> rung = new ArrayList<>();
        CpuPacedTransmits t = new CpuPacedTransmits("link", 2, busy, (h, len, x) -> rung.add(h));
        busy.charge(CostItem.COPY, 10);
        t.commit(0, 1, 0);
        t.commit(1, 1, 0);
        assertThrows(IllegalStateException.class, () -> t.commit(0, 1, 0), "at capacity");
        assertThrows(IllegalStateException.class, () -> t.cpu(HostCpu.uncharged("other")), "commits wait");
        t.flush();
        assertEquals(List.of(0, 1), rung);
        s.runUntilIdle();
        assertEquals(List.of(0, 1), rung, "the timer was cancelled");

        rung.clear();
        CpuPacedTransmits zero = new CpuPacedTransmits("zero", 2, HostCpu.on(s, CostTable.zero(), "n1"),
                (h, len, x) -> rung.add(h));
        zero.commit(5, 1, 0);
        CpuPacedTransmits none = new CpuPacedTransmits("none", 2, HostCpu.uncharged("n2"), (h, len, x) -> rung.add(h));
        none.commit(6, 1, 0);
        assertEquals(List.of(5, 6), rung, "at once");
    }
}
