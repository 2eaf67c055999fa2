package io.nicbridge.bench.reproduce;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One experiment of one paper as {@code nic reproduce} runs it: a few lines in {@link Experiments} each, calling the
 * experiment's own API (the same one its {@code nic} command calls) with the run's seed and size.
 *
 * @param id              unique, lower case, e.g. {@code careful-latency}; {@code --only careful,careful-latency}
 * @param paper           whose section it appears in
 * @param title           the paper's table or figure it re-runs, in a few words
 * @param command         the {@code nic} command that runs the same experiment alone (for the reader)
 * @param quickSizes      what {@code --quick} runs, stated in the report
 * @param fullSizes       what {@code --full} runs
 * @param estimateSeconds rough wall time of the quick run on a loaded 2-core machine, for the progress bar only
 * @param needs           what the machine must offer, else "not run" with the reason
 * @param figures         the paper's tables and figures its {@link Run#points()} fill
 * @param body            the run
 * @param noPaperFigure   why the paper gives no figure to set beside this experiment's, in a clause (empty: it
 *                        gives one, or the experiment's own checks compare with it)
 */
public record Experiment(String id, Paper paper, String title, String command, String quickSizes, String fullSizes,
                         double estimateSeconds, List<Need> needs, List<Figure> figures, Body body,
                         String noPaperFigure) {
    private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9-]*");

    public Experiment {
        Objects.requireNonNull(id, "id");
        if (!ID.matcher(id).matches()) {
            throw new IllegalArgumentException("id must be lower-case letters, digits and '-', was '" + id + "'");
        }
        Objects.requireNonNull(paper, "paper");
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(quickSizes, "quickSizes");
        Objects.requireNonNull(fullSizes, "fullSizes");
        if (!(estimateSeconds > 0)) {
            throw new IllegalArgumentException("estimateSeconds must be > 0, was " + estimateSeconds);
        }
        needs = List.copyOf(needs);
        figures = List.copyOf(figures);
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(noPaperFigure, "noPaperFigure");
    }

    /** An experiment with figures of the paper's, or whose checks compare with the paper themselves. */
    public Experiment(String id, Paper paper, String title, String command, String quickSizes, String fullSizes,
                      double estimateSeconds, List<Need> needs, List<Figure> figures, Body body) {
        this(id, paper, title, command, quickSizes, fullSizes, estimateSeconds, needs, figures, body, "");
    }

    /**
     * @param why why the paper gives no figure to set beside this one's, in a clause (the report says so, with it)
     * @return this experiment, saying so
     * @throws IllegalArgumentException when {@code why} is blank or the experiment declares figures
     */
    public Experiment withoutPaperFigure(String why) {
        if (why == null || why.isBlank()) {
            throw new IllegalArgumentException("say why the paper gives no figure for " + id);
        }
        if (!figures.isEmpty()) {
            throw new IllegalArgumentException(id + " declares figures of the paper's: " + figures.get(0).id());
        }
        return new Experiment(id, paper, title, command, quickSizes, fullSizes, estimateSeconds, needs, figures, body,
                why);
    }

    /** @return the figure the experiment's points name {@code id}, or null */
    public Figure figure(String figureId) {
        for (Figure f : figures) {
            if (f.id().equals(figureId)) {
                return f;
            }
        }
        return null;
    }

    /** The experiment itself: prints its tables and checks to {@link Run#out()} and returns their exit code. */
    @FunctionalInterface
    public interface Body {
        /** @return the exit code of the experiment's checks ({@link io.nicbridge.bench.verdict.ExitCodes}) */
        int run(Run run) throws Exception;
    }
}
