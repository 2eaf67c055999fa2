package io.nicbridge.bench.reproduce;

import io.nicbridge.bench.verdict.CheckKind;
import io.nicbridge.bench.verdict.CheckLine;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bench.verdict.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * What one experiment gave: its rows beside the paper, the checks it printed, its log, its wall time and the
 * experiment's verdict.
 *
 * @param experiment the experiment
 * @param status     whether it ran
 * @param reason     why not (NOT_RUN), the error (ERROR), or empty
 * @param exitCode   the exit code of its checks (RAN), else -1
 * @param rows       its points beside the paper's, judged
 * @param checks     the check lines it printed
 * @param log        everything it printed
 * @param wall       its wall time
 */
public record Result(Experiment experiment, Status status, String reason, int exitCode, List<Row> rows,
                     List<CheckLine> checks, String log, Duration wall) {
    public Result {
        rows = List.copyOf(rows);
        checks = List.copyOf(checks);
    }

    /** @return the comparisons (not checks) the experiment printed, each without its prefix */
    public List<String> comparisons() {
        return log.lines().filter(l -> l.startsWith(CheckLog.COMPARISON_PREFIX))
                .map(l -> l.substring(CheckLog.COMPARISON_PREFIX.length())).toList();
    }

    /** Whether an experiment ran. */
    public enum Status {
        RAN, NOT_RUN, ERROR, INTERRUPTED
    }

    /** The experiment's verdict, from its checks first and its rows second. */
    public enum Verdict {
        /** Every anchor check passed (or, with none, every judged row reproduces the paper's shape). */
        SHAPE_REPRODUCED("shape reproduced"),
        /** An anchor check failed (or, with none, a judged row contradicts the paper). */
        DIFFERS("differs"),
        /** No anchor check and no judged row: only the model's own checks, which all passed. */
        NO_ANCHOR("no anchor (self-checks pass)"),
        /** No check printed and no row judged: the figures are shown for what they are. */
        NO_CHECK("no check (figures only)"),
        /** A model self-check or an integrity check failed: the run itself is wrong. */
        SELF_CHECK_FAILED("self-check failed"),
        /** Not run here (a need the machine lacks), or not in --quick. */
        NOT_RUN("not run"),
        /** The run broke with an unexpected error. */
        ERROR("error"),
        /** Stopped by Ctrl-C. */
        INTERRUPTED("interrupted");

        private final String word;

        Verdict(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }
    }

    public Verdict verdict() {
        switch (status) {
            case NOT_RUN:
                return Verdict.NOT_RUN;
            case ERROR:
                return Verdict.ERROR;
            case INTERRUPTED:
                return Verdict.INTERRUPTED;
            default:
                break;
        }
        if (count(null, Outcome.FAIL) > count(CheckKind.ANCHOR_CHECK, Outcome.FAIL)) {
            return Verdict.SELF_CHECK_FAILED;
        }
        if (count(CheckKind.ANCHOR_CHECK, Outcome.FAIL) > 0) {
            return Verdict.DIFFERS;
        }
        if (count(CheckKind.ANCHOR_CHECK, Outcome.PASS) > 0) {
            return Verdict.SHAPE_REPRODUCED;
        }
        long judged = rows.stream().filter(r -> r.verdict().reproduced() || r.verdict().contradicts()).count();
        if (judged == 0) {
            return checks.isEmpty() ? Verdict.NO_CHECK : Verdict.NO_ANCHOR;
        }
        return rows.stream().anyMatch(r -> r.verdict().contradicts()) ? Verdict.DIFFERS : Verdict.SHAPE_REPRODUCED;
    }

    /** @return what the verdict rests on, e.g. {@code 3 of 4 anchor checks pass} */
    public String basis() {
        return switch (status) {
            case NOT_RUN, ERROR -> reason;
            case INTERRUPTED -> "stopped by Ctrl-C after " + seconds();
            case RAN -> {
                long anchors = count(CheckKind.ANCHOR_CHECK, null);
                long judged = rows.stream().filter(r -> r.verdict().reproduced() || r.verdict().contradicts()).count();
                long good = rows.stream().filter(r -> r.verdict().reproduced()).count();
                StringBuilder b = new StringBuilder();
                if (anchors > 0) {
                    b.append(count(CheckKind.ANCHOR_CHECK, Outcome.PASS)).append(" of ").append(anchors)
                            .append(" anchor checks pass");
                }
                if (judged > 0) {
                    b.append(b.isEmpty() ? "" : "; ").append(good).append(" of ").append(judged)
                            .append(" rows reproduce the paper");
                }
                long beside = rows.stream().filter(r -> !Double.isNaN(r.ratio())).count();
                if (judged == 0 && beside > 0) {
                    b.append(b.isEmpty() ? "" : "; ").append(beside).append(beside == 1 ? " point" : " points")
                            .append(" beside the paper's, not judged (no neighbour to compare its direction with)");
                }
                long self = count(null, null) - anchors;
                if (self > 0) {
                    b.append(b.isEmpty() ? "" : "; ").append(self - count(null, Outcome.FAIL)
                            + count(CheckKind.ANCHOR_CHECK, Outcome.FAIL)).append(" of ").append(self)
                            .append(" self/integrity checks pass");
                }
                if (!experiment.noPaperFigure().isEmpty()) {
                    b.append(b.isEmpty() ? "" : "; ").append("no figure in the paper to compare: ")
                            .append(experiment.noPaperFigure());
                }
                yield b.isEmpty() ? "no checks printed" : b.toString();
            }
        };
    }

    /** @return checks of {@code kind} (null: any) with {@code outcome} (null: any) */
    public long count(CheckKind kind, Outcome outcome) {
        return checks.stream().filter(c -> (kind == null || c.kind() == kind)
                && (outcome == null || c.outcome() == outcome)).count();
    }

    public String seconds() {
        return String.format(Locale.ROOT, "%.1f s", wall.toMillis() / 1000.0);
    }
}
