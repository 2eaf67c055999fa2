package io.nicbridge.protocols.dst;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShrinkerTest {
    private static Fault drop(long frame) {
        return new Fault.FrameFault(Fault.Kind.DROP, frame, 0);
    }

    @Test
    void findsTheTwoFaultsThatTogetherFailAndTheFewestMessagesAndNodes() {
        List<Fault> faults = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            faults.add(drop(i));
        }
        Schedule big = new Schedule(1, 4, 30, faults);
        // "Fails" when frames 7 and 23 are both dropped and there are at least 5 messages per node.
        Shrinker shrinker = new Shrinker(s -> s.faults().contains(drop(7)) && s.faults().contains(drop(23))
                && s.messagesPerNode() >= 5, 1_000);
        Schedule small = shrinker.shrink(big);
        assertEquals(List.of(drop(7), drop(23)), small.faults());
        assertEquals(5, small.messagesPerNode());
        assertEquals(2, small.nodes());
        assertTrue(shrinker.runs() < 200, "runs " + shrinker.runs());
    }

    @Test
    void keepsTheInputWhenNothingSmallerFailsAndRespectsItsBudget() {
        Schedule s = new Schedule(1, 2, 1, List.of(drop(1)));
        assertEquals(s, new Shrinker(c -> c.equals(s), 100).shrink(s));
        Shrinker broke = new Shrinker(c -> true, 3);
        broke.shrink(new Schedule(1, 3, 10, List.of(drop(1), drop(2), drop(3), drop(4))));
        assertEquals(3, broke.runs());
    }

    @Test
    void dropsSlowNodeFaultsOfNodesThatAreGone() {
        Schedule s = new Schedule(1, 4, 1, List.of(new Fault.SlowNode(3, 0, 1, 1), new Fault.SlowNode(1, 0, 1, 1)));
        assertEquals(List.of(new Fault.SlowNode(1, 0, 1, 1)), s.withNodes(3).faults());
    }
}
