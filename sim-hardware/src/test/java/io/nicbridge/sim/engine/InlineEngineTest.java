package io.nicbridge.sim.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InlineEngineTest {

    /** Detects two threads inside service() and records the newest kick number each service saw at its start. */
    static final class ExclusiveModel implements DeviceModel {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicLong kicksIssued = new AtomicLong();
        volatile long lastKickSeen;
        long services; // only touched inside service(), which is exclusive if the gate works

        @Override
        public String name() {
            return "exclusive";
        }

        @Override
        public int service() {
            if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            lastKickSeen = kicksIssued.get();
            services++;
            for (int i = 0; i < 200; i++) {
                Thread.onSpinWait(); // widen the window in which a second thread could get in
            }
            inside.decrementAndGet();
            return 1;
        }
    }

    @Test
    void twoKickingThreadsNeverShareServiceAndNoKickIsLost() throws Exception {
        InlineEngine engine = new InlineEngine();
        ExclusiveModel model = new ExclusiveModel();
        WorkSignal signal = engine.attach(model);
        int rounds = 20_000;
        int kicksPerRound = 4;
        AtomicInteger lostRounds = new AtomicInteger();
        // After every round (both threads done kicking, nobody kicking any more) the last service must have
        // started after the last kick: the race between a note and the holder's exit happens once per round.
        CyclicBarrier roundEnd = new CyclicBarrier(2, () -> {
            if (model.lastKickSeen != model.kicksIssued.get()) {
                lostRounds.incrementAndGet();
            }
        });
        Runnable kicker = () -> {
            try {
                for (int r = 0; r < rounds; r++) {
                    for (int i = 0; i < kicksPerRound; i++) {
                        model.kicksIssued.incrementAndGet(); // the work the kick announces, published before it
                        signal.kick();
                    }
                    roundEnd.await(10, TimeUnit.SECONDS);
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        };
        Thread a = new Thread(kicker, "kicker-a");
        Thread b = new Thread(kicker, "kicker-b");
        a.start();
        b.start();
        a.join();
        b.join();
        assertEquals(0, model.overlaps.get(), "service() ran on two threads at once");
        assertEquals(0, lostRounds.get(), "rounds in which a kick was not followed by a service");
        assertEquals(2L * rounds * kicksPerRound, model.lastKickSeen);
        assertTrue(model.services >= rounds && model.services <= 2L * rounds * kicksPerRound, "services " + model.services);
    }

    @Test
    void kickFromInsideServiceLoopsInsteadOfRecursing() {
        InlineEngine engine = new InlineEngine();
        AtomicInteger depth = new AtomicInteger();
        AtomicInteger maxDepth = new AtomicInteger();
        AtomicInteger services = new AtomicInteger();
        WorkSignal[] self = new WorkSignal[1];
        DeviceModel model = new DeviceModel() {
            @Override
            public String name() {
                return "self-kicker";
            }

            @Override
            public int service() {
                maxDepth.accumulateAndGet(depth.incrementAndGet(), Math::max);
                if (services.incrementAndGet() < 10) {
                    self[0].kick();
                    self[0].kick(); // coalesced with the first: one more pass
                }
                depth.decrementAndGet();
                return 1;
            }
        };
        self[0] = engine.attach(model);
        self[0].kick();
        assertEquals(10, services.get());
        assertEquals(1, maxDepth.get());
    }

    @Test
    void aThrowingServiceReleasesTheGate() {
        InlineEngine engine = new InlineEngine();
        AtomicInteger calls = new AtomicInteger();
        WorkSignal s = engine.attach(new DeviceModel() {
            @Override
            public String name() {
                return "fails-once";
            }

            @Override
            public int service() {
                if (calls.incrementAndGet() == 1) {
                    throw new IllegalStateException("boom");
                }
                return 0;
            }
        });
        assertThrows(IllegalStateException.class, s::kick);
        s.kick();
        assertEquals(2, calls.get(), "gate stayed closed after the exception");
    }

    @Test
    void pollServicesEveryModelAndTimersFireOnlyWhenDueAndDriven() throws Exception {
        InlineEngine engine = new InlineEngine();
        AtomicInteger a = new AtomicInteger();
        AtomicInteger b = new AtomicInteger();
        engine.attach(model("a", a));
        WorkSignal kickB = engine.attach(model("b", b));
        assertEquals(2, engine.poll());
        assertEquals(1, a.get());
        assertEquals(1, b.get());

        AtomicInteger fired = new AtomicInteger();
        SimTimer timer = engine.timeBase().newTimer("t", fired::incrementAndGet);
        assertFalse(timer.isArmed());
        timer.armAfter(TimeUnit.MILLISECONDS.toNanos(20));
        assertTrue(timer.isArmed());
        long deadline = timer.deadline();
        assertEquals(0, engine.pollTimers(), "fired before its deadline");
        while (System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        assertEquals(1, engine.pollTimers());
        assertEquals(1, fired.get(), "a due timer fires on the first poll after its deadline");
        assertFalse(timer.isArmed());
        assertEquals(0, engine.pollTimers(), "one expiry fires once");

        // Servicing any model also fires due timers (inline time-driven work happens when someone drives).
        timer.armAfter(0);
        kickB.kick();
        assertEquals(2, fired.get());

        // Cancel and re-arm.
        timer.armAfter(0);
        timer.cancel();
        assertEquals(0, engine.pollTimers());
        timer.armAfter(TimeUnit.SECONDS.toNanos(100));
        timer.armAfter(0); // replaces the pending expiry
        assertEquals(1, engine.pollTimers());
        assertEquals(3, fired.get());
        assertThrows(IllegalArgumentException.class, () -> timer.armAfter(-1));
    }

    @Test
    void attachRules() {
        InlineEngine engine = new InlineEngine();
        DeviceModel m = model("m", new AtomicInteger());
        engine.attach(m);
        assertThrows(IllegalArgumentException.class, () -> engine.attach(m));
        engine.close();
        assertThrows(IllegalStateException.class, () -> engine.attach(model("n", new AtomicInteger())));
        assertSame(EngineMode.INLINE, engine.mode());
        assertFalse(engine.timeBase().isVirtual());
    }

    @Test
    void kicksPollsAndTimerArmingAllocateNothing() {
        InlineEngine engine = new InlineEngine();
        AtomicInteger n = new AtomicInteger();
        WorkSignal s = engine.attach(model("m", n));
        SimTimer t = engine.timeBase().newTimer("t", () -> { });
        long bytes = Allocations.measure(() -> {
            for (int i = 0; i < 100_000; i++) {
                s.kick();
                t.armAfter(i & 1);
                if ((i & 7) == 0) {
                    t.cancel();
                }
                engine.poll();
            }
        });
        assertTrue(bytes < 1024, "100k kicks/arms/polls allocated " + bytes + " bytes");
    }

    static DeviceModel model(String name, AtomicInteger counter) {
        return new DeviceModel() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public int service() {
                counter.incrementAndGet();
                return 1;
            }
        };
    }
}
