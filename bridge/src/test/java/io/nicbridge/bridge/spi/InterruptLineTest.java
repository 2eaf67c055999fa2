package io.nicbridge.bridge.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class InterruptLineTest {
    @Test
    void levelFollowsStatusAndMask() {
        InterruptLine line = new InterruptLine("t");
        line.update(0b0110, 0b1000);
        assertFalse(line.isAsserted());
        line.update(0b0110, 0b0100);
        assertTrue(line.isAsserted());
        line.update(0b0111, 0b0101);
        assertEquals(1, line.assertions(), "still high: no new edge");
        line.update(0, 0xFFFF);
        assertFalse(line.isAsserted());
        line.raise();
        assertEquals(2, line.assertions());
    }

    @Test
    void awaitTimesOutWhenLowAndReturnsAtOnceWhenHigh() throws Exception {
        InterruptLine line = new InterruptLine("t");
        long t0 = System.nanoTime();
        assertFalse(line.await(30, TimeUnit.MILLISECONDS));
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(30));
        assertFalse(line.await(0, TimeUnit.MILLISECONDS));
        line.raise();
        assertTrue(line.await(0, TimeUnit.MILLISECONDS));
        assertTrue(line.await(1, TimeUnit.DAYS));
    }

    @Test
    void raiseFromAnotherThreadWakesAllWaiters() throws Exception {
        InterruptLine line = new InterruptLine("t");
        int n = 4;
        CountDownLatch woke = new CountDownLatch(n);
        List<Thread> waiters = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(() -> {
                try {
                    if (line.await(10, TimeUnit.SECONDS)) {
                        woke.countDown();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            t.start();
            waiters.add(t);
        }
        for (Thread t : waiters) { // wait until each is parked on the line
            while (t.getState() != Thread.State.TIMED_WAITING) {
                Thread.sleep(1);
            }
        }
        line.raise();
        assertTrue(woke.await(5, TimeUnit.SECONDS), "every waiter woke");
        for (Thread t : waiters) {
            t.join();
        }
    }

    @Test
    void interruptingAWaiterThrows() throws Exception {
        InterruptLine line = new InterruptLine("t");
        AtomicReference<Throwable> result = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                line.await(10, TimeUnit.SECONDS);
            } catch (Throwable e) {
                result.set(e);
            }
        });
        t.start();
        while (t.getState() != Thread.State.TIMED_WAITING) {
            Thread.sleep(1);
        }
        t.interrupt();
        t.join(5000);
        assertTrue(result.get() instanceof InterruptedException, String.valueOf(result.get()));
    }

    @Test
    void handlerRunsOncePerEdgeInTheRaisingThread() {
        InterruptLine line = new InterruptLine("t");
        AtomicInteger calls = new AtomicInteger();
        AtomicReference<Thread> where = new AtomicReference<>();
        line.handler(l -> {
            calls.incrementAndGet();
            where.set(Thread.currentThread());
        });
        line.raise();
        line.raise();
        line.lower();
        line.raise();
        assertEquals(2, calls.get());
        assertEquals(Thread.currentThread(), where.get());
        line.handler(null);
        line.lower();
        line.raise();
        assertEquals(2, calls.get());
        assertEquals(3, line.assertions());
    }

    /** Many lower/raise races between a card thread and a waiting host: never a lost wake-up. */
    @Test
    void noLostWakeups() throws Exception {
        InterruptLine request = new InterruptLine("request");
        InterruptLine reply = new InterruptLine("reply");
        int rounds = 20_000;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread card = new Thread(() -> {
            try {
                for (int i = 0; i < rounds; i++) {
                    if (!request.await(10, TimeUnit.SECONDS)) {
                        throw new AssertionError("card missed request " + i);
                    }
                    request.lower();
                    reply.raise();
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        card.start();
        for (int i = 0; i < rounds && failure.get() == null; i++) {
            request.raise();
            assertTrue(reply.await(10, TimeUnit.SECONDS), "host missed reply " + i);
            reply.lower();
        }
        card.join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertEquals(rounds, reply.assertions());
    }

    @Test
    void tooManyWaitersIsReported() throws Exception {
        InterruptLine line = new InterruptLine("t");
        List<Thread> waiters = new ArrayList<>();
        for (int i = 0; i < InterruptLine.MAX_WAITERS; i++) {
            Thread t = new Thread(() -> {
                try {
                    line.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException ignored) {
                    Thread.currentThread().interrupt();
                }
            });
            t.start();
            waiters.add(t);
        }
        for (Thread t : waiters) {
            while (t.getState() != Thread.State.TIMED_WAITING) {
                Thread.sleep(1);
            }
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> line.await(1, TimeUnit.SECONDS));
        assertTrue(e.getMessage().contains("more than " + InterruptLine.MAX_WAITERS), e.getMessage());
        line.raise();
        for (Thread t : waiters) {
            t.join();
        }
    }

    @Test
    void aFailedCardWakesEveryWaiterAndEveryLaterWaitThrowsWithItsCause() throws Exception {
        InterruptLine line = new InterruptLine("failing");
        AtomicReference<Throwable> seen = new AtomicReference<>();
        CountDownLatch waiting = new CountDownLatch(1);
        Thread waiter = Thread.ofPlatform().start(() -> {
            waiting.countDown();
            try {
                line.await(30, TimeUnit.SECONDS);
            } catch (Throwable t) {
                seen.set(t);
            }
        });
        assertTrue(waiting.await(5, TimeUnit.SECONDS));
        Thread.sleep(20);
        RuntimeException cause = new ArithmeticException("model bug");
        long t0 = System.nanoTime();
        line.fail(new CardFailedException("card#0", cause));
        waiter.join(5_000);
        assertFalse(waiter.isAlive());
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(1), "woken, not timed out");
        assertTrue(seen.get() instanceof CardFailedException, String.valueOf(seen.get()));
        assertEquals(cause, seen.get().getCause());
        line.raise(); // a raised line does not hide the failure
        CardFailedException later = assertThrows(CardFailedException.class, () -> line.await(1, TimeUnit.SECONDS));
        assertEquals(cause, later.getCause());
        assertEquals("card#0", later.card());
        line.fail(new CardFailedException("card#0", new IllegalStateException("second")));
        assertEquals(cause, line.failure().getCause(), "the first failure wins");
        assertThrows(CardFailedException.class, line::checkCard);
    }
}
