package io.nicbridge.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MedusaCommandsTest {
    @Test
    void pingpongPrintsTheLatencyTableBesideTable1AndTheSlopeCheck() {
        PingPongCommandTest.Run r = PingPongCommandTest.run("medusa", "latency", "--nodes", "2,4",
            "--words", "1,1000,2000", "--rounds", "2", "--warmup", "1");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("model self-check: P=2: least-squares slope"), r.out());
        assertTrue(r.out().contains("model self-check: P=4: least-squares slope"), r.out());
        assertTrue(r.out().contains("true by construction of the ring's 100 Mb/s timing, a regression check, not"
            + " agreement with the paper -> PASS"), r.out());
        assertTrue(r.out().contains("comparison (not a check): P=2: paper Table 1"), r.out());
        assertTrue(r.out().contains("checks: 2 passed, 0 failed"), r.out());
        assertTrue(r.out().contains("  84.9"), "paper Table 1 quoted: " + r.out());
        assertTrue(r.out().contains("Our model: FDDI ring of exactly P stations"), r.out());
    }

    @Test
    void aHostReactionTimeMakesNodesWaitForTheTokenToComeRound() {
        PingPongCommandTest.Run r = PingPongCommandTest.run("medusa", "latency", "--nodes", "2,8",
            "--words", "1,2000", "--rounds", "3", "--warmup", "1", "--host-ns", "50000");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("host reaction time 50.000 us per node"), r.out());
        assertTrue(r.out().contains("model self-check: P=8: least-squares slope 10.0000 ns/bit"), r.out());
        r = PingPongCommandTest.run("medusa", "throughput", "--host-ns", "5");
        assertEquals(2, r.exit());
        assertTrue(r.err().startsWith("Unknown options: '--host-ns', '5'"), r.err());
    }

    @Test
    void throughputModeApproachesOneHundredMegabitsBesideTable2() {
        PingPongCommandTest.Run r = PingPongCommandTest.run("medusa", "throughput", "--nodes", "2",
            "--words", "1,2000", "--messages", "60");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("model self-check: P=2: 2000-word frames carry"), r.out());
        assertTrue(r.out().contains("the ring model keeps its fibre busy -> PASS"), r.out());
        assertTrue(r.out().contains("comparison (not a check): P=2, 2000 words: paper Table 2"), r.out());
        assertTrue(r.out().contains("97.70"), "paper Table 2 quoted: " + r.out());
    }

    @Test
    void badInputIsOneLineAndExitTwo() {
        PingPongCommandTest.Run r = PingPongCommandTest.run("medusa", "latency", "--nodes", "1");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("--nodes: 1 is outside [2, 64]"), r.err());
        r = PingPongCommandTest.run("medusa", "throughput", "--words", "1,2001");
        assertEquals(2, r.exit());
        assertTrue(r.err().startsWith("nic medusa throughput: --words: 2001 is outside [1, 2000]"), r.err());
        r = PingPongCommandTest.run("medusa", "latency", "--words", "5,5");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("--words needs at least two different sizes to fit a slope"), r.err());
        r = PingPongCommandTest.run("medusa", "latency", "--nodes", "2,x");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("--nodes must be a comma-separated list of numbers, was '2,x': 'x' is not a"
            + " number"), r.err());
        // Options of other experiments are not options of this one.
        for (String[] wrong : new String[][] {{"medusa", "latency", "--mode", "threaded"},
                {"medusa", "latency", "--size", "100"}, {"tulip", "pingpong", "--nodes", "4"},
                {"medusa", "throughput", "--rounds", "3"}}) {
            r = PingPongCommandTest.run(wrong);
            assertEquals(2, r.exit(), String.join(" ", wrong));
            assertTrue(r.err().startsWith("Unknown options: '" + wrong[2] + "', '" + wrong[3] + "'"), r.err());
        }
    }
}
