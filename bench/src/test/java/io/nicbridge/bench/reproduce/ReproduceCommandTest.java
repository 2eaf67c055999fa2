package io.nicbridge.bench.reproduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.cli.NicCommand;
import io.nicbridge.bench.jmh.LockHolder;
import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.cost.CostTable;
import java.io.InputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
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

    /**
     * In a child JVM whose JMH lock ({@code java.io.tmpdir/jmh.lock}, as JMH computes it) this test's JVM holds, as
     * another JMH run would: every JMH experiment is "not run" with the reason and the run exits 0, not 4; {@code nic
     * calibrate} says so and exits 2 (a missing prerequisite, nothing measured).
     */
    @Test
    void jmhExperimentsAreNotRunWhileAnotherJmhRunHoldsTheLock(@TempDir Path dir) throws Exception {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        Path lock = tmp.resolve("jmh.lock");
        Path table = dir.resolve(CostTable.MEASURED_RESOURCE);
        try (InputStream in = CostTable.class.getResourceAsStream(CostTable.MEASURED_RESOURCE)) {
            Files.copy(in, table);
        }
        List<String> jmhExperiments = List.of("careful-appendix-a", "pupa-operations", "unet-am-operations");
        try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock held = channel.lock()) {
            Typed run = child(tmp, "reproduce", "--only", "careful,careful-appendix-a", "--only", "pupa,pupa-operations",
                    "--only", "unet,unet-am-operations", "--out", dir.resolve("report").toString());
            assertEquals(ExitCodes.OK, run.exit(), run.out());
            String summary = Files.readString(dir.resolve("report/summary.md"));
            for (String id : jmhExperiments) {
                String row = summary.lines().filter(l -> l.contains("`" + id + "`")).findFirst().orElseThrow();
                assertTrue(row.endsWith("| **not run** | another JMH run holds " + lock + " |  |"), row);
            }
            Typed calibrate = child(tmp, "calibrate", "--operations-only", "--quick", "--out", table.toString());
            assertEquals(ExitCodes.USAGE, calibrate.exit(), calibrate.out());
            assertTrue(calibrate.out().contains("nic calibrate: another JMH run holds " + lock + "; nothing measured"),
                    calibrate.out());
        }
    }

    /** Runs {@code nic args} in a child JVM with {@code java.io.tmpdir} at {@code tmp}. */
    private static Typed child(Path tmp, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(LockHolder.javaLauncher(), "--enable-native-access=ALL-UNNAMED",
                "-Djava.io.tmpdir=" + tmp, "-cp", System.getProperty("java.class.path"), NicCommand.class.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("nic " + String.join(" ", args) + " did not finish: " + out);
        }
        return new Typed(p.exitValue(), out);
    }
}
