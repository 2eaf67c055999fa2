package io.nicbridge.bench.unet.real;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code nic unet real-flood}: the direct endpoint's frame rate, kicked per send and per batch, beside kernel UDP. */
class UnetRealFloodTest {
    @Test
    void everySenderFloodsAndTheBatchedOneKicksOncePerManyFrames() throws Exception {
        String missing = io.nicbridge.bench.real.RealLinks.missing();
        Requirements.assume(Capability.NET, missing == null, () -> missing);
        Availability xdp = ShimBackendProvider.xdpAvailability();
        Requirements.assume(Capability.SHIM, xdp.available(), xdp::reason);
        StringWriter text = new StringWriter();
        int rc = new UnetRealFlood(new PrintWriter(text), new int[] {42}, Duration.ofMillis(300), 1, 64, false).run();
        String out = text.toString();
        assertEquals(ExitCodes.OK, rc, out); // one trial judges nothing; the integrity check passes
        assertTrue(out.contains("integrity check: direct floods: every frame arrived once and in order, or the kernel"
            + " counted its drop at the receiver -> PASS"), out);
        for (String sender : new String[] {"direct, kick 1", "direct, kick 64", "udp"}) {
            Matcher m = Pattern.compile("42 B    64 B  " + Pattern.quote(sender) + "\\s+([0-9]+)").matcher(out);
            assertTrue(m.find(), sender + " in:\n" + out);
            assertTrue(Long.parseLong(m.group(1)) > 0, out);
        }
        // Kicking per send: as many kicks as frames; per batch: many frames per kick.
        Matcher one = Pattern.compile("direct, kick 1 .*, (\\d+) \\(([0-9.]+)\\), \\d+$", Pattern.MULTILINE)
            .matcher(out);
        assertTrue(one.find(), out);
        assertEquals(1.0, Double.parseDouble(one.group(2)), 0.01, out);
        Matcher batched = Pattern.compile("direct, kick 64 .*, (\\d+) \\(([0-9.]+)\\), \\d+$", Pattern.MULTILINE)
            .matcher(out);
        assertTrue(batched.find(), out);
        assertTrue(Double.parseDouble(batched.group(2)) > 4, "frames per kick: " + out);
    }

    @Test
    void busyPollingUnpinnedReceiversCountEveryFrameAndTheHeaderSaysHowTheyWaited() throws Exception {
        String missing = io.nicbridge.bench.real.RealLinks.missing();
        Requirements.assume(Capability.NET, missing == null, () -> missing);
        Availability xdp = ShimBackendProvider.xdpAvailability();
        Requirements.assume(Capability.SHIM, xdp.available(), xdp::reason);
        StringWriter text = new StringWriter();
        int rc = new UnetRealFlood(new PrintWriter(text), new int[] {42}, Duration.ofMillis(300), 1, 64, false, false,
            true).run();
        String out = text.toString();
        assertEquals(ExitCodes.OK, rc, out);
        assertTrue(out.contains("; unpinned"), out);
        assertTrue(out.contains("the receivers busy-poll (poll / non-blocking read, spin then yield)"), out);
        assertTrue(out.contains("-> PASS"), out);
        Matcher udp = Pattern.compile("42 B    64 B  udp\\s+([0-9]+) .* (\\d+), (\\d+)$", Pattern.MULTILINE)
            .matcher(out);
        assertTrue(udp.find(), out);
        assertTrue(Long.parseLong(udp.group(1)) > 0 && Long.parseLong(udp.group(3)) > 0, out);
    }

    @Test
    void badArgumentsAreRefusedWithTheLimit() {
        PrintWriter sink = new PrintWriter(new StringWriter());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new UnetRealFlood(sink, new int[] {23}, Duration.ofSeconds(1), 1, 64, false));
        assertTrue(e.getMessage().contains("24..1492"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> new UnetRealFlood(sink, new int[] {42}, Duration.ofMillis(50), 5, 64, false));
        assertTrue(e.getMessage().contains("at least 20 ms"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> new UnetRealFlood(sink, new int[] {42}, Duration.ofSeconds(1), 1, 1, false));
        assertTrue(e.getMessage().contains("--kick-batch"), e.getMessage());
    }
}
