package io.nicbridge.bench.real;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bench.verdict.ExitCodes;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The runner of the real-time comparisons, with turns that record made-up samples. */
class InterleavedTrialsTest {
    /** A turn recording {@code value * (size index + 1)} nanoseconds, {@code n} times per size, and its name. */
    private static InterleavedTrials.Turn turn(String name, long value, List<String> order) {
        return h -> {
            order.add(name);
            for (int i = 0; i < h.length; i++) {
                h[i].recordValueWithCount(value * (i + 1), 10);
            }
        };
    }

    @Test
    void turnsReverseFromTrialToTrialAndEverySampleIsKept() throws Exception {
        List<String> order = new ArrayList<>();
        InterleavedTrials t = new InterleavedTrials(2, 4, 3);
        t.run(turn("a", 1000, order), turn("b", 2000, order), turn("c", 4000, order));
        assertEquals(List.of("a", "b", "c", "c", "b", "a", "a", "b", "c", "c", "b", "a"), order);
        assertEquals(3L * 2 * 4 * 10, t.samples());
        assertEquals(40, t.all(1, 0).getTotalCount());
        assertEquals(4000, t.all(1, 1).getValueAtPercentile(50), 4000 * 1e-3);
    }

    @Test
    void ratiosArePerTrialP50sAndTheTargetJudgesTheirInterval() throws Exception {
        List<String> order = new ArrayList<>();
        long[] slow = {2000};
        InterleavedTrials t = new InterleavedTrials(1, 5, 2);
        t.run(turn("fast", 1000, order), h -> {
            h[0].recordValue(slow[0]);
            slow[0] += 100; // 2000, 2100, .. 2400: every trial's ratio differs
        });
        double[] r = t.ratios(1, 0, 0);
        assertArrayEquals(new double[] {2.0, 2.1, 2.2, 2.3, 2.4}, r, 0.01);
        StringWriter text = new StringWriter();
        CheckLog checks = new CheckLog(new PrintWriter(text, true)::println);
        t.target(checks, "slow at least 1.5x fast", 1, 0, 0, 1.5, true, "unused");
        t.target(checks, "slow at least 3x fast", 1, 0, 0, 3.0, true, "unused");
        t.target(checks, "slow at least 2.2x fast", 1, 0, 0, 2.2, true, "unused");
        t.target(checks, "printed only", 1, 0, 0, 1.0, false, "the reason");
        String out = text.toString();
        assertTrue(out.contains("slow at least 1.5x fast: median 2.2") && out.contains("-> MET"), out);
        assertTrue(out.contains("-> NOT MET") && out.contains("-> INCONCLUSIVE"), out);
        assertTrue(out.contains("comparison (not a check): printed only") && out.contains("(the reason)"), out);
        assertEquals(1, checks.failed());
        assertEquals(ExitCodes.CHECK_FAILED, InterleavedTrials.finish(new PrintWriter(text), checks, "all intact",
            false));
        assertTrue(text.toString().contains("machine load: load average"), text.toString());
    }

    @Test
    void tooFewTrialsArePrintedNotJudged() throws Exception {
        InterleavedTrials t = new InterleavedTrials(1, 2, 2);
        t.run(h -> h[0].recordValue(1000), h -> h[0].recordValue(3000));
        StringWriter text = new StringWriter();
        CheckLog checks = new CheckLog(new PrintWriter(text, true)::println);
        t.target(checks, "judged if it could be", 1, 0, 0, 1.0, true, "unused");
        assertTrue(text.toString().contains("fewer than 3 trials: not judged"), text.toString());
        assertEquals(ExitCodes.OK, InterleavedTrials.finish(new PrintWriter(text), checks, "intact", false));
    }

    @Test
    void aTurnThatRecordsNothingOrAWrongTurnCountIsRefused() {
        InterleavedTrials t = new InterleavedTrials(2, 1, 2);
        IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> t.run(h -> h[0].recordValue(1), h -> {
                h[0].recordValue(1);
                h[1].recordValue(1);
            }));
        assertTrue(e.getMessage().contains("stack 0 recorded nothing for size index 1"), e.getMessage());
        IllegalArgumentException a = assertThrows(IllegalArgumentException.class, () -> t.run(h -> { }));
        assertTrue(a.getMessage().contains("one per stack (2)"), a.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new InterleavedTrials(0, 1, 1));
    }
}
