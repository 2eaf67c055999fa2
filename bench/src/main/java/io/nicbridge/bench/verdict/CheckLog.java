package io.nicbridge.bench.verdict;

import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The checks one command run makes: each is printed as one line that starts with its kind
 * ({@code model self-check:}, {@code anchor check:}, {@code integrity check:}) and ends with its outcome, and all
 * of them add up to the command's exit code ({@link ExitCodes}). Comparisons that are not checks (a paper figure that
 * includes host software our model does not simulate) are printed with {@link #comparison} and do not count.
 */
public final class CheckLog {
    /** What starts a comparison's line ({@link #comparison}). */
    public static final String COMPARISON_PREFIX = "comparison (not a check): ";

    private final Consumer<String> out;
    private int passed;
    private int failed;
    private int inconclusive;

    /** @param out where each line goes, e.g. {@code System.out::println} */
    public CheckLog(Consumer<String> out) {
        this.out = Objects.requireNonNull(out, "out");
    }

    /**
     * Records and prints a pass/fail check: {@code <kind>: <what> -> PASS|FAIL}.
     *
     * @return {@code pass}
     */
    public boolean check(CheckKind kind, String what, boolean pass) {
        record(kind, what, pass ? Outcome.PASS : Outcome.FAIL, pass ? "PASS" : "FAIL");
        return pass;
    }

    /**
     * Records and prints a target judged on an interval: {@code <kind>: <what> -> MET|NOT MET|INCONCLUSIVE}.
     */
    public void target(CheckKind kind, String what, Outcome outcome) {
        record(kind, what, outcome, switch (outcome) {
            case PASS -> "MET";
            case FAIL -> "NOT MET";
            case INCONCLUSIVE -> "INCONCLUSIVE";
        });
    }

    private void record(CheckKind kind, String what, Outcome outcome, String word) {
        Objects.requireNonNull(kind, "kind");
        switch (outcome) {
            case PASS -> passed++;
            case FAIL -> failed++;
            case INCONCLUSIVE -> inconclusive++;
        }
        out.accept(kind.label() + ": " + what + " -> " + word);
    }

    /** Prints a comparison that is not a check (not like for like): both figures and why; the exit code ignores it. */
    public void comparison(String text) {
        out.accept(COMPARISON_PREFIX + text);
    }

    public int passed() {
        return passed;
    }

    public int failed() {
        return failed;
    }

    public int inconclusive() {
        return inconclusive;
    }

    /**
     * @param acceptInconclusive whether an undecided target may exit 0
     * @return {@link ExitCodes#CHECK_FAILED} if any check failed, else {@link ExitCodes#INCONCLUSIVE} if any target
     *         was undecided (unless accepted), else {@link ExitCodes#OK}
     */
    public int exitCode(boolean acceptInconclusive) {
        if (failed > 0) {
            return ExitCodes.CHECK_FAILED;
        }
        return inconclusive > 0 && !acceptInconclusive ? ExitCodes.INCONCLUSIVE : ExitCodes.OK;
    }

    /** Prints the tally and the exit code it gives, and returns that code. */
    public int finish(boolean acceptInconclusive) {
        int code = exitCode(acceptInconclusive);
        out.accept(String.format(Locale.ROOT, "checks: %d passed, %d failed, %d inconclusive%s -> exit code %d",
            passed, failed, inconclusive, inconclusive > 0 && acceptInconclusive && failed == 0
                ? " (accepted by --accept-inconclusive)" : "", code));
        return code;
    }
}
