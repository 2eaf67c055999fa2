package io.nicbridge.bench.cli;

import static io.nicbridge.contract.Dec21140.ETH_MIN_FRAME_NOFCS;

import io.nicbridge.bench.pingpong.EmulatedTulipPingPong;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.sim.dec21140.Dec21140Timing;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code nic tulip}: the DEC 21140 under the Tulip driver, on emulated cards. */
@Command(name = "tulip", aliases = "dec21140", mixinStandardHelpOptions = true,
        description = "The DEC 21140 Fast Ethernet chip under the Tulip driver, on emulated cards (for the native"
            + " shim on a real link: nic shim).",
        subcommands = TulipCommands.PingPong.class)
final class TulipCommands extends GroupCommand {

    /** {@code nic tulip pingpong}: {@link EmulatedTulipPingPong}. */
    @Command(name = "pingpong", mixinStandardHelpOptions = true,
            description = "Two emulated 21140s on one simulated Ethernet segment exchange frames of one size; prints"
                + " RTT percentiles next to a TCP loopback baseline measured in the same run. In virtual time every"
                + " simulated RTT is checked against the wire and card timing model.")
    static final class PingPong implements Callable<Integer> {
        @Option(names = "--mode", defaultValue = "inline",
                description = "How the cards run: inline, threaded or virtual (default: ${DEFAULT-VALUE}).")
        String mode;

        @Option(names = "--size", defaultValue = "64",
                description = "Frame bytes handed to the driver, destination address to payload, without the 4-byte"
                    + " FCS the card appends: " + ETH_MIN_FRAME_NOFCS + ".." + TulipDriver.MAX_FRAME
                    + " (default: ${DEFAULT-VALUE}).")
        int size;

        @Mixin
        RoundTripOptions roundTrips = new RoundTripOptions();

        @Mixin
        SeedOption seed = new SeedOption();

        @Option(names = "--idle", defaultValue = "backoff",
                description = "Threaded mode: the card threads' idle strategy: spin, yield, park, park:<nanos>,"
                    + " backoff (default: ${DEFAULT-VALUE}).")
        String idle;

        @Option(names = "--driver", defaultValue = "auto",
                description = "Driver mode: interrupt, polling or auto (inline: polling; threaded and virtual:"
                    + " interrupt).")
        String driver;

        @Mixin
        CaptureOptions capture = new CaptureOptions();

        /**
         * The card timing the virtual-time model assumes; null: the card's own. A test sets a deliberately wrong one
         * to see the model self-check fail and the exit code say so.
         */
        Dec21140Timing modelTiming;

        @Override
        public Integer call() throws Exception {
            return new EmulatedTulipPingPong(mode, idle, driver, size, roundTrips.count, roundTrips.warmup, seed.seed,
                capture.file(), modelTiming).run(System.out);
        }
    }
}
