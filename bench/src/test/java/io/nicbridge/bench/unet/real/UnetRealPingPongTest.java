package io.nicbridge.bench.unet.real;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code nic unet real-pingpong}: every U-Net backend and kernel UDP measured in one run, each row a real figure. */
class UnetRealPingPongTest {
    private static void assumeRunnable() {
        String missing = io.nicbridge.bench.real.RealLinks.missing();
        Requirements.assume(Capability.NET, missing == null, () -> missing);
        Availability xdp = ShimBackendProvider.xdpAvailability();
        Requirements.assume(Capability.SHIM, xdp.available(), xdp::reason);
    }

    @Test
    void everyBackendsRoundTripsPrintBesideTheOthersInEveryWait() throws Exception {
        assumeRunnable();
        StringWriter text = new StringWriter();
        int rc = new UnetRealPingPong(new PrintWriter(text), new int[] {42, 1000}, 50, 10, 1).run();
        String out = text.toString();
        assertEquals(ExitCodes.OK, rc, out);
        for (String backend : UnetRealPingPong.BACKENDS) {
            for (int size : new int[] {42, 1000}) {
                for (String wait : new String[] {"block", "spin", "block pinned", "spin pinned"}) {
                    Matcher m = Pattern.compile("\\s" + size + " B\\s+" + (size + 22) + " B  " + wait + "\\s+"
                        + backend + "\\s+([0-9.]+)").matcher(out);
                    assertTrue(m.find(), backend + " " + wait + " at " + size + " B in:\n" + out);
                    assertTrue(Double.parseDouble(m.group(1)) > 0, out);
                }
            }
        }
        assertTrue(out.contains("direct: XskUnetEndpoint on the XSK rings"), out);
        // One trial judges nothing: the targets are printed as comparisons and the exit code says OK.
        assertTrue(out.contains("NOT JUDGED in this run: 1 trials"), out);
        assertFalse(out.contains("anchor check:"), out);
    }

    @Test
    void fiveTrialsJudgeThePinnedTargetsAndTheExitCodeFollowsTheVerdict() throws Exception {
        assumeRunnable();
        StringWriter text = new StringWriter();
        int rc = new UnetRealPingPong(new PrintWriter(text), new int[] {UnetRealPingPong.TARGET_MESSAGE}, 30, 10, 5,
            List.of("direct", "udp"), new boolean[] {false, true}, new boolean[] {true}, false).run();
        String out = text.toString();
        assertTrue(out.contains("anchor check: RTT at 42 B (64 B frame), block pinned, direct at least 1.5x lower"),
            out);
        assertTrue(out.contains("anchor check: RTT at 42 B (64 B frame), spin pinned, direct at least 3.0x lower"),
            out);
        int expected = out.contains("-> NOT MET") ? ExitCodes.CHECK_FAILED
            : out.contains("-> INCONCLUSIVE") ? ExitCodes.INCONCLUSIVE : ExitCodes.OK;
        assertEquals(expected, rc, out);
        assertTrue(out.contains("verdict: "), out);
        assertTrue(out.contains("exit code " + rc), out);
    }

    @Test
    void badArgumentsAreRefusedWithTheLimit() {
        PrintWriter sink = new PrintWriter(new StringWriter());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new UnetRealPingPong(sink, new int[] {1493}, 10, 1, 1));
        assertTrue(e.getMessage().contains("21..1492"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new UnetRealPingPong(sink, new int[] {20}, 10, 1, 1));
        assertTrue(e.getMessage().contains("1-byte UDP datagram"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new UnetRealPingPong(sink, new int[] {42}, 10, 1, 1,
            List.of("direct", "tcp"), new boolean[] {false}, new boolean[] {false}, false));
        assertTrue(e.getMessage().contains("unknown backend 'tcp'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> UnetRealPingPongCommand.flags("--pin", List.of("maybe"), "no", "yes"));
        assertTrue(e.getMessage().contains("--pin: 'maybe'"), e.getMessage());
    }
}
