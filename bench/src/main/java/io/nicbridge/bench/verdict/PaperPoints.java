package io.nicbridge.bench.verdict;

/**
 * Where an experiment hands each point it measured, beside the paper's figure for the same point, as it prints its
 * table: the structured twin of the printed row, for {@code nic reproduce}'s report (tables, CSV, plots). An
 * experiment run from its own command gets {@link #NONE}; the experiment's logic and checks do not depend on it.
 */
@FunctionalInterface
public interface PaperPoints {
    /** Records nothing. */
    PaperPoints NONE = (figure, series, x, ours, paper) -> { };

    /**
     * @param figure the paper's table or figure the point belongs to, as the reproduce registry names it (e.g.
     *               {@code "table1"})
     * @param series the curve within it (e.g. {@code "traditional P=2"})
     * @param x      the point's abscissa in the figure's unit (message bytes, words, ...)
     * @param ours   our value, NaN when the run failed
     * @param paper  the paper's value for the same point, NaN when the paper gives none
     */
    void point(String figure, String series, double x, double ours, double paper);
}
