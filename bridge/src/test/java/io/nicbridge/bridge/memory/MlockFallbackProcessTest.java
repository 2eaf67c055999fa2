package io.nicbridge.bridge.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Executables;
import io.nicbridge.testing.Requirements;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The honest mlock failure path: a real child JVM whose RLIMIT_MEMLOCK is 0 and that has no CAP_IPC_LOCK
 * (dropped with setpriv even when the tests run as root), so the kernel itself refuses mlock.
 */
class MlockFallbackProcessTest {
    @Test
    void childWithoutMemlockAllowanceRunsUnpinnedAndWarnsExactlyOnce() throws Exception {
        Requirements.assume(Capability.SETPRIV, System.getProperty("os.name", "").toLowerCase().contains("linux"),
            "setpriv and prlimit are Linux's; this is " + System.getProperty("os.name"));
        Path prlimit = Executables.find("prlimit").orElse(null);
        Path setpriv = Executables.find("setpriv").orElse(null);
        Requirements.assume(Capability.SETPRIV, prlimit != null && setpriv != null,
            "prlimit and setpriv (util-linux) are not both on the PATH");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = List.of(prlimit.toString(), "--memlock=0:0",
            setpriv.toString(), "--bounding-set=-ipc_lock", "--inh-caps=-ipc_lock", "--",
            java, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", MlockRefusedChild.class.getName());
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child finished");
        Requirements.assume(Capability.SETPRIV, !out.contains("setpriv:"), () -> "setpriv cannot drop capabilities here: " + out);
        assertEquals(0, child.exitValue(), out);
        assertTrue(out.contains("probe permitted=false errno=1 soft=0"), out);
        assertTrue(out.contains("a pinned=false errno=1"), out);
        assertTrue(out.contains("b pinned=false errno=1"), out);
        assertTrue(out.contains("byte=7"), "unpinned memory works: " + out);
        int warnings = out.split("mlock not permitted \\(", -1).length - 1;
        assertEquals(1, warnings, "one warning per process: " + out);
        assertTrue(out.contains("RLIMIT_MEMLOCK=0 bytes") && out.contains("ulimit -l") && out.contains("CAP_IPC_LOCK"),
            out);
    }
}
