package io.nicbridge.bench.reproduce;

import io.nicbridge.bench.verdict.CheckLine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes a {@link Report} into a directory: {@code index.html} (self-contained: inline CSS, plots inline as SVG, no
 * script, nothing fetched), {@code points.csv} (every point), {@code checks.csv} (every check line),
 * {@code summary.md} (the summary table, as the README's headline) and {@code plots/} (each plot as SVG and PNG).
 * Every file is written to a temporary name and moved into place, so a reader never sees half a file.
 */
public final class ReportWriter {
    /** The summary table's HTML id, the first thing on the page. */
    static final String SUMMARY_ID = "summary";

    private ReportWriter() {
    }

    /**
     * Writes every file of {@code report} into {@code dir}. Synchronized: the Ctrl-C hook may write while the run
     * writes after an experiment; one after the other, each leaves whole files.
     */
    public static synchronized void write(Report report, Path dir) throws IOException {
        Files.createDirectories(dir);
        Path plots = dir.resolve("plots");
        StringBuilder html = new StringBuilder(64 * 1024);
        head(html, report);
        summaryTable(html, report);
        runSection(html, report);
        for (Paper paper : Paper.values()) {
            List<Result> results = report.results().stream().filter(r -> r.experiment().paper() == paper).toList();
            List<Experiment> pending = report.pending().stream().filter(e -> e.paper() == paper).toList();
            if (results.isEmpty() && pending.isEmpty()) {
                continue;
            }
            html.append("<section class=\"paper\" id=\"paper-").append(paper.key()).append("\">\n<h2>")
                    .append(esc(paper.title())).append("</h2>\n<p class=\"cite\">").append(esc(paper.citation()))
                    .append("</p>\n");
            for (Result r : results) {
                experiment(html, r, plots);
            }
            for (Experiment e : pending) {
                html.append("<article class=\"experiment pending\" id=\"exp-").append(e.id()).append("\">\n<h3>")
                        .append(esc(e.id())).append(": ").append(esc(e.title())).append("</h3>\n<p class=\"verdict"
                        + " v-pending\">not run yet: the run was stopped before it</p>\n</article>\n");
            }
            html.append("</section>\n");
        }
        html.append("<footer><p>Written by <code>").append(esc(report.meta().command())).append("</code>; every value"
                + " on this page comes from that run. Files beside this page: <a href=\"points.csv\">points.csv</a>,"
                + " <a href=\"checks.csv\">checks.csv</a>, <a href=\"summary.md\">summary.md</a>, plots/.</p></footer>\n"
                + "</body>\n</html>\n");
        atomically(dir.resolve("points.csv"), pointsCsv(report));
        atomically(dir.resolve("checks.csv"), checksCsv(report));
        atomically(dir.resolve("summary.md"), SummaryTable.markdown(report));
        atomically(dir.resolve("index.html"), html.toString());
    }

    private static void head(StringBuilder h, Report report) {
        Report.Meta m = report.meta();
        h.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>nicbridge: five papers"
                + " reproduced</title>\n<style>\n")
                .append("body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5em auto;"
                        + "max-width:72em;padding:0 1em;color:#222;line-height:1.4}\n")
                .append("h1{margin-bottom:.2em}h2{border-bottom:2px solid #ccc;margin-top:2em}h3{margin-bottom:.3em}\n")
                .append("table{border-collapse:collapse;margin:.6em 0;font-size:.9em}"
                        + "th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}"
                        + "th{background:#f2f2f2}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n")
                .append(".v-shape-reproduced,.v-agrees{background:#dff0d8}.v-differs,.v-shape-differs{background:#fcf8e3}"
                        + ".v-self-check-failed,.v-error{background:#f2dede}.v-not-run,.v-pending,.v-interrupted,"
                        + ".v-no-anchor,.v-no-check{background:#eee}\n")
                .append(".meta{color:#555}.cite{font-style:italic;color:#444}.explanation{max-width:60em}"
                        + "pre{background:#f7f7f7;padding:.5em;overflow-x:auto;font-size:.8em;white-space:pre-wrap}"
                        + "figure{margin:.8em 0}figure svg{max-width:100%;height:auto}"
                        + "figcaption{font-size:.85em;color:#444}.experiment{margin-bottom:2em}\n")
                .append("</style>\n</head>\n<body>\n<header>\n<h1>nicbridge: five papers reproduced</h1>\n")
                .append("<p class=\"meta\">").append(report.finished() ? "Complete run" : "<strong>Partial report:"
                        + " the run was stopped or is still going</strong>").append(", ").append(esc(m.mode()))
                .append(" sizes, seed ").append(m.seed()).append(", commit <code>").append(esc(m.commit()))
                .append("</code>, started ").append(m.started()).append(".</p>\n</header>\n");
    }

    private static void summaryTable(StringBuilder h, Report report) {
        h.append("<section id=\"").append(SUMMARY_ID).append("\">\n<h2>Summary</h2>\n<table class=\"summary\">\n"
                + "<tr><th>paper</th><th>experiment</th><th>verdict</th><th>on what</th><th>time</th></tr>\n");
        for (Result r : report.results()) {
            String v = r.verdict().word();
            h.append("<tr><td>").append(esc(r.experiment().paper().title())).append("</td><td><a href=\"#exp-")
                    .append(r.experiment().id()).append("\">").append(esc(r.experiment().id())).append("</a> ")
                    .append(esc(r.experiment().title())).append("</td><td class=\"").append(cls(v)).append("\">")
                    .append(esc(v)).append("</td><td>").append(esc(r.basis())).append("</td><td class=\"n\">")
                    .append(r.status() == Result.Status.NOT_RUN ? "" : esc(r.seconds())).append("</td></tr>\n");
        }
        for (Experiment e : report.pending()) {
            h.append("<tr><td>").append(esc(e.paper().title())).append("</td><td>").append(esc(e.id())).append(' ')
                    .append(esc(e.title())).append("</td><td class=\"v-pending\">not run yet</td><td>the run was"
                    + " stopped before it</td><td></td></tr>\n");
        }
        h.append("</table>\n<p>Verdicts: <em>shape reproduced</em> when every anchor check against the paper passes"
                + " (with no anchor check, when every row judged by shape moves the same way as the paper's);"
                + " <em>differs</em> when one does not; <em>no anchor</em> when the experiment has only model"
                + " self-checks (the simulation adds up to its own model, which says nothing about the paper);"
                + " <em>no check</em> when it prints figures only;"
                + " <em>self-check failed</em> when the run itself is wrong; <em>not run</em> with the reason.</p>\n"
                + "</section>\n");
    }

    private static void runSection(StringBuilder h, Report report) {
        Report.Meta m = report.meta();
        h.append("<section id=\"run\">\n<h2>The run</h2>\n<table class=\"meta-table\">\n");
        row(h, "command", m.command());
        row(h, "sizes", m.mode() + (m.mode().equals("quick") ? ": reduced sizes and repetitions, stated per experiment"
                + " below; --full runs the papers' sizes" : ": the papers' sizes"));
        row(h, "seed", Long.toString(m.seed()));
        row(h, "git commit", m.commit());
        row(h, "JDK", m.jdk());
        row(h, "machine", m.machine());
        row(h, "started", m.started().toString());
        h.append("</table>\n<p>Same seed, same commit: the same virtual-time figures (the simulations run in virtual"
                + " time; wall-clock figures, marked as such in the logs, vary with the machine's load).</p>\n"
                + "<h3>Host cost table</h3>\n<pre>").append(esc(m.costTable())).append("</pre>\n</section>\n");
    }

    private static void row(StringBuilder h, String key, String value) {
        h.append("<tr><th>").append(esc(key)).append("</th><td>").append(esc(value)).append("</td></tr>\n");
    }

    private static void experiment(StringBuilder h, Result r, Path plots) throws IOException {
        Experiment e = r.experiment();
        String v = r.verdict().word();
        h.append("<article class=\"experiment\" id=\"exp-").append(e.id()).append("\">\n<h3>").append(esc(e.id()))
                .append(": ").append(esc(e.title())).append("</h3>\n<p class=\"verdict ").append(cls(v))
                .append("\"><strong>").append(esc(v)).append("</strong> (").append(esc(r.basis())).append(")")
                .append(r.status() == Result.Status.NOT_RUN ? "" : ", " + esc(r.seconds())).append("</p>\n")
                .append("<p class=\"explanation\">").append(esc(Explanation.of(r))).append("</p>\n")
                .append("<p class=\"sizes\">Sizes: ").append(esc(e.quickSizes())).append(" (quick); ")
                .append(esc(e.fullSizes())).append(" (full). The same alone: <code>").append(esc(e.command()))
                .append("</code></p>\n");
        Map<Figure, List<Row>> byFigure = new LinkedHashMap<>();
        for (Row row : r.rows()) {
            byFigure.computeIfAbsent(row.figure(), f -> new ArrayList<>()).add(row);
        }
        for (Map.Entry<Figure, List<Row>> f : byFigure.entrySet()) {
            figure(h, e, f.getKey(), f.getValue(), plots);
        }
        if (!r.checks().isEmpty() || !r.comparisons().isEmpty()) {
            h.append("<table class=\"checks\">\n<tr><th>check</th><th>what</th><th>outcome</th></tr>\n");
            for (CheckLine c : r.checks()) {
                String o = c.outcome().name().toLowerCase(Locale.ROOT);
                h.append("<tr><td>").append(esc(c.kind().label())).append("</td><td>").append(esc(c.what()))
                        .append("</td><td class=\"").append(o.equals("pass") ? "v-agrees" : o.equals("fail")
                        ? "v-differs" : "v-pending").append("\">").append(o).append("</td></tr>\n");
            }
            for (String c : r.comparisons()) {
                h.append("<tr><td>comparison (not a check)</td><td>").append(esc(c)).append("</td><td></td></tr>\n");
            }
            h.append("</table>\n");
        }
        files(h, e, plots.getParent());
        if (!r.log().isEmpty()) {
            h.append("<details><summary>log (").append(r.log().lines().count()).append(" lines)</summary><pre>")
                    .append(esc(r.log())).append("</pre></details>\n");
        }
        h.append("</article>\n");
    }

    /** Links the files the experiment wrote into its own directory (its own plots, tables, captures). */
    private static void files(StringBuilder h, Experiment e, Path dir) throws IOException {
        Path own = dir.resolve("runs").resolve(e.id());
        if (!Files.isDirectory(own)) {
            return;
        }
        List<String> names;
        try (var list = Files.list(own)) {
            names = list.filter(Files::isRegularFile).map(p -> p.getFileName().toString()).sorted().toList();
        }
        if (names.isEmpty()) {
            return;
        }
        h.append("<p class=\"files\">Files it wrote:");
        for (String n : names) {
            h.append(" <a href=\"runs/").append(esc(e.id())).append('/').append(esc(n)).append("\">").append(esc(n))
                    .append("</a>");
        }
        h.append("</p>\n");
    }

    private static void figure(StringBuilder h, Experiment e, Figure f, List<Row> rows, Path plots)
            throws IOException {
        String name = e.id() + "-" + f.id();
        Plots.PlotFiles files = Plots.draw(f, rows, plots, name);
        h.append("<figure class=\"plot\" id=\"fig-").append(name).append("\">\n");
        if (files != null) {
            h.append(Plots.inline(files.svg())).append('\n');
        }
        h.append("<figcaption>").append(esc(f.title())).append(": ours (dots and line) over the paper's points"
                + " (diamonds). ").append(f.isAnchor() ? String.format(Locale.ROOT, "Anchor: ratio within +-%.0f %% of ",
                100 * f.tolerance()) + esc(f.basis()) + "." : "Judged by shape only: " + esc(f.basis()) + ".")
                .append(files == null ? "" : " Files: <a href=\"plots/" + name + ".svg\">SVG</a>, <a href=\"plots/"
                        + name + ".png\">PNG</a>.")
                .append("</figcaption>\n</figure>\n<table class=\"rows\">\n<tr><th>series</th><th>")
                .append(esc(f.xAxis())).append("</th><th>ours [").append(esc(f.unit())).append("]</th><th>paper [")
                .append(esc(f.unit())).append("]</th><th>ours / paper</th><th>verdict</th></tr>\n");
        for (Row r : rows) {
            String v = r.verdict().word();
            h.append("<tr><td>").append(esc(r.series())).append("</td><td class=\"n\">").append(Report.number(r.x()))
                    .append("</td><td class=\"n\">").append(Report.number(r.ours())).append("</td><td class=\"n\">")
                    .append(Report.number(r.paper())).append("</td><td class=\"n\">").append(Report.number(r.ratio()))
                    .append("</td><td class=\"").append(cls(v)).append("\">").append(esc(v)).append("</td></tr>\n");
        }
        h.append("</table>\n");
    }

    private static String pointsCsv(Report report) {
        StringBuilder b = new StringBuilder("experiment,paper,figure,series,x,ours,paper_value,unit,ratio,verdict,rule\n");
        for (Result r : report.results()) {
            for (Row row : r.rows()) {
                Figure f = row.figure();
                b.append(csv(r.experiment().id())).append(',').append(csv(r.experiment().paper().key())).append(',')
                        .append(csv(f.id())).append(',').append(csv(row.series())).append(',').append(raw(row.x()))
                        .append(',').append(raw(row.ours())).append(',').append(raw(row.paper())).append(',')
                        .append(csv(f.unit())).append(',').append(raw(row.ratio())).append(',')
                        .append(csv(row.verdict().word())).append(',').append(csv(f.isAnchor()
                                ? String.format(Locale.ROOT, "anchor +-%.0f%% of %s", 100 * f.tolerance(), f.basis())
                                : "shape: " + f.basis())).append('\n');
            }
        }
        return b.toString();
    }

    private static String checksCsv(Report report) {
        StringBuilder b = new StringBuilder("experiment,paper,kind,outcome,what\n");
        for (Result r : report.results()) {
            for (CheckLine c : r.checks()) {
                b.append(csv(r.experiment().id())).append(',').append(csv(r.experiment().paper().key())).append(',')
                        .append(csv(c.kind().label())).append(',').append(c.outcome()).append(',')
                        .append(csv(c.what())).append('\n');
            }
        }
        return b.toString();
    }

    private static String raw(double v) {
        return Double.isNaN(v) ? "" : Double.toString(v);
    }

    private static String csv(String s) {
        return s.contains(",") || s.contains("\"") || s.contains("\n") ? '"' + s.replace("\"", "\"\"") + '"' : s;
    }

    private static String cls(String verdictWord) {
        return "v-" + verdictWord.replaceAll("\\(.*", "").replaceAll("[^a-z]+", "-").replaceAll("-+$", "").replaceAll("^-+", "");
    }

    static String esc(String s) {
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    private static void atomically(Path file, String text) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** {@link #write} for callers that cannot throw (the Ctrl-C hook). */
    static void writeUnchecked(Report report, Path dir) {
        try {
            write(report, dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
