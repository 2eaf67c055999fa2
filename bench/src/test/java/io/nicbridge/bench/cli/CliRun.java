package io.nicbridge.bench.cli;

import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** One {@code nic} command run in this JVM, its exit code and what it printed; for the real-time command tests. */
record CliRun(int exit, String out, String err) {
    static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = NicCommand.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new CliRun(exit, out.toString().replace("\r\n", "\n"), err.toString());
    }

    /** Skips (or, under NICBRIDGE_REQUIRE, fails) where the shim, namespaces or veth pairs are not available. */
    static void assumeRealLinks() {
        Availability shim = new ShimBackendProvider().availability();
        Requirements.assume(Capability.SHIM, shim.available(), shim::reason);
        Availability veth = VethPair.availability();
        Requirements.assume(Capability.NET, veth.available(), veth::reason);
    }

    /** @return the exit code the printed verdict lines add up to (a line ending in the verdict, not a legend) */
    int expectedExit() {
        if (out.contains("-> NOT MET\n") || out.contains("-> FAIL\n")) {
            return ExitCodes.CHECK_FAILED;
        }
        return out.contains("-> INCONCLUSIVE\n") ? ExitCodes.INCONCLUSIVE : ExitCodes.OK;
    }
}
