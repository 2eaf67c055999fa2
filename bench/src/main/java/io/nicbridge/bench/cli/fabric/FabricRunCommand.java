package io.nicbridge.bench.cli.fabric;

import io.nicbridge.bench.verdict.CheckKind;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.sim.fabric.Network;
import io.nicbridge.sim.fabric.export.SstMerlinExporter;
import io.nicbridge.sim.trace.MicroBenchmarks;
import io.nicbridge.sim.trace.TraceCosts;
import io.nicbridge.sim.trace.TraceEngine;
import io.nicbridge.sim.trace.TraceResult;
import io.nicbridge.sim.traffic.CyclicShiftTraffic;
import io.nicbridge.sim.traffic.FabricSetup;
import io.nicbridge.sim.traffic.LoadResult;
import io.nicbridge.sim.traffic.NetworkFabricPorts;
import io.nicbridge.sim.traffic.NifdySyntheticTraffic;
import io.nicbridge.sim.traffic.SimConfig;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nic fabric run}: one configuration, chosen by the {@code workload} key:
 * <pre>
 *   synthetic     (default) one load point at injection_rate by the BookSim method
 *   nifdy_heavy   the NIFDY paper's heavy phased traffic for `cycles` cycles (packets delivered)
 *   nifdy_light   the light phased traffic (33 % senders, long messages, non-responsive nodes)
 *   cshift        cyclic shift all-to-all (cshift_packets per phase, cshift_barriers = 0/1)
 *   trace         a micro-benchmark trace: trace_program = add | reverse | quicksort | nbody,
 *                 trace_size (nodes or entries; 0 = the paper's size), trace_nodes
 * </pre>
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run one fabric configuration (workload = synthetic | nifdy_heavy | nifdy_light | cshift | trace).")
final class FabricRunCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions options;

    @Option(names = "--sst", paramLabel = "FILE.json",
            description = "Also write the topology and traffic as an SST/Merlin JSON model.")
    Path sst;

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        CheckLog checks = new CheckLog(line -> out.println("  " + line));
        for (SimConfig c : options.load()) {
            String workload = c.getString("workload", "synthetic").toLowerCase(Locale.ROOT);
            Network net = FabricSetup.network(c);
            out.printf("%s: %s, %s%n", c.getString("name", ""), net.topology().name(), describe(c));
            if (sst != null) {
                // Before the run, so a configuration Merlin cannot express is refused at once.
                SstMerlinExporter.write(c, c.getDouble("injection_rate", 0.1), sst);
                out.println("  SST/Merlin model (sst-core/sst-elements " + SstMerlinExporter.TARGET_RELEASE
                        + ") written to " + sst);
            }
            long seed = c.getLong("seed", 1);
            switch (workload) {
                case "synthetic" -> {
                    double load = c.getDouble("injection_rate", 0.1);
                    LoadResult r = FabricSetup.runPoint(c, load, false);
                    Tables.header(out);
                    Tables.row(out, r);
                    out.printf("  %s; %d cycles, %.2f M flit-hops/s%n", r.verdict(), r.cycles(),
                            r.flitHops() * 1e3 / Math.max(1, r.wallNanos()));
                }
                case "nifdy_heavy", "nifdy_light" -> {
                    int flits = c.getInt("packet_size", 8);
                    NifdySyntheticTraffic t = workload.equals("nifdy_heavy") ? NifdySyntheticTraffic.heavy(flits)
                            : NifdySyntheticTraffic.light(flits);
                    long cycles = c.getLong("cycles", 1_000_000);
                    NifdySyntheticTraffic.Result r = t.run(new NetworkFabricPorts(net), cycles, seed);
                    out.printf("  %s traffic: %d packets delivered in %d cycles (%d sent, %d dropped), %d phases, "
                            + "mean latency %.1f cycles%n", t.name(), r.packetsDelivered(), r.cycles(),
                            r.packetsSent(), r.packetsDropped(), r.phasesCompleted(), r.meanLatency());
                }
                case "cshift" -> {
                    CyclicShiftTraffic t = new CyclicShiftTraffic(c.getInt("packet_size", 6),
                            c.getInt("cshift_packets", 10), c.getBoolean("cshift_barriers", false),
                            c.getInt("barrier_cycles", 0));
                    CyclicShiftTraffic.Result r = t.run(new NetworkFabricPorts(net), c.getLong("cycles", 10_000_000));
                    out.printf("  cyclic shift (%s barriers): %d packets in %d cycles, most packets in flight to one "
                            + "receiver %d%n", t.barriers() ? "with" : "without", r.packetsDelivered(),
                            r.completionCycle(), r.maxPendingAtReceiver());
                    checks.check(CheckKind.MODEL_SELF_CHECK, "every phase of the cyclic shift completed within "
                            + c.getLong("cycles", 10_000_000) + " cycles", r.completed());
                }
                case "trace" -> {
                    String program = c.getString("trace_program", "add");
                    MicroBenchmarks.Program p = MicroBenchmarks.create(program, c.getInt("trace_size", 0),
                            c.getInt("trace_nodes", 0), seed, TraceCosts.defaults());
                    TraceResult r = new TraceEngine(p.trace(), new NetworkFabricPorts(net),
                            c.getInt("trace_receive_overhead", 0)).run(c.getLong("cycles", 100_000_000));
                    out.printf("  %s on %d nodes: %d cycles; %d request + %d reply packets, %d flits, %d blocks; "
                            + "%.1f s wall%n", program, p.trace().nodes(), r.completionCycle(), r.requestPackets(),
                            r.replyPackets(), r.flitsDelivered(), r.blockCount(), r.wallNanos() / 1e9);
                    checks.check(CheckKind.MODEL_SELF_CHECK, "the " + program + " trace completed within "
                            + c.getLong("cycles", 100_000_000) + " cycles", r.completed());
                    checks.check(CheckKind.MODEL_SELF_CHECK, "the " + program + " program's result is correct",
                            p.resultCorrect());
                }
                default -> throw new IllegalArgumentException("workload must be synthetic, nifdy_heavy, nifdy_light, "
                        + "cshift or trace, got '" + workload + "'");
            }
        }
        return checks.finish(false);
    }

    static String describe(SimConfig c) {
        String allocator = c.getString("allocator", "separable_input_first");
        return describeRouter(c) + (allocator.equalsIgnoreCase("separable_input_first") ? "" : ", " + allocator
                + " allocator");
    }

    private static String describeRouter(SimConfig c) {
        if (!c.getString("workload", "synthetic").equalsIgnoreCase("synthetic")) {
            return String.format(Locale.ROOT, "%s, %s, %d VCs x %d flits, workload %s",
                    c.getString("switching", "wormhole"), c.getString("discipline", "buffered"),
                    c.getInt("num_vcs", 2), c.getInt("vc_buf_size", 4), c.getString("workload", ""));
        }
        return String.format(Locale.ROOT, "%s, %s, %s traffic, %d-flit packets, %d VCs x %d flits",
                c.getString("switching", "wormhole"), c.getString("discipline", "buffered"),
                c.getString("traffic", "uniform"), c.getInt("packet_size", 4), c.getInt("num_vcs", 2),
                c.getInt("vc_buf_size", 4));
    }
}
