package io.nicbridge.bench.real;

import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.spi.Availability;
import java.io.PrintWriter;

/** What the real-time comparisons on a veth pair need from the machine, and how their commands refuse to run. */
public final class RealLinks {
    private RealLinks() {
    }

    /** @return why namespaces, veth pairs or the native shim are not available here, or null when they are */
    public static String missing() {
        Availability veth = VethPair.availability();
        if (!veth.available()) {
            return "network namespaces and veth pairs: " + veth.reason() + " (run as root)";
        }
        Availability shim = new ShimBackendProvider().availability();
        return shim.available() ? null : "the native shim: " + shim.reason();
    }

    /**
     * Prints {@code "<command>: cannot run here: <why>"}.
     *
     * @return {@link ExitCodes#USAGE}: nothing was measured
     */
    public static int cannotRun(PrintWriter out, String command, String why) {
        out.println(command + ": cannot run here: " + why);
        out.flush();
        return ExitCodes.USAGE;
    }
}
