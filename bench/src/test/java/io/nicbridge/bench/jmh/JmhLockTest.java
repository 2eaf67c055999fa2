package io.nicbridge.bench.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.spi.Availability;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** JMH's lock seen as JMH sees it: free, held by another process, free again when that process lets it go. */
class JmhLockTest {
    @Test
    void aLockHeldByAnotherProcessIsReportedWithItsPath(@TempDir Path dir) throws Exception {
        Path lock = dir.resolve("jmh.lock");
        assertTrue(JmhLock.availability(lock).available(), "nobody holds a fresh lock");
        try (LockHolder other = LockHolder.start(lock)) {
            Availability held = JmhLock.availability(lock);
            assertFalse(held.available());
            assertEquals("another JMH run holds " + lock, held.reason());
            assertFalse(JmhLock.availability(lock).available(), "looking does not take it away from its holder");
        }
        assertTrue(JmhLock.availability(lock).available(), "free again once the other run has finished");
    }

    @Test
    void thePathIsJmhsOwn() {
        assertEquals(Path.of(System.getProperty("java.io.tmpdir"), "jmh.lock"), JmhLock.path());
    }
}
