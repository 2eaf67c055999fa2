package io.nicbridge.sim.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.bridge.time.VirtualScheduler;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** sim's time bases are bridge's Scheduler / VirtualScheduler, so protocol runners can drive them. */
class BridgeTimeTest {
    @Test
    void virtualTimeBaseIsAVirtualSchedulerWithArmAt() {
        VirtualScheduler s = new VirtualTimeBase(1);
        assertTrue(s.isVirtual());
        List<String> order = new ArrayList<>();
        Timer a = s.newTimer("a", () -> order.add("a@" + s.nanoTime()));
        Timer b = s.newTimer("b", () -> order.add("b@" + s.nanoTime()));
        a.armAt(500);
        b.armAfter(200);
        assertEquals(200, s.nextEventTime());
        assertTrue(s.step());
        s.runUntil(1_000);
        assertEquals(List.of("b@200", "a@500"), order);
        assertEquals(1_000, s.nanoTime());
        a.armAt(10); // in the past: fires at the current time, never earlier
        assertEquals(1_000, a.deadline());
        assertTrue(s.runUntil(() -> order.size() == 3, Long.MAX_VALUE));
        assertEquals("a@1000", order.get(2));
        assertFalse(s.step());
    }

    @Test
    void realTimeBaseArmAtFiresOnPoll() {
        RealTimeBase rt = new RealTimeBase();
        Scheduler s = rt;
        int[] fired = {0};
        Timer t = s.newTimer("t", () -> fired[0]++);
        t.armAt(s.nanoTime() + 3_600_000_000_000L);
        assertTrue(t.isArmed());
        assertEquals(0, rt.pollTimers());
        t.armAt(s.nanoTime() - 1);
        assertEquals(1, rt.pollTimers());
        assertEquals(1, fired[0]);
        assertFalse(t.isArmed());
    }
}
