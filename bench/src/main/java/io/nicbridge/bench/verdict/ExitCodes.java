package io.nicbridge.bench.verdict;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The exit codes of every {@code nic} command. A command's printed verdict and its exit code say the same thing:
 * 0 only when every check it printed passed. Every command's {@code --help} lists them.
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
    /**
     * Part of the experiment could not run here now - a row whose run lost a message, or rows skipped for want of
     * AF_XDP - and the command printed why; what did run is printed and checked as usual.
     */
    public static final int INCOMPLETE = 5;

    /** The codes and what they mean, for the commands' help (picocli format strings: {@code %%} is a percent sign). */
    public static final Map<String, String> HELP = helpText();

    private ExitCodes() {
    }

    private static Map<String, String> helpText() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(Integer.toString(OK), "every check the command printed passed (or it printed none)");
        m.put(Integer.toString(CHECK_FAILED), "a check failed: model self-check, anchor check, integrity check or a"
            + " target NOT MET");
        m.put(Integer.toString(USAGE), "bad input or a missing prerequisite; nothing was measured");
        // A picocli help text is a format string: a literal percent sign is %%.
        m.put(Integer.toString(INCONCLUSIVE), "no check failed, but a target was INCONCLUSIVE (its 95%% interval"
            + " straddles it); nic shim pingpong --accept-inconclusive makes this 0");
        m.put(Integer.toString(RUN_ERROR), "the run broke with an unexpected error (stack trace on stderr)");
        m.put(Integer.toString(INCOMPLETE), "part of the experiment could not run here now (a row lost a message, or"
            + " rows needing AF_XDP were skipped); the reason is printed (nic unet table3 --ethernet)");
        return Collections.unmodifiableMap(m);
    }
}
