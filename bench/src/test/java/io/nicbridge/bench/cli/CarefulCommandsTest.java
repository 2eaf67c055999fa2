package io.nicbridge.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.careful.CarefulExperiments;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
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

    /**
     * Both C* cores in real time on three native-shim 21140s on a bridged veth segment (skipped with the reason where
     * the shim, namespaces or a bridge are missing): every round went around the ring whole, the table has a figure
     * for every point, and the exit code is the integrity check's.
     */
    @Test
    void latencyOnTheShimRunsBothCoresInRealTimeAndItsExitCodeIsItsIntegrityCheck() {
        String missing = CarefulExperiments.missingShimPrerequisite();
        Requirements.assume(Capability.NET, missing == null, () -> missing);
        PingPongCommandTest.Run r = PingPongCommandTest.run("careful", "latency", "--medium", "shim", "--quick",
                "--nodes", "3");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("real time, one thread per node"), r.out());
        for (String words : new String[] {"     1 |", "   100 |", "   350 |"}) {
            String row = r.out().lines().filter(l -> l.startsWith(" 3 " + words)).findFirst().orElse("");
            assertTrue(row.matches(" 3 +\\d+ \\| +\\d+\\.\\d +\\d+\\.\\d +[-+]\\d+\\.\\d"), "a figure per core: '" + row
                    + "' in " + r.out());
        }
        assertTrue(r.out().contains("integrity check: every run on the shim took every round around the ring")
                && r.out().contains("-> PASS"), r.out());
        assertTrue(r.out().contains("checks: 1 passed, 0 failed, 0 inconclusive -> exit code 0"), r.out());
    }

    @Test
    void anUnknownMediumIsOneLineAndExitTwo() {
        PingPongCommandTest.Run r = PingPongCommandTest.run("careful", "latency", "--medium", "token-bus");
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("nic careful latency: --medium: medusa or shim, not 'token-bus'"), r.err());
    }
}
