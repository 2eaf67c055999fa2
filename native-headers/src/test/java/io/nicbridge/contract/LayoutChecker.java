package io.nicbridge.contract;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Checks generated bindings against the C headers with gcc alone (libclang is only needed to regenerate):
 * <ol>
 *   <li>each header's SHA-256 must equal the one recorded when the bindings were generated, and every header in
 *       the include directory must have bindings;</li>
 *   <li>for each header a C probe that prints every expression of the manifest ({@code sizeof}, {@code offsetof},
 *       {@code _Alignof}, constants, byte-order marker) is compiled with
 *       {@code gcc -std=c11 -Wall -Wextra -Werror} and run, and every printed value is compared with the Java
 *       value. All disagreements are reported, not just the first.</li>
 * </ol>
 */
public final class LayoutChecker {

    /** What to do after a hash mismatch or new header. */
    public static final String REGENERATE_HINT =
            "regenerate with: ./mvnw -Pregenerate-bindings -pl native-headers generate-sources (needs libclang1-14)";

    private static final long PROCESS_TIMEOUT_SECONDS = 120;

    /** One expected fact: a C expression and the Java side's value for it (bits of C's unsigned long long). */
    public record Expectation(String cExpression, String javaExpression, long javaValue) {
    }

    /** The expectations for one header. */
    public record HeaderExpectations(String fileName, String sha256, List<Expectation> expectations) {
        public HeaderExpectations {
            expectations = List.copyOf(expectations);
        }
    }

    /** A value on which gcc and the Java bindings disagree. */
    public record Disagreement(String header, String cExpression, String javaExpression, String gccValue,
                               String javaValue) {
        @Override
        public String toString() {
            return header + ": " + cExpression + " is " + gccValue + " in C (gcc) but " + javaValue + " in Java ("
                    + javaExpression + ")";
        }
    }

    /**
     * The outcome of a check.
     *
     * @param staleHeaders  one message per header whose hash changed, that is new, or that is missing
     * @param disagreements every value gcc and Java disagree on
     * @param probeFailures probes that did not compile or run (with gcc's output)
     */
    public record Report(List<String> staleHeaders, List<Disagreement> disagreements, List<String> probeFailures) {
        public Report {
            staleHeaders = List.copyOf(staleHeaders);
            disagreements = List.copyOf(disagreements);
            probeFailures = List.copyOf(probeFailures);
        }

        public boolean passed() {
            return staleHeaders.isEmpty() && disagreements.isEmpty() && probeFailures.isEmpty();
        }

        /** Every problem, one per line, for a test failure message. */
        public String describe() {
            if (passed()) {
                return "the bindings agree with the headers";
            }
            StringBuilder out = new StringBuilder("the Java bindings do not match the C headers:");
            staleHeaders.forEach(s -> out.append("\n  ").append(s));
            disagreements.forEach(d -> out.append("\n  ").append(d));
            probeFailures.forEach(f -> out.append("\n  ").append(f));
            return out.toString();
        }
    }

    private final String gcc;
    private final Path workDir;

    /**
     * @param gcc     the gcc command or path
     * @param workDir where probes are written and built (must exist)
     */
    public LayoutChecker(String gcc, Path workDir) {
        this.gcc = gcc;
        this.workDir = workDir;
    }

    /** The gcc named by system property {@code nicbridge.gcc} (set by the pom), else {@code gcc}. */
    public static String configuredGcc() {
        String gcc = System.getProperty("nicbridge.gcc");
        return gcc == null || gcc.isBlank() ? "gcc" : gcc;
    }

    /** The include directory named by {@code nicbridge.include.dir} (set by the pom), else the module's own. */
    public static Path configuredIncludeDir() {
        String dir = System.getProperty("nicbridge.include.dir");
        return dir == null || dir.isBlank() ? Path.of("src", "main", "c", "include") : Path.of(dir);
    }

    /** The generated {@link ContractManifest} as expectations. */
    public static List<HeaderExpectations> manifest() {
        return ContractManifest.HEADERS.stream()
                .map(h -> new HeaderExpectations(h.fileName(), h.sha256(), h.checks().stream()
                        .map(c -> new Expectation(c.cExpression(), c.javaExpression(), c.javaValue())).toList()))
                .toList();
    }

    /** Checks the generated bindings against the headers in {@code includeDir}. */
    public Report check(Path includeDir) throws IOException, InterruptedException {
        return check(includeDir, manifest());
    }

    /** Checks {@code headers} against the headers in {@code includeDir}. */
    public Report check(Path includeDir, List<HeaderExpectations> headers) throws IOException, InterruptedException {
        List<String> stale = new ArrayList<>();
        List<Disagreement> disagreements = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        Set<String> onDisk = new TreeSet<>();
        try (Stream<Path> files = Files.list(includeDir)) {
            files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".h")).forEach(onDisk::add);
        }
        for (HeaderExpectations header : headers) {
            onDisk.remove(header.fileName());
        }
        for (String extra : onDisk) {
            stale.add(extra + " has no Java bindings yet; " + REGENERATE_HINT);
        }
        for (HeaderExpectations header : headers) {
            Path file = includeDir.resolve(header.fileName());
            if (!Files.isRegularFile(file)) {
                stale.add(header.fileName() + " is missing from " + includeDir + " but has bindings; "
                        + REGENERATE_HINT);
                continue;
            }
            if (!sha256(Files.readAllBytes(file)).equals(header.sha256())) {
                stale.add(header.fileName() + " changed since the bindings were generated; " + REGENERATE_HINT);
            }
            probe(includeDir, header, disagreements, failures);
        }
        return new Report(stale, disagreements, failures);
    }

    private void probe(Path includeDir, HeaderExpectations header, List<Disagreement> disagreements,
                       List<String> failures) throws IOException, InterruptedException {
        String base = header.fileName().replaceAll("\\.h$", "").replaceAll("[^A-Za-z0-9_]", "_");
        Path source = workDir.resolve("probe_" + base + ".c");
        Path binary = workDir.resolve("probe_" + base);
        StringBuilder c = new StringBuilder();
        c.append("/* Generated by LayoutChecker: prints every value the Java bindings of ").append(header.fileName())
                .append(" rely on. */\n");
        c.append("#include <stddef.h>\n#include <stdio.h>\n#include \"").append(header.fileName()).append("\"\n\n");
        c.append("int main(void)\n{\n");
        for (Expectation expectation : header.expectations()) {
            c.append("    printf(\"%llu\\n\", (unsigned long long) (").append(expectation.cExpression())
                    .append("));\n");
        }
        c.append("    return 0;\n}\n");
        Files.writeString(source, c.toString(), StandardCharsets.UTF_8);

        ProcessResult compiled;
        try {
            compiled = run(List.of(gcc, "-std=c11", "-Wall", "-Wextra", "-Werror",
                    "-I" + includeDir.toAbsolutePath(), "-o", binary.toString(), source.toString()));
        } catch (IOException e) {
            failures.add(header.fileName() + ": cannot run gcc '" + gcc + "' (set -Dnicbridge.gcc=PATH): "
                    + e.getMessage());
            return;
        }
        if (compiled.status() != 0) {
            failures.add(header.fileName() + ": the probe " + source + " does not compile (gcc exit "
                    + compiled.status() + "); a field or constant the bindings use is gone or renamed - "
                    + REGENERATE_HINT + "\n" + compiled.output().indent(4).stripTrailing());
            return;
        }
        ProcessResult ran = run(List.of(binary.toString()));
        List<String> lines = ran.output().lines().toList();
        if (ran.status() != 0 || lines.size() != header.expectations().size()) {
            failures.add(header.fileName() + ": the probe " + binary + " exited " + ran.status() + " after "
                    + lines.size() + " of " + header.expectations().size() + " values");
            return;
        }
        for (int i = 0; i < lines.size(); i++) {
            Expectation expectation = header.expectations().get(i);
            String gccValue = lines.get(i).strip();
            String javaValue = Long.toUnsignedString(expectation.javaValue());
            if (!gccValue.equals(javaValue)) {
                disagreements.add(new Disagreement(header.fileName(), expectation.cExpression(),
                        expectation.javaExpression(), gccValue, javaValue));
            }
        }
    }

    private record ProcessResult(int status, String output) {
    }

    private static ProcessResult run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(PROCESS_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish in " + PROCESS_TIMEOUT_SECONDS + " s");
        }
        return new ProcessResult(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
