package io.nicbridge.sim.traffic;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PatternsTest {
    private static final SplittableRandom R = new SplittableRandom(1);

    @Test
    void bitComplementInvertsEveryAddressBit() {
        TrafficPattern p = Patterns.bitComplement(64);
        assertEquals(63, p.destination(0, R));
        assertEquals(0, p.destination(63, R));
        assertEquals(0b101010, p.destination(0b010101, R));
        for (int i = 0; i < 64; i++) {
            assertEquals(63 - i, p.destination(i, R));
        }
    }

    @Test
    void transposeSwapsCoordinatesOnAnEightByEightGrid() {
        TrafficPattern p = Patterns.transpose(64);
        for (int y = 0; y < 8; y++) {
            for (int x = 0; x < 8; x++) {
                assertEquals(x * 8 + y, p.destination(y * 8 + x, R), "(" + x + "," + y + ")");
            }
        }
        assertThrows(IllegalArgumentException.class, () -> Patterns.transpose(32));
    }

    @Test
    void tornadoMovesAlmostHalfwayInEveryDimension() {
        TrafficPattern p = Patterns.tornado(8, 2);
        // ceil(8/2) - 1 = 3 in x and in y.
        assertEquals(3 * 8 + 3, p.destination(0, R));
        assertEquals(3 * 8 + 2, p.destination(7, R));          // (7,0) -> (2,3)
        assertEquals(2 * 8 + 0, p.destination(7 * 8 + 5, R));  // (5,7) -> (0,2)
        TrafficPattern odd = Patterns.tornado(5, 1);
        assertEquals(2, odd.destination(0, R));                // ceil(5/2) - 1 = 2
        assertEquals(1, odd.destination(4, R));
    }

    @Test
    void neighborAddsOneInEveryDimension() {
        TrafficPattern p = Patterns.neighbor(4, 3);
        assertEquals(1 + 4 + 16, p.destination(0, R));
        assertEquals(0, p.destination(63, R));
    }

    @Test
    void averageHopsOfTheInvariantsFollowFromThePatterns() {
        // Mesh hop counts computed from the pattern mapping reproduce docs/interconnect-facts.md.
        assertEquals(9.0, meanMeshHops(Patterns.bitComplement(64), 8), 1e-12);
        assertEquals(8.5, meanMeshHops(Patterns.tornado(8, 2), 8), 1e-12);
    }

    private static double meanMeshHops(TrafficPattern p, int k) {
        double sum = 0;
        for (int s = 0; s < k * k; s++) {
            int d = p.destination(s, R);
            sum += Math.abs(s % k - d % k) + Math.abs(s / k - d / k) + 1;
        }
        return sum / (k * k);
    }

    @Test
    void randomPermutationIsAFixedBijectionPerSeed() {
        TrafficPattern p = Patterns.randomPermutation(64, 7);
        boolean[] hit = new boolean[64];
        int[] first = new int[64];
        for (int i = 0; i < 64; i++) {
            first[i] = p.destination(i, R);
            assertTrue(!hit[first[i]], "destination used twice");
            hit[first[i]] = true;
        }
        TrafficPattern again = Patterns.randomPermutation(64, 7);
        int[] second = new int[64];
        for (int i = 0; i < 64; i++) {
            second[i] = again.destination(i, R);
        }
        assertArrayEquals(first, second);
    }

    @Test
    void uniformCoversEveryNodeIncludingSelfEvenly() {
        TrafficPattern p = Patterns.uniform(16);
        int[] count = new int[16];
        SplittableRandom r = new SplittableRandom(3);
        int draws = 160_000;
        for (int i = 0; i < draws; i++) {
            count[p.destination(5, r)]++;
        }
        for (int c : count) {
            assertEquals(draws / 16.0, c, 5 * Math.sqrt(draws / 16.0));
        }
    }

    @Test
    void hotspotSendsTheRequestedFractionToTheHotNodes() {
        TrafficPattern p = Patterns.hotspot(64, new int[] {0}, 0.25);
        SplittableRandom r = new SplittableRandom(4);
        int hot = 0;
        int draws = 100_000;
        for (int i = 0; i < draws; i++) {
            if (p.destination(9, r) == 0) {
                hot++;
            }
        }
        // 0.25 direct + 0.75 / 64 through the uniform part.
        double expected = draws * (0.25 + 0.75 / 64);
        assertEquals(expected, hot, 5 * Math.sqrt(expected));
    }

    @Test
    void createRejectsBadNamesAndShapes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Patterns.create("zigzag", 64, 8, 2, 1, new int[0], 0));
        assertTrue(e.getMessage().contains("zigzag"));
        assertThrows(IllegalArgumentException.class, () -> Patterns.create("tornado", 64, 8, 3, 1, new int[0], 0));
        assertThrows(IllegalArgumentException.class, () -> Patterns.bitComplement(48));
        assertThrows(IllegalArgumentException.class, () -> Patterns.hotspot(8, new int[] {8}, 0.1));
    }
}
