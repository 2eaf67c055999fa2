package io.nicbridge.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shows that the layout check catches drift: each case copies the real headers to a temporary include directory,
 * changes one thing on purpose and asserts that the checker reports exactly the resulting disagreements, plus
 * the hash mismatch with the hint to regenerate.
 *
 * <p>The headers guard themselves with {@code _Static_assert}s against their own offset macros; the struct cases
 * remove those from the altered copy so that the probe compiles and the checker's value comparison is what gets
 * tested (a separate case shows the compile failure being reported).
 */
class LayoutCheckerDriftTest {

    private static final Pattern STATIC_ASSERT = Pattern.compile("_Static_assert\\s*\\(.*?\\)\\s*;", Pattern.DOTALL);
    private static final String DEC = "dec21140.h";
    private static final String STALE_DEC =
            "dec21140.h changed since the bindings were generated; " + LayoutChecker.REGENERATE_HINT;

    @TempDir
    Path include;

    @TempDir
    Path work;

    private LayoutChecker.Report check() throws Exception {
        return new LayoutChecker(LayoutChecker.configuredGcc(), work).check(include);
    }

    private void copyHeaders() throws IOException {
        try (Stream<Path> headers = Files.list(LayoutChecker.configuredIncludeDir())) {
            for (Path header : headers.filter(p -> p.toString().endsWith(".h")).toList()) {
                Files.copy(header, include.resolve(header.getFileName()));
            }
        }
    }

    /** Replaces exactly one occurrence of {@code from} in the copy of {@code header}. */
    private void alter(String header, String from, String to, boolean dropStaticAsserts) throws IOException {
        Path file = include.resolve(header);
        String text = Files.readString(file, StandardCharsets.UTF_8);
        int at = text.indexOf(from);
        assertTrue(at >= 0 && text.indexOf(from, at + 1) < 0,
                header + " must contain exactly one '" + from + "' for this test; adapt the test to the header");
        text = text.substring(0, at) + to + text.substring(at + from.length());
        if (dropStaticAsserts) {
            text = STATIC_ASSERT.matcher(text).replaceAll("/* static assert removed by the test */");
        }
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    private static Set<String> disagreements(LayoutChecker.Report report) {
        return report.disagreements().stream()
                .map(d -> d.cExpression() + " | " + d.javaExpression() + " | gcc " + d.gccValue() + " | java "
                        + d.javaValue())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void unalteredHeadersPass() throws Exception {
        copyHeaders();
        LayoutChecker.Report report = check();
        assertTrue(report.passed(), report::describe);
        assertEquals("the bindings agree with the headers", report.describe());
    }

    @Test
    void changedConstantIsReported() throws Exception {
        copyHeaders();
        alter(DEC, "#define DEC21140_PCI_DEVICE_21140      (0x0009u)", "#define DEC21140_PCI_DEVICE_21140 (0x0019u)",
                false);
        LayoutChecker.Report report = check();

        assertEquals(List.of(STALE_DEC), report.staleHeaders());
        assertEquals(Set.of("DEC21140_PCI_DEVICE_21140 | Integer.toUnsignedLong(Dec21140.PCI_DEVICE_21140) | gcc 25"
                + " | java 9"), disagreements(report));
        assertEquals(List.of(), report.probeFailures());
        assertTrue(report.describe().contains("dec21140.h: DEC21140_PCI_DEVICE_21140 is 25 in C (gcc) but 9 in Java"),
                report::describe);
        assertTrue(report.describe().contains("regenerate with: ./mvnw -Pregenerate-bindings -pl native-headers"
                + " generate-sources (needs libclang1-14)"), report::describe);
    }

    @Test
    void swappedFieldsAreReported() throws Exception {
        copyHeaders();
        alter(DEC, "    uint32_t des2; /* buffer 1 address */\n    uint32_t des3;",
                "    uint32_t des3; /* swapped by the test */\n    uint32_t des2;", true);
        LayoutChecker.Report report = check();

        assertEquals(List.of(STALE_DEC), report.staleHeaders());
        assertEquals(Set.of(
                "offsetof(dec21140_desc_t, des2) | Dec21140Desc.OFFSET_DES2 | gcc 12 | java 8",
                "offsetof(dec21140_desc_t, des2) | Dec21140Desc.LAYOUT.byteOffset(PathElement.groupElement(\"des2\"))"
                        + " | gcc 12 | java 8",
                "offsetof(dec21140_desc_t, des3) | Dec21140Desc.OFFSET_DES3 | gcc 8 | java 12",
                "offsetof(dec21140_desc_t, des3) | Dec21140Desc.LAYOUT.byteOffset(PathElement.groupElement(\"des3\"))"
                        + " | gcc 8 | java 12"), disagreements(report));
        assertEquals(List.of(), report.probeFailures());
    }

    @Test
    void resizedFieldIsReported() throws Exception {
        copyHeaders();
        alter(DEC, "uint32_t des1;", "uint16_t des1;", true);
        LayoutChecker.Report report = check();

        assertEquals(List.of(STALE_DEC), report.staleHeaders());
        // des2 stays at 8: the 16-bit des1 is followed by two bytes of padding. Only the field's size moved.
        assertEquals(Set.of("sizeof(((dec21140_desc_t *) 0)->des1)"
                + " | Dec21140Desc.LAYOUT.select(PathElement.groupElement(\"des1\")).byteSize() | gcc 2 | java 4"),
                disagreements(report));
    }

    @Test
    void widenedFieldShiftsEverythingAfterIt() throws Exception {
        copyHeaders();
        alter(DEC, "uint32_t des1;", "uint64_t des1;", true);
        LayoutChecker.Report report = check();

        assertEquals(List.of(STALE_DEC), report.staleHeaders());
        Set<String> expressions = report.disagreements().stream().map(LayoutChecker.Disagreement::cExpression)
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(new TreeSet<>(Set.of("sizeof(dec21140_desc_t)", "_Alignof(dec21140_desc_t)",
                "offsetof(dec21140_desc_t, des1)", "sizeof(((dec21140_desc_t *) 0)->des1)",
                "offsetof(dec21140_desc_t, des2)", "offsetof(dec21140_desc_t, des3)")), expressions);
        assertEquals(10, report.disagreements().size(), report::describe); // sizeof and offsets are checked twice
    }

    @Test
    void removedFieldMakesTheProbeFailWithTheHint() throws Exception {
        copyHeaders();
        alter(DEC, "    uint32_t des3;", "    uint32_t des3_renamed;", true);
        LayoutChecker.Report report = check();

        assertEquals(List.of(STALE_DEC), report.staleHeaders());
        assertEquals(1, report.probeFailures().size(), report::describe);
        String failure = report.probeFailures().getFirst();
        assertTrue(failure.startsWith("dec21140.h: the probe "), failure);
        assertTrue(failure.contains("does not compile") && failure.contains("des3")
                && failure.contains(LayoutChecker.REGENERATE_HINT), failure);
    }

    @Test
    void newHeaderWithoutBindingsIsReported() throws Exception {
        copyHeaders();
        Files.writeString(include.resolve("extra.h"), "#define EXTRA_X 1\n");
        LayoutChecker.Report report = check();

        assertEquals(List.of("extra.h has no Java bindings yet; " + LayoutChecker.REGENERATE_HINT),
                report.staleHeaders());
        assertTrue(report.disagreements().isEmpty() && report.probeFailures().isEmpty(), report::describe);
    }

    @Test
    void missingGccIsReportedNotThrown() throws Exception {
        copyHeaders();
        LayoutChecker.Report report = new LayoutChecker("/nonexistent/gcc", work).check(include);
        assertEquals(ContractManifest.HEADERS.size(), report.probeFailures().size(), report::describe);
        assertTrue(report.probeFailures().getFirst().contains("cannot run gcc '/nonexistent/gcc'"), report::describe);
    }

    @Test
    void handEditedJavaValueIsReported() throws Exception {
        copyHeaders();
        // Stands in for a hand edit of a generated class: same headers, one Java value off by one.
        List<LayoutChecker.HeaderExpectations> edited = new ArrayList<>();
        for (LayoutChecker.HeaderExpectations header : LayoutChecker.manifest()) {
            List<LayoutChecker.Expectation> expectations = new ArrayList<>(header.expectations());
            if (header.fileName().equals(DEC)) {
                int i = indexOf(expectations, "offsetof(dec21140_desc_t, des1)");
                LayoutChecker.Expectation e = expectations.get(i);
                expectations.set(i, new LayoutChecker.Expectation(e.cExpression(), e.javaExpression(),
                        e.javaValue() + 1));
            }
            edited.add(new LayoutChecker.HeaderExpectations(header.fileName(), header.sha256(), expectations));
        }
        LayoutChecker.Report report = new LayoutChecker(LayoutChecker.configuredGcc(), work).check(include, edited);

        assertTrue(report.staleHeaders().isEmpty(), report::describe);
        assertEquals(Set.of("offsetof(dec21140_desc_t, des1) | Dec21140Desc.OFFSET_DES1 | gcc 4 | java 5"),
                disagreements(report));
        assertFalse(report.passed());
    }

    private static int indexOf(List<LayoutChecker.Expectation> expectations, String cExpression) {
        for (int i = 0; i < expectations.size(); i++) {
            if (expectations.get(i).cExpression().equals(cExpression)) {
                return i;
            }
        }
        throw new AssertionError("the manifest has no check " + cExpression);
    }
}
