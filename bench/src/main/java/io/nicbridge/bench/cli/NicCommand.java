package io.nicbridge.bench.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code nic} command line: the entry point that {@code ./nic} runs. */
@Command(
        name = "nic",
        mixinStandardHelpOptions = true,
        versionProvider = NicCommand.Version.class,
        description = "nicbridge: user-level network interfaces of five classic papers on the Java FFM API.",
        subcommands = {InfoCommand.class, io.nicbridge.bench.cli.fabric.FabricCommand.class, CommandLine.HelpCommand.class})
public final class NicCommand implements Runnable {
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new NicCommand()).execute(args));
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
