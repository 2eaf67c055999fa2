package io.nicbridge.bench.reproduce;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The report's summary table as Markdown, and the README's headline section regenerated from it between two marker
 * lines, so the README never carries a hand-copied figure.
 */
public final class SummaryTable {
    /** The line that opens the generated section in the README. */
    public static final String BEGIN = "<!-- nic reproduce: summary begin (generated, do not edit) -->";
    /** The line that closes it. */
    public static final String END = "<!-- nic reproduce: summary end -->";

    private SummaryTable() {
    }

    /** @return the summary table in Markdown, with a line saying which run it comes from */
    public static String markdown(Report report) {
        Report.Meta m = report.meta();
        StringBuilder b = new StringBuilder();
        b.append("| paper | experiment | verdict | on what | time |\n|---|---|---|---|---|\n");
        for (Result r : report.results()) {
            b.append("| ").append(cell(r.experiment().paper().title())).append(" | `").append(r.experiment().id())
                    .append("` ").append(cell(r.experiment().title())).append(" | **").append(r.verdict().word())
                    .append("** | ").append(cell(r.basis())).append(" | ")
                    .append(r.status() == Result.Status.NOT_RUN ? "" : r.seconds()).append(" |\n");
        }
        for (Experiment e : report.pending()) {
            b.append("| ").append(cell(e.paper().title())).append(" | `").append(e.id()).append("` ")
                    .append(cell(e.title())).append(" | not run yet | the run was stopped before it |  |\n");
        }
        long total = report.results().stream().mapToLong(r -> r.wall().toMillis()).sum();
        b.append(String.format(java.util.Locale.ROOT, "%nFrom `%s` (%s sizes, seed %d, commit %s; %s; %s), %.0f s of"
                + " experiments%s.%n", m.command(), m.mode(), m.seed(), shortCommit(m.commit()), m.jdk(), m.machine(),
                total / 1000.0, report.finished() ? "" : ", partial: the run was stopped"));
        return b.toString();
    }

    /**
     * Replaces what lies between {@link #BEGIN} and {@link #END} in {@code readme} with the summary table.
     *
     * @throws IllegalArgumentException when the file lacks the two markers in that order
     */
    public static void updateReadme(Path readme, Report report) throws IOException {
        String text = Files.readString(readme, StandardCharsets.UTF_8);
        int begin = text.indexOf(BEGIN);
        int end = text.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("--readme " + readme + ": no '" + BEGIN + "' ... '" + END
                    + "' section to regenerate");
        }
        String updated = text.substring(0, begin + BEGIN.length()) + "\n" + markdown(report) + text.substring(end);
        Files.writeString(readme, updated, StandardCharsets.UTF_8);
    }

    private static String cell(String s) {
        return s.replace("|", "\\|").replace("\n", " ");
    }

    private static String shortCommit(String commit) {
        return commit.length() > 12 && commit.matches("[0-9a-f]{40}.*") ? commit.substring(0, 12) + commit.substring(40)
                : commit;
    }
}
