package io.nicbridge.bench.fabric;

import io.nicbridge.bench.verdict.CheckKind;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bench.verdict.PaperPoints;
import io.nicbridge.sim.fabric.Network;
import io.nicbridge.sim.trace.MicroBenchmarks;
import io.nicbridge.sim.trace.TraceCosts;
import io.nicbridge.sim.trace.TraceEngine;
import io.nicbridge.sim.trace.TraceResult;
import io.nicbridge.sim.traffic.FabricSetup;
import io.nicbridge.sim.traffic.NetworkFabricPorts;
import io.nicbridge.sim.traffic.SimConfig;
import java.io.PrintStream;
import java.util.Locale;

/**
 * The idempotent-messaging paper's "add" micro-benchmark (parallel prefix addition, one word on each of 4096 nodes)
 * on its three 4096-node topologies, on the fabric's buffered (lossless) wormhole network: the baseline column of its
 * Table 2a, "buffered wormhole routing on a perfect network". The idempotent protocol itself (Table 2a's other
 * column) is not built yet. Figure {@code "table2a-buffered"}: x 1, 2, 3 = 2-D grid, 3-D grid, fat tree; cycles.
 */
public final class IdempotentAddTable {
    /** The paper's topologies, as fabric configurations, with Table 2a's buffered cycles for "add". */
    private static final String[][] TOPOLOGIES = {
        {"2-D grid, 64 x 64 mesh (dimension-ordered)", "topology = mesh; k = 64; n = 2;", "814"},
        {"3-D grid, 16 x 16 x 16 mesh (dimension-ordered)", "topology = mesh; k = 16; n = 3;", "645"},
        {"fat tree, 4-ary, 4096 nodes", "topology = fattree; k = 4; n = 6;", "634"},
    };
    /** The cycle limit of each run: far above any completion seen, so a stuck run ends as a failed self-check. */
    private static final long LIMIT_CYCLES = 10_000_000;

    private IdempotentAddTable() {
    }

    /** @return the exit code of the model self-checks (each run completed, each sum correct) */
    public static int run(PrintStream out, long seed, PaperPoints points) {
        out.println("Idempotent messaging, Table 2a's buffered column: 'add' (parallel prefix addition, one word per"
                + " node) on 4096 nodes, buffered wormhole (lossless), 2 VCs x 4 flits, seed " + seed);
        out.printf(Locale.ROOT, "  %-48s %10s %10s %7s%n", "topology", "ours", "paper", "ratio");
        CheckLog checks = new CheckLog(line -> out.println("  " + line));
        for (int i = 0; i < TOPOLOGIES.length; i++) {
            SimConfig c = SimConfig.parse(TOPOLOGIES[i][1] + " workload = trace; trace_program = add;"
                    + " discipline = buffered; seed = " + seed + ";", "idempotent-add");
            Network net = FabricSetup.network(c);
            MicroBenchmarks.Program p = MicroBenchmarks.create("add", 0, 0, seed, TraceCosts.defaults());
            TraceResult r = new TraceEngine(p.trace(), new NetworkFabricPorts(net), 0).run(LIMIT_CYCLES);
            double paper = Double.parseDouble(TOPOLOGIES[i][2]);
            out.printf(Locale.ROOT, "  %-48s %10d %10.0f %7.2f   (%d nodes, %d request packets, %.1f s wall)%n",
                    TOPOLOGIES[i][0], r.completionCycle(), paper, r.completionCycle() / paper, p.trace().nodes(),
                    r.requestPackets(), r.wallNanos() / 1e9);
            checks.check(CheckKind.MODEL_SELF_CHECK, "add on the " + TOPOLOGIES[i][0] + " completed within "
                    + LIMIT_CYCLES + " cycles with the right sum", r.completed() && p.resultCorrect());
            points.point("table2a-buffered", "add, buffered wormhole", i + 1,
                    r.completed() ? r.completionCycle() : Double.NaN, paper);
        }
        return checks.finish(false);
    }
}
