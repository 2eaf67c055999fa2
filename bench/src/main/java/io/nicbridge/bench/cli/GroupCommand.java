package io.nicbridge.bench.cli;

import picocli.CommandLine;

/** A command that only groups experiments ({@code nic tulip}, {@code nic medusa}, ...): alone, it prints its usage. */
@CommandLine.Command
abstract class GroupCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
