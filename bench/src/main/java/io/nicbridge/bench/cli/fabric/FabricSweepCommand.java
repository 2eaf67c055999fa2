package io.nicbridge.bench.cli.fabric;

import io.nicbridge.sim.traffic.FabricSetup;
import io.nicbridge.sim.traffic.LoadResult;
import io.nicbridge.sim.traffic.LoadSweep;
import io.nicbridge.sim.traffic.SimConfig;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nic fabric sweep}: for each config, a latency-vs-load curve over a load grid (points past
 * saturation included, to show accepted throughput there) and the saturation throughput by the
 * load-sweep method (halving the step at each unstable point). Keys:
 * <pre>
 *   sweep_loads = {0.1, 0.2};          or sweep_from / sweep_to / sweep_step (default 0.05 .. 1.0 by 0.05)
 *   sweep_search_step = 0.1;  sweep_min_step = 0.0125;  sweep_max_load = 1.0;
 * </pre>
 * Prints a table per config and, with {@code --plot PREFIX}, writes PREFIX-latency.png,
 * PREFIX-throughput.png and (when packets were dropped) PREFIX-drops.png. Progress goes to stderr.
 */
@Command(name = "sweep", mixinStandardHelpOptions = true,
        description = "Latency-vs-load curves and saturation throughput (BookSim load-sweep method).")
final class FabricSweepCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions options;

    @Option(names = "--plot", paramLabel = "PREFIX", description = "Write PREFIX-latency.png, PREFIX-throughput.png "
            + "(and PREFIX-drops.png).")
    Path plot;

    @Option(names = "--csv", paramLabel = "FILE", description = "Write every point as CSV.")
    Path csv;

    @Option(names = "--no-curve", description = "Only search for saturation.")
    boolean noCurve;

    @Option(names = "--no-saturation", description = "Only run the load grid.")
    boolean noSaturation;

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        List<FabricPlots.Series> series = new ArrayList<>();
        StringBuilder csvText = new StringBuilder("name,offered,created,accepted_avg,accepted_min,packet_latency,"
                + "network_latency,max_latency,hops,drop_rate,stable,kind\n");
        boolean anyDrops = false;
        for (SimConfig c : options.load()) {
            String name = c.getString("name", "fabric");
            out.printf("%s: %s, %s%n", name, FabricSetup.topology(c).name(), FabricRunCommand.describe(c));
            List<LoadResult> curve = List.of();
            if (!noCurve) {
                double step = c.getDouble("sweep_step", 0.05);
                double[] loads = c.getDoubleList("sweep_loads",
                        LoadSweep.grid(c.getDouble("sweep_from", step), c.getDouble("sweep_to", 1.0), step));
                long t0 = System.nanoTime();
                curve = LoadSweep.curve(load -> FabricSetup.runPoint(c, load, false), loads,
                        (i, r) -> progress(name, "curve", i + 1, loads.length, r, t0));
                out.println("  load curve:");
                Tables.header(out);
                for (LoadResult r : curve) {
                    Tables.row(out, r);
                    csv(csvText, name, r, "curve");
                    anyDrops |= r.droppedPackets() > 0;
                }
                LoadResult peak = curve.stream().max(java.util.Comparator.comparingDouble(LoadResult::acceptedMinimum))
                        .orElseThrow();
                LoadResult last = curve.get(curve.size() - 1);
                out.printf(Locale.ROOT, "  peak min-accepted %.4f at offered %.4f; at offered %.4f: min %.4f avg %.4f "
                                + "(%.0f %% of peak)%n", peak.acceptedMinimum(), peak.offeredLoad(), last.offeredLoad(),
                        last.acceptedMinimum(), last.acceptedAverage(),
                        100 * last.acceptedMinimum() / Math.max(1e-12, peak.acceptedMinimum()));
            }
            List<LoadResult> all = new ArrayList<>(curve);
            if (!noSaturation) {
                long t0 = System.nanoTime();
                int[] count = {0};
                LoadSweep.Saturation s = LoadSweep.saturation(load -> FabricSetup.runPoint(c, load, true),
                        c.getDouble("sweep_search_step", 0.1), c.getDouble("sweep_min_step", 0.0125),
                        c.getDouble("sweep_max_load", 1.0), (i, r) -> progress(name, "search", ++count[0], 0, r, t0));
                for (LoadResult r : s.points()) {
                    csv(csvText, name, r, "search");
                }
                if (s.saturationResult() == null) {
                    out.printf(Locale.ROOT, "  saturation: below the first step (%.4f)%n",
                            c.getDouble("sweep_search_step", 0.1));
                } else {
                    LoadResult r = s.saturationResult();
                    out.printf(Locale.ROOT, "  saturation throughput: %.4f flits/node/cycle offered (accepted avg %.4f, "
                                    + "min %.4f, latency %s cycles) after %d search points%n", s.saturationLoad(),
                            r.acceptedAverage(), r.acceptedMinimum(), Tables.latency(r, r.packetLatency()),
                            s.points().size());
                }
                if (curve.isEmpty()) {
                    all.addAll(s.points());
                }
            }
            series.add(new FabricPlots.Series(name, all));
        }
        if (plot != null) {
            Path lat = FabricPlots.latency(series, Path.of(plot + "-latency.png"));
            Path thr = FabricPlots.throughput(series, Path.of(plot + "-throughput.png"));
            out.println("plots: " + lat + " " + thr);
            if (anyDrops) {
                out.println("       " + FabricPlots.drops(series, Path.of(plot + "-drops.png")));
            }
        }
        if (csv != null) {
            Files.writeString(csv, csvText);
            out.println("csv: " + csv);
        }
        return 0;
    }

    private static void progress(String name, String phase, int i, int n, LoadResult r, long t0) {
        System.err.printf(Locale.ROOT, "[%s] %s %d%s: load %.4f -> latency %s, accepted %.4f (min %.4f)%s, %.1f s%n",
                name, phase, i, n > 0 ? "/" + n : "", r.offeredLoad(), Tables.latency(r, r.packetLatency()), r.acceptedAverage(),
                r.acceptedMinimum(), r.stable() ? "" : " unstable", (System.nanoTime() - t0) / 1e9);
    }

    private static void csv(StringBuilder sb, String name, LoadResult r, String kind) {
        // latency, max latency and hops stay empty when no measured packet completed
        boolean none = r.measuredPackets() == 0;
        sb.append(String.format(Locale.ROOT, "%s,%.6f,%.6f,%.6f,%.6f,%s,%s,%s,%s,%.6f,%s,%s%n", name,
                r.offeredLoad(), r.offeredMeasured(), r.acceptedAverage(), r.acceptedMinimum(),
                none ? "" : String.format(Locale.ROOT, "%.3f", r.packetLatency()),
                none ? "" : String.format(Locale.ROOT, "%.3f", r.networkLatency()),
                none ? "" : Long.toString(r.maxPacketLatency()),
                none ? "" : String.format(Locale.ROOT, "%.4f", r.hops()), r.dropRate(), r.stable(), kind));
    }
}
