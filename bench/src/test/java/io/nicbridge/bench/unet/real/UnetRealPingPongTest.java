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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code nic unet real-pingpong}: all three U-Net backends measured in one run, each row a real figure. */
class UnetRealPingPongTest {
    @Test
    void everyBackendsRoundTripsPrintBesideTheOthers() throws Exception {
        String missing = io.nicbridge.bench.real.RealLinks.missing();
        Requirements.assume(Capability.NET, missing == null, () -> missing);
        Availability xdp = ShimBackendProvider.xdpAvailability();
        Requirements.assume(Capability.SHIM, xdp.available(), xdp::reason);
        StringWriter text = new StringWriter();
        int rc = new UnetRealPingPong(new PrintWriter(text), new int[] {40, 1000}, 50, 10, 1).run();
        String out = text.toString();
        assertEquals(ExitCodes.OK, rc, out);
        for (String backend : UnetRealPingPong.BACKENDS) {
            for (int size : new int[] {40, 1000}) {
                Matcher m = Pattern.compile("\\s" + size + " B  " + backend + "\\s+([0-9.]+)").matcher(out);
                assertTrue(m.find(), backend + " at " + size + " B in:\n" + out);
                assertTrue(Double.parseDouble(m.group(1)) > 0, out);
            }
        }
        assertTrue(out.contains("direct: XskUnetEndpoint on the XSK rings"), out);
    }

    @Test
    void badSizesAreRefusedWithTheLimit() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new UnetRealPingPong(new PrintWriter(new StringWriter()), new int[] {1493}, 10, 1, 1));
        assertTrue(e.getMessage().contains("1..1492"), e.getMessage());
    }
}
