package io.nicbridge.bench.unet.real;

import io.nicbridge.bench.real.RealLinks;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
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

    @Option(names = "--count", description = "4096-byte writes per window, stack and trial (default: 10000;"
        + " --quick: 1000).")
    Integer count;

    @Option(names = "--trials", description = "Interleaved trials (default: 5; --quick: 3).")
    Integer trials;

    @Option(names = "--no-loopback", description = "Leave out the kernel over loopback.")
    boolean noLoopback;

    @Option(names = "--quick", description = "A short run (fewer windows, writes and trials).")
    boolean quick;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        return RealLinks.run(out, "unet real-window", () -> new UnetRealBandwidth(out, count != null ? count
            : quick ? 1000 : 10000, trials != null ? trials : quick ? 3 : 5, !noLoopback).windows(windows != null
            ? windows : quick ? UnetRealBandwidth.QUICK_WINDOWS : UnetRealBandwidth.DEFAULT_WINDOWS));
    }
}
