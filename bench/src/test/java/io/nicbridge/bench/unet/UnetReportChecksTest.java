package io.nicbridge.bench.unet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.sim.sba200.Sba200Timing;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The sba200 reports' checks fail - and their exit codes say so - when the model or the card is made wrong. */
class UnetReportChecksTest {
    private static final int[] SIZES = {40, 44, 48, 96};

    private record Report(int exit, String text) {
    }

    private interface Body {
        int run(PrintStream out);
    }

    private static Report report(Body body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exit = body.run(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return new Report(exit, bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aModelWithTheWrongPollLatencyFailsTheModelSelfCheck() {
        Sba200Timing card = Sba200Timing.I960_25MHZ;
        // The model believes the i960 notices a doorbell 1 us later than the simulated card does.
        Sba200Timing wrong = new Sba200Timing(card.pollLatencyNanos() + 1_000, card.txSetupNanos(),
            card.dmaPicosPerByte(), card.rxCellNanos(), card.rxInlineNanos(), card.rxBufferPduNanos());
        Report r = report(out -> UnetReport.pingpong(out, SIZES, 2, 5, 10, 10, 1, card, wrong, null));
        assertEquals(ExitCodes.CHECK_FAILED, r.exit(), r.text());
        assertTrue(r.text().lines().anyMatch(l -> l.startsWith("model self-check: every simulated RTT equals the model")
            && l.endsWith("-> FAIL")), r.text());
        Report right = report(out -> UnetReport.pingpong(out, SIZES, 2, 5, 10, 10, 1, card, card, null));
        assertEquals(ExitCodes.OK, right.exit(), right.text());
    }

    @Test
    void aCardTooSlowToSaturateTheFibreAt800BytesFailsTheAnchorCheck() {
        // An i960 that needs 6 us per received cell, twice the fibre's 3.03 us cell time: receive-bound.
        Sba200Timing slow = new Sba200Timing(2_000, 2_000, 40_000, 6_000, 2_000, 5_000);
        Report r = report(out -> UnetReport.throughput(out, new int[] {40, 44, 800}, 60, 1, slow, null));
        assertEquals(ExitCodes.CHECK_FAILED, r.exit(), r.text());
        assertTrue(r.text().lines().anyMatch(l -> l.startsWith("anchor check: fibre saturated at 800 B")
            && l.endsWith("-> FAIL")), r.text());
        assertTrue(r.text().contains("-> exit code 1"), r.text());
    }
}
