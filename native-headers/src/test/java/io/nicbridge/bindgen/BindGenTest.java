package io.nicbridge.bindgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.contract.LayoutChecker;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the generator the documented way (the JDK source launcher on BindGen.java, in a child JVM) against a small
 * sample header and against the real contract headers. Needs libclang 14: without it these tests are skipped
 * (the generator's exit status {@value #EXIT_NO_LIBCLANG} says so), except the one that checks that message.
 */
class BindGenTest {

    private static final int EXIT_NO_LIBCLANG = 3;
    private static final Path BINDGEN = Path.of("src", "bindgen", "java", "io", "nicbridge", "bindgen",
            "BindGen.java");
    private static final Path SAMPLE_INCLUDE = Path.of("src", "test", "resources", "bindgen-sample");
    private static final Path GENERATED_ROOT = Path.of("src", "main", "java");
    private static final String PACKAGE_DIR = "io/nicbridge/contract";

    private record Run(int status, String output) {
    }

    private static Run bindgen(List<String> jvmOptions, Path include, Path out) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.addAll(jvmOptions);
        command.addAll(List.of(BINDGEN.toString(), "--include", include.toString(), "--out", out.toString()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "BindGen did not finish");
        return new Run(process.exitValue(), output);
    }

    /** Generates, skipping the test when libclang is not installed and failing on any other error. */
    private static Map<String, String> generate(Path include, Path out) throws Exception {
        Run run = bindgen(List.of(), include, out);
        Requirements.assume(Capability.LIBCLANG, run.status() != EXIT_NO_LIBCLANG,
            () -> "BindGen found no libclang: " + run.output());
        assertEquals(0, run.status(), run.output());
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> generated = Files.list(out.resolve(PACKAGE_DIR))) {
            for (Path file : generated.toList()) {
                files.put(file.getFileName().toString(), Files.readString(file, StandardCharsets.UTF_8));
            }
        }
        return files;
    }

    @Test
    void missingLibclangGivesTheInstallCommand(@TempDir Path out) throws Exception {
        Run run = bindgen(List.of("-Dnicbridge.libclang=/nonexistent/libclang.so"), SAMPLE_INCLUDE, out);
        assertEquals(EXIT_NO_LIBCLANG, run.status(), run.output());
        assertTrue(run.output().contains("apt-get install libclang1-14 libclang-common-14-dev"), run.output());
        assertTrue(run.output().contains("/nonexistent/libclang.so"), run.output());
    }

    @Test
    void committedBindingsAreWhatTheGeneratorProducesFromTheCommittedHeaders(@TempDir Path out) throws Exception {
        Map<String, String> fresh = generate(LayoutChecker.configuredIncludeDir(), out);
        Map<String, String> committed = new TreeMap<>();
        try (Stream<Path> files = Files.list(GENERATED_ROOT.resolve(PACKAGE_DIR))) {
            for (Path file : files.toList()) {
                committed.put(file.getFileName().toString(), Files.readString(file, StandardCharsets.UTF_8));
            }
        }
        assertEquals(fresh.keySet(), committed.keySet(), "generated file set differs; regenerate the bindings");
        for (String name : fresh.keySet()) {
            assertEquals(fresh.get(name), committed.get(name),
                    name + " differs from a fresh generation; regenerate, never edit generated files");
        }
    }

    @Test
    void sampleHeaderBecomesConstantsLayoutsAndDowncalls(@TempDir Path out) throws Exception {
        Map<String, String> files = generate(SAMPLE_INCLUDE, out);
        assertEquals(List.of("ContractManifest.java", "Sample.java", "SampleEntry.java", "SampleRing.java",
                "package-info.java"), List.copyOf(files.keySet()));

        String sample = files.get("Sample.java");
        assertTrue(sample.startsWith("// Generated by BindGen from sample.h - do not edit; regenerate with: ./mvnw"
                + " -Pregenerate-bindings -pl native-headers generate-sources\n// sample.h SHA-256: "), sample);
        assertContains(sample, "public static final ByteOrder BYTE_ORDER = ByteOrder.BIG_ENDIAN;");
        assertContains(sample, "public static final int FLAG_OWN = 0x80000000;");
        assertContains(sample, "public static final int FLAG_LAST = 0x00000002;");
        assertContains(sample, "public static final int RING_SIZE = 64;");
        assertContains(sample, "public static final int NEGATIVE = -5;");
        assertContains(sample, "public static final long WIDE_MASK = 0xFFFF000000000000L;");
        assertContains(sample, "public static final long HUGE = 0x0000010000000000L;");
        assertContains(sample, "public static final int DERIVED = 129;");
        assertTrue(!sample.contains("ALIGN") && !sample.contains("SAMPLE_H "), "function-like/empty macros leaked");
        assertContains(sample, "public static final FunctionDescriptor OPEN_DESCRIPTOR = FunctionDescriptor.of("
                + "ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS);");
        assertContains(sample, "public static final FunctionDescriptor CLOSE_DESCRIPTOR = FunctionDescriptor.ofVoid("
                + "ValueLayout.ADDRESS);");
        assertContains(sample, "public static long count(MemorySegment handle, int which) {");

        String ring = files.get("SampleRing.java");
        assertContains(ring, """
                    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
                            ValueLayout.JAVA_INT.withOrder(Sample.BYTE_ORDER).withName("head"),
                            MemoryLayout.paddingLayout(4),
                            ValueLayout.JAVA_LONG.withOrder(Sample.BYTE_ORDER).withName("stamp"),
                            MemoryLayout.sequenceLayout(6, ValueLayout.JAVA_BYTE).withName("mac"),
                            MemoryLayout.paddingLayout(2),
                            MemoryLayout.sequenceLayout(4, SampleEntry.LAYOUT).withName("entries"),
                            ValueLayout.JAVA_SHORT.withOrder(Sample.BYTE_ORDER).withName("delta"),
                            MemoryLayout.paddingLayout(6))
                            .withName("sample_ring_t");
                """);
        assertContains(ring, "public static final long BYTE_SIZE = 64;");
        assertContains(ring, "public static final long OFFSET_ENTRIES = 24;");
        assertContains(ring, "public static final long ENTRIES_LENGTH = 4;");
        assertContains(ring, "public static int mac(MemorySegment segment, long base, long index) {");
        assertContains(ring, "public static long entriesBase(long base, long index) {");
        assertContains(files.get("SampleEntry.java"), "MemoryLayout.paddingLayout(1),");
    }

    /**
     * The strongest check of the generator: its output for the sample header compiles, agrees with gcc on every
     * manifest entry, and its accessors put the bytes where C would (big-endian here).
     */
    @Test
    void sampleBindingsCompileAgreeWithGccAndAccessTheRightBytes(@TempDir Path out, @TempDir Path classes,
                                                                 @TempDir Path work) throws Throwable {
        generate(SAMPLE_INCLUDE, out);
        List<String> sources = new ArrayList<>();
        try (Stream<Path> files = Files.list(out.resolve(PACKAGE_DIR))) {
            files.forEach(p -> sources.add(p.toString()));
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> args = new ArrayList<>(List.of("-Xlint:all,-restricted", "-Werror", "--release", "25", "-d",
                classes.toString()));
        args.addAll(sources);
        assertEquals(0, javac.run(null, null, null, args.toArray(String[]::new)), "generated sample does not compile");

        // A class loader of its own: the sample's io.nicbridge.contract classes must not meet the real ones.
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
                ClassLoader.getPlatformClassLoader())) {
            LayoutChecker.Report report = new LayoutChecker(LayoutChecker.configuredGcc(), work)
                    .check(SAMPLE_INCLUDE, manifestOf(loader));
            assertTrue(report.passed(), report::describe);

            Class<?> ring = loader.loadClass("io.nicbridge.contract.SampleRing");
            Class<?> entry = loader.loadClass("io.nicbridge.contract.SampleEntry");
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            MethodHandle setStamp = lookup.findStatic(ring, "stamp",
                    MethodType.methodType(void.class, MemorySegment.class, long.class, long.class));
            MethodHandle entriesBase = lookup.findStatic(ring, "entriesBase",
                    MethodType.methodType(long.class, long.class, long.class));
            MethodHandle setAddr = lookup.findStatic(entry, "addr",
                    MethodType.methodType(void.class, MemorySegment.class, long.class, int.class));
            MethodHandle getLen = lookup.findStatic(entry, "len",
                    MethodType.methodType(int.class, MemorySegment.class, long.class));
            MethodHandle getDelta = lookup.findStatic(ring, "delta",
                    MethodType.methodType(int.class, MemorySegment.class, long.class));
            try (Arena arena = Arena.ofConfined()) {
                long base = 64; // the second ring in the segment
                MemorySegment segment = arena.allocate(128, 8);
                setStamp.invokeExact(segment, base, 0x0102030405060708L);
                assertEquals(0x01, segment.get(ValueLayout.JAVA_BYTE, base + 8), "stamp must be big-endian");
                assertEquals(0x08, segment.get(ValueLayout.JAVA_BYTE, base + 15));
                long entry2 = (long) entriesBase.invokeExact(base, 2L);
                assertEquals(base + 24 + 2 * 8, entry2);
                setAddr.invokeExact(segment, entry2, 0xCAFEBABE);
                assertEquals((byte) 0xCA, segment.get(ValueLayout.JAVA_BYTE, entry2 + 4));
                segment.set(ValueLayout.JAVA_BYTE, entry2, (byte) 0xFF);
                segment.set(ValueLayout.JAVA_BYTE, entry2 + 1, (byte) 0xFE);
                assertEquals(0xFFFE, (int) getLen.invokeExact(segment, entry2), "uint16_t reads zero-extended");
                segment.set(ValueLayout.JAVA_BYTE, base + 56, (byte) 0xFF);
                segment.set(ValueLayout.JAVA_BYTE, base + 57, (byte) 0xFE);
                assertEquals(-2, (int) getDelta.invokeExact(segment, base), "int16_t reads sign-extended");
            }
        }
    }

    /** The sample's ContractManifest, read through reflection from its own class loader. */
    private static List<LayoutChecker.HeaderExpectations> manifestOf(ClassLoader loader) throws Exception {
        Class<?> manifest = loader.loadClass("io.nicbridge.contract.ContractManifest");
        List<?> headers = (List<?>) manifest.getField("HEADERS").get(null);
        List<LayoutChecker.HeaderExpectations> result = new ArrayList<>();
        for (Object header : headers) {
            List<LayoutChecker.Expectation> expectations = new ArrayList<>();
            for (Object check : (List<?>) call(header, "checks")) {
                expectations.add(new LayoutChecker.Expectation((String) call(check, "cExpression"),
                        (String) call(check, "javaExpression"), (long) call(check, "javaValue")));
            }
            result.add(new LayoutChecker.HeaderExpectations((String) call(header, "fileName"),
                    (String) call(header, "sha256"), expectations));
        }
        return result;
    }

    private static Object call(Object target, String accessor) throws ReflectiveOperationException {
        return target.getClass().getMethod(accessor).invoke(target);
    }

    private static void assertContains(String text, String expected) {
        assertTrue(text.contains(expected), () -> "expected generated source to contain:\n" + expected
                + "\n--- but it was:\n" + text);
    }

    static {
        // Fail fast with a clear message if the tests run from somewhere other than the module folder.
        if (!Files.isRegularFile(BINDGEN)) {
            throw new IllegalStateException("BindGenTest must run with the native-headers module as working"
                    + " directory (" + BINDGEN + " not found from " + Path.of("").toAbsolutePath() + ")");
        }
    }

}
