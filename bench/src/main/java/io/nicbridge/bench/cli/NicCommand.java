package io.nicbridge.bench.cli;

import io.nicbridge.bench.calibrate.CalibrateCommand;
import io.nicbridge.bench.cli.fabric.FabricCommand;
import io.nicbridge.bench.reproduce.ReproduceCommand;
import io.nicbridge.bench.simtest.SimTestCommand;
import io.nicbridge.bench.verdict.ExitCodes;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code nic} command line: the entry point that {@code ./nic} runs. */
@Command(
        name = "nic",
        mixinStandardHelpOptions = true,
        versionProvider = NicCommand.Version.class,
        description = "nicbridge: user-level network interfaces of five classic papers on the Java FFM API.",
        subcommands = {ReproduceCommand.class, InfoCommand.class, TulipCommands.class, ShimCommands.class, UnetCommands.class, TcpCommands.class,
                MedusaCommands.class, CarefulCommands.class, PupaCommands.class, FabricCommand.class, SimTestCommand.class, CalibrateCommand.class,
                LegacyCommandLines.PingPong.class, LegacyCommandLines.Bandwidth.class, LegacyCommandLines.Throughput.class, CommandLine.HelpCommand.class})
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
     * The command line with its error handling and exit codes ({@link ExitCodes}): bad input given to a command (an
     * {@link IllegalArgumentException} from it) prints one line, the command's full name and the problem, and exits
     * with {@link ExitCodes#USAGE} instead of a stack trace; any other exception is a broken run, printed with its
     * stack trace, {@link ExitCodes#RUN_ERROR} (not 1, which says a check failed). Commands return their checks' code.
     */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new NicCommand());
        cl.setExecutionExceptionHandler((ex, cmd, parseResult) -> {
            if (ex instanceof IllegalArgumentException) {
                cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": " + ex.getMessage());
                return ExitCodes.USAGE;
            }
            ex.printStackTrace(cmd.getErr());
            return ExitCodes.RUN_ERROR;
        });
        documentExitCodes(cl);
        return cl;
    }

    /** Every command's help ends with the exit codes. */
    private static void documentExitCodes(CommandLine cl) {
        cl.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(ExitCodes.HELP);
        cl.getSubcommands().values().forEach(NicCommand::documentExitCodes);
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
