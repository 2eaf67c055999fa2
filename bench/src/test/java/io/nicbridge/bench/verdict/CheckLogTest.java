package io.nicbridge.bench.verdict;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CheckLogTest {
    @Test
    void everyCheckIsNamedByItsKindAndFeedsTheExitCode() {
        List<String> lines = new ArrayList<>();
        CheckLog log = new CheckLog(lines::add);
        log.check(CheckKind.MODEL_SELF_CHECK, "RTT equals the model", true);
        log.comparison("paper 65 us vs ours 28 us: host software not simulated");
        assertEquals(ExitCodes.OK, log.exitCode(false));
        log.target(CheckKind.ANCHOR_CHECK, "RTT 64 B", Outcome.INCONCLUSIVE);
        assertEquals(ExitCodes.INCONCLUSIVE, log.exitCode(false));
        assertEquals(ExitCodes.OK, log.exitCode(true));
        assertFalse(log.check(CheckKind.ANCHOR_CHECK, "saturated at 800 B", false));
        assertEquals(ExitCodes.CHECK_FAILED, log.exitCode(true));
        assertEquals(List.of("model self-check: RTT equals the model -> PASS",
            "comparison (not a check): paper 65 us vs ours 28 us: host software not simulated",
            "anchor check: RTT 64 B -> INCONCLUSIVE",
            "anchor check: saturated at 800 B -> FAIL"), lines);
        assertEquals(ExitCodes.CHECK_FAILED, log.finish(false));
        assertEquals("checks: 1 passed, 1 failed, 1 inconclusive -> exit code 1", lines.getLast());
    }
}
