package io.nicbridge.bench.reproduce;

import io.nicbridge.bench.verdict.CheckKind;
import io.nicbridge.bench.verdict.CheckLine;
import io.nicbridge.bench.verdict.Outcome;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The paragraph under each experiment: composed from what the run measured (ratios, the widest gap, how many steps
 * follow the paper's, the checks that failed) and the figures' stated reasons why a comparison is or is not like for
 * like. Nothing in it is a hand-typed figure.
 */
final class Explanation {
    private Explanation() {
    }

    static String of(Result r) {
        switch (r.status()) {
            case NOT_RUN:
                return "Not run: " + r.reason() + ".";
            case ERROR:
                return "The run broke: " + r.reason() + " (its log below).";
            case INTERRUPTED:
                return "Stopped by Ctrl-C after " + r.seconds() + "; the rows measured until then are shown.";
            default:
                break;
        }
        StringBuilder b = new StringBuilder();
        Map<Figure, List<Row>> byFigure = new LinkedHashMap<>();
        for (Row row : r.rows()) {
            byFigure.computeIfAbsent(row.figure(), f -> new ArrayList<>()).add(row);
        }
        for (Map.Entry<Figure, List<Row>> e : byFigure.entrySet()) {
            figure(b, e.getKey(), e.getValue());
        }
        List<CheckLine> failed = r.checks().stream().filter(c -> c.outcome() == Outcome.FAIL).toList();
        long anchors = r.count(CheckKind.ANCHOR_CHECK, null);
        if (anchors > 0) {
            b.append(String.format(Locale.ROOT, "%d of %d anchor checks against the paper pass. ",
                    r.count(CheckKind.ANCHOR_CHECK, Outcome.PASS), anchors));
        } else if (!r.checks().isEmpty()) {
            b.append("No anchor check: the run's own checks are model self-checks and integrity checks, which say the"
                    + " simulation adds up, not that it matches the paper. ");
        }
        for (String c : r.comparisons()) {
            int at = c.indexOf(": does not hold");
            if (at > 0) {
                b.append("Not reproduced here (printed as a comparison, not a check): ").append(c, 0, at).append(". ");
            }
        }
        for (CheckLine c : failed) {
            b.append("Failed ").append(c.kind().label()).append(": ").append(c.what()).append(". ");
        }
        if (!r.experiment().noPaperFigure().isEmpty()) {
            b.append("The paper gives no figure to set beside this run's: ").append(r.experiment().noPaperFigure())
                    .append(". ");
        } else if (r.rows().isEmpty() && r.checks().isEmpty()) {
            b.append("No check and no figure of the paper's to set beside this run's: its figures are in its log,"
                    + " for the reader to compare. ");
        }
        if (r.exitCode() != 0 && failed.isEmpty()) {
            b.append("The experiment exited with code ").append(r.exitCode()).append(". ");
        }
        return b.toString().strip();
    }

    private static void figure(StringBuilder b, Figure f, List<Row> rows) {
        List<Row> both = rows.stream().filter(x -> !Double.isNaN(x.ratio())).toList();
        long missing = rows.stream().filter(x -> x.verdict() == Row.Verdict.NOT_MEASURED).count();
        b.append(f.title()).append(": ");
        if (both.isEmpty()) {
            b.append(rows.size()).append(" points of ours; the paper gives no figure to set beside them. ");
        } else {
            List<Row> sorted = both.stream().sorted(Comparator.comparingDouble(Row::ratio)).toList();
            Row low = sorted.get(0);
            Row high = sorted.get(sorted.size() - 1);
            double median = sorted.get(sorted.size() / 2).ratio();
            b.append(String.format(Locale.ROOT, "%d points beside the paper's; ours is %s the paper's (median ratio"
                    + " %.2f, from %.2f at %s to %.2f at %s). ", both.size(), median < 0.9 ? "below"
                    : median > 1.1 ? "above" : "close to", median, low.ratio(), where(low), high.ratio(), where(high)));
            if (f.isAnchor()) {
                long ok = both.stream().filter(x -> x.verdict() == Row.Verdict.AGREES).count();
                b.append(String.format(Locale.ROOT, "%d of %d lie within +-%.0f %% of %s. ", ok, both.size(),
                        100 * f.tolerance(), f.basis()));
            } else {
                long judged = both.stream().filter(x -> x.verdict().reproduced() || x.verdict().contradicts()).count();
                long same = both.stream().filter(x -> x.verdict().reproduced()).count();
                b.append(String.format(Locale.ROOT, "Judged by shape only, since %s: %d of %d steps between"
                        + " neighbouring points go the same way as the paper's", f.basis(), same, judged));
                both.stream().filter(x -> x.verdict().contradicts()).findFirst().ifPresent(x -> b.append(
                        " (the first that does not: " + where(x) + ")"));
                b.append(". ");
            }
        }
        if (missing > 0) {
            b.append(missing).append(missing == 1 ? " point has" : " points have").append(" no value of ours (the run did"
                    + " not complete there; see the checks and the log). ");
        }
    }

    private static String where(Row r) {
        return String.format(Locale.ROOT, "x = %s (%s)", Report.number(r.x()), r.series());
    }
}
