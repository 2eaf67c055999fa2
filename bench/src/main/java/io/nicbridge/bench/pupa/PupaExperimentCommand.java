package io.nicbridge.bench.pupa;

import io.nicbridge.bench.cli.SizeList;
import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.sim.ethernet.EthernetMode;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The options of the virtual-time Pupa experiments ({@code nic pupa latency}, {@code nic pupa bandwidth}): the cost
 * table, the sizes, the seed, the segment's medium and the quick variant; bad values exit 2 with the option named.
 */
abstract class PupaExperimentCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--costs", defaultValue = "measured", paramLabel = "zero|measured|FILE", description = "Host cost"
        + " table the nodes' CPUs are charged from (default: ${DEFAULT-VALUE}; zero = wire and card time only).")
    String costs;

    @Option(names = "--sizes", paramLabel = "LIST", description = "Message sizes in bytes, comma-separated (default:"
        + " the paper's).")
    String sizes;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the virtual world (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--medium", defaultValue = "hub", paramLabel = "hub|ideal|switched", description = "How the"
        + " segment is shared (default: ${DEFAULT-VALUE}, the paper's half-duplex CSMA/CD hub).")
    String medium;

    @Option(names = "--quick", description = "Reduced sizes and counts (stated in the output).")
    boolean quick;

    @Override
    public final Integer call() {
        CostTable table;
        EthernetMode mode;
        int[] list;
        try {
            table = CostTable.named(costs);
            mode = medium(medium);
            list = sizes == null ? null : SizeList.parse("--sizes", sizes);
        } catch (IllegalArgumentException | IllegalStateException e) {
            return usage(e.getMessage());
        }
        try {
            return run(table, list, mode);
        } catch (IllegalArgumentException e) {
            // bad settings, or the table does not price an operation the core charges (the table's own message)
            return usage(e.getMessage());
        }
    }

    /** @return the experiment's exit code; {@code sizes} null for the default sizes */
    abstract int run(CostTable table, int[] sizes, EthernetMode medium);

    private int usage(String message) {
        spec.commandLine().getErr().println("nic pupa " + spec.name() + ": " + message);
        return ExitCodes.USAGE;
    }

    private static EthernetMode medium(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "hub" -> EthernetMode.HUB;
            case "ideal" -> EthernetMode.IDEAL;
            case "switched" -> EthernetMode.SWITCHED;
            default -> throw new IllegalArgumentException("--medium must be hub, ideal or switched, was '" + name + "'");
        };
    }
}
