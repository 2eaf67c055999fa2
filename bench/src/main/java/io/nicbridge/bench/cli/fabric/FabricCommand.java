package io.nicbridge.bench.cli.fabric;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code nic fabric}: the MPP interconnect simulator from the command line. {@code run} measures
 * one configuration (a load point, a NIFDY workload, a cyclic shift or a micro-benchmark trace);
 * {@code sweep} draws latency-vs-load curves and finds saturation throughput.
 */
@Command(name = "fabric", mixinStandardHelpOptions = true,
        description = "Flit-level MPP fabrics: run one configuration or sweep offered load.",
        subcommands = {FabricRunCommand.class, FabricSweepCommand.class, CommandLine.HelpCommand.class})
public final class FabricCommand implements Runnable {
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
