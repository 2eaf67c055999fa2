package io.nicbridge.bench.unet.real;

import io.nicbridge.bench.real.InterleavedTrials;
import io.nicbridge.bench.real.RealLinks;
import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.spi.Availability;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nic unet real-flood}: {@link UnetRealFlood}. */
@Command(name = "real-flood", mixinStandardHelpOptions = true,
        description = "One-way frame rate on one veth pair between two network namespaces: the direct-access U-Net"
            + " endpoint on the AF_XDP rings, kicking the kernel every send and once per --kick-batch sends, beside"
            + " kernel UDP (one sendto per datagram) carrying the same frame, interleaved per trial. Judges issue 18's"
            + " target (64-byte frame: batched direct >= 2x kernel UDP's frames/s; median ratio with a 95%% bootstrap"
            + " interval); the exit code follows the verdict. Needs root (namespaces, XDP).")
public final class UnetRealFloodCommand implements Callable<Integer> {
    @Option(names = "--sizes", split = ",", paramLabel = "LIST", defaultValue = "42,1492",
            description = "Message bytes, 24..1492; 42 is the 64-byte frame the target names (default:"
                + " ${DEFAULT-VALUE}).")
    int[] sizes;

    @Option(names = "--duration", defaultValue = "5", paramLabel = "SECONDS",
            description = "Flood seconds per size and sender, split over the trials (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = "--trials", defaultValue = "5", description = "Trials; the senders' order rotates from trial to"
        + " trial; at least 5 to judge the target (default: ${DEFAULT-VALUE}).")
    int trials;

    @Option(names = "--kick-batch", defaultValue = "256", description = "Sends per kick of the batched direct run"
        + " (default: ${DEFAULT-VALUE}).")
    int kickBatch;

    @Option(names = "--pin", defaultValue = "no", paramLabel = "yes|no", description = "Every sender on CPU 0 and"
        + " every receiver on CPU 1, direct and UDP alike (default: ${DEFAULT-VALUE}); unpinned, a woken receiver"
        + " mostly shares its sender's CPU.")
    String pin;

    @Option(names = "--wait", defaultValue = "block", paramLabel = "block|spin", description = "How every receiver"
        + " waits, direct and UDP alike: sleeping in the socket (await, a blocking read) or busy-polling (poll,"
        + " non-blocking reads) (default: ${DEFAULT-VALUE}).")
    String wait;

    @Option(names = "--accept-inconclusive", description = "Exit 0 when no check failed but the target was"
        + " INCONCLUSIVE.")
    boolean acceptInconclusive;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try {
            if (!(seconds > 0 && seconds <= 60)) {
                throw new IllegalArgumentException("--duration must be in (0, 60] seconds, was " + seconds);
            }
            boolean pinned = switch (pin) {
                case "yes" -> true;
                case "no" -> false;
                default -> throw new IllegalArgumentException("--pin: yes or no, was '" + pin + "'");
            };
            UnetRealFlood run = new UnetRealFlood(out, sizes, Duration.ofNanos((long) (seconds * 1e9)), trials,
                kickBatch, acceptInconclusive, pinned, InterleavedTrials.spins(wait));
            String missing = RealLinks.missing();
            Availability xdp = ShimBackendProvider.xdpAvailability();
            if (missing == null && !xdp.available()) {
                missing = "AF_XDP: " + xdp.reason();
            }
            if (missing != null) {
                out.println("unet real-flood: cannot run here: " + missing);
                out.flush();
                return ExitCodes.USAGE;
            }
            return run.run();
        } catch (IllegalArgumentException e) {
            out.println("nic unet real-flood: " + e.getMessage());
            out.flush();
            return ExitCodes.USAGE;
        }
    }
}
