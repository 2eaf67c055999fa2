package io.nicbridge.bench.pupa.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The four programs on small clusters: each finishes with the one-node answer, and the comparison is not vacuous (a
 * perturbed input makes it fail).
 */
class ParallelProgramsTest {
    private static final long LIMIT = TimeUnit.SECONDS.toNanos(60);

    private static void runs(StepProgram p) {
        try (PupaCluster c = new PupaCluster(p.nodes, Table3.config(64, Table3.DEFAULT_RTO_NANOS), CostTable.zero(),
                3, p)) {
            assertTrue(c.run(LIMIT), () -> p.name() + " did not finish: " + p.wrong());
            assertNull(c.leaks());
        }
        assertTrue(p.matchesSerial(), p.comparison());
    }

    @Test
    void lesOnFourNodesEqualsTheOneNodeSolverAndStopsOnTheSameIteration() {
        runs(new Les(4, 24, 1000, 0.05)); // converges before 1000: the stopping rule is exercised
        int[] it = new int[1];
        Les.serial(24, 1000, 0.05, it);
        assertTrue(it[0] < 1000, "converged after " + it[0]);
    }

    @Test
    void gelLrsSrsOnFiveNodesEqualTheirOneNodePrograms() {
        runs(new Gel(5, 37, 11));
        runs(new Lrs(5, 50, 3, 12));
        runs(new Srs(5, 300, 20, 13));
    }

    @Test
    void theComparisonCatchesADifferentAnswer() {
        Gel g = new Gel(3, 12, 5);
        runs(g);
        Gel other = new Gel(3, 12, 6); // another system: its serial answer differs from a finished run's
        assertFalse(Answers.sameBits(new double[] {1.0}, new double[] {Math.nextUp(1.0)}));
        assertFalse(other.matchesSerial(), "an unrun program's x (zeros) is not the solution");
    }

    @Test
    void tableThreeRowsAddUpOnAQuickRun() {
        Table3.Settings s = new Table3.Settings(CostTable.zero(), 1, List.of("GEL"), new int[] {48}, 0.1,
                Table3.DEFAULT_RTO_NANOS, false);
        Table3.Run r = Table3.run("GEL", 48, s);
        assertTrue(r.matches(), r.comparison());
        long[] rows = r.rows();
        assertEquals(0, rows[1], "a clean hub loses nothing");
        assertEquals(rows[8], rows[11] + rows[12] + rows[13], "every accepted message is stored in one of three places");
        assertEquals(9 * rows[6], rows[8], "GEL multicasts everything: received = 9 x sent");
    }
}
