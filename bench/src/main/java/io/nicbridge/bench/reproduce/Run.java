package io.nicbridge.bench.reproduce;

import io.nicbridge.bench.verdict.PaperPoints;
import io.nicbridge.bridge.cost.CostTable;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * What one experiment run gets from {@code nic reproduce}.
 *
 * @param out    where the experiment prints its tables and check lines (kept in the report as its log; the check
 *               lines are read back from it, see {@link io.nicbridge.bench.verdict.CheckLine})
 * @param seed   the run's seed
 * @param quick  whether to run the reduced sizes ({@link Experiment#quickSizes()})
 * @param costs  the host cost table virtual-time runs charge their nodes from
 * @param points where the experiment hands each point beside the paper's
 * @param dir    a directory of the experiment's own for files it writes (plots of its own, captures)
 */
public record Run(PrintStream out, long seed, boolean quick, CostTable costs, PaperPoints points, Path dir) {
}
