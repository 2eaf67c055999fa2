package io.nicbridge.bench.unet.real;

import io.nicbridge.bench.real.RealLinks;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nic unet real-window}: {@link UnetRealBandwidth#windows}. */
@Command(name = "real-window", mixinStandardHelpOptions = true,
        description = "Figure 8 in real time: TCP bandwidth of 4096-byte writes per window size - U-Net TCP (the"
            + " IPv4 stack on U-Net over Ethernet, its rings the window) across a veth pair beside kernel TCP with"
            + " SO_SNDBUF and SO_RCVBUF set to the same window, over the same pair in the same run and over loopback;"
            + " interleaved trials, U-Net/kernel per window with a bootstrap interval. Figures, not targets; the exit"
            + " code backs the integrity check. Needs root (namespaces, AF_PACKET).")
public final class UnetRealWindowCommand implements Callable<Integer> {
    @Option(names = "--windows", split = ",", paramLabel = "LIST",
            description = "Window bytes, powers of two in 1024..65536 (default: 2048 .. 65536; --quick:"
                + " 4096,8192,65536).")
    int[] windows;

    @Mixin
    StreamTrialOptions options = new StreamTrialOptions();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        return RealLinks.run(out, "unet real-window", () -> {
            String why = options.missing();
            if (why != null) {
                return RealLinks.cannotRun(out, "unet real-window", why + " (--endpoints card runs the shim card only)");
            }
            return options.runner(out, 10000).windows(windows != null ? windows : options.quick()
                ? UnetRealBandwidth.QUICK_WINDOWS : UnetRealBandwidth.DEFAULT_WINDOWS);
        });
    }
}
