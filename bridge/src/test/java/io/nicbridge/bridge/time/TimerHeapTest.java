package io.nicbridge.bridge.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TimerHeapTest {
    private static final class E extends TimerHeap.Entry {
        final int id;
        long seq; // the test's own arming order, to check ties against

        E(int id) {
            this.id = id;
        }
    }

    private static TimerHeap<E> heapFor(E... entries) {
        TimerHeap<E> h = new TimerHeap<>(1);
        for (E ignored : entries) {
            h.reserve();
        }
        return h;
    }

    @Test
    void equalDeadlinesComeOutInTheOrderTheyWereLastScheduled() {
        E a = new E(0), b = new E(1), c = new E(2);
        TimerHeap<E> h = heapFor(a, b, c);
        h.schedule(a, 100);
        h.schedule(b, 100);
        h.schedule(c, 100);
        h.schedule(a, 100); // re-arming a puts it behind b and c
        assertSame(b, poll(h));
        assertSame(c, poll(h));
        assertSame(a, poll(h));
        assertNull(h.peek());
        assertEquals(Long.MAX_VALUE, h.nextDeadline());
    }

    @Test
    void reArmMovesAnEntryAndRemoveTakesItFromTheMiddle() {
        E a = new E(0), b = new E(1), c = new E(2), d = new E(3);
        TimerHeap<E> h = heapFor(a, b, c, d);
        h.schedule(a, 10);
        h.schedule(b, 20);
        h.schedule(c, 30);
        h.schedule(d, 40);
        h.schedule(d, 5); // earlier
        h.schedule(a, 35); // later
        h.remove(b);
        h.remove(b); // not queued: nothing happens
        assertFalse(b.isQueued());
        assertEquals(3, h.size());
        assertSame(d, poll(h));
        assertSame(c, poll(h));
        assertSame(a, poll(h));
        assertEquals(35, a.deadline(), "the deadline stays readable after the entry left the heap");
    }

    @Test
    void nanoTimeDeadlinesCompareByDifferenceAcrossTheSignWrap() {
        E late = new E(0), early = new E(1);
        TimerHeap<E> h = heapFor(late, early);
        h.schedule(late, Long.MIN_VALUE + 5); // Long.MAX_VALUE - 10 + 16 wrapped
        h.schedule(early, Long.MAX_VALUE - 10);
        assertSame(early, poll(h));
        assertSame(late, poll(h));
    }

    @Test
    void anUnreservedEntryIsRefusedInsteadOfGrowingTheArray() {
        TimerHeap<E> h = new TimerHeap<>(1);
        h.reserve();
        h.schedule(new E(0), 1);
        assertThrows(IllegalStateException.class, () -> h.schedule(new E(1), 2));
        assertThrows(IllegalArgumentException.class, () -> new TimerHeap<E>(0));
    }

    /** Random schedules, re-arms and removals against a sorted list by (deadline, order of last schedule). */
    @Test
    void matchesASortedListUnderRandomOperations() {
        SplittableRandom rnd = new SplittableRandom(12);
        int n = 64;
        E[] all = new E[n];
        for (int i = 0; i < n; i++) {
            all[i] = new E(i);
        }
        TimerHeap<E> h = heapFor(all);
        List<E> model = new ArrayList<>();
        long seq = 0;
        for (int op = 0; op < 20_000; op++) {
            E e = all[rnd.nextInt(n)];
            int kind = rnd.nextInt(3);
            if (kind < 2) {
                h.schedule(e, rnd.nextLong(50)); // few distinct deadlines: many ties
                e.seq = seq++;
                if (!model.contains(e)) {
                    model.add(e);
                }
            } else if (kind == 2 && rnd.nextBoolean()) {
                h.remove(e);
                model.remove(e);
            } else if (!model.isEmpty()) {
                model.sort(Comparator.<E>comparingLong(TimerHeap.Entry::deadline).thenComparingLong(x -> x.seq));
                assertSame(model.remove(0), poll(h));
            }
            assertTrue(h.invariantHolds());
            assertEquals(model.size(), h.size());
        }
    }

    private static E poll(TimerHeap<E> h) {
        E e = h.peek();
        h.remove(e);
        return e;
    }
}
