package io.nicbridge.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class PupaAppsCommandTest {
    private static final Pattern TALLY = Pattern.compile("checks: (\\d+) passed, (\\d+) failed, (\\d+) inconclusive"
            + " -> exit code (\\d+)");
    private static final Pattern BY_CAUSE = Pattern.compile("ACK-only packets by cause: (\\d+) answer ACK requests"
            + " \\(sender-controlled\\), (\\d+) by the 10 ms ACK timer, (-?\\d+) other");

    @Test
    void quickRunChecksEveryAnswerAgainstTheOneNodeProgramAndTheExitCodeBacksTheVerdict() {
        PingPongCommandTest.Run r = PingPongCommandTest.run("pupa", "apps", "--quick", "--costs", "zero");
        String out = r.out();
        for (String app : new String[] {"LES", "LRS", "SRS", "GEL"}) {
            for (String pool : new String[] {"64K", "48K"}) {
                assertTrue(Pattern.compile("integrity check: " + app + " " + pool + ": .*(bit for bit).* -> PASS")
                        .matcher(out).find(), app + " " + pool + " answer equals the one-node program's: " + out);
                assertTrue(out.contains("integrity check: " + app + " " + pool + ": every FIFO and pool empty and"
                        + " every message acknowledged at the end -> PASS"), out);
            }
            assertTrue(out.contains(app + "                         ours 64K  ours 48K  paper 64K  paper 48K"),
                    out);
        }
        assertTrue(out.contains(" 7. Messages sent"), out);
        assertTrue(out.contains("14. Message in mbuf"), out);
        assertTrue(out.contains("problem scale 0.1 (reduced)"), "the reduction is stated: " + out);
        assertTrue(out.contains("anchor check: Table 3 shape: overflow count zero in every run"), out);
        assertTrue(out.contains("model self-check: LES 64K: the 0 receptions Pupa missed are the cards' losses"), out);
        assertFalse(out.lines().anyMatch(l -> l.startsWith("model self-check") && l.endsWith("FAIL")), out);
        // ACK-only packets by cause: the two counted causes never exceed the total (the rest is NACKs, credit
        // updates, ACK requests and broadcast ACKs), and each program's share is judged by the cause it has
        Matcher cause = BY_CAUSE.matcher(out);
        int causes = 0;
        while (cause.find()) {
            causes++;
            assertTrue(Long.parseLong(cause.group(3)) >= 0, "requested + timer ACKs within the total: "
                    + cause.group());
        }
        assertEquals(8, causes, "a breakdown per program and pool: " + out);
        for (String app : new String[] {"LES", "LRS", "SRS", "GEL"}) {
            boolean judged = out.contains("anchor check: Table 3 shape, " + app + " 64K: the send side near overflow");
            boolean timer = out.contains("model self-check: Table 3 mechanism, " + app + " 64K: the send side never");
            assertTrue(judged != timer, "one share check per program, by its cause: " + out);
        }
        Matcher m = TALLY.matcher(out);
        assertTrue(m.find(), out);
        long failLines = out.lines().filter(l -> l.endsWith("-> FAIL")).count();
        assertEquals(failLines, Long.parseLong(m.group(2)), "the tally counts the FAIL lines");
        assertEquals(failLines > 0 ? 1 : 0, r.exit(), "the exit code backs the verdict");
        assertEquals(r.exit(), Integer.parseInt(m.group(4)));
    }

    @Test
    void multicastsShowAsMoreMessagesReceivedThanSent() {
        PingPongCommandTest.Run r = PingPongCommandTest.run("pupa", "apps", "--quick", "--costs", "zero", "--app",
                "GEL", "--pools", "64");
        Matcher sent = Pattern.compile(" 7\\. Messages sent +(\\d+)").matcher(r.out());
        Matcher received = Pattern.compile(" 9\\. Messages received +(\\d+)").matcher(r.out());
        assertTrue(sent.find() && received.find(), r.out());
        assertEquals(9 * Long.parseLong(sent.group(1)), Long.parseLong(received.group(1)),
                "every GEL message is multicast to the 9 others, counted once sent and 9 times received");
        assertTrue(r.out().contains("(the 64K-vs-48K shape checks need both pools)"), r.out());
    }

    @Test
    void aTableWithoutPupasOperationsIsRefusedWithItsOwnMessage() {
        boolean priced = CostTable.measured().operations().keySet().stream().anyMatch(k -> k.startsWith("pupa."));
        PingPongCommandTest.Run r = PingPongCommandTest.run("pupa", "apps", "--quick", "--app", "GEL", "--pools",
                "64");
        if (!priced) {
            assertEquals(4, r.exit(), r.out() + r.err());
            assertTrue(r.err().contains("has no price for operation 'pupa."), r.err());
        } else {
            assertTrue(r.out().contains("host costs: host cost table measured"), r.out());
        }
    }

    @Test
    void badInputIsOneLineAndExitTwo() {
        PingPongCommandTest.Run r = PingPongCommandTest.run("pupa", "apps", "--app", "FFT");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("nic pupa apps: --app: one of [LES, LRS, SRS, GEL] wanted, got FFT"), r.err());
        r = PingPongCommandTest.run("pupa", "apps", "--pools", "64,1");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("--pools: sizes in KB, 2..1024, got 1"), r.err());
        r = PingPongCommandTest.run("pupa", "apps", "--scale", "0");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("--scale must be in (0, 4]"), r.err());
    }
}
