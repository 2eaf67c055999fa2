package io.nicbridge.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * The require switch: a missing capability skips a test, unless {@value Requirements#VARIABLE} names it, and then
 * the test fails naming it. Shown in this JVM, in a child JVM and in a C test runner, each time with a tool made
 * unavailable on purpose (a PATH without it).
 */
class RequirementsTest {
    @TempDir
    Path dir;

    @Test
    void aMissingCapabilitySkipsUnlessItIsRequired() {
        boolean tshark = Executables.find("tshark", dir.toString()).isPresent(); // an empty folder: no tshark
        assertFalse(tshark);
        TestAbortedException skipped = assertThrows(TestAbortedException.class,
            () -> Requirements.parse("").check(Capability.TSHARK, tshark, () -> "tshark is not on the PATH"));
        assertTrue(skipped.getMessage().contains("tshark not available: tshark is not on the PATH"),
            skipped.getMessage());
        assertThrows(TestAbortedException.class, () -> Requirements.parse("valgrind,net")
            .check(Capability.TSHARK, tshark, () -> "no tshark"), "only what the variable names is required");
        AssertionFailedError failed = assertThrows(AssertionFailedError.class, () -> Requirements.parse("net,tshark")
            .check(Capability.TSHARK, tshark, () -> "tshark is not on the PATH"));
        assertEquals("NICBRIDGE_REQUIRE requires tshark (Wireshark's tshark on the PATH, to decode the capture files),"
            + " but it is not available here: tshark is not on the PATH", failed.getMessage());
        Requirements.parse("all").check(Capability.TSHARK, true, () -> "unused"); // available: nothing happens
    }

    @Test
    void theVariableListsWordsOrAllAndAnUnknownWordIsAnError() {
        Requirements some = Requirements.parse(" Net, ,VALGRIND,");
        assertTrue(some.requires(Capability.NET) && some.requires(Capability.VALGRIND));
        assertFalse(some.requires(Capability.TSHARK));
        Requirements all = Requirements.parse("all");
        assertTrue(EnumSet.allOf(Capability.class).stream().allMatch(all::requires));
        assertFalse(Requirements.parse(null).requires(Capability.NET));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Requirements.parse("net,tshrak"));
        assertEquals("NICBRIDGE_REQUIRE=net,tshrak: unknown capability 'tshrak'; known: net, shim, tshark, valgrind,"
            + " libclang, setpriv, chromium, clang-fuzzer, all", e.getMessage());
    }

    @Test
    void aChildJvmWithoutTsharkOnItsPathSkipsAndFailsOnlyWhenTsharkIsRequired() throws Exception {
        Run skipped = probe("tshark", null);
        assertEquals(3, skipped.status(), skipped.output());
        assertTrue(skipped.output().startsWith("SKIPPED skipped, tshark not available: tshark is not on the PATH"),
            skipped.output());
        Run failed = probe("tshark", "net,tshark");
        assertEquals(1, failed.status(), failed.output());
        assertTrue(failed.output().startsWith("FAILED NICBRIDGE_REQUIRE requires tshark"), failed.output());
        Run bad = probe("tshark", "tshark,wireshark");
        assertEquals(1, bad.status(), bad.output());
        assertTrue(bad.output().contains("unknown capability 'wireshark'"), bad.output());
    }

    @Test
    void aCTestRunnerWithoutValgrindOnItsPathSkipsMemcheckAndFailsOnlyWhenValgrindIsRequired() throws Exception {
        Path bin = pathWithout("valgrind");
        try {
            selftestSkipsAndFails(bin);
        } finally {
            deleteLinks(bin);
        }
    }

    private void selftestSkipsAndFails(Path bin) throws Exception {
        Run skipped = selftest(bin, null);
        assertEquals(0, skipped.status(), skipped.output());
        assertTrue(skipped.output().contains("SKIPPED (valgrind not available): headers_selftest: valgrind is not on"
            + " the PATH, so its memcheck run"), skipped.output());
        Run failed = selftest(bin, "valgrind");
        assertEquals(1, failed.status(), failed.output());
        assertTrue(failed.output().contains("FAILED: NICBRIDGE_REQUIRE requires valgrind, but it is not available"
            + " here: headers_selftest"), failed.output());
        Run bad = selftest(bin, "valgrnd");
        assertEquals(2, bad.status(), bad.output());
        assertTrue(bad.output().contains("unknown capability 'valgrnd'"), bad.output());
    }

    @Test
    void theShellKnowsTheSameWordsAndEveryRunnerUsesIt() throws Exception {
        Run words = run(List.of(bash(), "-c", ". src/test/c/require.sh && echo \"$NICBRIDGE_CAPABILITIES\""),
            Map.of());
        assertEquals(0, words.status(), words.output());
        assertEquals(Arrays.stream(Capability.values()).map(Capability::word).collect(Collectors.joining(" ")),
            words.output().strip());
        try (Stream<Path> scripts = Files.walk(Path.of("src/test/c"))) {
            List<Path> runners = scripts.filter(p -> p.getFileName().toString().matches("run-.*tests?\\.sh")).toList();
            assertTrue(runners.size() >= 4, runners.toString());
            for (Path runner : runners) {
                String text = Files.readString(runner, StandardCharsets.UTF_8);
                assertTrue(text.contains("require.sh\""), runner + " sources require.sh");
                assertFalse(text.contains("echo \"SKIPPED") || text.toLowerCase().contains("skipped\"")
                    || text.contains("not installed, "), runner + " skips only through require_or_skip");
            }
        }
        // A C test binary that skips a part says so with its exit status (SHIM_TEST_SKIPPED), which the runner hands
        // to require_or_skip; one that only printed "SKIPPED" would pass under NICBRIDGE_REQUIRE.
        try (Stream<Path> sources = Files.walk(Path.of("src/test/c"))) {
            for (Path c : sources.filter(p -> p.getFileName().toString().endsWith(".c")).toList()) {
                String text = Files.readString(c, StandardCharsets.UTF_8);
                if (text.contains("SKIPPED")) {
                    assertTrue(text.contains("SHIM_TEST_SKIPPED"), c + " prints SKIPPED but does not exit with"
                        + " SHIM_TEST_SKIPPED for its runner's require_or_skip");
                }
            }
        }
    }

    // ------------------------------------------------------------------ helpers

    record Run(int status, String output) {
    }

    private Run probe(String word, String require) throws Exception {
        Path emptyPath = Files.createDirectories(dir.resolve("empty-bin"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = List.of(java, "-cp", System.getProperty("java.class.path"),
            RequirementsProbe.class.getName(), word);
        return run(cmd, require == null ? Map.of("PATH", emptyPath.toString())
            : Map.of("PATH", emptyPath.toString(), Requirements.VARIABLE, require));
    }

    private Run selftest(Path bin, String require) throws Exception {
        List<String> cmd = List.of(bash(), "src/test/c/run-selftest.sh", System.getProperty("nicbridge.gcc", "gcc"),
            System.getProperty("nicbridge.include.dir", "src/main/c/include"), dir.resolve("out").toString());
        return run(cmd, require == null ? Map.of("PATH", bin.toString())
            : Map.of("PATH", bin.toString(), Requirements.VARIABLE, require));
    }

    /**
     * A folder of links to every program on this PATH but those whose names start with {@code missing}; under
     * target/, not the JUnit temporary folder (which warns about every link it deletes).
     */
    private static Path pathWithout(String missing) throws IOException {
        Path bin = Files.createTempDirectory(Files.createDirectories(Path.of("target")), "bin-without-" + missing);
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
            Path folder = Path.of(d);
            if (d.isEmpty() || !Files.isDirectory(folder)) {
                continue;
            }
            try (Stream<Path> programs = Files.list(folder)) {
                for (Path p : programs.toList()) {
                    Path link = bin.resolve(p.getFileName().toString());
                    if (!p.getFileName().toString().startsWith(missing) && Files.notExists(link)) {
                        Files.createSymbolicLink(link, p);
                    }
                }
            }
        }
        assertTrue(Executables.find(missing, bin.toString()).isEmpty());
        assertTrue(Executables.find("gcc", bin.toString()).isPresent(), "the rest is there");
        return bin;
    }

    private static void deleteLinks(Path bin) throws IOException {
        try (Stream<Path> links = Files.list(bin)) {
            for (Path link : links.toList()) {
                Files.delete(link); // the link, never what it points to
            }
        }
        Files.delete(bin);
    }

    private static String bash() {
        return Executables.find("bash").orElseThrow().toString();
    }

    /** Runs {@code cmd} in this module's folder with {@code env} replacing or removing variables of ours. */
    private static Run run(List<String> cmd, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(cmd)).redirectErrorStream(true);
        pb.environment().remove(Requirements.VARIABLE);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "finished: " + cmd);
        return new Run(p.exitValue(), out);
    }
}
