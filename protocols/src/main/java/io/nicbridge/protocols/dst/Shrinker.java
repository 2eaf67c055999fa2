package io.nicbridge.protocols.dst;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Shrinks a failing {@link Schedule} to a smaller one that still fails the same way: delta debugging over its
 * faults (drop halves, then quarters, ... then single faults, keeping every removal that still fails), then fewer
 * messages per node, then fewer nodes, then the faults once more. Every candidate is a real schedule run from
 * scratch, so the result replays on its own. The predicate says "still fails the same way"; the number of runs is
 * bounded.
 */
public final class Shrinker {
    private final Predicate<Schedule> stillFails;
    private final int maxRuns;
    private int runs;

    public Shrinker(Predicate<Schedule> stillFails, int maxRuns) {
        this.stillFails = stillFails;
        this.maxRuns = maxRuns;
    }

    /** @return the smallest failing schedule found (the input itself when nothing smaller fails) */
    public Schedule shrink(Schedule failing) {
        Schedule best = shrinkFaults(failing);
        best = shrinkMessages(best);
        while (best.nodes() > 2 && tryRun(best.withNodes(best.nodes() - 1))) {
            best = best.withNodes(best.nodes() - 1);
        }
        best = shrinkMessages(best);
        return shrinkFaults(best);
    }

    /** @return schedules run while shrinking */
    public int runs() {
        return runs;
    }

    private Schedule shrinkMessages(Schedule s) {
        Schedule best = s;
        int m = best.messagesPerNode();
        while (m > 0) { // halve while it fails, then step down one at a time
            int half = m / 2;
            if (half < m && tryRun(best.withMessages(half))) {
                best = best.withMessages(half);
                m = half;
            } else if (tryRun(best.withMessages(m - 1))) {
                best = best.withMessages(m - 1);
                m--;
            } else {
                break;
            }
        }
        return best;
    }

    private Schedule shrinkFaults(Schedule s) {
        List<Fault> faults = new ArrayList<>(s.faults());
        int chunks = 2;
        while (faults.size() >= 1 && chunks <= 2 * faults.size()) {
            int chunk = Math.max(1, (faults.size() + chunks - 1) / chunks);
            boolean removed = false;
            for (int start = 0; start < faults.size(); ) {
                List<Fault> without = new ArrayList<>(faults.subList(0, start));
                without.addAll(faults.subList(Math.min(faults.size(), start + chunk), faults.size()));
                if (tryRun(s.withFaults(without))) {
                    faults = without;
                    removed = true;
                } else {
                    start += chunk;
                }
            }
            if (!removed) {
                if (chunk == 1) {
                    break;
                }
                chunks *= 2;
            }
        }
        return s.withFaults(faults);
    }

    private boolean tryRun(Schedule candidate) {
        if (runs >= maxRuns) {
            return false;
        }
        runs++;
        return stillFails.test(candidate);
    }
}
