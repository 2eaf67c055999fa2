package io.nicbridge.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.sim.dec21140.Dec21140Timing;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

class PingPongCommandTest {
    record Run(int exit, String out, String err) {
    }

    static Run run(String... args) {
        PrintStream oldOut = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            CommandLine cl = NicCommand.commandLine();
            cl.setErr(new PrintWriter(err, true));
            int exit = cl.execute(args);
            return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString());
        } finally {
            System.setOut(oldOut);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {64, 1514})
    void virtualModeMatchesTheWireAndCardModel(int size) {
        Run r = run("tulip", "pingpong", "--mode", "virtual", "--size", Integer.toString(size),
            "--count", "200", "--warmup", "20");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("model self-check: every simulated RTT equals the model"), r.out());
        assertTrue(r.out().contains(") -> PASS"), r.out());
        assertTrue(r.out().contains("checks: 1 passed, 0 failed, 0 inconclusive -> exit code 0"), r.out());
        assertTrue(r.out().contains("TCP loopback RTT"), r.out());
        assertTrue(r.out().contains("ratio TCP / emulated"), r.out());
        // 1514-byte frames: one way = 240 + 1514 x 7.5 + (1518 + 8) x 80 + 500 + 240 + 1518 x 7.5 + 120
        if (size == 1514) {
            long oneWay = 240 + (1514 * 7500 + 999) / 1000 + 1526 * 80 + 500 + 240 + (1518 * 7500 + 999) / 1000 + 120;
            assertTrue(r.out().contains("model: RTT = 2 x (" + oneWay + " + 0) = " + 2 * oneWay + " ns"), r.out());
        }
    }

    @Test
    void aWrongModelFailsTheSelfCheckAndTheExitCodeSaysSo() {
        // The model assumes a slower PCI bus than the card it checks (300 ns descriptor fetches instead of 240): the
        // simulation no longer adds up to it.
        CommandLine cl = NicCommand.commandLine();
        ((TulipCommands.PingPong) cl.getSubcommands().get("tulip").getSubcommands().get("pingpong").getCommand())
            .modelTiming =
            new Dec21140Timing(300, 7_500, 120);
        PrintStream oldOut = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            cl.setErr(new PrintWriter(new StringWriter(), true));
            exit = cl.execute("tulip", "pingpong", "--mode", "virtual", "--count", "50", "--warmup",
                "10");
        } finally {
            System.setOut(oldOut);
        }
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(ExitCodes.CHECK_FAILED, exit, text);
        assertTrue(text.contains("model self-check: every simulated RTT equals the model"), text);
        assertTrue(text.contains(") -> FAIL"), text);
        assertTrue(text.contains("-> exit code 1"), text);
    }

    @Test
    void anUnexpectedErrorIsARunErrorWithItsStackTraceNotAFailedCheck() {
        Run r = run("fabric", "run", "topology=mesh", "k=4", "sample_period=200", "--sst",
            "/nonexistent-nicbridge-dir/model.json");
        assertEquals(ExitCodes.RUN_ERROR, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("NoSuchFileException"), r.err());
        assertTrue(r.err().contains("\tat "), "the stack trace: " + r.err());
    }

    @ParameterizedTest
    @ValueSource(strings = {"tulip pingpong", "shim pingpong", "shim echo", "shim client", "unet pingpong",
        "unet throughput", "medusa latency", "medusa throughput", "fabric"})
    void everyCommandsHelpListsTheExitCodes(String command) {
        Run r = run((command + " --help").split(" "));
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("Exit codes:"), r.out());
        assertTrue(r.out().contains("1   a check failed"), r.out());
        assertTrue(r.out().contains("3   no check failed, but a target was INCONCLUSIVE"), r.out());
    }

    @ParameterizedTest
    @ValueSource(strings = {"inline", "threaded"})
    void realTimeModesExchangeEveryFrame(String mode) {
        Run r = run("tulip", "pingpong", "--mode", mode, "--count", "300", "--warmup", "50");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("emulated 21140 RTT (wall clock, " + mode + ")"), r.out());
        assertTrue(r.out().contains("rx 350 frames"), r.out());
        assertTrue(r.out().contains("p99.9"), r.out());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--mode|warp|unknown engine mode 'warp'",
        "--size|59|--size must be 60..1514",
        "--size|1515|--size must be 60..1514",
        "--driver|sometimes|unknown --driver 'sometimes'",
        "--count|0|--count must be at least 1"})
    void badInputGivesOneClearLine(String option, String value, String message) {
        Run r = run("tulip", "pingpong", option, value);
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains(message), r.err());
        assertTrue(r.err().startsWith("nic tulip pingpong: "), r.err());
        assertTrue(!r.err().contains("\tat "), "no stack trace: " + r.err());
    }
}
