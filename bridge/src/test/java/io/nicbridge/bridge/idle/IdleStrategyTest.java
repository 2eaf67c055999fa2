package io.nicbridge.bridge.idle;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class IdleStrategyTest {
    @Test
    void aCardWaitSpinsThenYieldsThenParksAndWorkStartsItOver() {
        BackoffIdle idle = BackoffIdle.cardWait(1_000L);
        for (int i = 0; i < BackoffIdle.CARD_WAIT_SPINS + BackoffIdle.CARD_WAIT_YIELDS - 1; i++) {
            idle.idle();
            assertFalse(idle.isParking(), "parking after only " + (i + 1) + " idle passes");
        }
        idle.idle();
        assertTrue(idle.isParking(), "64 spins and 64 yields, then the waiter parks");
        idle.idle(); // a park of at most 1 us
        idle.idle(1);
        assertFalse(idle.isParking(), "work resets the back-off");
        idle.idle();
        idle.reset();
        assertFalse(idle.isParking());
    }

    @Test
    void aCopyStartsWithoutBackoffProgress() {
        BackoffIdle idle = new BackoffIdle(1, 1, 1_000L, 1_000L);
        idle.idle();
        idle.idle();
        assertTrue(idle.isParking());
        assertFalse(((BackoffIdle) idle.copy()).isParking());
    }

    @Test
    void badParametersAreRefusedByName() {
        assertThrows(IllegalArgumentException.class, () -> BackoffIdle.cardWait(0));
        assertThrows(IllegalArgumentException.class, () -> new BackoffIdle(-1, 0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new BusySpinIdle(-1));
        assertThrows(IllegalArgumentException.class, () -> new ParkIdle(0));
    }

    @Test
    void theParsedNamesRoundTripThroughDescribe() {
        for (String name : new String[] {"spin", "yield", "park:2000", "backoff"}) {
            assertEquals(name, IdleStrategy.parse(name).describe());
        }
    }
}
