package io.nicbridge.sim.diff;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.Predicate;

/**
 * One differential test of a card: a Java model and its C twin of the native shim run the same random scenarios and
 * must print identical traces.
 *
 * <p>The scenario comes from one Java generator (seeded, so a seed is a complete reproduction). The Java side runs
 * in this JVM; the C side is a runner program (native-headers/src/test/c/shim/diff/) compiled here with gcc against
 * the card's C source and the shim's fake platform, one process per scenario reading the scenario file.
 *
 * <p>Seeds: {@code -Dnicbridge.diff.seeds=N} (default: the test's own small count) starting at
 * {@code -Dnicbridge.diff.first=S} (default 1). On the first scenario whose traces differ the test fails with the
 * seed, the operation that diverged and the first differing line of each trace; the scenario and both traces stay in
 * {@code target/diff/NAME/}. Without gcc the test fails: gcc is a build requirement.
 */
final class DifferentialRun {
    private static final long RUNNER_TIMEOUT_SECONDS = 60;

    private final String name;
    private final Path out;
    private final Path binary;

    private DifferentialRun(String name, Path out, Path binary) {
        this.name = name;
        this.out = out;
        this.binary = binary;
    }

    /**
     * Compiles the C runner {@code diff/RUNNER.c} with the card sources (paths relative to native-headers/src/main/c/shim)
     * and the fake platform.
     */
    static DifferentialRun compile(String name, String runner, String... cardSources)
            throws IOException, InterruptedException {
        Path nativeSrc = nativeSrc();
        Path include = nativeSrc.resolve("main/c/include");
        Path shim = nativeSrc.resolve("main/c/shim");
        Path testShim = nativeSrc.resolve("test/c/shim");
        Path out = Path.of("target", "diff", name).toAbsolutePath();
        Files.createDirectories(out);
        Path binary = out.resolve(runner);
        String gcc = System.getProperty("nicbridge.gcc", "gcc");
        List<String> cmd = new ArrayList<>(List.of(gcc, "-std=c11", "-D_GNU_SOURCE", "-O1", "-g", "-Wall", "-Wextra",
            "-Werror", "-I" + include, "-I" + shim, "-I" + testShim));
        for (String source : cardSources) {
            cmd.add(shim.resolve(source).toString());
        }
        cmd.add(testShim.resolve("fake_platform.c").toString());
        cmd.add(testShim.resolve("diff").resolve(runner + ".c").toString());
        cmd.add("-o");
        cmd.add(binary.toString());
        Process gccProcess;
        try {
            gccProcess = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (IOException e) {
            // gcc is a build requirement (native-headers compiles the shim with it), so its absence is a failure.
            throw new AssertionError("no C compiler '" + gcc + "' (set -Dnicbridge.gcc=PATH): " + e.getMessage(), e);
        }
        String log = new String(gccProcess.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!gccProcess.waitFor(RUNNER_TIMEOUT_SECONDS, TimeUnit.SECONDS) || gccProcess.exitValue() != 0) {
            fail("the C runner does not compile: " + String.join(" ", cmd) + "\n" + log);
        }
        return new DifferentialRun(name, out, binary);
    }

    /** native-headers/src: {@code -Dnicbridge.native.src} (the pom sets it), else relative to sim-hardware. */
    private static Path nativeSrc() {
        String configured = System.getProperty("nicbridge.native.src");
        return (configured == null || configured.isBlank() ? Path.of("..", "native-headers", "src")
            : Path.of(configured)).toAbsolutePath().normalize();
    }

    /** Seeds to run: the system properties, else {@code defaultCount} from 1. */
    static long[] seeds(int defaultCount) {
        long first = Long.getLong("nicbridge.diff.first", 1);
        long count = Long.getLong("nicbridge.diff.seeds", defaultCount);
        long[] seeds = new long[(int) count];
        for (int i = 0; i < seeds.length; i++) {
            seeds[i] = first + i;
        }
        return seeds;
    }

    /**
     * Runs every seed: scenario, Java trace, C trace, compared line by line.
     *
     * @param endOfStep recognises the trace line that closes one scenario operation (to name the operation that
     *     diverged)
     */
    void run(long[] seeds, LongFunction<List<String>> scenario, Function<List<String>, String> javaSide,
             Predicate<String> endOfStep) throws IOException, InterruptedException {
        for (long seed : seeds) {
            List<String> ops = scenario.apply(seed);
            Path scenarioFile = out.resolve("scenario-" + seed + ".txt");
            Files.write(scenarioFile, ops, StandardCharsets.UTF_8);
            String java = javaSide.apply(ops);
            String c = runC(scenarioFile);
            if (java.equals(c)) {
                Files.delete(scenarioFile);
                continue;
            }
            Path javaFile = out.resolve("java-" + seed + ".txt");
            Path cFile = out.resolve("c-" + seed + ".txt");
            Files.writeString(javaFile, java, StandardCharsets.UTF_8);
            Files.writeString(cFile, c, StandardCharsets.UTF_8);
            fail(firstDifference(seed, ops, java, c, endOfStep) + "\n  files: " + scenarioFile + " " + javaFile + " "
                + cFile + "\n  rerun: -Dnicbridge.diff.first=" + seed + " -Dnicbridge.diff.seeds=1");
        }
        if (seeds.length > 0) {
            System.out.println(name + ": " + seeds.length + " scenarios (seeds " + seeds[0] + ".." + seeds[seeds.length - 1]
                + "), Java and C traces identical");
        }
    }

    private String runC(Path scenarioFile) throws IOException, InterruptedException {
        // The trace goes to a file, so a hung runner meets the timeout instead of blocking a read of its stdout.
        Path traceFile = scenarioFile.resolveSibling(scenarioFile.getFileName() + ".c-trace");
        Process p = new ProcessBuilder(binary.toString(), scenarioFile.toString())
            .redirectOutput(traceFile.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        if (!p.waitFor(RUNNER_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail(name + ": the C runner did not finish " + scenarioFile + " in " + RUNNER_TIMEOUT_SECONDS + " s");
        }
        if (p.exitValue() != 0) {
            fail(name + ": the C runner exited " + p.exitValue() + " on " + scenarioFile);
        }
        String trace = Files.readString(traceFile, StandardCharsets.UTF_8);
        Files.delete(traceFile);
        return trace;
    }

    private String firstDifference(long seed, List<String> ops, String java, String c,
                                   Predicate<String> endOfStep) {
        String[] j = java.split("\n", -1);
        String[] n = c.split("\n", -1);
        int line = 0;
        int step = 0;
        while (line < j.length && line < n.length && j[line].equals(n[line])) {
            if (endOfStep.test(j[line])) {
                step++;
            }
            line++;
        }
        String op = step < ops.size() ? ops.get(step) : "(after the last operation)";
        return name + " seed " + seed + ": the traces differ at line " + (line + 1) + ", during operation " + step
            + " \"" + op + "\"\n  java: " + (line < j.length ? j[line] : "(end)") + "\n  C:    "
            + (line < n.length ? n[line] : "(end)");
    }
}
