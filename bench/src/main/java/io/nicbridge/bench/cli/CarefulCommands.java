package io.nicbridge.bench.cli;

import io.nicbridge.bench.careful.CarefulExperiments;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bench.verdict.ExitCodes;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nic careful}: TR 94-14's four experiments with both C* protocols on rings of emulated Medusas. */
@Command(name = "careful", mixinStandardHelpOptions = true,
        description = "The careful-protocols paper's four experiments (TR 94-14 section 6.1) with the traditional and"
            + " the careful C* protocol on rings of exactly P emulated Medusa FDDI cards, in virtual time, host work"
            + " charged by a cost table, beside the paper's Tables 1-4.",
        subcommands = {CarefulCommands.Latency.class, CarefulCommands.Throughput.class,
            CarefulCommands.Flood.class, CarefulCommands.Jacobi.class})
final class CarefulCommands extends GroupCommand {

    /** The options every careful experiment takes. */
    abstract static class Experiment implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        SeedOption seed = new SeedOption();

        @Option(names = "--costs", defaultValue = "zero", paramLabel = "zero|measured|FILE", description = "Host cost"
            + " table the nodes' CPUs are charged from (default: ${DEFAULT-VALUE}: wire time only).")
        String costs;

        @Option(names = "--nodes", paramLabel = "LIST", description = "Ring sizes P, comma-separated, 2..8"
            + " (default: 2,4,8, the paper's).")
        String nodes;

        @Option(names = "--quick", description = "Reduced sizes and repetitions (stated in the output).")
        boolean quick;

        @Override
        public final Integer call() {
            CostTable table;
            try {
                table = CostTable.named(costs);
            } catch (IllegalArgumentException | IllegalStateException e) {
                error("--costs: " + e.getMessage());
                return ExitCodes.USAGE;
            }
            int[] p = nodes == null ? defaultNodes() : SizeList.parse("--nodes", nodes);
            CarefulExperiments.Settings settings;
            try {
                settings = new CarefulExperiments.Settings(table, p, seed.seed, quick);
            } catch (IllegalArgumentException e) {
                error(e.getMessage());
                return ExitCodes.USAGE;
            }
            try {
                return run(settings);
            } catch (IllegalArgumentException e) {
                // a core refused the table: it does not price one of the core's operations (the table's own message)
                error(e.getMessage());
                return ExitCodes.RUN_ERROR;
            }
        }

        /** The ring sizes without {@code --nodes}: the paper's. */
        int[] defaultNodes() {
            return CarefulExperiments.NODES.clone();
        }

        void error(String message) {
            spec.commandLine().getErr().println("nic careful " + spec.name() + ": " + message);
        }

        abstract int run(CarefulExperiments.Settings settings);
    }

    @Command(name = "latency", mixinStandardHelpOptions = true, description = "Table 1 / Figure 1: one message"
        + " around the ring, time per hop, 1 / 1000 / 2000 words, both protocols, without and with processing."
        + " With --medium shim: the same test and the same two cores in real time on native-shim 21140s on a Linux"
        + " bridge of veth pairs (1 / 100 / 350 words, P = 2,3,4 by default; needs root).")
    static final class Latency extends Experiment {
        @Option(names = "--medium", defaultValue = "medusa", paramLabel = "medusa|shim", description = "medusa: the"
            + " emulated Medusa ring in virtual time, beside the paper; shim: native-shim 21140s on a bridged veth"
            + " segment in real time (default: ${DEFAULT-VALUE}).")
        String medium;

        @Override
        int[] defaultNodes() {
            return "shim".equals(medium) ? CarefulExperiments.SHIM_NODES.clone() : super.defaultNodes();
        }

        @Override
        int run(CarefulExperiments.Settings s) {
            switch (medium) {
                case "medusa":
                    return CarefulExperiments.latency(System.out, s);
                case "shim":
                    String missing = CarefulExperiments.missingShimPrerequisite();
                    if (missing != null) {
                        error("--medium shim cannot run here: " + missing);
                        return ExitCodes.USAGE;
                    }
                    return CarefulExperiments.latencyOnShim(System.out, s);
                default:
                    error("--medium: medusa or shim, not '" + medium + "'");
                    return ExitCodes.USAGE;
            }
        }
    }

    @Command(name = "throughput", mixinStandardHelpOptions = true, description = "Table 2 / Figure 2: node 0 to"
        + " P-1 through the intermediates, 1 / 200 / 1000 / 2000 words, normalised to the ring; plus the"
        + " one-on-board-buffer variant.")
    static final class Throughput extends Experiment {
        @Override
        int run(CarefulExperiments.Settings s) {
            return CarefulExperiments.throughput(System.out, s);
        }
    }

    @Command(name = "flooding", mixinStandardHelpOptions = true, description = "Table 3: broadcasts of k fragments,"
        + " consumption after n events (n x k = 10x16 / 10x8 / 10x4), with the bounded livelock / deadlock verdict.")
    static final class Flood extends Experiment {
        @Override
        int run(CarefulExperiments.Settings s) {
            return CarefulExperiments.flooding(System.out, s);
        }
    }

    @Command(name = "jacobi", mixinStandardHelpOptions = true, description = "Table 4: a 2-D Jacobi iteration (grids"
        + " 8x8..64x64, P = 1 and the rings), rows exchanged every iteration, the answer checked against one node.")
    static final class Jacobi extends Experiment {
        @Override
        int run(CarefulExperiments.Settings s) {
            return CarefulExperiments.jacobi(System.out, s);
        }
    }
}
