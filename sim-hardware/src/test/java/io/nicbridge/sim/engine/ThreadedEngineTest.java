package io.nicbridge.sim.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.idle.BusySpinIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.idle.ParkIdle;
import io.nicbridge.bridge.idle.YieldIdle;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ThreadedEngineTest {

    /** Has work only when asked: each request is one unit of work, served on the engine thread. */
    static final class RequestModel implements DeviceModel {
        final String name;
        final AtomicLong requested = new AtomicLong();
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        volatile long served;
        volatile Thread thread;

        RequestModel(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public int service() {
            thread = Thread.currentThread();
            if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            long r = requested.get();
            int work = (int) (r - served);
            served = r;
            inside.decrementAndGet();
            return work;
        }
    }

    static void await(BooleanSupplier condition, long timeoutMillis, String what) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting for " + what);
            }
            LockSupport.parkNanos(100_000);
        }
    }

    @Test
    void everyIdleStrategyServesKicksAndStopsCleanly() {
        for (IdleStrategy idle : List.of(new BusySpinIdle(), new YieldIdle(), new ParkIdle(1_000_000),
                new BackoffIdle())) {
            ThreadedEngine engine = new ThreadedEngine(idle);
            RequestModel a = new RequestModel("engine-test-a-" + idle.describe());
            RequestModel b = new RequestModel("engine-test-b-" + idle.describe());
            WorkSignal sa = engine.attach(a);
            WorkSignal sb = engine.attach(b);
            assertEquals(2, engine.liveThreads(), "one thread per model, started at attach");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            assertNull(a.thread, "service() must wait for the first kick (the model may still be under construction)");
            for (int i = 0; i < 1_000; i++) {
                a.requested.incrementAndGet();
                sa.kick();
                b.requested.incrementAndGet();
                sb.kick();
            }
            await(() -> a.served == 1_000 && b.served == 1_000, 10_000, "service with " + idle);
            assertEquals(2, engine.liveThreads());
            assertEquals(a.name, a.thread.getName(), "engine thread named after the model");
            assertTrue(a.thread.isDaemon());
            assertTrue(a.thread != b.thread);
            engine.close();
            assertEquals(0, engine.liveThreads(), "close() joins the engine threads");
            assertEquals(0, a.overlaps.get() + b.overlaps.get());
            assertNull(engine.failure());
        }
    }

    @Test
    void aKickWakesAThreadParkedForLong() {
        // Parks of 10 s: only the kick's unpark can make the service happen within the timeout.
        ThreadedEngine engine = new ThreadedEngine(new ParkIdle(TimeUnit.SECONDS.toNanos(10)));
        RequestModel m = new RequestModel("long-parker");
        WorkSignal s = engine.attach(m);
        engine.start();
        await(() -> m.thread != null, 5_000, "first pass");
        for (int round = 1; round <= 20; round++) {
            // let the thread reach its park
            await(() -> m.thread.getState() == Thread.State.TIMED_WAITING, 5_000, "engine thread to park");
            long start = System.nanoTime();
            m.requested.incrementAndGet();
            s.kick();
            long want = round;
            await(() -> m.served == want, 2_000, "kick " + round + " to wake the parked thread");
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2));
        }
        engine.close();
    }

    @Test
    void noWakeUpIsLostInAPingPongWithALongParkingEngine() throws Exception {
        // Every round waits for its own service; a lost wake-up would leave the thread parked for 10 s.
        ThreadedEngine engine = new ThreadedEngine(new ParkIdle(TimeUnit.SECONDS.toNanos(10)));
        RequestModel m = new RequestModel("ping-pong");
        WorkSignal s = engine.attach(m);
        Thread[] kickers = new Thread[2];
        AtomicLong done = new AtomicLong();
        for (int k = 0; k < 2; k++) {
            kickers[k] = new Thread(() -> {
                for (int i = 0; i < 5_000; i++) {
                    long want = m.requested.incrementAndGet();
                    s.kick();
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                    IdleStrategy idle = new BusySpinIdle(99);
                    while (m.served < want) {
                        if (System.nanoTime() - deadline > 0) {
                            return; // lost wake-up: done stays short
                        }
                        idle.idle();
                    }
                    done.incrementAndGet();
                }
            });
            kickers[k].start();
        }
        for (Thread t : kickers) {
            t.join(30_000);
        }
        engine.close();
        assertEquals(10_000, done.get(), "a kick did not wake the engine thread");
        assertEquals(0, m.overlaps.get());
    }

    @Test
    void idleEngineThreadsBackOffAndUseLittleCpu() throws Exception {
        for (IdleStrategy idle : List.of(new BackoffIdle(), new ParkIdle(ParkIdle.DEFAULT_PARK_NANOS))) {
            ThreadedEngine engine = new ThreadedEngine(idle);
            RequestModel m = new RequestModel("idle-" + idle.describe());
            engine.attach(m);
            engine.start();
            await(() -> m.thread != null, 5_000, "first pass");
            Thread.sleep(50); // past the spin and yield stages
            long cpu0 = Allocations.cpuNanos(m.thread);
            long wall0 = System.nanoTime();
            Thread.sleep(300);
            long cpu = Allocations.cpuNanos(m.thread) - cpu0;
            long wall = System.nanoTime() - wall0;
            engine.close();
            assertTrue(cpu < wall / 4, idle + ": idle engine thread used " + cpu / 1_000 + " us CPU in "
                    + wall / 1_000 + " us");
        }
    }

    @Test
    void backoffGoesThroughSpinYieldParkAndResetsOnWork() {
        BackoffIdle idle = new BackoffIdle(3, 2, 1_000, 4_000);
        for (int i = 0; i < 5; i++) {
            assertTrue(!idle.isParking());
            idle.idle(0);
        }
        assertTrue(idle.isParking());
        long t0 = System.nanoTime();
        idle.idle(0);
        assertTrue(System.nanoTime() - t0 >= 1_000, "park stage parks");
        idle.idle(1);
        assertTrue(!idle.isParking());
        IdleStrategy copy = idle.copy();
        assertTrue(copy instanceof BackoffIdle b && !b.isParking());
    }

    @Test
    void timersFireOnTheEngineThreads() {
        ThreadedEngine engine = new ThreadedEngine(new BackoffIdle());
        RequestModel m = new RequestModel("timer-host");
        engine.attach(m);
        AtomicInteger fired = new AtomicInteger();
        Thread[] firedOn = new Thread[1];
        SimTimer t = engine.timeBase().newTimer("t", () -> {
            firedOn[0] = Thread.currentThread();
            fired.incrementAndGet();
        });
        // no kick, no start(): the engine thread polls timers from attach on
        long armedAt = System.nanoTime();
        t.armAfter(TimeUnit.MILLISECONDS.toNanos(5));
        await(() -> fired.get() == 1, 5_000, "timer");
        assertTrue(System.nanoTime() - armedAt >= TimeUnit.MILLISECONDS.toNanos(5), "fired early");
        assertEquals("timer-host", firedOn[0].getName());
        assertNull(m.thread, "timers fire without servicing a model that was never kicked");
        engine.close();
    }

    @Test
    void aLongParkingEngineStillFiresTimersNearTheirDeadline() {
        // also: no thread may sleep past a deadline armed while it was parked
        ThreadedEngine engine = new ThreadedEngine(new ParkIdle(TimeUnit.SECONDS.toNanos(10)));
        RequestModel m = new RequestModel("sleepy");
        WorkSignal s = engine.attach(m);
        s.kick();
        await(() -> m.thread != null && m.thread.getState() == Thread.State.TIMED_WAITING, 5_000, "engine to park");
        AtomicLong firedAt = new AtomicLong();
        SimTimer t = engine.timeBase().newTimer("soon", () -> firedAt.set(System.nanoTime()));
        for (int i = 0; i < 5; i++) {
            await(() -> m.thread.getState() == Thread.State.TIMED_WAITING, 5_000, "engine to park again");
            firedAt.set(0);
            t.armAfter(TimeUnit.MILLISECONDS.toNanos(20));
            long deadline = t.deadline();
            // armed from this thread while the engine thread sleeps for 10 s: the arm must wake it
            await(() -> firedAt.get() != 0, 2_000, "timer " + i + " despite 10 s parks");
            assertTrue(firedAt.get() - deadline >= 0, "fired early");
            assertTrue(firedAt.get() - deadline < TimeUnit.MILLISECONDS.toNanos(500),
                    "fired " + (firedAt.get() - deadline) / 1_000 + " us late");
        }
        engine.close();
    }

    @Test
    void aThrowingModelStopsItsThreadAndIsReported() {
        ThreadedEngine engine = new ThreadedEngine(new YieldIdle());
        WorkSignal s = engine.attach(new DeviceModel() {
            @Override
            public String name() {
                return "faulty";
            }

            @Override
            public int service() {
                throw new IllegalStateException("model bug");
            }
        });
        s.kick();
        await(() -> engine.failure() != null, 5_000, "failure");
        assertSame(IllegalStateException.class, engine.failure().getClass());
        engine.close();
        assertEquals(0, engine.liveThreads());
    }
}
