package io.nicbridge.bridge.spi;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NonReentrantInterruptHandlerTest {
    private final InterruptLine line = new InterruptLine("test-irq");
    private final List<String> trace = new ArrayList<>();
    private int depth;
    private int rounds;

    @Test
    void anEdgeRaisedByTheRoundRunsAnotherRoundInsteadOfNesting() {
        NonReentrantInterruptHandler handler = new NonReentrantInterruptHandler(() -> {
            depth++;
            rounds++;
            trace.add("round " + rounds + " at depth " + depth);
            line.lower(); // the acknowledgement
            if (rounds < 3) {
                line.raise(); // the round's own work raises the line again, as an inline engine does
            }
            depth--;
        });
        line.handler(handler);
        line.raise();
        assertEquals(List.of("round 1 at depth 1", "round 2 at depth 1", "round 3 at depth 1"), trace);
        assertEquals(3, line.assertions());
    }

    @Test
    void aRoundThatThrowsLeavesTheHandlerUsable() {
        boolean[] fail = {true};
        NonReentrantInterruptHandler handler = new NonReentrantInterruptHandler(() -> {
            rounds++;
            if (fail[0]) {
                throw new IllegalStateException("listener failed");
            }
        });
        assertThrows(IllegalStateException.class, () -> handler.onInterrupt(line));
        fail[0] = false;
        handler.onInterrupt(line);
        assertEquals(2, rounds, "the second edge ran a round: the failed one did not leave the handler 'in a round'");
    }

    @Test
    void needsARound() {
        NullPointerException e = assertThrows(NullPointerException.class, () -> new NonReentrantInterruptHandler(null));
        assertEquals("round", e.getMessage());
    }
}
