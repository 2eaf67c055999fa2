package io.nicbridge.bench.reproduce;

import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.cost.CostTable;
import java.io.Console;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nic reproduce}: the project's main job. Runs every experiment of the five papers that nicbridge implements
 * ({@link Experiments}) in this JVM and writes one report: a self-contained HTML page with our values beside the
 * papers', a verdict per row and per experiment and the plots, plus the CSV of every point.
 */
@Command(name = "reproduce", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Re-runs every implemented experiment of the five papers and writes one report (HTML page,"
            + " CSV of every point, SVG/PNG plots): our values beside the papers', a verdict per row and per"
            + " experiment, and why they differ. Needs no privileges; what needs root or a missing tool is listed as"
            + " not run, with the reason.",
            "Exit code: 0 when every check of every experiment passed, 1 when one failed (an experiment differs"
            + " from its paper in a check, or a self-check failed), 3 when one was inconclusive, 4 when an"
            + " experiment broke; the report is written either way."})
public final class ReproduceCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @ArgGroup(exclusive = true)
    Size size = new Size();

    static final class Size {
        @Option(names = "--quick", description = "Reduced sizes and repetitions, stated in the report (the default;"
                + " under 5 minutes on a 2-core machine).")
        boolean quick;

        @Option(names = "--full", description = "The papers' sizes; may take long.")
        boolean full;
    }

    @Option(names = "--only", paramLabel = "PAPER[,EXPERIMENT...]", description = "Run only this paper's experiments"
            + " (unet, pupa, careful, nifdy, idempotent, project), or only the named ones of it; repeatable.")
    List<String> only = new ArrayList<>();

    @Option(names = "--out", defaultValue = "target/reproduce", paramLabel = "DIR",
            description = "Where the report goes (default: ${DEFAULT-VALUE}): index.html, points.csv, checks.csv,"
                + " summary.md, plots/.")
    Path out;

    @Option(names = "--seed", defaultValue = "1", description = "The seed every experiment gets (default:"
            + " ${DEFAULT-VALUE}); the same seed gives the same virtual-time figures.")
    long seed;

    @Option(names = "--costs", defaultValue = "zero", paramLabel = "zero|measured|FILE", description = "Host cost table"
            + " for the experiments that charge host work (default: ${DEFAULT-VALUE}: wire and card time only).")
    String costs;

    @Option(names = "--readme", paramLabel = "FILE", description = "Also regenerate FILE's summary section, between"
            + " the '" + SummaryTable.BEGIN + "' and '" + SummaryTable.END + "' lines.")
    Path readme;

    @Option(names = "--list", description = "List the experiments and exit.")
    boolean list;

    @Override
    public Integer call() throws Exception {
        PrintStream terminal = System.err;
        List<Experiment> chosen = select(Experiments.all(), only);
        if (list) {
            for (Experiment e : chosen) {
                spec.commandLine().getOut().printf(Locale.ROOT, "%-20s %-10s %s%n", e.id(), e.paper().key(), e.title());
            }
            spec.commandLine().getOut().flush();
            return ExitCodes.OK;
        }
        CostTable table = CostTable.named(costs);
        boolean quick = !size.full;
        Path root = Path.of("").toAbsolutePath();
        Report.Meta meta = new Report.Meta(commandLine(), quick ? "quick" : "full", seed, Report.gitCommit(root),
                Report.jdk(), Report.machine(), table.describe(), Instant.now());
        Reproduction reproduction = new Reproduction(meta, chosen, quick, table, out.toAbsolutePath());
        Thread hook = new Thread(() -> {
            ReportWriter.writeUnchecked(reproduction.snapshot(false), reproduction.out());
            terminal.println("\nreproduce: stopped; partial report in " + reproduction.out().resolve("index.html"));
        }, "reproduce-partial-report");
        Runtime.getRuntime().addShutdownHook(hook);
        Report report;
        try {
            terminal.printf(Locale.ROOT, "reproduce: %d experiments, %s sizes, seed %d; report in %s%n", chosen.size(),
                    meta.mode(), seed, out.resolve("index.html"));
            Console console = System.console();
            report = reproduction.run(terminal, console != null && console.isTerminal());
        } finally {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        if (readme != null) {
            SummaryTable.updateReadme(readme, report);
        }
        PrintStream o = System.out;
        o.print(SummaryTable.markdown(report));
        o.println("report: " + out.resolve("index.html"));
        int code = exitCode(report);
        o.println("reproduce: exit code " + code);
        return code;
    }

    /** @return 4 if an experiment broke, else 1 if a check failed, else 3 if one was inconclusive, else 0 */
    static int exitCode(Report report) {
        boolean failed = false;
        boolean inconclusive = false;
        for (Result r : report.results()) {
            if (r.status() == Result.Status.ERROR) {
                return ExitCodes.RUN_ERROR;
            }
            failed |= r.exitCode() == ExitCodes.CHECK_FAILED;
            inconclusive |= r.exitCode() == ExitCodes.INCONCLUSIVE;
        }
        return failed ? ExitCodes.CHECK_FAILED : inconclusive ? ExitCodes.INCONCLUSIVE : ExitCodes.OK;
    }

    /**
     * @param only each entry {@code PAPER} or {@code PAPER,ID,ID...}
     * @return the experiments chosen, in registry order
     * @throws IllegalArgumentException for an unknown paper or an id not of that paper
     */
    static List<Experiment> select(List<Experiment> all, List<String> only) {
        if (only.isEmpty()) {
            return all;
        }
        Set<Experiment> chosen = new LinkedHashSet<>();
        for (String entry : only) {
            String[] words = entry.split(",");
            Paper paper = Paper.of(words[0]);
            List<Experiment> of = all.stream().filter(e -> e.paper() == paper).toList();
            if (words.length == 1) {
                chosen.addAll(of);
                continue;
            }
            for (int i = 1; i < words.length; i++) {
                String id = words[i].trim();
                Experiment e = of.stream().filter(x -> x.id().equals(id)).findFirst().orElseThrow(() ->
                        new IllegalArgumentException("--only " + entry + ": no experiment '" + id + "' in "
                                + paper.key() + "; its experiments: " + String.join(", ",
                                of.stream().map(Experiment::id).toList())));
                chosen.add(e);
            }
        }
        return all.stream().filter(chosen::contains).toList();
    }

    private String commandLine() {
        // the root's parse result holds the whole line, the subcommand's name included
        return "./nic " + String.join(" ", spec.root().commandLine().getParseResult().originalArgs());
    }
}
