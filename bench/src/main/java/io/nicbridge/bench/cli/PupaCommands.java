package io.nicbridge.bench.cli;

import io.nicbridge.bench.pupa.PupaBandwidthCommand;
import io.nicbridge.bench.pupa.PupaLatencyCommand;
import picocli.CommandLine.Command;

/** {@code nic pupa}: the Pupa paper's experiments (each subcommand in its own class). */
@Command(name = "pupa", mixinStandardHelpOptions = true,
        description = "The Pupa paper's experiments (Verma and Chiueh, section 3) on emulated DEC 21140 cards.",
        subcommands = {PupaLatencyCommand.class, PupaBandwidthCommand.class, PupaAppsCommand.class})
final class PupaCommands extends GroupCommand {
}
