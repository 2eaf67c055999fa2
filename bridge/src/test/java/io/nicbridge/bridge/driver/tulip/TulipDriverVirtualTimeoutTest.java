package io.nicbridge.bridge.driver.tulip;

import static io.nicbridge.contract.Dec21140.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.tulip.TulipConfig.InterruptMode;
import io.nicbridge.bridge.driver.tulip.TulipStatistics.Counter;
import io.nicbridge.bridge.time.StepScheduler;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The driver's bounded waits on a card that never answers, in an empty virtual world: the only event left is the
 * wait's own deadline, so the step that reaches it leaves the clock exactly at the deadline, and the wait must give
 * up there. Before the fix the reset and filter waits timed out only past the deadline: at it they re-armed their
 * deadline event at now and stepped the world for ever. The preemptive timeout turns that hang into a failure; the
 * wall budget is generous because a correct wait takes a handful of steps.
 */
class TulipDriverVirtualTimeoutTest {
    private static final MacAddress STATION = MacAddress.parse("02:00:00:00:00:16");
    private static final Duration WALL_BUDGET = Duration.ofSeconds(10);
    private static final long RESET_TIMEOUT = 30_000;
    private static final long STOP_TIMEOUT = 40_000;

    /** Ignores poll demands: the setup frame of open() is never taken, so the filter never loads. */
    private final TestTulip card = TestTulip.hostile(STATION);
    /** The world the waits step: nothing in it but their deadline events. */
    private final StepScheduler world = new StepScheduler();

    private TulipDriver openOnVirtualTime() {
        TulipDriver d = TulipDriver.open(card, TulipConfig.builder().interruptMode(InterruptMode.POLLING)
            .rxRingSize(4).txRingSize(4).resetTimeoutNanos(RESET_TIMEOUT).stopTimeoutNanos(STOP_TIMEOUT).build());
        d.timeOn(world, world::step); // after open: its reset completed at once, on the wall clock
        assertEquals(0, world.nanoTime());
        return d;
    }

    @Test
    void aFilterTheCardNeverLoadsTimesOutAtItsDeadline() {
        TulipDriver d = openOnVirtualTime();
        boolean loaded = assertTimeoutPreemptively(WALL_BUDGET, () -> d.awaitFilterLoaded(20_000, null));
        assertFalse(loaded, "the card never handed the setup frame back");
        assertFalse(d.isFilterLoaded());
        assertEquals(20_000, world.nanoTime(), "gave up exactly at the deadline, in virtual time");
        assertEquals(Long.MAX_VALUE, world.nextEventTime(), "the deadline event is gone with the wait");

        // The next wait arms its own deadline, not a leftover one.
        assertFalse(assertTimeoutPreemptively(WALL_BUDGET, () -> d.awaitFilterLoaded(5_000, null)));
        assertEquals(25_000, world.nanoTime());
    }

    @Test
    void aChipThatNeverLeavesResetTimesOutAtItsDeadline() {
        TulipDriver d = openOnVirtualTime();
        // The watchdog fires from the test, outside the world's events, as a virtual wait requires.
        ManualScheduler watchdogClock = new ManualScheduler();
        d.watchdog(watchdogClock, watchdogClock.period());
        card.stickInReset();
        card.loseState(); // the next tick finds the chip reset and re-initialises it: CSR0.SWR, then the wait

        IllegalStateException e = assertTimeoutPreemptively(WALL_BUDGET,
            () -> assertThrows(IllegalStateException.class, watchdogClock::fire));
        assertTrue(e.getMessage().contains("CSR0.SWR still set " + RESET_TIMEOUT + " ns"), e.getMessage());
        assertEquals(1, d.statistics().get(Counter.CARD_RESETS));
        assertEquals(RESET_TIMEOUT, world.nanoTime(), "gave up exactly at the deadline, in virtual time");
        assertEquals(Long.MAX_VALUE, world.nextEventTime(), "the deadline event is cancelled although the wait threw");
    }

    @Test
    void aChipWhoseProcessesNeverStopTimesOutAtItsDeadline() {
        TulipDriver d = openOnVirtualTime();
        card.raise(CSR5_RS_TS_MASK); // both processes report running whatever CSR6 says

        boolean stopped = assertTimeoutPreemptively(WALL_BUDGET, d::stop);
        assertFalse(stopped);
        assertEquals(STOP_TIMEOUT, world.nanoTime(), "gave up exactly at the deadline, in virtual time");
        assertEquals(Long.MAX_VALUE, world.nextEventTime());
    }
}
