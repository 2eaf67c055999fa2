package io.nicbridge.bench.cli.fabric;

import io.nicbridge.sim.traffic.FabricSetup;
import io.nicbridge.sim.traffic.SimConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The configuration options shared by {@code fabric run} and {@code fabric sweep}: config files
 * ({@code -c}), overrides ({@code -s key=value} or trailing {@code key=value} arguments; later wins).
 */
final class ConfigOptions {
    /** Keys the CLI reads on top of {@link FabricSetup#KEYS}. */
    static final List<String> CLI_KEYS = List.of("name", "workload", "cycles", "trace_program", "trace_size",
            "trace_nodes", "trace_receive_overhead", "cshift_packets", "cshift_barriers", "barrier_cycles",
            "sweep_loads", "sweep_from", "sweep_to", "sweep_step", "sweep_search_step", "sweep_min_step",
            "sweep_max_load", "cycle_ps", "sst_stop_cycles", "sst_ranks", "sst_loads");

    @Option(names = {"-c", "--config"}, paramLabel = "FILE",
            description = "BookSim-style config file (key = value; with // or # comments). Repeat in sweep to "
                    + "compare several fabrics on one plot.")
    List<Path> configs = new ArrayList<>();

    @Option(names = {"-s", "--set"}, paramLabel = "KEY=VALUE", description = "Override a config key (repeatable).")
    List<String> sets = new ArrayList<>();

    @Parameters(paramLabel = "KEY=VALUE", arity = "0..*", description = "More overrides, e.g. k=4 traffic=tornado.")
    List<String> trailing = new ArrayList<>();

    /** @return one configuration per config file (one empty configuration without files), overrides applied */
    List<SimConfig> load() throws IOException {
        List<SimConfig> out = new ArrayList<>();
        if (configs.isEmpty()) {
            out.add(apply(SimConfig.empty(), "default"));
        }
        for (Path p : configs) {
            String name = p.getFileName().toString().replaceFirst("\\.cfg$", "");
            out.add(apply(SimConfig.load(p), name));
        }
        return out;
    }

    private SimConfig apply(SimConfig c, String defaultName) {
        for (String s : sets) {
            c.override(s);
        }
        for (String s : trailing) {
            c.override(s);
        }
        if (!c.has("name")) {
            c.set("name", "\"" + defaultName + "\"");
        }
        List<String> known = new ArrayList<>(FabricSetup.KEYS);
        known.addAll(CLI_KEYS);
        c.requireKnown(known);
        return c;
    }
}
