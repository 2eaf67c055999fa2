package io.nicbridge.bridge.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CostTableTest {
    private static String table(String extra, String... without) {
        StringBuilder sb = new StringBuilder("name = t\ncommand = by hand\nmachine = none\ndate = 2026-11-24\n");
        for (CostItem item : CostItem.values()) {
            if (!java.util.List.of(without).contains(item.key())) {
                sb.append(item.key()).append(" = ").append(item.ordinal() * 10 + 1).append('\n');
            }
        }
        return sb.append(extra).toString();
    }

    @Test
    void zeroIsBuiltInAndFree() {
        CostTable z = CostTable.zero();
        assertSame(z, CostTable.named("zero"));
        for (CostItem item : CostItem.values()) {
            assertEquals(0, z.picos(item));
        }
        assertTrue(z.describe().startsWith("host cost table zero (built in"), z.describe());
    }

    @Test
    void aTableFileGivesEveryItemItsPrice() {
        CostTable t = CostTable.parse(table("rule.copy = memcpy slope\n"), "test");
        assertEquals("t", t.name());
        assertEquals(CostItem.COPY.ordinal() * 10 + 1, t.picos(CostItem.COPY));
        assertEquals("memcpy slope", t.rule(CostItem.COPY));
        assertEquals("by hand", t.command());
        assertEquals("copy.ps-per-byte", CostItem.COPY.key());
        assertEquals("pio-word.ps-per-word", CostItem.PIO_WORD.key());
        CostTable again = CostTable.parse(t.format("a comment\nsecond line"), "again");
        for (CostItem item : CostItem.values()) {
            assertEquals(t.picos(item), again.picos(item), item.key());
        }
        assertEquals(t.rule(CostItem.COPY), again.rule(CostItem.COPY));
    }

    @Test
    void badTablesAreRefusedNamingTheKey() {
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> CostTable.parse(table("", "checksum.ps-per-byte"), "f")).getMessage()
                .contains("checksum.ps-per-byte"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> CostTable.parse(table("").replace("copy.ps-per-byte = 61", "copy.ps-per-byte = -1"), "f"))
                .getMessage().contains(">= 0"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> CostTable.parse(table("").replace("copy.ps-per-byte = 61", "copy.ps-per-byte = 1.5"), "f"))
                .getMessage().contains("whole picoseconds"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> CostTable.parse(table("fudge = 3\n"), "f")).getMessage().contains("fudge"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> CostTable.parse(table("").replace("machine = none\n", ""), "f")).getMessage()
                .contains("machine"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CostTable.named("/no/such/table"))
                .getMessage().contains("neither zero, measured"));
    }

    @Test
    void aFileIsLoadedByPath(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("older.costs");
        Files.writeString(f, table(""));
        CostTable t = CostTable.named(f.toString());
        assertEquals("t", t.name());
        assertTrue(t.describe().contains(f.toString()), t.describe());
    }

    /** The committed table says how, where and when it was made, and prices every item. */
    @Test
    void theMeasuredTableIsCommittedWithItsCommandMachineAndDate() {
        CostTable m = CostTable.named("measured");
        assertEquals("measured", m.name());
        assertTrue(m.command().startsWith("./nic calibrate"), m.command());
        assertNotNull(m.machine());
        assertTrue(m.date().matches("\\d{4}-\\d{2}-\\d{2}T.*"), m.date());
        for (CostItem item : CostItem.values()) {
            assertNotNull(m.rule(item), "rule of " + item.key());
        }
        assertTrue(m.picos(CostItem.HANDLER_DISPATCH) > 0 && m.picos(CostItem.INTERRUPT) > 0, m.describe());
    }

    /** Operations added to a table keep its items and stamp, replace earlier prices, and round-trip the file format. */
    @Test
    void operationsAreAddedWithoutTouchingTheItems() {
        CostTable m = CostTable.named("measured");
        CostTable t = m.withOperations(Map.of("x.op", 1234L), Map.of("x.op", "how x.op was measured"));
        assertEquals(1234L, t.operationPicos("x.op"));
        assertEquals("how x.op was measured", t.operationRule("x.op"));
        assertEquals(m.date(), t.date());
        assertEquals(m.command(), t.command());
        for (CostItem item : CostItem.values()) {
            assertEquals(m.picos(item), t.picos(item), item.key());
        }
        CostTable again = t.withOperations(Map.of("x.op", 7L), Map.of());
        assertEquals(7L, again.operationPicos("x.op"));
        assertEquals(null, again.operationRule("x.op"), "a replaced price loses the old rule");
        CostTable parsed = CostTable.parse(t.format("round trip"), "round trip");
        assertEquals(1234L, parsed.operationPicos("x.op"));
        assertThrows(IllegalArgumentException.class,
                () -> m.withOperations(Map.of("y", -1L), Map.of()));
        assertThrows(IllegalArgumentException.class,
                () -> CostTable.zero().withOperations(Map.of("y", 1L), Map.of()));
    }
}
