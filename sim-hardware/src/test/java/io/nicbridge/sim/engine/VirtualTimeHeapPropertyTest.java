package io.nicbridge.sim.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The indexed event heap against the simplest possible reference: a list scanned for the smallest
 * (time, sequence). Arbitrary interleavings of arm, re-arm, cancel and step must fire the same timers at the
 * same times in the same order.
 */
class VirtualTimeHeapPropertyTest {
    private static final int TIMERS = 8;

    @Property(tries = 300)
    void heapOrderEqualsReferenceOrder(@ForAll @Size(max = 300) List<@IntRange(min = 0, max = 1023) Integer> ops) {
        VirtualTimeBase world = new VirtualTimeBase(0);
        List<String> fired = new ArrayList<>();
        SimTimer[] timers = new SimTimer[TIMERS];
        for (int i = 0; i < TIMERS; i++) {
            String name = "t" + i;
            timers[i] = world.newTimer(name, () -> fired.add(world.nanoTime() + ":" + name));
        }
        long[] refTime = new long[TIMERS];
        long[] refSeq = new long[TIMERS];
        boolean[] refArmed = new boolean[TIMERS];
        long refNow = 0;
        long nextSeq = 0;
        List<String> expected = new ArrayList<>();
        for (int code : ops) {
            int t = code % TIMERS;
            int op = (code / TIMERS) % 4;
            long delay = (code / (TIMERS * 4)) % 4 * 10L; // 0, 10, 20, 30: plenty of equal deadlines
            switch (op) {
                case 0, 1 -> {
                    timers[t].armAfter(delay);
                    refTime[t] = refNow + delay;
                    refSeq[t] = nextSeq++;
                    refArmed[t] = true;
                }
                case 2 -> {
                    timers[t].cancel();
                    refArmed[t] = false;
                }
                default -> {
                    int best = -1;
                    for (int i = 0; i < TIMERS; i++) {
                        if (refArmed[i] && (best < 0 || refTime[i] < refTime[best]
                                || (refTime[i] == refTime[best] && refSeq[i] < refSeq[best]))) {
                            best = i;
                        }
                    }
                    if (best >= 0) {
                        refArmed[best] = false;
                        refNow = refTime[best];
                        expected.add(refNow + ":t" + best);
                    }
                    assertEquals(best >= 0, world.step());
                }
            }
            for (int i = 0; i < TIMERS; i++) {
                assertEquals(refArmed[i], timers[i].isArmed(), "armed state of t" + i);
                if (refArmed[i]) {
                    assertEquals(refTime[i], timers[i].deadline(), "deadline of t" + i);
                }
            }
        }
        assertEquals(expected, fired);
        assertEquals(refNow, world.nanoTime());
    }
}
