package io.nicbridge.bench.reproduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.cli.NicCommand;
import io.nicbridge.bench.verdict.ExitCodes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code nic reproduce} as a user types it. */
class ReproduceCommandTest {
    record Typed(int exit, String out) {
    }

    static Typed nic(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream both = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        try {
            System.setOut(both);
            System.setErr(both);
            CommandLine cl = NicCommand.commandLine();
            cl.setOut(new PrintWriter(both, true));
            cl.setErr(new PrintWriter(both, true));
            return new Typed(cl.execute(args), bytes.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }

    @Test
    void listNamesEveryExperiment() {
        Typed t = nic("reproduce", "--list");
        assertEquals(ExitCodes.OK, t.exit(), t.out());
        assertEquals(Experiments.all().size(), t.out().lines().count(), t.out());
        for (Experiment e : Experiments.all()) {
            assertTrue(t.out().contains(e.id()), e.id());
        }
    }

    @Test
    void badInputIsOneLineAndExitTwo() {
        Typed paper = nic("reproduce", "--only", "tcp", "--list");
        assertEquals(ExitCodes.USAGE, paper.exit(), paper.out());
        assertTrue(paper.out().startsWith("nic reproduce: unknown paper 'tcp'; known: unet, pupa, careful, nifdy,"
                + " idempotent, project"), paper.out());
        Typed both = nic("reproduce", "--quick", "--full", "--list");
        assertEquals(ExitCodes.USAGE, both.exit(), both.out());
        assertTrue(both.out().contains("mutually exclusive"), both.out());
    }

    @Test
    void aRunThroughTheCommandLineWritesTheReportAndSaysWhatItFound(@TempDir Path dir) throws Exception {
        Typed t = nic("reproduce", "--only", "project,simtest-gbn", "--seed", "5", "--out", dir.toString());
        assertEquals(ExitCodes.OK, t.exit(), t.out());
        assertTrue(t.out().contains("reproduce: [1/1] simtest-gbn: no anchor (self-checks pass)"), t.out());
        assertTrue(t.out().contains("reproduce: exit code 0"), t.out());
        String summary = Files.readString(dir.resolve("summary.md"));
        assertTrue(summary.contains("`./nic reproduce --only project,simtest-gbn --seed 5 --out " + dir + "`"),
                summary);
        assertTrue(Files.readString(dir.resolve("checks.csv")).contains("simtest-gbn,project,integrity check,PASS"),
                Files.readString(dir.resolve("checks.csv")));
        assertTrue(Files.readString(dir.resolve("index.html")).contains("seed 5"));
    }
}
