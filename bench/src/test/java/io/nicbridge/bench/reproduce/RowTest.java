package io.nicbridge.bench.reproduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class RowTest {
    private static final Figure ANCHOR = Figure.anchor("a", "A", "x", "y", "us", false, 0.10, "the paper's Table 9");
    private static final Figure SHAPE = Figure.shape("s", "S", "x", "y", "us", false, "host software not modelled");

    private static List<Row.Verdict> verdicts(Row.Point... points) {
        return Row.judge(List.of(points)).stream().map(Row::verdict).toList();
    }

    @Test
    void anAnchorRowAgreesOnlyWithinItsTolerance() {
        assertEquals(List.of(Row.Verdict.AGREES, Row.Verdict.AGREES, Row.Verdict.DIFFERS, Row.Verdict.DIFFERS),
                verdicts(new Row.Point(ANCHOR, "a", 1, 109, 100), new Row.Point(ANCHOR, "a", 2, 91, 100),
                        new Row.Point(ANCHOR, "a", 3, 111, 100), new Row.Point(ANCHOR, "a", 4, 50, 100)));
    }

    @Test
    void aShapeRowFollowsThePapersDirectionSinceTheSameSeriesPreviousRow() {
        assertEquals(List.of(Row.Verdict.FIRST, Row.Verdict.FIRST, Row.Verdict.SHAPE_REPRODUCED,
                        Row.Verdict.SHAPE_DIFFERS, Row.Verdict.SHAPE_REPRODUCED, Row.Verdict.SHAPE_DIFFERS),
                verdicts(new Row.Point(SHAPE, "up", 1, 10, 100), new Row.Point(SHAPE, "other", 1, 5, 5),
                        new Row.Point(SHAPE, "up", 2, 20, 300),      // both rise, by very different amounts
                        new Row.Point(SHAPE, "up", 3, 19, 400),      // ours falls, the paper's rises
                        new Row.Point(SHAPE, "other", 2, 5.05, 5.04), // both flat (within 2 %)
                        new Row.Point(SHAPE, "other", 3, 7, 5.0)));   // ours rises, the paper's is flat
    }

    @Test
    void missingValuesAreNeitherForNorAgainst() {
        List<Row> rows = Row.judge(List.of(new Row.Point(ANCHOR, "a", 1, Double.NaN, 100),
                new Row.Point(ANCHOR, "a", 2, 100, Double.NaN)));
        assertEquals(List.of(Row.Verdict.NOT_MEASURED, Row.Verdict.NO_PAPER_VALUE), rows.stream().map(Row::verdict)
                .toList());
        assertEquals(Double.NaN, rows.get(0).ratio());
    }

    @Test
    void anAnchorWithoutAToleranceIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Figure.anchor("a", "A", "x", "y", "us", false, Double.NaN, "src"));
        assertEquals("an anchor needs a tolerance, got NaN", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Figure("a", "A", "x", "y", "us", false, -1, "src"));
    }
}
