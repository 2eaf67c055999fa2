package io.nicbridge.bench.reproduce;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One point of ours beside the paper's, judged by its {@link Figure}'s rule.
 *
 * @param figure  the figure it belongs to
 * @param series  the curve, e.g. {@code trad P=2}
 * @param x       the abscissa in the figure's x unit
 * @param ours    our value (NaN: the run failed at this point)
 * @param paper   the paper's value (NaN: the paper gives none here)
 * @param verdict the row's verdict
 */
public record Row(Figure figure, String series, double x, double ours, double paper, Verdict verdict) {
    /** A relative change below this counts as flat when comparing the direction of two curves. */
    public static final double FLAT = 0.02;

    /** @return ours / paper, NaN when either is missing */
    public double ratio() {
        return Double.isNaN(ours) || Double.isNaN(paper) || paper == 0 ? Double.NaN : ours / paper;
    }

    /** A row's verdict: its word in the report and whether it counts for or against the paper's result. */
    public enum Verdict {
        /** Anchor: the ratio lies within the figure's tolerance. */
        AGREES("agrees"),
        /** Anchor: it does not. */
        DIFFERS("differs"),
        /** Shape: ours moves the same way as the paper's since the series' previous row. */
        SHAPE_REPRODUCED("shape reproduced"),
        /** Shape: it does not. */
        SHAPE_DIFFERS("shape differs"),
        /** Shape: the first row of a series with a paper value, where the comparison starts. */
        FIRST("first point"),
        /** The paper gives no value here: ours is shown for the curve only. */
        NO_PAPER_VALUE("no paper value"),
        /** Our run failed at this point. */
        NOT_MEASURED("not measured");

        private final String word;

        Verdict(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }

        /** @return whether the row agrees with the paper (AGREES or SHAPE_REPRODUCED) */
        public boolean reproduced() {
            return this == AGREES || this == SHAPE_REPRODUCED;
        }

        /** @return whether the row contradicts the paper (DIFFERS or SHAPE_DIFFERS) */
        public boolean contradicts() {
            return this == DIFFERS || this == SHAPE_DIFFERS;
        }
    }

    /** A point as the experiment handed it, before judging. */
    record Point(Figure figure, String series, double x, double ours, double paper) {
    }

    /**
     * Judges every point by its figure's rule, in the order they were measured; a shape row is compared with the
     * previous row of the same figure and series that has both values.
     */
    static List<Row> judge(List<Point> points) {
        List<Row> rows = new ArrayList<>(points.size());
        Map<String, Point> previous = new HashMap<>();
        for (Point p : points) {
            Verdict v;
            if (Double.isNaN(p.ours())) {
                v = Verdict.NOT_MEASURED;
            } else if (Double.isNaN(p.paper())) {
                v = Verdict.NO_PAPER_VALUE;
            } else if (p.figure().isAnchor()) {
                v = Math.abs(p.ours() / p.paper() - 1) <= p.figure().tolerance() ? Verdict.AGREES : Verdict.DIFFERS;
            } else {
                String key = p.figure().id() + '\u0000' + p.series();
                Point before = previous.put(key, p);
                if (before == null) {
                    v = Verdict.FIRST;
                } else {
                    v = direction(before.ours(), p.ours()) == direction(before.paper(), p.paper())
                            ? Verdict.SHAPE_REPRODUCED : Verdict.SHAPE_DIFFERS;
                }
            }
            rows.add(new Row(p.figure(), p.series(), p.x(), p.ours(), p.paper(), v));
        }
        return rows;
    }

    /** @return -1, 0 or +1: down, flat (within {@link #FLAT}) or up from {@code a} to {@code b} */
    static int direction(double a, double b) {
        double scale = Math.max(Math.abs(a), Math.abs(b));
        if (scale == 0 || Math.abs(b - a) <= FLAT * scale) {
            return 0;
        }
        return b > a ? 1 : -1;
    }
}
