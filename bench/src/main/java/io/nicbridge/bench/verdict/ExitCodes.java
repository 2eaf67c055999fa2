package io.nicbridge.bench.verdict;

/**
 * The exit codes of every {@code nic} command. A command's printed verdict and its exit code say the same thing:
 * 0 only when every check it printed passed. {@code nic --help} lists them (NicCommand).
 */
public final class ExitCodes {
    /** Every check the command printed passed (or it printed none). */
    public static final int OK = 0;
    /** At least one check failed: a model self-check, an anchor check, an integrity check or a target NOT MET. */
    public static final int CHECK_FAILED = 1;
    /** Bad input or a missing prerequisite (unknown card, bad option value, no raw sockets here); nothing measured. */
    public static final int USAGE = 2;
    /** No check failed, but at least one target could not be decided (its confidence interval straddles it). */
    public static final int INCONCLUSIVE = 3;
    /** The run itself broke with an unexpected error (printed with its stack trace). */
    public static final int RUN_ERROR = 4;

    private ExitCodes() {
    }
}
