package io.nicbridge.bridge.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Executables;
import io.nicbridge.testing.Requirements;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What only a separate JVM can show: the shutdown hook, and the messages of a process without privileges. */
class PlatformProcessTest {
    @BeforeEach
    void requireNamespaces() {
        Availability a = VethPair.availability();
        Requirements.assume(Capability.NET, a.available(), a.reason());
    }

    @Test
    void pairNotClosedIsRemovedByTheShutdownHook() throws Exception {
        String out = runChild(List.of(), "leak");
        Matcher m = Pattern.compile("namespaces (\\S+) (\\S+)").matcher(out);
        assertTrue(m.find(), out);
        assertFalse(NetworkNamespace.exists(m.group(1)), m.group(1) + " left behind: " + out);
        assertFalse(NetworkNamespace.exists(m.group(2)), m.group(2) + " left behind: " + out);
    }

    @Test
    void withoutPrivilegesEveryStepSaysWhatIsMissing() throws Exception {
        Optional<Path> found = Executables.find("setpriv");
        Requirements.assume(Capability.SETPRIV, found.isPresent(), "setpriv (util-linux) is not on the PATH");
        Path setpriv = found.orElseThrow();
        try (NetworkNamespace ns = NetworkNamespace.create("nbP" + ProcessHandle.current().pid())) {
            String drop = "-sys_admin,-net_admin,-net_raw";
            String out = runChild(List.of(setpriv.toString(), "--bounding-set=" + drop, "--inh-caps=" + drop, "--"),
                "unprivileged", ns.name());
            Requirements.assume(Capability.SETPRIV, !out.contains("setpriv:"), () -> "setpriv cannot drop capabilities here: " + out);
            assertTrue(out.contains("available=false") && out.contains("not root")
                && out.contains("CAP_SYS_ADMIN"), out);
            assertTrue(out.contains("open: setns(" + ns.path() + ", CLONE_NEWNET) refused: EPERM")
                && out.contains("needs CAP_SYS_ADMIN"), out);
            assertTrue(out.contains("raw: socket(AF_PACKET, SOCK_RAW) refused: EPERM")
                && out.contains("CAP_NET_RAW"), out);
            ns.delete();
        }
    }

    private static String runChild(List<String> prefix, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", PlatformChild.class.getName()));
        command.addAll(List.of(args));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child finished");
        assertEquals(0, child.exitValue(), out);
        return out;
    }
}
