package io.nicbridge.bench.medusa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.verdict.ExitCodes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The ring tests' model self-checks fail, with exit code 1, when the model's ring rate is made wrong. */
class MedusaChecksTest {
    private static String text(ByteArrayOutputStream bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aModelOfA125MegabitRingFailsTheSlopeSelfCheck() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int exit = MedusaRingExperiments.latency(out, new int[] {2}, new int[] {1, 2000}, 1, 2, 1, 0, null, 8.0);
        assertEquals(ExitCodes.CHECK_FAILED, exit, text(bytes));
        assertTrue(text(bytes).lines().anyMatch(l -> l.startsWith("model self-check: P=2: least-squares slope 10.0000")
            && l.contains("= 8 ns/bit") && l.endsWith("-> FAIL")), text(bytes));
    }

    @Test
    void aModelOfA200MegabitRingFailsTheThroughputSelfCheck() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int exit = MedusaRingExperiments.throughput(out, new int[] {2}, new int[] {2000}, 40, 1, null, 200e6);
        assertEquals(ExitCodes.CHECK_FAILED, exit, text(bytes));
        assertTrue(text(bytes).lines().anyMatch(l -> l.startsWith("model self-check: P=2: 2000-word frames carry")
            && l.endsWith("-> FAIL")), text(bytes));
        assertTrue(text(bytes).contains("checks: 0 passed, 1 failed, 0 inconclusive -> exit code 1"), text(bytes));
    }
}
