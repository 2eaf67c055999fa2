package io.nicbridge.bench.verdict;

/** The outcome of one check or target. */
public enum Outcome {
    /** The check passed, or the target's interval clears it. */
    PASS,
    /** The check failed, or the target's interval lies entirely on the wrong side of it. */
    FAIL,
    /** A target whose interval straddles it: the data cannot decide. */
    INCONCLUSIVE
}
