package io.nicbridge.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import org.junit.jupiter.api.Test;

class CarefulCommandsTest {
    @Test
    void latencyPrintsOurTableBesideTable1WithTheCostTableAndTheChecks() {
        PingPongCommandTest.Run r = PingPongCommandTest.run("careful", "latency", "--quick", "--nodes", "2");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("cost table: host cost table zero"), r.out());
        assertTrue(r.out().contains("--quick: "), "the reduction is stated: " + r.out());
        assertTrue(r.out().contains("   112.5    84.9"), "paper Table 1 quoted: " + r.out());
        assertTrue(r.out().contains("model self-check: care P=2 latency slope"), r.out());
        assertTrue(r.out().contains("comparison (not a check): TR 94-14 Table 1 shape"), r.out());
        assertTrue(r.out().contains("checks: 3 passed, 0 failed, 0 inconclusive -> exit code 0"), r.out());
    }

    @Test
    void aTableThatDoesNotPriceTheCoresOperationsIsRefusedWithItsOwnMessage() {
        boolean priced = CostTable.measured().operations().keySet().stream().anyMatch(k -> k.startsWith("careful."))
                && CostTable.measured().operations().keySet().stream().anyMatch(k -> k.startsWith("traditional."));
        PingPongCommandTest.Run r = PingPongCommandTest.run("careful", "latency", "--quick", "--nodes", "2",
                "--costs", "measured");
        if (!priced) {
            assertEquals(4, r.exit(), r.out() + r.err());
            assertTrue(r.err().contains("has no price for operation"), r.err());
        } else {
            assertTrue(r.out().contains("anchor check: TR 94-14 Table 1 shape"), "a priced table makes the shape"
                    + " an anchor check: " + r.out());
        }
    }

    @Test
    void badInputIsOneLineAndExitTwo() {
        PingPongCommandTest.Run r = PingPongCommandTest.run("careful", "jacobi", "--costs", "no-such-table");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("nic careful jacobi: --costs: cost table 'no-such-table' is neither zero,"
                + " measured nor a readable file"), r.err());
        r = PingPongCommandTest.run("careful", "flooding", "--nodes", "2,16");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("ring sizes in [2, 8] wanted, got 16"), r.err());
    }
}
