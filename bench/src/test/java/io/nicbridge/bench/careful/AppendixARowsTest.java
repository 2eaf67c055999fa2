package io.nicbridge.bench.careful;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.medusa.PaperTables;
import io.nicbridge.bridge.cost.CostTable;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AppendixARowsTest {
    record Point(String figure, String series, double x, double ours, double paper) {
    }

    /** Every operation priced at (its place in the list) ns, so each row's value says which operation it is. */
    private static Map<String, Long> priced() {
        Map<String, Long> ps = new HashMap<>();
        int[] place = {0};
        PaperTables.APPENDIX_A_TRADITIONAL_CYCLES.keySet().forEach(op -> ps.put("traditional." + op,
                1_000L * ++place[0]));
        place[0] = 0;
        PaperTables.APPENDIX_A_CAREFUL_CYCLES.keySet().forEach(op -> ps.put("careful." + op, 1_000L * ++place[0]));
        return ps;
    }

    @Test
    void theOperationsGoBesideThePapersCyclesInItsOrderWithEachProtocolsTotal() {
        assertEquals(1418, PaperTables.APPENDIX_A_TRADITIONAL_CYCLES.values().stream().mapToInt(i -> i).sum(),
                "the paper's traditional total");
        assertEquals(151, PaperTables.APPENDIX_A_CAREFUL_CYCLES.values().stream().mapToInt(i -> i).sum(),
                "the paper's careful total");
        List<Point> points = new ArrayList<>();
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        AppendixARows.print(new PrintStream(text, true, StandardCharsets.UTF_8),
                CostTable.measured().withOperations(priced(), Map.of()),
                (figure, series, x, ours, paper) -> points.add(new Point(figure, series, x, ours, paper)));
        assertEquals(16 + 6 + 2, points.size());
        assertEquals(new Point("appendix-a", "traditional", 1, 1, 7 * 20), points.get(0), "decide-ack-flag first");
        assertEquals(new Point("appendix-a", "traditional", 11, 11, 779 * 20), points.get(10), "implicit-ack");
        assertEquals(new Point("appendix-a", "careful", 6, 6, 4 * 20), points.get(21), "skip-copy-out last");
        assertEquals(new Point("appendix-a-totals", "extra operations per protocol", 1, 136, 1418 * 20),
                points.get(22));
        assertEquals(new Point("appendix-a-totals", "extra operations per protocol", 2, 21, 151 * 20),
                points.get(23));
        assertTrue(text.toString(StandardCharsets.UTF_8).contains("traditional - careful: 115.0 ns (paper 25340 ns"),
                text.toString(StandardCharsets.UTF_8));
    }

    @Test
    void anOperationTheTableDoesNotPriceIsNamed() {
        // the built-in measured table prices every operation: the same without one
        CostTable lacking = CostTable.parse(CostTable.measured().format("test")
                .replaceAll("(?m)^(rule\\.)?op\\.careful\\.track-last-event[. ].*$", ""), "test");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> AppendixARows.print(
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), lacking,
                (figure, series, x, ours, paper) -> { }));
        assertTrue(e.getMessage().startsWith("the measured table prices no careful.track-last-event"), e.getMessage());
    }
}
