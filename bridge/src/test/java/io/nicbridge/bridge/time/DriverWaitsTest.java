package io.nicbridge.bridge.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.idle.IdleStrategy;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** The waits the Tulip and Medusa drivers share: wall clock until timeOn, then virtual steps with a deadline event. */
class DriverWaitsTest {
    /** Counts its idle passes. */
    private static final class CountingIdle implements IdleStrategy {
        int passes;

        @Override
        public void idle(int workCount) {
            passes++;
        }

        @Override
        public void reset() {
        }

        @Override
        public IdleStrategy copy() {
            return new CountingIdle();
        }

        @Override
        public String describe() {
            return "counting";
        }
    }

    /** One deadline timer; step() jumps the clock to it when it is armed. */
    private static final class OneTimerWorld implements VirtualScheduler {
        long now;
        long armedAt = -1;
        int armings;
        int steps;

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public Timer newTimer(String name, Runnable action) {
            return new Timer() {
                @Override
                public void armAfter(long delayNanos) {
                    armAt(now + delayNanos);
                }

                @Override
                public void armAt(long deadlineNanos) {
                    armedAt = deadlineNanos;
                    armings++;
                }

                @Override
                public void cancel() {
                    armedAt = -1;
                }

                @Override
                public boolean isArmed() {
                    return armedAt >= 0;
                }

                @Override
                public long deadline() {
                    return armedAt;
                }
            };
        }

        @Override
        public boolean step() {
            steps++;
            if (armedAt < 0) {
                return false;
            }
            now = armedAt;
            armedAt = -1;
            return true;
        }

        @Override
        public long runUntil(long timeNanos) {
            now = timeNanos;
            return 0;
        }

        @Override
        public boolean runUntil(BooleanSupplier condition, long timeLimitNanos) {
            return condition.getAsBoolean();
        }

        @Override
        public long nextEventTime() {
            return armedAt < 0 ? Long.MAX_VALUE : armedAt;
        }
    }

    @Test
    void onTheWallClockAPauseBacksOffAndNothingIsArmed() {
        DriverWaits waits = new DriverWaits("d");
        CountingIdle idle = new CountingIdle();
        assertSame(WaitClock.WALL, waits.clock());
        assertFalse(waits.isVirtual());
        waits.pause(idle, waits.nanoTime() + 1_000);
        waits.end();
        assertEquals(1, idle.passes);
    }

    @Test
    void inVirtualTimeAPauseArmsTheDeadlineOnceAndStepsTheWorldToIt() {
        OneTimerWorld world = new OneTimerWorld();
        DriverWaits waits = new DriverWaits("d");
        waits.timeOn(world, world::step);
        CountingIdle idle = new CountingIdle();
        long deadline = waits.nanoTime() + 5_000;
        int looks = 0;
        while (waits.nanoTime() - deadline < 0) {
            waits.pause(idle, deadline);
            looks++;
        }
        waits.end();
        assertEquals(1, looks, "the step reached the deadline's own event");
        assertEquals(5_000, world.now);
        assertEquals(1, world.armings);
        assertEquals(0, idle.passes, "a virtual wait never backs off");
        assertTrue(waits.isVirtual());
    }

    @Test
    void aWaitHasExpiredWhenTheClockReachesItsDeadlineNotOnlyPastIt() {
        OneTimerWorld world = new OneTimerWorld();
        DriverWaits waits = new DriverWaits("d");
        waits.timeOn(world, world::step);
        long deadline = 5_000;
        assertFalse(waits.expired(deadline));
        waits.pause(new CountingIdle(), deadline); // the deadline's event is the world's only one
        assertEquals(deadline, world.now);
        assertTrue(waits.expired(deadline), "at the deadline: a wait that looked for 'past' would step for ever");
        assertEquals(Long.MAX_VALUE, world.nextEventTime());
        world.now = deadline + 1;
        assertTrue(waits.expired(deadline));
        waits.end();
    }

    @Test
    void endCancelsAnArmedDeadlineAndTheClockIsSetOnce() {
        OneTimerWorld world = new OneTimerWorld();
        DriverWaits waits = new DriverWaits("tulip(x)");
        waits.timeOn(world, () -> { });
        waits.pause(new CountingIdle(), 7_000);
        assertEquals(7_000, world.nextEventTime());
        waits.end();
        assertEquals(Long.MAX_VALUE, world.nextEventTime());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> waits.timeOn(world, world::step));
        assertTrue(e.getMessage().contains("tulip(x)"), e.getMessage());
    }
}
