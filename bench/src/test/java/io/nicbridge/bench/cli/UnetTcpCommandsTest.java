package io.nicbridge.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.cli.PingPongCommandTest.Run;
import io.nicbridge.bench.real.RealLinks;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import org.junit.jupiter.api.Test;

/** {@code nic unet table3} and {@code nic unet tcp-window}: Table 3 complete and Figure 8, their checks and exit. */
class UnetTcpCommandsTest {
    @Test
    void table3PrintsEveryRowOfThePaperBesideOursAndTheTcpRowIsNew() {
        Run r = PingPongCommandTest.run("unet", "table3", "--count", "3", "--packets", "16");
        assertEquals(0, r.exit(), r.out() + r.err());
        for (String row : new String[] {"raw AAL5", "Active Msgs", "UDP", "TCP", "Split-C store"}) {
            assertTrue(r.out().lines().anyMatch(l -> l.startsWith("  " + row) && l.contains("|")), row + "\n" + r.out());
            assertTrue(r.out().lines().anyMatch(l -> l.startsWith("anchor check: " + row + " bandwidth with 4 KB")
                    && l.endsWith("-> PASS")), row + "\n" + r.out());
        }
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("  TCP ") && l.contains("|      157 |")
                && l.contains("|   115 |")), r.out());
        assertTrue(r.out().contains("comparison (not a check): TCP over UDP: paper +19 us, ours +"), r.out());
        assertTrue(r.out().contains("checks: 8 passed, 0 failed, 0 inconclusive -> exit code 0"), r.out());
        assertTrue(r.out().contains("In real time on one thread"), r.out());
        assertTrue(r.out().lines().filter(l -> l.startsWith("  TCP ")).count() == 2, "virtual and real rows\n" + r.out());
    }

    @Test
    void tcpWindowShowsAnEightKilobyteWindowIsEnough() {
        Run r = PingPongCommandTest.run("unet", "tcp-window", "--windows", "4096,8192,65536", "--sizes", "2048,4096",
                "--bytes", "131072");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("anchor check: 8 KB window: ") && l.endsWith("-> PASS")),
                r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("anchor check: an 8 KB window is enough")
                && l.endsWith("-> PASS")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("model self-check: a larger window never costs")
                && l.endsWith("-> PASS")), r.out());
    }

    @Test
    void badInputGivesOneClearLineAndExitTwo() {
        Run r = PingPongCommandTest.run("unet", "tcp-window", "--windows", "3000");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("must be a power of two"), r.err());
        r = PingPongCommandTest.run("unet", "tcp-window", "--windows", "1024");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("window must be at least one 2048-byte segment, was 1024"), r.err());
        r = PingPongCommandTest.run("unet", "table3", "--packets", "2");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("packets must be >= 8, was 2"), r.err());
        r = PingPongCommandTest.run("unet", "table3", "--ethernet", "--trials", "0");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("--trials must be >= 1, was 0"), r.err());
    }

    @Test
    void table3OnEthernetRunsEveryRowAcrossAVethPairAndExitsZero() {
        String missing = RealLinks.missing();
        Requirements.assume(Capability.NET, missing == null, () -> missing);
        Run r = PingPongCommandTest.run("unet", "table3", "--ethernet", "--count", "20", "--warmup", "5", "--packets",
                "8", "--trials", "1", "--no-direct");
        assertEquals(0, r.exit(), r.out() + r.err());
        for (String row : new String[] {"raw U-Net", "Active Msgs", "UDP", "TCP", "Split-C store"}) {
            assertTrue(r.out().lines().anyMatch(l -> l.startsWith("  " + row + " ") && l.contains(" | ")),
                    row + "\n" + r.out());
        }
        assertTrue(r.out().contains("U-Net paper Table 3 on U-Net over Ethernet, real time"), r.out());
    }
}
