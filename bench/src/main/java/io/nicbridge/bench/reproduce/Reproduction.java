package io.nicbridge.bench.reproduce;

import io.nicbridge.bench.verdict.CheckLine;
import io.nicbridge.bench.verdict.PaperPoints;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.spi.Availability;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Runs a list of experiments one after the other in this JVM, each with its output captured (standard output and
 * error are redirected to the capture while it runs: the experiments' commands print to them), its points collected
 * and its checks read back from its output, and writes the report after each one. {@link #snapshot} gives the state
 * at any moment (the Ctrl-C hook writes it), so a stopped run leaves a valid partial report.
 */
public final class Reproduction {
    private final Report.Meta meta;
    private final List<Experiment> experiments;
    private final boolean quick;
    private final CostTable costs;
    private final Path out;
    private final Function<Need, Availability> machine;
    private final List<Result> results = Collections.synchronizedList(new ArrayList<>());
    private volatile Running running;

    /** The experiment running now, for the snapshot. */
    private record Running(Experiment experiment, long startNanos, ByteArrayOutputStream log, List<Row.Point> points) {
    }

    /**
     * @param meta        what the run runs with (recorded in the report)
     * @param experiments what to run, in order
     * @param quick       reduced sizes
     * @param costs       the host cost table experiments that take one are charged from
     * @param out         the report's directory
     */
    public Reproduction(Report.Meta meta, List<Experiment> experiments, boolean quick, CostTable costs, Path out) {
        this(meta, experiments, quick, costs, out, Need::check);
    }

    /**
     * As above, with what the machine offers given by {@code machine} instead of {@link Need#check()} (for tests:
     * a JMH lock elsewhere than JMH's own).
     */
    Reproduction(Report.Meta meta, List<Experiment> experiments, boolean quick, CostTable costs, Path out,
                 Function<Need, Availability> machine) {
        this.machine = Objects.requireNonNull(machine, "machine");
        this.meta = Objects.requireNonNull(meta, "meta");
        this.experiments = List.copyOf(experiments);
        this.quick = quick;
        this.costs = Objects.requireNonNull(costs, "costs");
        this.out = Objects.requireNonNull(out, "out");
    }

    /**
     * Runs every experiment, writing the report after each, and returns the final report.
     *
     * @param terminal where progress goes (not redirected)
     * @param tty      whether {@code terminal} is a terminal (redrawn progress bars) or not (plain lines)
     */
    public Report run(PrintStream terminal, boolean tty) throws IOException {
        double total = experiments.stream().mapToDouble(Experiment::estimateSeconds).sum();
        ReportWriter.write(snapshot(false), out);
        try (ProgressDisplay progress = new ProgressDisplay(terminal, tty, total, experiments.size())) {
            for (int i = 0; i < experiments.size(); i++) {
                Experiment e = experiments.get(i);
                progress.start(i, e);
                Result r = runOne(e);
                results.add(r);
                progress.end(r);
                ReportWriter.write(snapshot(false), out);
            }
        }
        Report last = snapshot(true);
        ReportWriter.write(last, out);
        return last;
    }

    /**
     * @param finished whether the run completed
     * @return the report as of now: the experiments done, the one running marked {@link Result.Status#INTERRUPTED}
     *         with what it printed and measured so far (when not finished), the rest pending
     */
    public Report snapshot(boolean finished) {
        List<Result> done;
        synchronized (results) {
            done = new ArrayList<>(results);
        }
        Running now = running;
        List<Experiment> pending = new ArrayList<>(experiments.subList(done.size(), experiments.size()));
        if (!finished && now != null && !pending.isEmpty() && pending.get(0) == now.experiment()) {
            pending.remove(0);
            List<Row.Point> pts;
            synchronized (now.points()) {
                pts = new ArrayList<>(now.points());
            }
            String log = logOf(now.log());
            done.add(new Result(now.experiment(), Result.Status.INTERRUPTED, "stopped", -1, Row.judge(pts),
                    checks(log), log, Duration.ofNanos(System.nanoTime() - now.startNanos())));
        }
        return new Report(meta, done, pending, finished);
    }

    /** @return the report directory */
    public Path out() {
        return out;
    }

    private Result runOne(Experiment e) throws IOException {
        long start = System.nanoTime();
        String unmet = unmetNeed(e);
        if (unmet != null) {
            return new Result(e, Result.Status.NOT_RUN, unmet, -1, List.of(), List.of(), "", Duration.ZERO);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream capture = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        List<Row.Point> points = Collections.synchronizedList(new ArrayList<>());
        PaperPoints sink = (figure, series, x, ours, paper) -> {
            Figure f = e.figure(figure);
            if (f == null) {
                throw new IllegalStateException(e.id() + " handed a point of figure '" + figure + "', which its entry"
                        + " in Experiments does not declare");
            }
            points.add(new Row.Point(f, series, x, ours, paper));
        };
        Path dir = out.resolve("runs").resolve(e.id());
        Files.createDirectories(dir);
        running = new Running(e, start, bytes, points);
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        Result.Status status = Result.Status.RAN;
        String reason = "";
        int code = -1;
        System.setOut(capture);
        System.setErr(capture);
        try {
            code = e.body().run(new Run(capture, meta.seed(), quick, costs, sink, dir));
        } catch (Exception | StackOverflowError | AssertionError ex) {
            status = Result.Status.ERROR;
            reason = ex.toString();
            StringWriter trace = new StringWriter();
            ex.printStackTrace(new PrintWriter(trace));
            capture.println(trace);
            String gone = unmetNeed(e);
            if (gone != null) {
                status = Result.Status.NOT_RUN;
                reason = gone;
                capture.println("reproduce: not run after all: " + gone + " (the error above is its consequence)");
            }
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
            capture.flush();
        }
        List<Row.Point> pts;
        synchronized (points) {
            pts = new ArrayList<>(points);
        }
        String log = logOf(bytes);
        Result r = new Result(e, status, reason, code, Row.judge(pts), checks(log), log,
                Duration.ofNanos(System.nanoTime() - start));
        running = null;
        return r;
    }

    /** @return why the machine does not meet one of {@code e}'s needs now, or null when it meets them all */
    private String unmetNeed(Experiment e) {
        for (Need n : e.needs()) {
            Availability a = machine.apply(n);
            if (!a.available()) {
                return n.unmet(a);
            }
        }
        return null;
    }

    private static String logOf(ByteArrayOutputStream bytes) {
        synchronized (bytes) {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }

    private static List<CheckLine> checks(String log) {
        List<CheckLine> checks = new ArrayList<>();
        log.lines().forEach(l -> CheckLine.parse(l).ifPresent(checks::add));
        return checks;
    }
}
