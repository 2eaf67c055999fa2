package io.nicbridge.sim.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The branch-free ring arithmetic against the modulo it replaces, over every index of rings of 1 to 70 entries. */
class CyclicIndexTest {

    @Test
    void nextWrapsAtTheRingSize() {
        for (int n = 1; n <= 70; n++) {
            for (int i = 0; i < n; i++) {
                assertEquals((i + 1) % n, CyclicIndex.next(i, n), "next(" + i + ", " + n + ")");
            }
        }
    }

    @Test
    void reduceIsModuloBelowTwiceTheRingSize() {
        for (int n = 1; n <= 70; n++) {
            for (int x = 0; x < 2 * n; x++) {
                assertEquals(x % n, CyclicIndex.reduce(x, n), "reduce(" + x + ", " + n + ")");
            }
        }
    }
}
