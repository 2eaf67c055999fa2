package io.nicbridge.bench.unet.real;

import io.nicbridge.bench.real.RealLinks;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nic unet real-bandwidth}: {@link UnetRealBandwidth#sizes}. */
@Command(name = "real-bandwidth", mixinStandardHelpOptions = true,
        description = "Figure 7 (and Table 3's bandwidth column) in real time: U-Net UDP's and U-Net TCP's one-way"
            + " bandwidth per message size - the IPv4 stack on U-Net over Ethernet, two native-shim SBA-200 contracts"
            + " across a veth pair - beside kernel UDP and kernel TCP over the same pair in the same run and over"
            + " loopback; interleaved trials, U-Net/kernel per size with a bootstrap interval, UDP's losses. Figures,"
            + " not targets; the exit code backs the integrity check. Needs root (namespaces, AF_PACKET).")
public final class UnetRealBandwidthCommand implements Callable<Integer> {
    @Option(names = "--sizes", split = ",", paramLabel = "LIST",
            description = "Message bytes, 16..65536; UDP runs those up to 1472 (default: 64,256,1024,1472,4096,8192;"
                + " --quick: 256,1472,4096).")
    int[] sizes;

    @Mixin
    StreamTrialOptions options = new StreamTrialOptions();

    @Option(names = "--protocols", split = ",", defaultValue = "udp,tcp",
            description = "Which transports: udp, tcp (default: ${DEFAULT-VALUE}).")
    List<String> protocols;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        return RealLinks.run(out, "unet real-bandwidth", () -> {
            String why = options.missing();
            if (why != null) {
                return RealLinks.cannotRun(out, "unet real-bandwidth", why + " (--endpoints card runs the shim card"
                    + " only)");
            }
            boolean udp = false;
            boolean tcp = false;
            for (String p : protocols) {
                switch (p.trim().toLowerCase(Locale.ROOT)) {
                    case "udp" -> udp = true;
                    case "tcp" -> tcp = true;
                    default -> throw new IllegalArgumentException("--protocols: udp or tcp, was '" + p + "'");
                }
            }
            return options.runner(out, 20000).sizes(sizes != null ? sizes : options.quick()
                ? UnetRealBandwidth.QUICK_SIZES : UnetRealBandwidth.DEFAULT_SIZES, udp, tcp);
        });
    }
}
