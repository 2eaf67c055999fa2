package io.nicbridge.bench.cli;

import io.nicbridge.bench.cli.fabric.FabricCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code nic} command line: the entry point that {@code ./nic} runs. */
@Command(
        name = "nic",
        mixinStandardHelpOptions = true,
        versionProvider = NicCommand.Version.class,
        description = "nicbridge: user-level network interfaces of five classic papers on the Java FFM API.",
        subcommands = {InfoCommand.class, PingPongCommand.class, BandwidthCommand.class, ThroughputCommand.class,
                FabricCommand.class, CommandLine.HelpCommand.class})
public final class NicCommand implements Runnable {
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The command line with its error handling: bad input given to a command (an {@link IllegalArgumentException}
     * from it) prints one line naming the problem and exits with 2 instead of a stack trace.
     */
    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new NicCommand());
        cl.setExecutionExceptionHandler((ex, cmd, parseResult) -> {
            if (ex instanceof IllegalArgumentException) {
                cmd.getErr().println("nic " + cmd.getCommandName() + ": " + ex.getMessage());
                return 2;
            }
            throw ex;
        });
        return cl;
    }

    /** Reports the version recorded in the jar manifest, or "development" when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = NicCommand.class.getPackage().getImplementationVersion();
            return new String[] {"nicbridge " + (v == null ? "development build" : v)};
        }
    }
}
