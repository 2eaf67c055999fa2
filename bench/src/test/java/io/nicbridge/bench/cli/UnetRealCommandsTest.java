package io.nicbridge.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code nic unet real-latency} (Figure 9 in real time), a tiny real run on a veth pair (skipped with the reason where
 * namespaces, veth pairs or the shim are not available): U-Net UDP and U-Net TCP each ran beside the kernel's over the
 * pair and over loopback, every echo arrived intact, the small sizes' targets were judged and the larger printed, and
 * the exit code is the one the printed verdicts add up to (the targets depend on the machine, so either verdict is
 * accepted - but it must be the printed one).
 */
class UnetRealCommandsTest {
    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = NicCommand.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private static void assumeRealLinks() {
        Availability shim = new ShimBackendProvider().availability();
        Requirements.assume(Capability.SHIM, shim.available(), shim::reason);
        Availability veth = VethPair.availability();
        Requirements.assume(Capability.NET, veth.available(), veth::reason);
    }

    /** The exit code the printed verdict lines add up to (a line ending in the verdict, not the legend). */
    private static int expectedExit(String out) {
        if (out.contains("-> NOT MET\n") || out.contains("-> FAIL\n")) {
            return ExitCodes.CHECK_FAILED;
        }
        return out.contains("-> INCONCLUSIVE\n") ? ExitCodes.INCONCLUSIVE : ExitCodes.OK;
    }

    @Test
    void realLatencyComparesUnetUdpAndTcpWithTheKernelsOnThePairAndLoopback() {
        assumeRealLinks();
        Run r = run("unet", "real-latency", "--sizes", "4,512", "--count", "60", "--warmup", "20", "--trials", "3",
            "--waits", "spin");
        String out = r.out().replace("\r\n", "\n");
        assertTrue(out.contains("integrity check: ") && out.contains("every echo arrived whole and byte for byte as"
            + " sent") && out.contains("-> PASS"), out + r.err());
        assertTrue(out.contains("UDP, busy polling: round trip") && out.contains("TCP, busy polling: round trip")
            && out.contains("loopback p50"), out);
        assertTrue(out.contains("anchor check: UDP, busy polling, 4 B: U-Net UDP round trip lower than kernel UDP's"),
            out);
        assertTrue(out.contains("anchor check: TCP, busy polling, 4 B: U-Net TCP round trip lower than kernel"
            + " TCP_NODELAY's"), out);
        assertTrue(out.contains("comparison (not a check): TCP, busy polling, 512 B"), "above 256 B: printed, not"
            + " judged: " + out);
        assertEquals(expectedExit(out), r.exit(), out + r.err());
    }

    @Test
    void realBandwidthAndRealWindowStreamEveryStackIntact() {
        assumeRealLinks();
        Run b = run("unet", "real-bandwidth", "--sizes", "256,4096", "--count", "300", "--trials", "1");
        String out = b.out().replace("\r\n", "\n");
        assertTrue(out.contains("UDP (Figure 7): received Mb/s") && out.contains("TCP (Table 3's bandwidth column"),
            out + b.err());
        assertTrue(out.contains("256 B: datagrams lost over 1 trials: U-Net "), "UDP ran 256 B only: " + out);
        assertTrue(out.contains("comparison (not a check): TCP, bytes 4096: U-Net "), out);
        assertTrue(out.contains("bytes of TCP streams and UDP datagrams arrived checked byte for byte") && out.contains(
            "-> PASS"), out);
        assertEquals(ExitCodes.OK, b.exit(), out + b.err());
        Run w = run("unet", "real-window", "--windows", "4096,16384", "--count", "200", "--trials", "1",
            "--no-loopback");
        String wout = w.out().replace("\r\n", "\n");
        assertTrue(wout.contains("comparison (not a check): TCP, window 4096: U-Net ") && wout.contains("window 16384:"
            + " U-Net TCP retransmissions over 1 trials"), wout + w.err());
        assertTrue(!wout.contains("loopback Mb/s"), "--no-loopback leaves the column out: " + wout);
        assertEquals(ExitCodes.OK, w.exit(), wout + w.err());
        Run bad = run("unet", "real-window", "--windows", "3000");
        assertEquals(ExitCodes.USAGE, bad.exit());
        assertTrue(bad.out().contains("--windows must be powers of two in 1024..65536"), bad.out() + bad.err());
    }

    @Test
    void theOldNameStillRunsAndBadArgumentsAreRefusedNamingTheOption() {
        assumeRealLinks();
        Run r = run("unet", "udp-real-latency", "--sizes", "2000");
        assertEquals(ExitCodes.USAGE, r.exit());
        assertTrue(r.out().contains("--sizes must be 1..1472"), r.out() + r.err());
        Run p = run("unet", "real-latency", "--protocols", "sctp");
        assertEquals(ExitCodes.USAGE, p.exit());
        assertTrue(p.out().contains("--protocols: udp or tcp, was 'sctp'"), p.out() + p.err());
    }
}
