package io.nicbridge.bench.medusa;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;

class MedusaRingArgumentsTest {
    private static final PrintStream SINK = new PrintStream(new ByteArrayOutputStream());

    @Test
    void badArgumentsAreNamedBeforeAnythingRuns() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> MedusaRingExperiments.latency(SINK, new int[] {2, 1}, new int[] {1, 2}, 1, 1, 1));
        assertTrue(e.getMessage().contains("--nodes: 1 is outside [2, 64]"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> MedusaRingExperiments.throughput(SINK, new int[] {2}, new int[] {2001}, 10, 1));
        assertTrue(e.getMessage().contains("--words: 2001 is outside [1, 2000]"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
            () -> MedusaRingExperiments.throughput(SINK, new int[] {}, new int[] {1}, 10, 1));
        assertThrows(IllegalArgumentException.class,
            () -> MedusaRingExperiments.latency(SINK, new int[] {2}, new int[] {5, 5}, 1, 1, 1),
            "one size cannot give a slope");
        assertThrows(IllegalArgumentException.class,
            () -> MedusaRingExperiments.latency(SINK, new int[] {2}, MedusaRingExperiments.LATENCY_WORDS, 1, 0, 1));
        assertThrows(IllegalArgumentException.class,
            () -> MedusaRingExperiments.latency(SINK, new int[] {2}, MedusaRingExperiments.LATENCY_WORDS, 1, 1, 1, -1));
        assertThrows(IllegalArgumentException.class,
            () -> MedusaRingExperiments.throughput(SINK, new int[] {2}, new int[] {1}, 0, 1));
    }

    @Test
    void paperTablesAreQuotedRowsLookedUpByNodesAndWords() {
        assertEquals(84.9, PaperTables.row(PaperTables.TABLE_1_LATENCY_US, 2, 1)[3]);
        assertEquals(98.3, PaperTables.row(PaperTables.TABLE_2_THROUGHPUT_MBPS, 8, 2000)[3]);
        assertNull(PaperTables.row(PaperTables.TABLE_1_LATENCY_US, 3, 1));
    }
}
