package io.nicbridge.bench.cli;

import picocli.CommandLine.Command;

/** {@code nic pupa}: the Pupa paper's experiments on emulated DEC 21140s. */
@Command(name = "pupa", mixinStandardHelpOptions = true,
        description = "The Pupa paper's experiments (Chiueh and Verma, section 3) on emulated DEC 21140 cards.",
        subcommands = {PupaAppsCommand.class})
final class PupaCommands extends GroupCommand {
}
