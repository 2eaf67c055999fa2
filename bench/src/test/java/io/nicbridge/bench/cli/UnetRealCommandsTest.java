package io.nicbridge.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code nic unet real-latency} (Figure 9 in real time), a tiny real run on a veth pair (skipped with the reason where
 * namespaces, veth pairs or the shim are not available): U-Net UDP and U-Net TCP each ran beside the kernel's over the
 * pair and over loopback, every echo arrived intact, the small sizes' targets were judged and the larger printed, and
 * the exit code is the one the printed verdicts add up to (the targets depend on the machine, so either verdict is
 * accepted - but it must be the printed one).
 */
class UnetRealCommandsTest {
    /** The commands run the direct AF_XDP endpoint beside the shim card by default: both need to be here. */
    static void assumeRealLinksAndXdp() {
        CliRun.assumeRealLinks();
        Availability xdp = ShimBackendProvider.xdpAvailability();
        Requirements.assume(Capability.SHIM, xdp.available(), xdp::reason);
    }

    @Test
    void realLatencyComparesUnetUdpAndTcpWithTheKernelsOnThePairAndLoopback() {
        assumeRealLinksAndXdp();
        CliRun r = CliRun.of("unet", "real-latency", "--sizes", "4,512", "--count", "60", "--warmup", "20", "--trials", "3",
            "--waits", "spin");
        String out = r.out();
        assertTrue(out.contains("integrity check: ") && out.contains("every echo arrived whole and byte for byte as"
            + " sent") && out.contains("-> PASS"), out + r.err());
        for (String pinning : new String[] {"unpinned", "pinned"}) {
            assertTrue(out.contains("UDP, busy polling, " + pinning + ": round trip") && out.contains("TCP, busy polling, "
                + pinning + ": round trip") && out.contains("loopback p50"), out);
            for (String endpoint : new String[] {"shim card", "direct XSK"}) {
                assertTrue(out.contains("anchor check: UDP, busy polling, " + pinning + ", 4 B, " + endpoint + ": U-Net"
                    + " UDP round trip lower than kernel UDP's"), endpoint + ": " + out);
                assertTrue(out.contains("anchor check: TCP, busy polling, " + pinning + ", 4 B, " + endpoint + ": U-Net"
                    + " TCP round trip lower than kernel TCP_NODELAY's"), endpoint + ": " + out);
                assertTrue(out.contains("comparison (not a check): TCP, busy polling, " + pinning + ", 512 B, "
                    + endpoint), "above 256 B: printed, not judged: " + out);
            }
        }
        // Every setting warms the JIT up with untimed rounds of every stack, while it still compiles, at most 4.
        Matcher warm = Pattern.compile("warm-up: (\\d+) untimed round\\(s\\) of every"
            + " stack, the JIT compiling for \\d+ ms in the last").matcher(out);
        int settings = 0;
        while (warm.find()) {
            int rounds = Integer.parseInt(warm.group(1));
            assertTrue(rounds >= 1 && rounds <= 4, warm.group() + ": " + out);
            settings++;
        }
        assertEquals(4, settings, "one warm-up per protocol and pinning: " + out);
        // TCP acknowledges at the end of the step: the echo's reply carries the ACK of the request and the next
        // request the ACK of the reply - two segments per round trip (a retransmission or a window update adds a
        // little); inside each arrival (--tcp-ack immediate) a pure ACK goes before each reply: four.
        assertTrue(segmentsPerRoundTrip(out, "shim card") < 2.2 && segmentsPerRoundTrip(out, "direct XSK") < 2.2, out);
        assertEquals(r.expectedExit(), r.exit(), out + r.err());
        CliRun immediate = CliRun.of("unet", "real-latency", "--sizes", "4", "--count", "60", "--warmup", "20",
            "--trials", "1", "--waits", "spin", "--protocols", "tcp", "--endpoints", "card", "--pinning", "unpinned",
            "--no-loopback", "--tcp-ack", "immediate");
        assertTrue(segmentsPerRoundTrip(immediate.out(), "shim card") > 3.8, immediate.out() + immediate.err());
        assertTrue(!immediate.out().contains(", pinned:"), "--pinning unpinned runs unpinned only: " + immediate.out());
    }

    /** The first "U-Net TCP turn, {endpoint}: N segments on the wire per round trip" of a run's output. */
    private static double segmentsPerRoundTrip(String out, String endpoint) {
        String key = "U-Net TCP turn, " + endpoint + ": ";
        int at = out.indexOf(key);
        assertTrue(at >= 0, "no segment count for " + endpoint + ": " + out);
        int from = at + key.length();
        return Double.parseDouble(out.substring(from, out.indexOf(' ', from)));
    }

    @Test
    void realBandwidthAndRealWindowStreamEveryStackIntact() {
        assumeRealLinksAndXdp();
        CliRun b = CliRun.of("unet", "real-bandwidth", "--sizes", "256,4096", "--count", "300", "--trials", "1",
            "--waits", "spin,block");
        String out = b.out();
        assertTrue(out.contains("UDP (Figure 7), busy polling (kernel UDP's receiver blocks): received Mb/s")
            && out.contains("UDP (Figure 7), blocking") && out.contains("TCP (Table 3's bandwidth column"), out + b.err());
        assertTrue(out.contains("256 B: datagrams lost over 1 trials of 300: U-Net shim card "), "UDP ran 256 B only: "
            + out);
        assertTrue(out.contains("where U-Net's receiver (direct XSK) lost them"), out);
        assertTrue(out.contains("comparison (not a check): TCP, busy polling, bytes 4096, shim card: U-Net ")
            && out.contains("comparison (not a check): TCP, blocking, bytes 4096, direct XSK: U-Net "), out);
        assertTrue(out.contains("bytes of TCP streams and UDP datagrams arrived checked byte for byte") && out.contains(
            "-> PASS"), out);
        assertEquals(ExitCodes.OK, b.exit(), out + b.err());
        CliRun w = CliRun.of("unet", "real-window", "--windows", "4096,16384", "--count", "200", "--trials", "1",
            "--no-loopback", "--waits", "spin", "--endpoints", "direct");
        String wout = w.out();
        assertTrue(wout.contains("comparison (not a check): TCP, busy polling, window 4096, direct XSK: U-Net ")
            && wout.contains("window 16384: U-Net TCP on the direct XSK, retransmissions over 1 trials"), wout + w.err());
        assertTrue(!wout.contains("shim card"), "--endpoints direct runs the direct endpoint only: " + wout);
        assertTrue(!wout.contains("loopback Mb/s"), "--no-loopback leaves the column out: " + wout);
        assertEquals(ExitCodes.OK, w.exit(), wout + w.err());
        CliRun bad = CliRun.of("unet", "real-window", "--windows", "3000");
        assertEquals(ExitCodes.USAGE, bad.exit());
        assertTrue(bad.out().contains("--windows must be powers of two in 1024..65536"), bad.out() + bad.err());
    }

    @Test
    void theOldNameStillRunsAndBadArgumentsAreRefusedNamingTheOption() {
        CliRun.assumeRealLinks();
        CliRun r = CliRun.of("unet", "udp-real-latency", "--sizes", "2000");
        assertEquals(ExitCodes.USAGE, r.exit());
        assertTrue(r.out().contains("--sizes must be 1..1472"), r.out() + r.err());
        CliRun p = CliRun.of("unet", "real-latency", "--protocols", "sctp");
        assertEquals(ExitCodes.USAGE, p.exit());
        assertTrue(p.out().contains("--protocols: udp or tcp, was 'sctp'"), p.out() + p.err());
        CliRun e = CliRun.of("unet", "real-latency", "--endpoints", "nic");
        assertEquals(ExitCodes.USAGE, e.exit());
        assertTrue(e.out().contains("--endpoints: card or direct, was 'nic'"), e.out() + e.err());
        CliRun pin = CliRun.of("unet", "real-latency", "--pinning", "tight");
        assertEquals(ExitCodes.USAGE, pin.exit());
        assertTrue(pin.out().contains("--pinning: unpinned, pinned or one-cpu, was 'tight'"), pin.out() + pin.err());
        CliRun ack = CliRun.of("unet", "real-latency", "--tcp-ack", "later");
        assertEquals(ExitCodes.USAGE, ack.exit());
        assertTrue(ack.out().contains("--tcp-ack: at-poll or immediate, was 'later'"), ack.out() + ack.err());
    }
}
