package io.nicbridge.sim.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.idle.BusySpinIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RealTimeBaseTest {

    @Test
    void everyArmFiresExactlyOnceAndNeverConcurrentlyUnderCompetingPollers() throws Exception {
        RealTimeBase time = new RealTimeBase();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicLong fired = new AtomicLong();
        SimTimer timer = time.newTimer("contended", () -> {
            if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            fired.incrementAndGet();
            inside.decrementAndGet();
        });
        SimTimer never = time.newTimer("far", () -> { });
        never.armAfter(TimeUnit.HOURS.toNanos(1));
        AtomicInteger stop = new AtomicInteger();
        Runnable poller = () -> {
            int idle = 0;
            while (stop.get() == 0) {
                if (time.pollTimers() == 0 && ++idle > 100) {
                    Thread.yield();
                    idle = 0;
                }
            }
        };
        Thread p1 = new Thread(poller, "poller-1");
        Thread p2 = new Thread(poller, "poller-2");
        p1.start();
        p2.start();
        int arms = 20_000;
        try {
            for (int i = 1; i <= arms; i++) {
                timer.armAfter(0);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                IdleStrategy idle = new BusySpinIdle(50);
                while (fired.get() < i) {
                    assertTrue(System.nanoTime() - deadline < 0, "arm " + i + " never fired (lost by a poller?)");
                    idle.idle();
                }
            }
        } finally {
            stop.set(1);
            p1.join();
            p2.join();
        }
        assertEquals(arms, fired.get(), "an expiry fired twice");
        assertEquals(0, overlaps.get(), "a timer action ran concurrently with itself");
        assertFalse(timer.isArmed());
        assertTrue(never.isArmed(), "a timer not yet due stays armed through every poll");
        assertTrue(time.nanosToNextDeadline() > TimeUnit.MINUTES.toNanos(59));
    }

    @Test
    void anActionThatReArmsItselfFiresAgainOnlyOnALaterPoll() {
        RealTimeBase time = new RealTimeBase();
        AtomicInteger fired = new AtomicInteger();
        SimTimer[] self = new SimTimer[1];
        self[0] = time.newTimer("periodic", () -> {
            fired.incrementAndGet();
            self[0].armAfter(TimeUnit.SECONDS.toNanos(100));
        });
        assertEquals(0, time.pollTimers(), "nothing armed");
        assertEquals(Long.MAX_VALUE, time.nanosToNextDeadline());
        self[0].armAfter(0);
        assertEquals(1, time.pollTimers());
        assertTrue(self[0].isArmed());
        assertEquals(0, time.pollTimers());
        assertEquals(1, fired.get());
        self[0].armAfter(0);
        assertEquals(1, time.pollTimers());
        assertEquals(2, fired.get());
    }
}
