package io.nicbridge.bridge.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class EventLoopTest {
    @Test
    void dueTimersFireInDeadlineThenArmingOrderOnTheCallingThread() {
        EventLoop loop = new EventLoop("t", 1_000_000);
        List<String> fired = new ArrayList<>();
        Timer a = loop.newTimer("a", () -> fired.add("a"));
        Timer b = loop.newTimer("b", () -> fired.add("b"));
        Timer c = loop.newTimer("c", () -> fired.add("c"));
        Timer later = loop.newTimer("later", () -> fired.add("later"));
        long now = loop.nanoTime();
        c.armAt(now - 10);
        a.armAt(now - 20);
        b.armAt(now - 10);
        later.armAfter(TimeUnit.HOURS.toNanos(1));
        assertTrue(a.isArmed());
        assertEquals(now - 20, a.deadline());
        assertEquals(3, loop.runOnce());
        assertEquals(List.of("a", "c", "b"), fired);
        assertFalse(a.isArmed());
        assertTrue(later.isArmed());
        later.cancel();
        assertFalse(later.isArmed());
        later.cancel(); // a no-op
        assertEquals(0, loop.runOnce());
        assertEquals(Long.MAX_VALUE, loop.nanosToNextDeadline(loop.nanoTime()));
    }

    @Test
    void aPassPollsTheSourcesBeforeItFiresTheDueTimers() {
        // A loop thread that woke past a deadline: what arrived meanwhile (an acknowledgement) is handled first and
        // may move the deadline (the retransmission timeout), which then does not fire.
        EventLoop loop = new EventLoop("t", 1_000_000);
        List<String> order = new ArrayList<>();
        Timer timeout = loop.newTimer("rto", () -> order.add("timeout"));
        timeout.armAt(loop.nanoTime() - 1_000);
        loop.addSource(() -> {
            order.add("ack");
            timeout.armAfter(TimeUnit.HOURS.toNanos(1));
            return 1;
        });
        assertEquals(1, loop.runOnce());
        assertEquals(List.of("ack"), order);
        assertTrue(timeout.isArmed());
    }

    @Test
    void reArmingMovesTheExpiryAndAnActionMayReArmItself() {
        EventLoop loop = new EventLoop("t", 1_000_000);
        AtomicInteger count = new AtomicInteger();
        long past = loop.nanoTime() - 1_000_000;
        Timer[] self = new Timer[1];
        self[0] = loop.newTimer("periodic", () -> {
            if (count.incrementAndGet() < 3) {
                self[0].armAt(past); // due at the pass's start: fires again in the same pass
            }
        });
        self[0].armAfter(TimeUnit.HOURS.toNanos(1));
        self[0].armAt(past);
        loop.runOnce();
        assertEquals(3, count.get());
        assertThrows(IllegalArgumentException.class, () -> self[0].armAfter(-1));
    }

    @Test
    void timersFireOnTheLoopThreadAndOtherThreadsMayOnlyWakeIt() throws Exception {
        EventLoop loop = new EventLoop("loop-under-test", TimeUnit.MILLISECONDS.toNanos(50));
        AtomicReference<Thread> firedOn = new AtomicReference<>();
        CountDownLatch fired = new CountDownLatch(1);
        AtomicBoolean work = new AtomicBoolean();
        CountDownLatch sourced = new CountDownLatch(1);
        Timer t = loop.newTimer("t", () -> {
            firedOn.set(Thread.currentThread());
            fired.countDown();
        });
        loop.addSource(() -> {
            if (work.getAndSet(false)) {
                sourced.countDown();
                return 1;
            }
            return 0;
        });
        t.armAfter(TimeUnit.MILLISECONDS.toNanos(5));
        Thread loopThread = loop.start();
        try {
            assertTrue(fired.await(10, TimeUnit.SECONDS));
            assertSame(loopThread, firedOn.get());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> t.armAfter(1));
            assertTrue(e.getMessage().contains("loop-under-test"), e.getMessage());
            assertThrows(IllegalStateException.class, () -> loop.newTimer("late", () -> { }));
            Thread.sleep(20); // let the loop go idle (parked)
            work.set(true);
            loop.wakeup();
            assertTrue(sourced.await(10, TimeUnit.SECONDS));
        } finally {
            loop.close();
        }
        loopThread.join(10_000);
        assertFalse(loopThread.isAlive());
    }

    @Test
    void badArgumentsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new EventLoop("x", 0));
        assertThrows(NullPointerException.class, () -> new EventLoop("x", 1).newTimer("n", null));
    }
}
