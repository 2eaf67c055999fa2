package io.nicbridge.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.cli.PingPongCommandTest.Run;
import io.nicbridge.bench.unet.UnetPaper;
import org.junit.jupiter.api.Test;

/** {@code nic unet pingpong} and {@code nic unet throughput}: the shapes of the U-Net paper. */
class Sba200CommandsTest {
    @Test
    void pingpongShowsTheSingleCellStepBesideThePaper() {
        Run r = PingPongCommandTest.run("unet", "pingpong", "--sizes", "4,40,44,48,96,1024", "--count",
                "200", "--warmup", "200");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("model self-check: single-cell step at 40 B: the model's single-cell fast path"),
                r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("model self-check: single-cell step") && l.endsWith("-> PASS")),
                r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("model self-check: every simulated RTT equals the model")
                && l.endsWith("-> PASS")), r.out());
        assertTrue(r.out().contains("true by construction of the 140 Mbit/s fibre timing"), r.out());
        assertTrue(r.out().contains("comparison (not a check): single-cell RTT paper 65 us"), r.out());
        assertTrue(r.out().contains("checks: 3 passed, 0 failed, 0 inconclusive -> exit code 0"), r.out());
        assertTrue(r.out().contains("model: card"), r.out());
        assertTrue(r.out().contains("sec. 4.2.3 / Fig. 3: 65 us"), r.out());
        assertTrue(r.out().contains("software cost per message"), r.out());
        // the 40-byte row: one cell, the paper's 65 us beside it
        assertTrue(r.out().lines().anyMatch(l -> l.trim().startsWith("40      1 |") && l.contains("65.0")), r.out());
    }

    @Test
    void throughputApproachesTheAal5LimitWithItsSawtooth() {
        Run r = PingPongCommandTest.run("unet", "throughput", "--sizes", "4,40,44,800,4096", "--messages",
                "100");
        assertEquals(0, r.exit(), r.out() + r.err());
        // one name for the concept on every card (issue 12): the command's name, not the paper's "bandwidth"
        assertTrue(r.out().startsWith("throughput: card sba200 - "), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("max throughput ") && l.contains("% of the AAL5 limit")),
                r.out());
        assertTrue(r.out().lines().noneMatch(l -> l.startsWith("bandwidth") || l.startsWith("max bandwidth")),
                r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("anchor check: fibre saturated at 800 B (U-Net paper")
                && l.endsWith("-> PASS")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("model self-check: 48-byte sawtooth")
                && l.endsWith("-> PASS")), r.out());
        assertTrue(r.out().contains("comparison (not a check): 4096 B paper Table 3 120 Mbit/s"), r.out());
        assertTrue(r.out().contains("checks: 3 passed, 0 failed, 0 inconclusive -> exit code 0"), r.out());
        assertTrue(r.out().contains("Table 3: 120 Mbit/s"), r.out());
    }

    @Test
    void badInputGivesOneClearLine() {
        Run r = PingPongCommandTest.run("unet", "throughput", "--sizes", "0");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("message sizes must be"), r.err());
        r = PingPongCommandTest.run("unet", "pingpong", "--sizes", "a,b");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("--sizes must be a comma-separated list"), r.err());
    }

    @Test
    void theAal5LimitIsTheCellArithmetic() {
        assertEquals(1, UnetPaper.cells(40));
        assertEquals(2, UnetPaper.cells(41));
        assertEquals(107, UnetPaper.cells(5120));
        // 40 bytes in one 53-byte cell at 140 Mbit/s: 40 x 8 / 3.0286 us
        assertEquals(40 * 8 / (53 * 8 / 140.0), UnetPaper.aal5LimitMbits(40), 1e-9);
        assertEquals(65.0, UnetPaper.describedRttUs(40));
        assertEquals(120.0, UnetPaper.describedRttUs(48));
        assertEquals(126.0, UnetPaper.describedRttUs(96));
    }
}
