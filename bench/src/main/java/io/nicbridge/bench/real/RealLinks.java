package io.nicbridge.bench.real;

import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.spi.Availability;
import java.io.PrintWriter;
import java.util.concurrent.Callable;

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
     * @return why the direct-access U-Net endpoint (an AF_XDP socket with the shim's XDP program) cannot run here on top
     *     of {@link #missing()}, or null when it can
     */
    public static String missingXdp() {
        String why = missing();
        if (why != null) {
            return why;
        }
        Availability xdp = ShimBackendProvider.xdpAvailability();
        return xdp.available() ? null : "AF_XDP (the direct endpoint): " + xdp.reason();
    }

    /**
     * Runs a real-time command's body where the machine offers what it needs: otherwise prints why and returns
     * {@link ExitCodes#USAGE}; a bad argument (an {@link IllegalArgumentException} from the body, naming it) prints
     * {@code "nic <command>: <message>"} and returns {@link ExitCodes#USAGE} too - nothing was measured either way.
     *
     * @param command the command's words, e.g. "unet real-latency"
     */
    public static int run(PrintWriter out, String command, Callable<Integer> body) throws Exception {
        String why = missing();
        if (why != null) {
            return cannotRun(out, command, why);
        }
        try {
            return body.call();
        } catch (IllegalArgumentException e) {
            out.println("nic " + command + ": " + e.getMessage());
            out.flush();
            return ExitCodes.USAGE;
        }
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
