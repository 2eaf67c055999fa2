package io.nicbridge.bench.cli.fabric;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.cli.NicCommand;
import io.nicbridge.sim.traffic.LoadResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class FabricCommandTest {
    private static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    @TempDir
    Path dir;

    private record Run(int exit, String out, String err) {
    }

    private static Run nic(String... args) {
        PrintStream oldOut = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            CommandLine cl = new CommandLine(new NicCommand());
            cl.setErr(new PrintWriter(err, true));
            int exit = cl.execute(args);
            return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString());
        } finally {
            System.setOut(oldOut);
        }
    }

    @Test
    void runPrintsATableFromAConfigFileWithOverrides() throws Exception {
        Path cfg = dir.resolve("small.cfg");
        Files.writeString(cfg, "// tiny mesh\ntopology = mesh; k = 4; n = 2;\ninjection_rate = 0.5;\n"
                + "sample_period = 300;\n");
        Run r = nic("fabric", "run", "-c", cfg.toString(), "-s", "injection_rate=0.1", "seed=3");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("4x4 mesh"), r.out());
        assertTrue(r.out().contains("0.1000"), "override applied: " + r.out());
        assertTrue(r.out().contains("acc.min"), r.out());
    }

    @Test
    void badConfigKeysFailWithTheReason() throws Exception {
        Run r = nic("fabric", "run", "-s", "topolgy=mesh");
        assertNotEquals(0, r.exit());
        assertTrue(r.err().contains("topolgy"), r.err());
    }

    @Test
    void traceWorkloadRunsAMicroBenchmark() {
        Run r = nic("fabric", "run", "topology=mesh", "k=4", "workload=trace", "trace_program=reverse",
                "trace_size=64", "trace_nodes=16");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("reverse on 16 nodes: "), r.out());
        assertTrue(r.out().contains("model self-check: the reverse trace completed within 100000000 cycles -> PASS"),
                r.out());
        assertTrue(r.out().contains("model self-check: the reverse program's result is correct -> PASS"), r.out());
    }

    @Test
    void aTraceThatCannotFinishInItsCycleBudgetFailsWithExitCodeOne() {
        Run r = nic("fabric", "run", "topology=mesh", "k=4", "workload=trace", "trace_program=reverse",
                "trace_size=64", "trace_nodes=16", "cycles=50");
        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("model self-check: the reverse trace completed within 50 cycles -> FAIL"),
                r.out());
        assertTrue(r.out().contains("-> exit code 1"), r.out());
    }

    @Test
    void sweepWritesPngPlotsAndCsvAndFindsSaturation() throws Exception {
        Path prefix = dir.resolve("plots/small");
        Path csv = dir.resolve("small.csv");
        Run r = nic("fabric", "sweep", "topology=mesh", "k=4", "sample_period=300", "sweep_loads={0.1, 0.4, 0.9}",
                "sweep_search_step=0.2", "sweep_min_step=0.05", "--plot", prefix.toString(), "--csv", csv.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("saturation throughput"), r.out());
        for (String suffix : new String[] {"-latency.png", "-throughput.png"}) {
            byte[] png = Files.readAllBytes(Path.of(prefix + suffix));
            assertArrayEquals(PNG_MAGIC, Arrays.copyOf(png, 8), suffix + " is a PNG");
            assertTrue(png.length > 1000);
        }
        List<String> lines = Files.readAllLines(csv);
        assertTrue(lines.get(0).startsWith("name,offered"));
        assertTrue(lines.stream().filter(l -> l.endsWith(",curve")).count() == 3);
    }

    @Test
    void plotsAreDrawnFromResults() throws Exception {
        LoadResult a = new LoadResult(0.1, 0.1, 0.1, 0.09, 20, 18, 60, 6.2, 1000, 0, true, "stable", 5000, 1, 1);
        LoadResult b = new LoadResult(0.3, 0.3, 0.25, 0.2, 400, 300, 900, 6.2, 1000, 50, false, "x", 5000, 1, 1);
        Path p = FabricPlots.drops(List.of(new FabricPlots.Series("s", List.of(a, b))), dir.resolve("d.png"));
        assertArrayEquals(PNG_MAGIC, Arrays.copyOf(Files.readAllBytes(p), 8));
    }

    @Test
    void aPointWithNoCompletedMeasuredPacketPrintsNaNotZero() {
        LoadResult none = new LoadResult(1.0, 1.0, 0.2, 0.16, 0, 0, 0, 0, 0, 0, false, "latency 1139 > threshold",
                5000, 1, 1);
        LoadResult some = new LoadResult(0.2, 0.2, 0.2, 0.18, 43.6, 40.2, 203, 8.99, 1000, 0, true, "stable", 5000,
                1, 1);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        Tables.row(out, none);
        Tables.row(out, some);
        String[] rows = bytes.toString(StandardCharsets.UTF_8).split("\n");
        assertTrue(rows[0].matches("\\s+1\\.0000\\s+1\\.0000\\s+0\\.2000\\s+0\\.1600\\s+n/a\\s+n/a\\s+n/a\\s+n/a\\s.*"),
                rows[0]);
        assertTrue(rows[1].contains("43.6") && rows[1].contains("40.2") && rows[1].contains(" 203 "), rows[1]);
    }
}
