package io.nicbridge.bench.cli;

import io.nicbridge.bench.unet.UnetReport;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.sba200.Sba200Timing;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code nic unet}: U-Net on two emulated Fore SBA-200s through an ATM switch, beside the U-Net paper. */
@Command(name = "unet", aliases = "sba200", mixinStandardHelpOptions = true,
        description = "U-Net on two emulated Fore SBA-200 ATM cards through an ATM switch, driven through the"
            + " bridge's U-Net API, in virtual time beside the U-Net paper's figures.",
        subcommands = {UnetCommands.PingPong.class, UnetCommands.Throughput.class})
final class UnetCommands extends GroupCommand {
    /** Virtual-time round trips per size: the simulation is deterministic, so a few suffice. */
    static final int VIRTUAL_WARMUP = 2;
    static final int VIRTUAL_COUNT = 10;

    /** {@code nic unet pingpong}: {@link UnetReport#pingpong}. */
    @Command(name = "pingpong", mixinStandardHelpOptions = true,
            description = "Round-trip time vs message size in virtual time (" + VIRTUAL_WARMUP + " warm-up + "
                + VIRTUAL_COUNT + " measured round trips per size) beside the paper's Figure 3 and its model, then the"
                + " real-time software cost per message (--count, --warmup). --sizes: message bytes, 1..6144"
                + " (default: 4 .. 5120, the points of the paper's Figures 3 and 4).")
    static final class PingPong extends VirtualRunCommand {
        @Mixin
        SizesOption sizes = new SizesOption();

        @Mixin
        RoundTripOptions roundTrips = new RoundTripOptions();

        PingPong() {
            super(PcapWriter.LINKTYPE_SUNATM);
        }

        @Override
        int run(long seed, PcapWriter pcap) {
            int[] sweep = sizes.orDefault(UnetReport.DEFAULT_SIZES);
            return UnetReport.pingpong(System.out, sweep, VIRTUAL_WARMUP, VIRTUAL_COUNT, roundTrips.warmup,
                roundTrips.count, seed, Sba200Timing.I960_25MHZ, pcap);
        }
    }

    /** {@code nic unet throughput}: {@link UnetReport#throughput}. */
    @Command(name = "throughput", mixinStandardHelpOptions = true,
            description = "One card streams messages of each size to the other: throughput vs message size in virtual"
                + " time beside the AAL5 limit and the paper's Figure 4 and Table 3 (the paper calls it bandwidth)."
                + " --sizes: message bytes, 1..6144 (default: 4 .. 5120).")
    static final class Throughput extends VirtualRunCommand {
        @Mixin
        SizesOption sizes = new SizesOption();

        @Option(names = "--messages", defaultValue = "400",
                description = "Messages per size (default: ${DEFAULT-VALUE}).")
        int messages;

        Throughput() {
            super(PcapWriter.LINKTYPE_SUNATM);
        }

        @Override
        int run(long seed, PcapWriter pcap) {
            int[] sweep = sizes.orDefault(UnetReport.DEFAULT_SIZES);
            return UnetReport.throughput(System.out, sweep, messages, seed, Sba200Timing.I960_25MHZ, pcap);
        }
    }
}
