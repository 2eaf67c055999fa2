package io.nicbridge.bench.reproduce;

import java.util.Objects;

/**
 * One of a paper's tables or figures as the report draws it: the axes the paper uses, our curve over the paper's
 * points, and how a row of ours is judged against the paper's.
 *
 * <p>Two kinds of judgement, as for the commands' checks ({@link io.nicbridge.bench.verdict.CheckKind}):
 * <ul>
 *   <li>{@link #anchor}: the comparison is like for like, so each row's ratio ours/paper must lie within
 *       {@code 1 +- tolerance} (an anchor check, naming its source);</li>
 *   <li>{@link #shape}: it is not (the paper's figure includes host software or hardware the run does not model), so
 *       only the curve's shape is judged: between a row and the previous row of the same series, ours must change in
 *       the same direction as the paper's (a change within {@link Row#FLAT} either way counts as flat).</li>
 * </ul>
 *
 * @param id        the name the experiment's {@link io.nicbridge.bench.verdict.PaperPoints} uses, e.g. {@code table1}
 * @param title     the paper's caption, e.g. {@code "Table 1 / Figure 1: latency, time per hop"}
 * @param xAxis     the paper's x axis with its unit
 * @param yAxis     the paper's y axis with its unit
 * @param unit      the unit of y in the report's tables
 * @param logX      whether the x axis is logarithmic (as in the paper's plot)
 * @param tolerance for an anchor, the allowed relative deviation of the ratio from 1; NaN for a shape comparison
 * @param basis     for an anchor, the source it is compared with; for a shape, why the values are not like for like
 * @param logY      whether the plot's y axis is logarithmic: for a shape comparison whose values and the paper's lie
 *                  orders of magnitude apart (another era's CPU), so that both curves show; values of 0 are then
 *                  left out of the plot (never out of the table)
 */
public record Figure(String id, String title, String xAxis, String yAxis, String unit, boolean logX,
                     double tolerance, String basis, boolean logY) {
    public Figure {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(xAxis, "xAxis");
        Objects.requireNonNull(yAxis, "yAxis");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(basis, "basis");
        if (!Double.isNaN(tolerance) && !(tolerance > 0)) {
            throw new IllegalArgumentException("tolerance must be > 0 or NaN (a shape comparison), was " + tolerance);
        }
    }

    /** A figure with a linear y axis. */
    public Figure(String id, String title, String xAxis, String yAxis, String unit, boolean logX, double tolerance,
                  String basis) {
        this(id, title, xAxis, yAxis, unit, logX, tolerance, basis, false);
    }

    /** @return this figure with a logarithmic y axis */
    public Figure withLogY() {
        return new Figure(id, title, xAxis, yAxis, unit, logX, tolerance, basis, true);
    }

    /** A like-for-like figure: each row's ratio must be within {@code 1 +- tolerance} of the paper's. */
    public static Figure anchor(String id, String title, String xAxis, String yAxis, String unit, boolean logX,
                                double tolerance, String source) {
        if (Double.isNaN(tolerance)) {
            throw new IllegalArgumentException("an anchor needs a tolerance, got NaN");
        }
        return new Figure(id, title, xAxis, yAxis, unit, logX, tolerance, source);
    }

    /** A figure compared by shape only, with the reason the values are not like for like. */
    public static Figure shape(String id, String title, String xAxis, String yAxis, String unit, boolean logX,
                               String whyNotLikeForLike) {
        return new Figure(id, title, xAxis, yAxis, unit, logX, Double.NaN, whyNotLikeForLike);
    }

    public boolean isAnchor() {
        return !Double.isNaN(tolerance);
    }
}
