package io.nicbridge.bench.cli;

import io.nicbridge.bench.pupa.apps.Table3;
import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.cost.CostTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nic pupa apps}: Table 3, the four parallel programs on a 10-node Pupa cluster on one shared hub. */
@Command(name = "apps", mixinStandardHelpOptions = true, description = "Table 3: LES (Laplace solver), GEL (Gaussian"
    + " elimination), LRS and SRS (long- and short-range particle dynamics) on 10 emulated 21140s on one half-duplex"
    + " CSMA/CD hub, in virtual time, with secondary send pools of 64 KB and 48 KB; each answer checked against the"
    + " one-node program, the fourteen counters beside the paper's.")
final class PupaAppsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    SeedOption seed = new SeedOption();

    @Option(names = "--costs", defaultValue = "measured", paramLabel = "zero|measured|FILE", description = "Host cost"
        + " table the nodes' CPUs are charged from (default: ${DEFAULT-VALUE}); it must price Pupa's operations.")
    String costs;

    @Option(names = "--app", paramLabel = "LIST", description = "Programs, comma-separated, of LES, LRS, SRS, GEL"
        + " (default: all four).")
    String apps;

    @Option(names = "--pools", paramLabel = "KB,...", description = "Secondary send pool sizes in KB (default: 64,48,"
        + " the paper's two).")
    String pools;

    @Option(names = "--scale", paramLabel = "X", description = "Problem size relative to the default, in (0, 4]"
        + " (default 1; --quick: 0.1).")
    Double scale;

    @Option(names = "--rto-ms", paramLabel = "MS", description = "Pupa's retransmission timeout (default 200 ms; the"
        + " paper gives none).")
    Double rtoMs;

    @Option(names = "--per-node", description = "Also print every node's Pupa counters after each run.")
    boolean perNode;

    @Option(names = "--quick", description = "Small problems (scale 0.1, stated in the output).")
    boolean quick;

    private static final String DRIVER_LOG_LEVEL = "org.slf4j.simpleLogger.log.io.nicbridge.bridge.driver";

    @Override
    public Integer call() {
        // every run opens and closes ten drivers: their INFO lines would bury the table
        if (System.getProperty(DRIVER_LOG_LEVEL) == null) {
            System.setProperty(DRIVER_LOG_LEVEL, "warn");
        }
        CostTable table;
        try {
            table = CostTable.named(costs);
        } catch (IllegalArgumentException | IllegalStateException e) {
            return usage("--costs: " + e.getMessage());
        }
        List<String> names = new ArrayList<>();
        if (apps == null) {
            names.addAll(Table3.APPS);
        } else {
            for (String a : apps.split(",")) {
                names.add(a.trim().toUpperCase(Locale.ROOT));
            }
        }
        double x = scale != null ? scale : quick ? 0.1 : 1.0;
        Table3.Settings settings;
        try {
            int[] kb = pools == null ? Table3.POOLS_KB.clone() : SizeList.parse("--pools", pools);
            long rto = rtoMs == null ? Table3.DEFAULT_RTO_NANOS : Math.round(rtoMs * 1e6);
            settings = new Table3.Settings(table, seed.seed, names, kb, x, rto, perNode);
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        }
        try {
            return Table3.run(System.out, settings);
        } catch (IllegalArgumentException e) {
            // the cost table does not price one of Pupa's operations (the table's own message)
            spec.commandLine().getErr().println("nic pupa apps: " + e.getMessage());
            return ExitCodes.RUN_ERROR;
        }
    }

    private int usage(String message) {
        spec.commandLine().getErr().println("nic pupa apps: " + message);
        return ExitCodes.USAGE;
    }
}
