package io.nicbridge.bench.medusa;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class MedusaRingCliTest {
    @Test
    void listsAreParsedAndBadElementsNamed() {
        assertArrayEquals(new int[] {2, 4, 8}, MedusaRingCli.nodes("2, 4,8"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MedusaRingCli.nodes("2,1"));
        assertTrue(e.getMessage().contains("--nodes: 1 is outside [2, 64]"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> MedusaRingCli.words("1,x", null));
        assertTrue(e.getMessage().contains("'x' is not a number"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> MedusaRingCli.words("2001", null));
        assertThrows(IllegalArgumentException.class, () -> MedusaRingCli.nodes(""));
        assertThrows(IllegalArgumentException.class,
            () -> MedusaRingCli.latency(System.out, "2", "5,5", 1, 1, 1), "one size cannot give a slope");
        assertThrows(IllegalArgumentException.class, () -> MedusaRingCli.latency(System.out, "2", null, 1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> MedusaRingCli.throughput(System.out, "2", null, 0, 1));
    }

    @Test
    void paperTablesAreQuotedRowsLookedUpByNodesAndWords() {
        assertEquals(84.9, PaperTables.row(PaperTables.TABLE_1_LATENCY_US, 2, 1)[3]);
        assertEquals(98.3, PaperTables.row(PaperTables.TABLE_2_THROUGHPUT_MBPS, 8, 2000)[3]);
        assertNull(PaperTables.row(PaperTables.TABLE_1_LATENCY_US, 3, 1));
    }
}
