package io.nicbridge.bench.reproduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.jmh.JmhLock;
import io.nicbridge.bench.jmh.LockHolder;
import io.nicbridge.bench.verdict.CheckKind;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.spi.Availability;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReproductionTest {
    static final Figure LATENCY = Figure.shape("lat", "Figure 9: latency", "size (bytes)", "latency (us)", "us", true,
            "the paper's include host software");
    static final Figure RATE = Figure.anchor("rate", "Table 9: rate", "size (bytes)", "rate (Mb/s)", "Mb/s", false,
            0.05, "Table 9 of the paper");

    static Report.Meta meta(long seed) {
        return new Report.Meta("./nic reproduce --test", "quick", seed, "0123456789abcdef0123456789abcdef01234567",
                Report.jdk(), Report.machine(), CostTable.zero().describe(), Instant.parse("2026-01-01T00:00:00Z"));
    }

    /** A synthetic experiment with both kinds of figure and checks of every kind. */
    static Experiment synthetic(String id, Paper paper, boolean anchorPasses) {
        return new Experiment(id, paper, "a synthetic experiment", "nic none", "3 sizes", "5 sizes", 1, List.of(),
                List.of(LATENCY, RATE), run -> {
                    CheckLog log = new CheckLog(run.out()::println);
                    for (int size : new int[] {64, 256, 1024}) {
                        run.points().point("lat", "ours vs paper", size, 10 + size / 100.0, 50 + size / 10.0);
                        run.points().point("rate", "link", size, size == 1024 ? (anchorPasses ? 98 : 70) : 50,
                                size == 1024 ? 100 : Double.NaN);
                    }
                    log.check(CheckKind.MODEL_SELF_CHECK, "the model adds up", true);
                    log.check(CheckKind.ANCHOR_CHECK, "rate at 1024 B within 5 % of Table 9", anchorPasses);
                    log.comparison("latency paper 152 us vs ours 20 us: does not hold (host software)");
                    return log.finish(false);
                });
    }

    @Test
    void sameSeedSameVirtualTimeFigures(@TempDir Path dir) throws Exception {
        Experiment latency = Experiments.all().stream().filter(e -> e.id().equals("careful-latency")).findFirst()
                .orElseThrow();
        List<Report> reports = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Reproduction r = new Reproduction(meta(42), List.of(latency), true, CostTable.zero(), dir.resolve("r" + i));
            reports.add(r.run(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), false));
        }
        Result a = reports.get(0).results().get(0);
        Result b = reports.get(1).results().get(0);
        assertEquals(Result.Status.RAN, a.status(), a.log());
        assertEquals(36, a.rows().size(), "3 rings x 3 payloads x 2 protocols x with/without processing");
        assertEquals(a.rows(), b.rows(), "the same seed gives the same virtual-time points");
        assertEquals(a.checks(), b.checks());
        assertTrue(a.rows().stream().allMatch(r -> r.ours() > 0 && r.paper() > 0));
        assertEquals(Files.readString(dir.resolve("r0/points.csv")), Files.readString(dir.resolve("r1/points.csv")));
    }

    @Test
    void verdictsExitCodesAndReportFiles(@TempDir Path dir) throws Exception {
        Experiment broken = new Experiment("broken", Paper.PROJECT, "throws", "nic none", "-", "-", 1, List.of(),
                List.of(), run -> {
                    throw new IllegalStateException("deliberately broken");
                });
        Experiment undeclared = new Experiment("undeclared", Paper.PROJECT, "a point of no figure", "nic none", "-",
                "-", 1, List.of(), List.of(), run -> {
                    run.points().point("nowhere", "s", 1, 1, 1);
                    return ExitCodes.OK;
                });
        List<Experiment> list = List.of(synthetic("good", Paper.UNET, true), synthetic("bad", Paper.NIFDY, false),
                broken, undeclared);
        Report report = new Reproduction(meta(1), list, true, CostTable.zero(), dir)
                .run(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), false);
        assertTrue(report.finished());
        List<Result> r = report.results();
        assertEquals(Result.Verdict.SHAPE_REPRODUCED, r.get(0).verdict());
        assertEquals("1 of 1 anchor checks pass; 3 of 3 rows reproduce the paper; 1 of 1 self/integrity checks pass",
                r.get(0).basis());
        assertEquals(Result.Verdict.DIFFERS, r.get(1).verdict());
        assertEquals(Result.Verdict.ERROR, r.get(2).verdict());
        assertTrue(r.get(2).reason().contains("deliberately broken"), r.get(2).reason());
        assertEquals(Result.Verdict.ERROR, r.get(3).verdict());
        assertTrue(r.get(3).reason().contains("'nowhere'"), r.get(3).reason());
        assertEquals(ExitCodes.RUN_ERROR, ReproduceCommand.exitCode(report));
        assertEquals(ExitCodes.CHECK_FAILED, ReproduceCommand.exitCode(new Report(report.meta(), r.subList(0, 2),
                List.of(), true)));
        assertEquals(ExitCodes.OK, ReproduceCommand.exitCode(new Report(report.meta(), r.subList(0, 1), List.of(),
                true)));

        String explanation = Explanation.of(r.get(1));
        assertTrue(explanation.contains("0 of 1 lie within +-5 % of Table 9 of the paper"), explanation);
        assertTrue(explanation.contains("Failed anchor check: rate at 1024 B within 5 % of Table 9"), explanation);
        assertTrue(explanation.contains("Not reproduced here (printed as a comparison, not a check): latency paper"),
                explanation);

        String csv = Files.readString(dir.resolve("points.csv"));
        assertEquals(1 + 2 * 6, csv.lines().count(), csv);
        assertTrue(csv.contains("good,unet,rate,link,1024.0,98.0,100.0,Mb/s,0.98,agrees,anchor +-5% of Table 9 of the"
                + " paper"), csv);
        String html = Files.readString(dir.resolve("index.html"));
        for (String id : List.of("id=\"summary\"", "id=\"paper-unet\"", "id=\"paper-nifdy\"", "id=\"paper-project\"",
                "id=\"exp-good\"", "id=\"fig-good-lat\"", "id=\"fig-bad-rate\"")) {
            assertTrue(html.contains(id), id);
        }
        assertFalse(html.contains("id=\"paper-careful\""), "a paper with no experiment in the run has no section");
        assertTrue(Files.size(dir.resolve("plots/good-lat.svg")) > 1000);
        assertTrue(Files.size(dir.resolve("plots/good-lat.png")) > 1000);
        assertTrue(Files.readString(dir.resolve("summary.md")).contains("| NIFDY | `bad` a synthetic experiment |"
                + " **differs** |"));
    }

    @Test
    void aStoppedRunLeavesAValidPartialReport(@TempDir Path dir) throws Exception {
        AtomicReference<Reproduction> self = new AtomicReference<>();
        AtomicReference<Report> atStop = new AtomicReference<>();
        Path stopDir = dir.resolve("at-stop");
        Experiment stopsHere = new Experiment("stops-here", Paper.CAREFUL, "where Ctrl-C comes", "nic none", "-", "-",
                1, List.of(), List.of(LATENCY), run -> {
                    run.points().point("lat", "s", 1, 2, 3);
                    run.out().println("half way");
                    // what the Ctrl-C hook does while an experiment runs
                    atStop.set(self.get().snapshot(false));
                    ReportWriter.write(atStop.get(), stopDir);
                    return ExitCodes.OK;
                });
        Reproduction reproduction = new Reproduction(meta(1), List.of(synthetic("first", Paper.UNET, true), stopsHere,
                synthetic("never", Paper.PUPA, true)), true, CostTable.zero(), dir.resolve("run"));
        self.set(reproduction);
        reproduction.run(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), false);

        Report partial = atStop.get();
        assertFalse(partial.finished());
        assertEquals(List.of("first", "stops-here"), partial.results().stream().map(r -> r.experiment().id()).toList());
        Result stopped = partial.results().get(1);
        assertEquals(Result.Verdict.INTERRUPTED, stopped.verdict());
        assertEquals(1, stopped.rows().size(), "the points measured before the stop are kept");
        assertTrue(stopped.log().contains("half way"));
        assertEquals(List.of("never"), partial.pending().stream().map(Experiment::id).toList());
        String html = Files.readString(stopDir.resolve("index.html"));
        assertTrue(html.contains("Partial report"), "the page says it is partial");
        assertTrue(html.contains("id=\"exp-never\"") && html.contains("not run yet"), "the rest is listed as not run");
        assertTrue(html.trim().endsWith("</html>"), "the page is whole");
        assertTrue(Files.readString(stopDir.resolve("points.csv")).contains("stops-here,careful,lat,s,1.0,2.0,3.0"));
        assertTrue(Files.readString(dir.resolve("run/index.html")).contains("Complete run"));
    }

    @Test
    void onlyChoosesAPaperOrSomeOfItsExperiments() {
        List<Experiment> all = Experiments.all();
        assertTrue(ReproduceCommand.select(all, List.of("careful")).stream().allMatch(e -> e.paper() == Paper.CAREFUL));
        assertEquals(List.of("careful-latency", "careful-jacobi"), ReproduceCommand.select(all,
                List.of("careful,careful-jacobi,careful-latency")).stream().map(Experiment::id).toList());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ReproduceCommand.select(all, List.of("careful,unet-rtt")));
        assertTrue(e.getMessage().startsWith("--only careful,unet-rtt: no experiment 'unet-rtt' in careful; its"
                + " experiments: careful-latency, "), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ReproduceCommand.select(all, List.of("tcp")));
        assertEquals(all.size(), all.stream().map(Experiment::id).distinct().count(), "ids are unique");
    }

    @Test
    void theReadmeSectionIsRegeneratedBetweenItsMarkers(@TempDir Path dir) throws Exception {
        Report report = new Reproduction(meta(1), List.of(synthetic("good", Paper.UNET, true)), true,
                CostTable.zero(), dir).run(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                false);
        Path readme = dir.resolve("README.md");
        Files.writeString(readme, "# t\nbefore\n" + SummaryTable.BEGIN + "\nold table\n" + SummaryTable.END + "\nafter\n");
        SummaryTable.updateReadme(readme, report);
        String text = Files.readString(readme);
        assertTrue(text.startsWith("# t\nbefore\n" + SummaryTable.BEGIN + "\n| paper | experiment |"), text);
        assertTrue(text.endsWith(SummaryTable.END + "\nafter\n"), text);
        assertFalse(text.contains("old table"));
        assertTrue(text.contains("| U-Net | `good` a synthetic experiment | **shape reproduced** |"), text);
        Files.writeString(readme, "no markers\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SummaryTable.updateReadme(readme, report));
        assertTrue(e.getMessage().contains("no '" + SummaryTable.BEGIN + "'"), e.getMessage());
    }

    @Test
    void anExperimentNeedingJmhsLockIsNotRunWhileAnotherJmhRunHoldsIt(@TempDir Path dir) throws Exception {
        Path lock = dir.resolve("jmh.lock");
        AtomicBoolean ran = new AtomicBoolean();
        Experiment table = new Experiment("jmh-table", Paper.PROJECT, "a JMH table", "nic none", "-", "-", 1,
                List.of(Need.JMH_LOCK), List.of(), run -> {
                    ran.set(true);
                    return ExitCodes.OK;
                });
        Function<Need, Availability> machine = n -> n == Need.JMH_LOCK ? JmhLock.availability(lock) : n.check();
        Report report;
        try (LockHolder other = LockHolder.start(lock)) {
            report = new Reproduction(meta(1), List.of(table, synthetic("after", Paper.UNET, true)), true,
                    CostTable.zero(), dir.resolve("run"), machine).run(new PrintStream(new ByteArrayOutputStream(), true,
                    StandardCharsets.UTF_8), false);
        }
        assertFalse(ran.get(), "JMH was not started beside the other run");
        Result r = report.results().get(0);
        assertEquals(Result.Verdict.NOT_RUN, r.verdict());
        assertEquals("another JMH run holds " + lock, r.basis());
        assertEquals("Not run: another JMH run holds " + lock + ".", Explanation.of(r));
        assertEquals(Result.Verdict.SHAPE_REPRODUCED, report.results().get(1).verdict(), "the run goes on");
        assertEquals(ExitCodes.OK, ReproduceCommand.exitCode(report), "a busy lock is not a broken run");
        assertTrue(Files.readString(dir.resolve("run/summary.md")).contains("| `jmh-table` a JMH table | **not run** |"
                + " another JMH run holds " + lock + " |"));

        ran.set(false);
        Report free = new Reproduction(meta(1), List.of(table), true, CostTable.zero(), dir.resolve("free"), machine)
                .run(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), false);
        assertTrue(ran.get(), "runs once the other run has let the lock go");
        assertEquals(Result.Status.RAN, free.results().get(0).status());
    }

    @Test
    void anExperimentThatBreaksBecauseANeedWentWhileItRanIsNotRunNotAnError(@TempDir Path dir) throws Exception {
        // another JMH run takes the lock between the look and JMH's own attempt: the command then fails on it
        AtomicBoolean taken = new AtomicBoolean();
        Experiment table = new Experiment("jmh-table", Paper.PROJECT, "a JMH table", "nic none", "-", "-", 1,
                List.of(Need.JMH_LOCK), List.of(), run -> {
                    taken.set(true);
                    throw new IllegalStateException("nic calibrate exited with 2 (see its log)");
                });
        Experiment broken = new Experiment("broken", Paper.PROJECT, "breaks on its own", "nic none", "-", "-", 1,
                List.of(Need.JMH_LOCK), List.of(), run -> {
                    throw new IllegalStateException("deliberately broken");
                });
        Function<Need, Availability> machine = n -> n == Need.JMH_LOCK && taken.get()
                ? Availability.unavailable("another JMH run holds /somewhere/jmh.lock") : Availability.ok();
        Report report = new Reproduction(meta(1), List.of(broken, table), true, CostTable.zero(), dir, machine)
                .run(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), false);
        assertEquals(Result.Verdict.ERROR, report.results().get(0).verdict(), "its needs still met: a real error");
        Result r = report.results().get(1);
        assertEquals(Result.Verdict.NOT_RUN, r.verdict());
        assertEquals("another JMH run holds /somewhere/jmh.lock", r.reason());
        assertTrue(r.log().contains("reproduce: not run after all: another JMH run holds /somewhere/jmh.lock"),
                r.log());
        assertTrue(r.log().contains("nic calibrate exited with 2"), "the error stays in its log");
        assertEquals(ExitCodes.OK, ReproduceCommand.exitCode(new Report(report.meta(), report.results().subList(1, 2),
                List.of(), true)));
    }

    @Test
    void anExperimentWithoutAPaperFigureSaysWhyInTheSummaryAndTheParagraph(@TempDir Path dir) throws Exception {
        Experiment bare = new Experiment("bare", Paper.NIFDY, "figures only", "nic none", "-", "-", 1, List.of(),
                List.of(), run -> {
                    CheckLog log = new CheckLog(run.out()::println);
                    log.check(CheckKind.MODEL_SELF_CHECK, "the model adds up", true);
                    return log.finish(false);
                }).withoutPaperFigure("its Figure 9 is a bar chart without values");
        Report report = new Reproduction(meta(1), List.of(bare), true, CostTable.zero(), dir)
                .run(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), false);
        Result r = report.results().get(0);
        assertEquals(Result.Verdict.NO_ANCHOR, r.verdict());
        assertEquals("1 of 1 self/integrity checks pass; no figure in the paper to compare: its Figure 9 is a bar chart"
                + " without values", r.basis());
        assertTrue(Explanation.of(r).contains("The paper gives no figure to set beside this run's: its Figure 9 is a"
                + " bar chart without values."), Explanation.of(r));
        assertThrows(IllegalArgumentException.class, () -> bare.withoutPaperFigure(" "));
        assertThrows(IllegalArgumentException.class, () -> synthetic("s", Paper.UNET, true).withoutPaperFigure("x"),
                "an experiment with figures of the paper's has one to compare");
    }

    @Test
    void aLogYPlotShowsValuesOrdersOfMagnitudeApartAndLeavesOutZeros(@TempDir Path dir) throws Exception {
        Figure era = Figure.shape("era", "Table 9: another era", "size", "time (ns)", "ns", false,
                "a 1994 CPU against this one").withLogY();
        assertTrue(era.logY() && !era.isAnchor());
        Experiment e = new Experiment("era", Paper.CAREFUL, "orders apart", "nic none", "-", "-", 1, List.of(),
                List.of(era), run -> {
                    run.points().point("era", "s", 1, 0, 140);
                    run.points().point("era", "s", 2, 9.7, 2180);
                    run.points().point("era", "s", 3, 5.2, 480);
                    return ExitCodes.OK;
                });
        Report report = new Reproduction(meta(1), List.of(e), true, CostTable.zero(), dir)
                .run(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), false);
        assertEquals(3, report.results().get(0).rows().size(), "the zero stays in the table");
        String svg = Files.readString(dir.resolve("plots/era-era.svg"));
        assertTrue(svg.contains("<svg"), "drawn on a log axis despite the zero");
        assertTrue(Files.readString(dir.resolve("index.html")).contains("id=\"fig-era-era\""));
    }
}
