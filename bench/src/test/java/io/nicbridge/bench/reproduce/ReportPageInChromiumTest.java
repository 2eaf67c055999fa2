package io.nicbridge.bench.reproduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Executables;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report as a reader sees it: rendered by headless Chromium (skipped without it, failed under
 * {@code NICBRIDGE_REQUIRE=chromium}), the DOM the browser built holds every paper's section, every experiment, its
 * tables and its plots as SVG, the page fetches nothing, and the browser's console stays silent.
 */
class ReportPageInChromiumTest {
    /** A console line as Chromium logs it with --enable-logging=stderr: {@code ...:INFO:CONSOLE:1] "msg", source: ...}. */
    private static final Pattern CONSOLE = Pattern.compile(":CONSOLE[:(]");

    /** What headless Chromium made of a page. */
    record Rendered(String dom, List<String> console) {
    }

    static Rendered render(Path chromium, Path page, Path profile) throws IOException, InterruptedException {
        Path err = profile.resolve("stderr.txt");
        Process p = new ProcessBuilder(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--user-data-dir=" + profile.resolve("profile"), "--enable-logging=stderr", "--v=0",
                "--dump-dom", page.toUri().toString())
                .redirectError(err.toFile()).start();
        byte[] dom = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "chromium finished within 2 minutes");
        assertEquals(0, p.exitValue(), () -> "chromium exit code; stderr: " + read(err));
        List<String> console = new ArrayList<>();
        read(err).lines().filter(l -> CONSOLE.matcher(l).find()).forEach(console::add);
        return new Rendered(new String(dom, StandardCharsets.UTF_8), console);
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    private static int count(String text, String needle) {
        Matcher m = Pattern.compile(Pattern.quote(needle)).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    @Test
    void everySectionTableAndPlotIsThereAndTheConsoleIsSilent(@TempDir Path dir) throws Exception {
        Path chromium = Executables.require(Capability.CHROMIUM, "chromium");
        Experiment real = Experiments.all().stream().filter(e -> e.id().equals("careful-latency")).findFirst()
                .orElseThrow();
        Experiment broken = new Experiment("broken", Paper.PROJECT, "throws", "nic none", "-", "-", 1, List.of(),
                List.of(), run -> {
                    throw new IllegalStateException("deliberately broken <b>escaped</b>");
                });
        List<Experiment> list = List.of(ReproductionTest.synthetic("synthetic-unet", Paper.UNET, true), real,
                ReproductionTest.synthetic("synthetic-nifdy", Paper.NIFDY, false), broken);
        Report report = new Reproduction(ReproductionTest.meta(7), list, true, CostTable.zero(), dir.resolve("report"))
                .run(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), false);
        assertEquals(ExitCodes.RUN_ERROR, ReproduceCommand.exitCode(report));

        Rendered page = render(chromium, dir.resolve("report/index.html"), dir);
        String dom = page.dom();
        assertEquals(List.of(), page.console(), "the browser console has no messages");
        for (String id : List.of("summary", "run", "paper-unet", "paper-careful", "paper-nifdy", "paper-project",
                "exp-synthetic-unet", "exp-careful-latency", "exp-synthetic-nifdy", "exp-broken",
                "fig-synthetic-unet-lat", "fig-synthetic-unet-rate", "fig-careful-latency-table1",
                "fig-careful-latency-table1-processing", "fig-synthetic-nifdy-lat", "fig-synthetic-nifdy-rate")) {
            assertTrue(dom.contains("id=\"" + id + "\""), "the page has #" + id);
        }
        // one summary row per experiment, one rows table per figure, a checks table per experiment that printed any
        int summaryRows = count(dom.substring(dom.indexOf("class=\"summary\""), dom.indexOf("</table>",
                dom.indexOf("class=\"summary\""))), "<tr>");
        assertEquals(1 + list.size(), summaryRows, "header + one row per experiment");
        assertEquals(6, count(dom, "<table class=\"rows\">"), "a rows table per figure");
        assertEquals(6, count(dom, "<svg"), "a plot per figure, inline as SVG");
        assertEquals(3, count(dom, "<table class=\"checks\">"), "a checks table per experiment that printed checks");
        assertTrue(dom.contains("deliberately broken &lt;b&gt;escaped&lt;/b&gt;"), "text is escaped, not markup");
        assertFalse(Pattern.compile("(src|href)=\"https?:").matcher(dom).find(), "the page fetches nothing");
        assertFalse(dom.contains("<script") || dom.contains("<link"), "no script, no external style sheet");
    }

    @Test
    void theConsoleCheckSeesAPageError(@TempDir Path dir) throws Exception {
        Path chromium = Executables.require(Capability.CHROMIUM, "chromium");
        Path bad = dir.resolve("bad.html");
        Files.writeString(bad, "<!DOCTYPE html><html lang=\"en\"><head><title>t</title></head><body><p>x</p>"
                + "<script>undefinedFunction();</script></body></html>");
        Rendered page = render(chromium, bad, dir);
        assertEquals(1, page.console().size(), page.console().toString());
        assertTrue(page.console().get(0).contains("Uncaught ReferenceError: undefinedFunction is not defined"),
                page.console().get(0));
    }
}
