package io.nicbridge.sim.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class VirtualTimeEngineTest {

    record Ev(long time, String name) {
    }

    @Test
    void eventsRunInTimeOrderAndEqualTimesInSchedulingOrder() {
        VirtualTimeBase world = new VirtualTimeBase(1);
        List<Ev> trace = new ArrayList<>();
        world.trace((t, n) -> trace.add(new Ev(t, n)));
        List<String> ran = new ArrayList<>();
        SimTimer c = world.newTimer("c", () -> ran.add("c"));
        SimTimer a = world.newTimer("a", () -> ran.add("a"));
        SimTimer b = world.newTimer("b", () -> ran.add("b"));
        SimTimer early = world.newTimer("early", () -> ran.add("early"));
        c.armAfter(100);
        a.armAfter(100);
        b.armAfter(100);
        early.armAfter(50);
        assertEquals(4, world.pendingEvents());
        assertEquals(50, world.nextEventTime());
        assertEquals(4, world.runUntilIdle());
        assertEquals(List.of("early", "c", "a", "b"), ran);
        assertEquals(List.of(new Ev(50, "early"), new Ev(100, "c"), new Ev(100, "a"), new Ev(100, "b")), trace);
        assertEquals(100, world.nanoTime());

        // Re-arming takes a new place in the FIFO order: c re-armed last now runs last among equals.
        ran.clear();
        a.armAfter(10);
        c.armAfter(10);
        b.armAfter(10);
        c.armAfter(10);
        world.runUntilIdle();
        assertEquals(List.of("a", "b", "c"), ran);
    }

    @Test
    void reArmCancelAndDeadline() {
        VirtualTimeBase world = new VirtualTimeBase(1);
        int[] fired = new int[1];
        SimTimer t = world.newTimer("t", () -> fired[0]++);
        SimTimer other = world.newTimer("other", () -> { });
        other.armAfter(500);
        t.armAfter(1_000);
        assertTrue(t.isArmed());
        assertEquals(1_000, t.deadline());
        t.armAfter(200); // earlier: decrease-key
        assertEquals(200, t.deadline());
        t.armAfter(2_000); // later: increase-key, past the other timer
        assertEquals(2_000, t.deadline());
        assertEquals(2, world.pendingEvents(), "re-arming must not duplicate the entry");
        world.runUntil(1_999);
        assertEquals(0, fired[0]);
        world.runUntil(2_000);
        assertEquals(1, fired[0]);
        assertFalse(t.isArmed());

        t.armAfter(10);
        t.cancel();
        assertFalse(t.isArmed());
        t.cancel(); // no-op
        assertEquals(0, world.runUntilIdle());
        assertEquals(1, fired[0]);
        assertThrows(IllegalArgumentException.class, () -> t.armAfter(-5));
    }

    @Test
    void runUntilProcessesEventsUpToAndIncludingTheHorizonThenSetsTheClock() {
        VirtualTimeBase world = new VirtualTimeBase(1);
        List<Long> times = new ArrayList<>();
        SimTimer[] periodic = new SimTimer[1];
        periodic[0] = world.newTimer("tick", () -> {
            times.add(world.nanoTime());
            periodic[0].armAfter(100);
        });
        periodic[0].armAfter(100);
        assertEquals(3, world.runUntil(300)); // 100, 200, and the one scheduled exactly at the horizon
        assertEquals(List.of(100L, 200L, 300L), times);
        assertEquals(300, world.nanoTime());
        assertEquals(0, world.runUntil(350));
        assertEquals(350, world.nanoTime(), "the clock moves to the horizon even without events");
        assertEquals(1, world.runFor(50)); // 400
        assertEquals(400, world.nanoTime());
        assertThrows(IllegalArgumentException.class, () -> world.runUntil(399));
        assertThrows(IllegalArgumentException.class, () -> world.runFor(-1));
        IllegalStateException runaway = assertThrows(IllegalStateException.class, () -> world.runUntilIdle(1_000));
        assertTrue(runaway.getMessage().contains("tick"), runaway.getMessage());
        assertTrue(world.step());
        periodic[0].cancel();
        assertFalse(world.step());
    }

    @Test
    void runUntilConditionStopsAtTheEventThatMadeItTrue() {
        VirtualTimeBase world = new VirtualTimeBase(1);
        int[] ticks = new int[1];
        SimTimer[] t = new SimTimer[1];
        t[0] = world.newTimer("tick", () -> {
            ticks[0]++;
            t[0].armAfter(250);
        });
        t[0].armAfter(250);
        assertTrue(world.runUntil(() -> ticks[0] == 3, 10_000));
        assertEquals(750, world.nanoTime());
        assertFalse(world.runUntil(() -> ticks[0] == 100, 2_000), "limit reached first");
        assertEquals(8, ticks[0]);
        assertEquals(2_000, world.nanoTime());
        t[0].cancel();
        assertFalse(world.runUntil(() -> false, Long.MAX_VALUE), "no events left");
    }

    @Test
    void runMethodsCannotBeCalledFromInsideAnEvent() {
        VirtualTimeBase world = new VirtualTimeBase(1);
        IllegalStateException[] caught = new IllegalStateException[1];
        world.newTimer("nested", () -> {
            try {
                world.runFor(1);
            } catch (IllegalStateException e) {
                caught[0] = e;
            }
        }).armAfter(0);
        world.runUntilIdle();
        assertTrue(caught[0] != null && caught[0].getMessage().contains("inside an event"));
    }

    @Test
    void kicksAreCoalescedAndServedAtTheCurrentTime() {
        VirtualTimeEngine engine = new VirtualTimeEngine(7);
        List<Ev> trace = new ArrayList<>();
        engine.trace((t, n) -> trace.add(new Ev(t, n)));
        int[] services = new int[1];
        WorkSignal[] self = new WorkSignal[1];
        self[0] = engine.attach(new DeviceModel() {
            @Override
            public String name() {
                return "card";
            }

            @Override
            public int service() {
                services[0]++;
                if (services[0] == 1) {
                    self[0].kick(); // kick from inside service: one more service, same instant
                }
                return 1;
            }
        });
        SimTimer doorbell = engine.timeBase().newTimer("doorbell", () -> {
            self[0].kick();
            self[0].kick();
            self[0].kick();
        });
        doorbell.armAfter(1_000);
        engine.runUntilIdle();
        assertEquals(2, services[0]);
        assertEquals(List.of(new Ev(1_000, "doorbell"), new Ev(1_000, "card"), new Ev(1_000, "card")), trace);
        assertEquals(EngineMode.VIRTUAL, engine.mode());
        assertTrue(engine.timeBase().isVirtual());
    }

    @Test
    void schedulingFromAnotherThreadWhileRunningIsRefused() throws Exception {
        VirtualTimeBase world = new VirtualTimeBase(1);
        SimTimer victim = world.newTimer("victim", () -> { });
        Throwable[] seen = new Throwable[1];
        world.newTimer("spawner", () -> {
            Thread t = new Thread(() -> {
                try {
                    victim.armAfter(1);
                } catch (Throwable e) {
                    seen[0] = e;
                }
            });
            t.start();
            try {
                t.join();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }).armAfter(0);
        world.runUntilIdle();
        assertTrue(seen[0] instanceof IllegalStateException, String.valueOf(seen[0]));
    }

    /** A world of cards and processes whose every choice comes from the world's seeded random generator. */
    static List<Ev> randomWorld(long seed, int events) {
        VirtualTimeEngine engine = new VirtualTimeEngine(seed);
        VirtualTimeBase world = engine.timeBase();
        SplittableRandom random = engine.random();
        List<Ev> trace = new ArrayList<>();
        engine.trace((t, n) -> trace.add(new Ev(t, n)));
        int models = 4;
        int timers = 12;
        WorkSignal[] signals = new WorkSignal[models];
        SimTimer[] ts = new SimTimer[timers];
        for (int i = 0; i < models; i++) {
            String cardName = "card" + i;
            signals[i] = engine.attach(new DeviceModel() {
                final String name = cardName;

                @Override
                public String name() {
                    return name;
                }

                @Override
                public int service() {
                    if (random.nextInt(3) == 0) {
                        ts[random.nextInt(timers)].armAfter(random.nextInt(4) * 100L);
                    }
                    return 1;
                }
            });
        }
        for (int i = 0; i < timers; i++) {
            int id = i;
            ts[i] = world.newTimer("timer" + i, () -> {
                int r = random.nextInt(10);
                if (r < 9) {
                    ts[id].armAfter(random.nextInt(5) * 100L); // coarse delays: many equal times
                } else {
                    ts[random.nextInt(timers)].cancel();
                }
                if (random.nextInt(3) == 0) {
                    signals[random.nextInt(models)].kick();
                }
                if (random.nextBoolean()) {
                    ts[random.nextInt(timers)].armAfter(random.nextInt(3) * 100L);
                }
            });
            ts[i].armAfter(random.nextInt(1_000));
        }
        while (trace.size() < events && world.step()) {
            // run event by event
        }
        return trace;
    }

    @Test
    void sameSeedGivesIdenticalTraceDifferentSeedsDiffer() {
        List<Ev> first = randomWorld(42, 20_000);
        List<Ev> second = randomWorld(42, 20_000);
        List<Ev> other = randomWorld(43, 20_000);
        assertTrue(first.size() > 1_000, "world died after " + first.size() + " events");
        assertEquals(first, second);
        assertNotEquals(first, other);
        for (int i = 1; i < first.size(); i++) {
            assertTrue(first.get(i).time() >= first.get(i - 1).time(), "time went back at event " + i);
        }
    }

    @Test
    void armingCancellingKickingAndRunningAllocateNothing() {
        VirtualTimeEngine engine = new VirtualTimeEngine(3);
        VirtualTimeBase world = engine.timeBase();
        long[] count = new long[1];
        engine.trace((t, n) -> count[0]++);
        WorkSignal s = engine.attach(new DeviceModel() {
            @Override
            public String name() {
                return "m";
            }

            @Override
            public int service() {
                return 1;
            }
        });
        SimTimer[] ts = new SimTimer[64];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = world.newTimer("t" + i, () -> { });
        }
        long bytes = Allocations.measure(() -> {
            for (int i = 0; i < 100_000; i++) {
                SimTimer t = ts[i & 63];
                t.armAfter((i * 7919L) & 1023);
                if ((i & 3) == 0) {
                    ts[(i >>> 2) & 63].cancel();
                }
                s.kick();
                if ((i & 15) == 0) {
                    world.runFor(64);
                }
            }
            world.runUntilIdle();
        });
        assertTrue(count[0] > 100_000);
        assertTrue(bytes < 1024, "100k arms/cancels/kicks + runs allocated " + bytes + " bytes");
    }
}
