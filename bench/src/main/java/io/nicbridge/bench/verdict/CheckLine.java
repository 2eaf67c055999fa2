package io.nicbridge.bench.verdict;

import java.util.Optional;

/**
 * One check line as {@link CheckLog} prints it ({@code <kind>: <what> -> PASS|FAIL|MET|NOT MET|INCONCLUSIVE}), read
 * back from a command's output: the README's documented format, so a tool that runs a command (nic reproduce) gets
 * the same verdicts the command's exit code adds up, without the command knowing about it.
 *
 * @param kind    the check's kind
 * @param what    what was checked, with its figures
 * @param outcome its outcome ({@link Outcome#PASS} also for a target MET)
 */
public record CheckLine(CheckKind kind, String what, Outcome outcome) {

    /** @return the check on this line (leading blanks ignored), or empty when the line is not a check line (tables, comparisons, tallies) */
    public static Optional<CheckLine> parse(String text) {
        String line = text.strip(); // some commands indent their checks under a table
        for (CheckKind k : CheckKind.values()) {
            String prefix = k.label() + ": ";
            if (!line.startsWith(prefix)) {
                continue;
            }
            int arrow = line.lastIndexOf(" -> ");
            if (arrow < prefix.length()) {
                return Optional.empty();
            }
            Outcome o = switch (line.substring(arrow + 4).strip()) {
                case "PASS", "MET" -> Outcome.PASS;
                case "FAIL", "NOT MET" -> Outcome.FAIL;
                case "INCONCLUSIVE" -> Outcome.INCONCLUSIVE;
                default -> null;
            };
            return o == null ? Optional.empty() : Optional.of(new CheckLine(k, line.substring(prefix.length(), arrow), o));
        }
        return Optional.empty();
    }
}
