package io.nicbridge.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Without the native shim library the generated wrappers throw an IllegalStateException naming what was looked
 * for and how to get it - every time, not just on the first call. Runs in a child JVM because the lookup happens
 * once per JVM (holder class) and must not poison later tests that load the real library.
 */
class NicShimLibraryMissingTest {

    private static final String PROGRAM = """
            import io.nicbridge.contract.NicShim;

            public class CallWithoutLibrary {
                public static void main(String[] args) {
                    System.out.println("order " + NicShim.BYTE_ORDER); // constants need no library
                    for (int i = 0; i < 2; i++) {
                        try {
                            NicShim.abiVersion();
                            System.out.println("no exception");
                        } catch (IllegalStateException e) {
                            System.out.println("ISE " + e.getMessage());
                        }
                    }
                }
            }
            """;

    private static List<String> run(Path dir, String... properties) throws Exception {
        Path program = dir.resolve("CallWithoutLibrary.java");
        Files.writeString(program, PROGRAM, StandardCharsets.UTF_8);
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path")));
        command.addAll(List.of(properties));
        command.add(program.toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "child JVM did not finish");
        assertEquals(0, process.exitValue(), output);
        return output.lines().toList();
    }

    @Test
    void configuredPathThatDoesNotExist(@TempDir Path dir) throws Exception {
        List<String> lines = run(dir, "-Dnicbridge.shim.library=/nonexistent/libnicshim.so");
        assertEquals("order " + java.nio.ByteOrder.nativeOrder(), lines.getFirst());
        assertEquals(3, lines.size(), String.join("\n", lines));
        for (String line : lines.subList(1, 3)) {
            assertTrue(line.startsWith("ISE native shim library nicshim not available: /nonexistent/libnicshim.so"
                    + " (from -Dnicbridge.shim.library) does not exist."), line);
            assertTrue(line.contains("./mvnw -B -pl native-headers package"), line);
            assertTrue(line.contains("native-headers/target/classes/native/linux-x86_64/libnicshim.so"), line);
        }
    }

    @Test
    void notOnTheLibraryPath(@TempDir Path dir) throws Exception {
        Path emptyLibraryDir = Files.createDirectory(dir.resolve("lib"));
        List<String> lines = run(dir, "-Djava.library.path=" + emptyLibraryDir);
        String line = lines.get(1);
        assertTrue(line.startsWith("ISE native shim library nicshim not available: "
                + System.mapLibraryName("nicshim") + " is not on java.library.path [" + emptyLibraryDir + "]"), line);
        assertTrue(line.contains("-Dnicbridge.shim.library=/path/to/" + System.mapLibraryName("nicshim")), line);
    }
}
