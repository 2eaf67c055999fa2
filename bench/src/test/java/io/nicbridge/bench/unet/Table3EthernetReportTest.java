package io.nicbridge.bench.unet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.real.RealLinks;
import io.nicbridge.bench.unet.Table3EthernetReport.Layer;
import io.nicbridge.bench.unet.Table3EthernetReport.Result;
import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code nic unet table3 --ethernet}: Table 3's five rows on U-Net over Ethernet across a fresh veth pair, small
 * counts. Skipped with the reason where namespaces, veth pairs or the native shim are missing (required under
 * {@code NICBRIDGE_REQUIRE=net}).
 */
class Table3EthernetReportTest {
    private static void assumeRunnable() {
        String missing = RealLinks.missing();
        Requirements.assume(Capability.NET, missing == null, () -> missing);
    }

    @Test
    void everyRowRunsWithItsDataCheckedAndAPositiveRoundTripAndBandwidth() throws Exception {
        assumeRunnable();
        StringWriter text = new StringWriter();
        Result r = new Table3EthernetReport(new PrintWriter(text), 10, 50, 16, 2, false).run();
        String out = text.toString();
        assertEquals(ExitCodes.OK, r.exitCode(), out);
        for (Layer l : Layer.values()) {
            assertTrue(r.rttP50Us()[l.ordinal()] > 0, l + "\n" + out);
            assertTrue(r.mbitsP50()[l.ordinal()] > 0, l + "\n" + out);
            assertTrue(out.lines().anyMatch(line -> line.startsWith("  " + l.label() + " ") && line.contains(" | ")),
                    l + "\n" + out);
        }
        // Every run checks what it carried and throws on a difference: the Split-C store's words are read back on
        // node 1 after each acknowledgement, the block stores' memory compared, echoes and streams byte for byte.
        assertTrue(out.lines().anyMatch(line -> line.startsWith("integrity check: ")
                && line.contains("the Split-C store's values read back on the other node") && line.endsWith("-> PASS")),
                out);
        assertTrue(out.contains("comparison (not a check): the medium differs: a veth pair"), out);
        assertTrue(out.contains("round trip TCP / UDP per trial: median"), out);
        assertTrue(out.contains("checks: 1 passed, 0 failed, 0 inconclusive -> exit code 0"), out);
        assertTrue(Double.isNaN(r.directRttP50Us()[0]), "the direct endpoint was not asked for");
    }

    @Test
    void theDirectEndpointRunsTheRowsItCarriesAndNamesTheOthers() throws Exception {
        assumeRunnable();
        String xdp = RealLinks.missingXdp();
        Requirements.assume(Capability.NET, xdp == null, () -> xdp);
        StringWriter text = new StringWriter();
        Result r = new Table3EthernetReport(new PrintWriter(text), 10, 50, 16, 2, true,
                veth -> new UnetEthernetMedium(veth, false, "", UnetEthernetMedium.LIMIT_NANOS)).run();
        String out = text.toString();
        assertEquals(ExitCodes.OK, r.exitCode(), out);
        for (Layer l : Table3EthernetReport.DIRECT_RTT_ROWS) {
            assertTrue(r.directRttP50Us()[l.ordinal()] > 0, l + "\n" + out);
        }
        assertTrue(r.directMbitsP50()[Layer.TCP.ordinal()] > 0, out);
        assertTrue(Double.isNaN(r.directRttP50Us()[Layer.AM.ordinal()]), out);
        assertTrue(Double.isNaN(r.directMbitsP50()[Layer.UDP.ordinal()]), out);
        assertTrue(out.contains("neither: UAM's 4160-byte buffers need"), out);
    }

    @Test
    void aRowWhoseMessagesAreLostCannotRunAndTheExitCodeSaysSo() throws Exception {
        assumeRunnable();
        StringWriter text = new StringWriter();
        // Both cards drop every frame they send: raw U-Net, the first row, never gets its echo.
        Result r = new Table3EthernetReport(new PrintWriter(text), 0, 5, 8, 1, false,
                veth -> new UnetEthernetMedium(veth, false, "&drop=1&faults=tx", TimeUnit.MILLISECONDS.toNanos(300))).run();
        String out = text.toString();
        assertEquals(ExitCodes.INCOMPLETE, r.exitCode(), out);
        assertTrue(out.contains("shim SBA-200 cards: a row could not run: raw U-Net: raw round trips did not finish"),
                out);
        assertTrue(out.contains("result: INCOMPLETE (exit code 5)"), out);
        assertTrue(Double.isNaN(r.rttP50Us()[0]), out);
    }

    @Test
    void badArgumentsAreRefusedByName() {
        PrintWriter out = new PrintWriter(new StringWriter());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new Table3EthernetReport(out, 0, 10, 4, 3, false))
                .getMessage().contains("--packets must be >= 8, was 4"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new Table3EthernetReport(out, 0, 10, 8, 0, false))
                .getMessage().contains("--trials must be >= 1, was 0"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new Table3EthernetReport(out, -1, 10, 8, 1, false))
                .getMessage().contains("--warmup >= 0"));
    }

    @Test
    void aRawMessageWithOneByteChangedIsFound() {
        MemorySegment expected = MemorySegment.ofArray(new byte[64]);
        MemorySegment message = MemorySegment.ofArray(new byte[64]);
        message.fill((byte) 7);
        UamRuns.checkMessage(message, 64, 7, expected); // message 7: every byte 7
        message.set(ValueLayout.JAVA_BYTE, 33, (byte) 8);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> UamRuns.checkMessage(message, 64, 7, expected));
        assertTrue(e.getMessage().contains("raw U-Net message 7 (64 B) differs at byte 33"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> UamRuns.checkMessage(message, 8, 8, expected)); // not message 8
    }
}
