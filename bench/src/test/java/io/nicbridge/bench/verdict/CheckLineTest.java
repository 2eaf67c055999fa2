package io.nicbridge.bench.verdict;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CheckLineTest {
    @Test
    void everyLineCheckLogPrintsReadsBackAsTheCheckItRecorded() {
        List<String> lines = new ArrayList<>();
        CheckLog log = new CheckLog(lines::add);
        log.check(CheckKind.MODEL_SELF_CHECK, "slope 80 ns/byte -> the wire's", true);
        log.check(CheckKind.ANCHOR_CHECK, "TR 94-14 Table 1 shape: careful faster", false);
        log.target(CheckKind.ANCHOR_CHECK, "median RTT <= 20 us", Outcome.INCONCLUSIVE);
        log.target(CheckKind.INTEGRITY_CHECK, "every frame once", Outcome.FAIL);
        log.comparison("paper 65 us vs 12 us: host software");
        log.finish(false);

        List<CheckLine> parsed = new ArrayList<>();
        lines.forEach(l -> CheckLine.parse(l).ifPresent(parsed::add));
        assertEquals(List.of(
                new CheckLine(CheckKind.MODEL_SELF_CHECK, "slope 80 ns/byte -> the wire's", Outcome.PASS),
                new CheckLine(CheckKind.ANCHOR_CHECK, "TR 94-14 Table 1 shape: careful faster", Outcome.FAIL),
                new CheckLine(CheckKind.ANCHOR_CHECK, "median RTT <= 20 us", Outcome.INCONCLUSIVE),
                new CheckLine(CheckKind.INTEGRITY_CHECK, "every frame once", Outcome.FAIL)), parsed);
        assertEquals(log.passed(), parsed.stream().filter(c -> c.outcome() == Outcome.PASS).count());
        assertEquals(log.failed(), parsed.stream().filter(c -> c.outcome() == Outcome.FAIL).count());
    }

    @Test
    void tablesTalliesAndComparisonsAreNotChecks() {
        assertEquals(Optional.empty(), CheckLine.parse("  P  words | ours"));
        assertEquals(Optional.empty(), CheckLine.parse("checks: 3 passed, 0 failed, 0 inconclusive -> exit code 0"));
        assertEquals(Optional.empty(), CheckLine.parse(CheckLog.COMPARISON_PREFIX + "x -> PASS"));
        assertEquals(Optional.empty(), CheckLine.parse("anchor check: no outcome word -> MAYBE"));
        assertTrue(CheckLine.parse("anchor check: a -> b -> PASS").isPresent(), "the last arrow ends the text");
    }
}
