package io.nicbridge.sim.testbed;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.sim.engine.EngineMode;
import org.junit.jupiter.api.Test;

/** Card names are unique within a testbed, whatever kind of card holds them. */
class EmulatedTestbedNamesTest {
    @Test
    void a21140CannotTakeAMedusasName() {
        try (EmulatedTestbed bed = EmulatedTestbed.create(EngineMode.INLINE, 0)) {
            bed.medusa("node", bed.fddiRing("ring"), "02:00:00:00:00:01");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> bed.dec21140("node", bed.ethernet("lan"), "02:00:00:00:00:02"));
            assertTrue(e.getMessage().contains("already has a card named 'node'"), e.getMessage());
        }
    }

    @Test
    void aMedusaCannotTakeA21140sName() {
        try (EmulatedTestbed bed = EmulatedTestbed.create(EngineMode.INLINE, 0)) {
            bed.dec21140("node", bed.ethernet("lan"), "02:00:00:00:00:02");
            assertThrows(IllegalArgumentException.class,
                () -> bed.medusa("node", bed.fddiRing("ring"), "02:00:00:00:00:01"));
        }
    }
}
