package io.nicbridge.bench.simtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SimTestCommandTest {
    record Run(int exit, String out, String err) {
    }

    static Run run(String... args) {
        PrintStream oldOut = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            CommandLine cl = new CommandLine(new SimTestCommand());
            cl.setErr(new PrintWriter(err, true));
            int exit = cl.execute(args);
            return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString());
        } finally {
            System.setOut(oldOut);
        }
    }

    @Test
    void seedsRunAndTheVerdictIsTheExitCode() {
        Run r = run("--protocol", "gbn", "--seeds", "300");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("schedules: 300 in "), r.out());
        assertTrue(r.out().contains("schedules/s"), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("integrity check: gbn kept exactly-once, per-peer order,"
                + " progress and bounded memory over 300 fault schedules") && l.endsWith("-> PASS")), r.out());
        assertTrue(r.out().contains("checks: 1 passed, 0 failed, 0 inconclusive -> exit code 0"), r.out());
    }

    /** TCP by name: its own settings in the header, its own promise in the verdict line, replayable schedules. */
    @Test
    void tcpRunsByNameWithItsStreamPromise() {
        assertTrue(SimTestCommand.protocolSettings("tcp", io.nicbridge.protocols.dst.SimProtocols.settings("tcp"))
                .startsWith("TCP over IPv4: a byte stream each way on one connection per node, chunks of up to 1500"
                        + " bytes"));
        Run r = run("--protocol", "tcp", "--seeds", "20");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("integrity check: tcp delivered every byte exactly once"
                + " and in order, closed every connection orderly") && l.contains("over 20 fault schedules on memory")
                && l.endsWith("-> PASS")), r.out());
        Run replay = run("--protocol", "tcp", "--medium", "ethernet", "--replay", "7/3/6/drop@3:0,duplicate@5:1000");
        assertEquals(0, replay.exit(), replay.out() + replay.err());
        assertTrue(replay.out().contains("replay: 7/3/6/drop@3:0,duplicate@5:1000"), replay.out());
        assertTrue(replay.out().lines().anyMatch(l -> l.matches("  (\\d+) of \\1 bytes and orderly closes delivered, .*")),
                replay.out());
    }

    /**
     * TCP as the U-Net real-time stacks run it (an in-order segment's ACK left for the end of the step) keeps the same
     * promise, and says in its header which ACK rule it runs.
     */
    @Test
    void tcpWithTheAckAtTheEndOfTheStepKeepsItsPromise() {
        var settings = io.nicbridge.protocols.dst.SimProtocols.settings("tcp-ack-at-poll");
        assertTrue(SimTestCommand.protocolSettings("tcp-ack-at-poll", settings)
                .endsWith("no delayed ACK (an in-order segment's ACK at the end of the step)"));
        assertTrue(SimTestCommand.protocolSettings("tcp", settings).endsWith("no delayed ACK"));
        Run r = run("--protocol", "tcp-ack-at-poll", "--medium", "ethernet", "--seeds", "20");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("integrity check: tcp-ack-at-poll delivered every byte"
                + " exactly once and in order, closed every connection orderly") && l.endsWith("-> PASS")), r.out());
    }

    /** The header names what each core runs with: a window only where the protocol has one. */
    @Test
    void theHeaderPrintsEachProtocolsOwnSettings() {
        assertTrue(SimTestCommand.protocolSettings("gbn", io.nicbridge.protocols.dst.SimProtocols.settings("gbn"))
                .startsWith("go-back-N: window 4, 48-byte messages, RTO 200 us"));
        assertTrue(SimTestCommand.protocolSettings("am", io.nicbridge.protocols.dst.SimProtocols.settings("am"))
                .contains("window 4"));
        for (String p : new String[] {"pupa", "traditional", "careful"}) {
            String line = SimTestCommand.protocolSettings(p, io.nicbridge.protocols.dst.SimProtocols.settings(p));
            assertFalse(line.contains("window 4"), line);
        }
        assertTrue(SimTestCommand.protocolSettings("pupa", io.nicbridge.protocols.dst.SimProtocols.settings("pupa"))
                .contains("mbufs, RTO 200 us, ACK timer 100 us, packing delay 20 us"));
        assertTrue(SimTestCommand.protocolSettings("traditional",
                io.nicbridge.protocols.dst.SimProtocols.settings("traditional")).contains("64-byte fragments, 16 descriptors"));
        assertTrue(SimTestCommand.protocolSettings("careful", io.nicbridge.protocols.dst.SimProtocols.settings("careful"))
                .contains("R = 16 - (P - 1) as static windows of floor(R/P) frames"));
        Run r = run("--protocol", "pupa", "--seeds", "5");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().startsWith("simtest: protocol pupa (Pupa: 48-byte messages, "), r.out());
    }

    @Test
    void theCarefulProtocolRunsByNameAndCountsReportsAndTrailingLosses() {
        Run r = run("--protocol", "careful", "--seeds", "200", "--faults", "drop,duplicate,reorder,corrupt");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("ended in a broken assumption the cores reported;"), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("integrity check: careful failed nowhere silently")
                && l.endsWith("-> PASS")), r.out());
        Run fddi = run("--protocol", "careful", "--medium", "fddi", "--seeds", "20");
        assertEquals(0, fddi.exit(), fddi.out() + fddi.err());
    }

    @Test
    void theCardMediaRunTheSameCampaignAndRefuseWhatTheyCannotExpress() {
        Run eth = run("--medium", "ethernet", "--seeds", "40");
        assertEquals(0, eth.exit(), eth.out() + eth.err());
        assertTrue(eth.out().contains("medium: ethernet: emulated DEC 21140s"), eth.out());
        assertTrue(eth.out().contains("host cost table zero (built in"), eth.out());
        assertTrue(eth.out().lines().anyMatch(l -> l.contains("over 40 fault schedules on ethernet")
                && l.endsWith("-> PASS")), eth.out());
        Run fddi = run("--medium", "fddi", "--replay", "7/3/10/drop@3:0,corrupt@9:65540,slow@2:0:100000:20000");
        assertEquals(0, fddi.exit(), fddi.out() + fddi.err());
        assertTrue(fddi.out().contains("30 of 30 messages delivered"), fddi.out());
        assertTrue(fddi.out().contains("fddi: ") && fddi.out().contains(" faulted"), fddi.out());
        Run refused = run("--medium", "fddi", "--faults", "drop,reorder");
        assertEquals(2, refused.exit());
        assertTrue(refused.err().contains("--faults [REORDER] cannot be expressed on medium 'fddi'"), refused.err());
        Run replayRefused = run("--medium", "fddi", "--replay", "7/3/10/delay@4:300000");
        assertEquals(2, replayRefused.exit());
        assertTrue(replayRefused.err().contains("medium 'fddi' cannot express fault delay@4:300000"),
                replayRefused.err());
        Run unknown = run("--medium", "carrier-pigeon");
        assertEquals(2, unknown.exit());
        assertTrue(unknown.err().contains("unknown medium 'carrier-pigeon'; known: [memory, ethernet, fddi"),
                unknown.err());
    }

    @Test
    void aScheduleReplaysFromItsText() {
        Run r = run("--replay", "7/3/10/drop@3:0,duplicate@5:1000,partition@0:300000:1,slow@2:0:100000:20000");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("30 of 30 messages delivered"), r.out());
        assertTrue(r.out().contains("-> PASS"), r.out());
    }

    @Test
    void everyRunPrintsItsHostCostTable() {
        Run zero = run("--seeds", "20");
        assertEquals(0, zero.exit(), zero.out() + zero.err());
        assertTrue(zero.out().contains("host cost table zero (built in"), zero.out());
        Run measured = run("--replay", "7/3/10/drop@3:0", "--costs", "measured");
        assertEquals(0, measured.exit(), measured.out() + measured.err());
        assertTrue(measured.out().contains("host cost table measured (built-in measured.costs: made by"
                + " './nic calibrate' on "), measured.out());
        assertTrue(measured.out().lines().anyMatch(l -> l.startsWith("  node0: ") && l.contains("handler-dispatch")),
                measured.out());
        Run bad = run("--costs", "no-such-table");
        assertEquals(2, bad.exit());
        assertTrue(bad.err().contains("cost table 'no-such-table' is neither zero, measured nor a readable file"),
                bad.err());
    }

    @Test
    void badInputIsAUsageError() {
        Run r = run("--protocol", "quic");
        assertEquals(2, r.exit());
        assertTrue(r.err().startsWith("nic simtest: unknown protocol 'quic'"), r.err());
        assertTrue(r.err().contains("known: [am, careful, gbn, pupa, tcp, tcp-ack-at-poll, traditional]"), r.err());
        r = run("--faults", "drop,meteor");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("unknown fault family 'meteor'"), r.err());
        r = run("--replay", "1/2");
        assertEquals(2, r.exit());
        r = run("--seeds", "0");
        assertEquals(2, r.exit());
    }
}
