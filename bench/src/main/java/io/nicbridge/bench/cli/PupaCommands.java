package io.nicbridge.bench.cli;

import io.nicbridge.bench.pupa.PupaBandwidthCommand;
import io.nicbridge.bench.pupa.PupaLatencyCommand;
import io.nicbridge.bench.pupa.real.RealBandwidthCommand;
import io.nicbridge.bench.pupa.real.RealLatencyCommand;
import picocli.CommandLine.Command;

/** {@code nic pupa}: the Pupa paper's experiments (each subcommand in its own class). */
@Command(name = "pupa", mixinStandardHelpOptions = true,
        description = "The Pupa paper's experiments (Verma and Chiueh, section 3): latency and bandwidth on two emulated"
            + " DEC 21140s and the applications of Table 3 on a CSMA/CD hub, in virtual time (latency, bandwidth, apps);"
            + " in real time on native-shim 21140s across a veth pair beside kernel TCP (real-latency,"
            + " real-bandwidth).",
        subcommands = {PupaLatencyCommand.class, PupaBandwidthCommand.class, PupaAppsCommand.class,
            RealLatencyCommand.class, RealBandwidthCommand.class})
final class PupaCommands extends GroupCommand {
}
