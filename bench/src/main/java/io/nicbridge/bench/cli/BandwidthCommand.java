package io.nicbridge.bench.cli;

import io.nicbridge.bench.unet.UnetReport;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.sba200.Sba200Timing;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nic bandwidth}: one card streams messages of each size to another; prints the bandwidth versus message
 * size in virtual time beside the paper's figure and the AAL5 limit, with its model self-checks and the anchor check
 * of the paper's 800-byte saturation; exits 1 when one fails.
 */
@Command(name = "bandwidth", mixinStandardHelpOptions = true,
        description = "Streams messages between two emulated cards; prints bandwidth vs message size in virtual time"
            + " beside the paper's published figures.")
final class BandwidthCommand implements Callable<Integer> {
    static final List<String> CARDS = List.of("sba200");

    @Option(names = "--card", required = true, description = "Card model: ${COMPLETION-CANDIDATES}.",
            completionCandidates = CardNames.class)
    String card;

    @Option(names = "--sizes", description = "Message sizes in bytes, comma-separated (default: 4 .. 5120, the points"
            + " of the U-Net paper's Figure 4).")
    String sizes;

    @Option(names = "--messages", defaultValue = "400", description = "Messages per size (default: ${DEFAULT-VALUE}).")
    int messages;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the virtual world (default: ${DEFAULT-VALUE}).")
    long seed;

    @Mixin
    CaptureOptions capture = new CaptureOptions();

    static final class CardNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return CARDS.iterator();
        }
    }

    @Override
    public Integer call() {
        if (!CARDS.contains(card)) {
            throw new IllegalArgumentException("unknown card '" + card + "'; bandwidth supports: " + String.join(", ", CARDS));
        }
        if (messages < 1) {
            throw new IllegalArgumentException("--messages must be at least 1, was " + messages);
        }
        int[] sweep = sizes == null ? UnetReport.DEFAULT_SIZES : UnetReport.parseSizes(sizes);
        PcapWriter pcap = capture.openVirtual(PcapWriter.LINKTYPE_SUNATM);
        try {
            return UnetReport.bandwidth(System.out, sweep, messages, seed, Sba200Timing.I960_25MHZ, pcap);
        } finally {
            CaptureOptions.finish(pcap, System.out);
        }
    }
}
