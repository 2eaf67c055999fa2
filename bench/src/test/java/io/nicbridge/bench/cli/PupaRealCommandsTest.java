package io.nicbridge.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import org.junit.jupiter.api.Test;

/**
 * {@code nic pupa real-latency|real-bandwidth}, short real runs on a veth pair (skipped with the reason where
 * namespaces, veth pairs or the shim are not available): the data arrived intact (the integrity check), the
 * comparison with kernel TCP ran and was judged, and the exit code is the one the printed checks add up to (the
 * targets themselves depend on the machine, so either verdict is accepted - but it must be the printed one).
 */
class PupaRealCommandsTest {
    @Test
    void realLatencyComparesPupaWithKernelTcpAndItsExitCodeIsItsVerdict() {
        CliRun.assumeRealLinks();
        CliRun r = CliRun.of("pupa", "real-latency", "--sizes", "4,512", "--count", "100", "--warmup", "20", "--trials", "3",
            "--waits", "spin", "--pinning", "unpinned");
        assertTrue(r.out().contains("integrity check: ") && r.out().contains("every echo arrived whole and byte for"
            + " byte as sent") && r.out().contains("-> PASS"), r.out() + r.err());
        assertTrue(r.out().contains("anchor check: busy polling, unpinned, 4 B: Pupa one-way at most half of kernel"
            + " TCP's"), r.out());
        assertTrue(r.out().contains("comparison (not a check): busy polling, unpinned, 512 B"), "above 256 B: printed,"
            + " not judged: " + r.out());
        assertEquals(r.expectedExit(), r.exit(), r.out() + r.err());
    }

    @Test
    void realBandwidthStreamsAllThreeStacksIntactWithOffloadsOffAndOn() {
        CliRun.assumeRealLinks();
        CliRun r = CliRun.of("pupa", "real-bandwidth", "--sizes", "4096", "--count", "400", "--trials", "3");
        assertTrue(r.out().contains("offloads off (ethtool") && r.out().contains("offloads on (ethtool"), r.out()
            + r.err());
        assertTrue(r.out().contains("messages streamed: every one arrived once, in order and intact") && r.out()
            .contains("-> PASS"), r.out() + r.err());
        assertTrue(r.out().contains("anchor check: offloads off, 4096 B: sender-controlled / best TCP"), r.out());
        assertTrue(r.out().contains("Pupa sender-controlled, per message: sender ") && r.out().contains(" waits |"
            + " receiver "), "the per-side breakdown under each size: " + r.out());
        assertTrue(r.out().contains("| TCP NODELAY  |  TCP Nagle   | sender-ctl/best TCP"), "both TCPs: " + r.out());
        assertEquals(r.expectedExit(), r.exit(), r.out() + r.err());
    }

    @Test
    void realBandwidthBusyPollingBothRunsTheChosenOffloadSettingOnly() {
        CliRun.assumeRealLinks();
        CliRun r = CliRun.of("pupa", "real-bandwidth", "--sizes", "4096", "--count", "400", "--trials", "3",
            "--offloads", "off", "--waits", "spin");
        assertTrue(r.out().contains("busy polling both (not the paper's way)") && r.out().contains("offloads off"
            + " (ethtool") && !r.out().contains("offloads on (ethtool"), r.out() + r.err());
        assertTrue(r.out().contains("anchor check: busy polling both, offloads off, 4096 B: sender-controlled / best"
            + " TCP"),
            r.out());
        assertTrue(r.out().contains("messages streamed: every one arrived once, in order and intact"), r.out());
        assertEquals(r.expectedExit(), r.exit(), r.out() + r.err());
    }

    @Test
    void realBandwidthWithReceiveSteeringJudgesTheTargetUnderEachSetting() {
        CliRun.assumeRealLinks();
        CliRun r = CliRun.of("pupa", "real-bandwidth", "--sizes", "4096", "--count", "400", "--trials", "3",
            "--offloads", "off", "--rx-steering", "none,rps");
        assertTrue(r.out().contains("no receive steering (a veth's input runs on the sending CPU); threads unpinned")
            && r.out().contains("receive steering: RPS: ") && r.out().contains("senders pinned to CPU 0, receivers to"
            + " CPU 1"), r.out() + r.err());
        assertTrue(r.out().contains("anchor check: offloads off, 4096 B: sender-controlled / best TCP")
            && r.out().contains("anchor check: RPS, offloads off, 4096 B: sender-controlled / best TCP"),
            "one target per setting: " + r.out());
        assertTrue(r.out().contains("messages streamed: every one arrived once, in order and intact"), r.out());
        assertEquals(r.expectedExit(), r.exit(), r.out() + r.err());
    }

    @Test
    void realLatencyRunsPupaOnAfXdpCardsToo() {
        CliRun.assumeRealLinks();
        Availability xdp = ShimBackendProvider.xdpAvailability(); // asked first: a run that fails is a failure
        Requirements.assume(Capability.SHIM, xdp.available(), xdp::reason);
        CliRun r = CliRun.of("pupa", "real-latency", "--transport", "afxdp", "--sizes", "64", "--count", "100",
            "--warmup", "20", "--trials", "3", "--waits", "spin", "--pinning", "unpinned");
        assertTrue(r.out().contains("(AF_XDP, shim:afxdp)"), r.out() + r.err());
        assertTrue(r.out().contains("every echo arrived whole and byte for byte as sent") && r.out().contains("-> PASS"),
            r.out() + r.err());
        assertEquals(r.expectedExit(), r.exit(), r.out() + r.err());
    }

    @Test
    void badSizesAreRefusedNamingTheOption() {
        CliRun.assumeRealLinks();
        CliRun r = CliRun.of("pupa", "real-latency", "--sizes", "2000");
        assertEquals(ExitCodes.USAGE, r.exit());
        assertTrue(r.err().contains("--sizes must be 1..1436"), r.err());
        CliRun b = CliRun.of("pupa", "real-bandwidth", "--sizes", "4");
        assertEquals(ExitCodes.USAGE, b.exit());
        assertTrue(b.err().contains("--sizes must be 8.."), b.err());
        CliRun t = CliRun.of("pupa", "real-bandwidth", "--transport", "udp");
        assertEquals(ExitCodes.USAGE, t.exit());
        assertTrue(t.err().contains("--transport: afpacket or afxdp, was 'udp'"), t.err());
        CliRun o = CliRun.of("pupa", "real-bandwidth", "--offloads", "sideways");
        assertEquals(ExitCodes.USAGE, o.exit());
        assertTrue(o.err().contains("--offloads: off, on or off,on, was 'sideways'"), o.err());
        CliRun w = CliRun.of("pupa", "real-bandwidth", "--waits", "doze");
        assertEquals(ExitCodes.USAGE, w.exit());
        assertTrue(w.err().contains("--waits: block or spin, was 'doze'"), w.err());
        CliRun s = CliRun.of("pupa", "real-bandwidth", "--rx-steering", "rfs");
        assertEquals(ExitCodes.USAGE, s.exit());
        assertTrue(s.err().contains("--rx-steering: none, rps or none,rps, was 'rfs'"), s.err());
    }
}
