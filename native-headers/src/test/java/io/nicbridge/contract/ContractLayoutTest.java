package io.nicbridge.contract;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The build's guard against drift: the committed Java bindings must match the committed C headers, as gcc sees
 * them. Runs on every build and needs only gcc.
 */
class ContractLayoutTest {

    @Test
    void bindingsAgreeWithTheHeadersAsCompiledByGcc(@TempDir Path work) throws Exception {
        LayoutChecker.Report report = new LayoutChecker(LayoutChecker.configuredGcc(), work)
                .check(LayoutChecker.configuredIncludeDir());
        assertTrue(report.passed(), report::describe);
    }

    @Test
    void manifestCoversEveryGeneratedHeader() {
        assertFalse(ContractManifest.HEADERS.isEmpty(), "the manifest lists no headers");
        for (ContractManifest.Header header : ContractManifest.HEADERS) {
            assertFalse(header.checks().isEmpty(), header.fileName() + " has no checks");
            assertTrue(header.sha256().matches("[0-9a-f]{64}"), header.fileName() + " has no SHA-256");
        }
    }
}
