package io.nicbridge.bench.verdict;

/** What a check compares against; its label starts the check's output line. */
public enum CheckKind {
    /**
     * The simulation adds up to its own timing model (or to a figure that follows from the model's parameters by
     * construction). Useful to catch regressions; it says nothing about whether the model is right.
     */
    MODEL_SELF_CHECK("model self-check"),
    /**
     * Comparison with an independent figure - a datasheet, a paper, a kernel measurement - named with its source
     * and tolerance, where the comparison is like for like.
     */
    ANCHOR_CHECK("anchor check"),
    /** A real-time run's data arrived whole: every frame once and in order, or counted where it was dropped. */
    INTEGRITY_CHECK("integrity check");

    private final String label;

    CheckKind(String label) {
        this.label = label;
    }

    /** @return the prefix of the check's output line, e.g. {@code model self-check} */
    public String label() {
        return label;
    }
}
