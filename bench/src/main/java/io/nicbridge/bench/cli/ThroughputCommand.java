package io.nicbridge.bench.cli;

import io.nicbridge.bench.medusa.MedusaRingCli;
import io.nicbridge.sim.capture.PcapWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nic throughput --card medusa}: the careful-protocols paper's throughput test on emulated Medusa cards and
 * the FDDI ring, in virtual time, beside the paper's Table 2.
 */
@Command(name = "throughput", mixinStandardHelpOptions = true,
        description = "Streams messages through a ring of emulated cards in virtual time; prints the ring throughput"
            + " beside the published figures (medusa: careful-protocols paper, Table 2).")
final class ThroughputCommand implements Callable<Integer> {
    @Option(names = "--card", required = true, description = "Card model: medusa.")
    String card;

    @Option(names = "--nodes", defaultValue = MedusaRingCli.DEFAULT_NODES,
            description = "Ring sizes, comma-separated (default: ${DEFAULT-VALUE}).")
    String nodes;

    @Option(names = "--words", description = "Payload sizes in 4-byte words, comma-separated, 1..2000 (default: the"
        + " paper's 1,200,1000,2000).")
    String words;

    @Option(names = "--messages", defaultValue = "400", description = "Messages per point (default: ${DEFAULT-VALUE}).")
    int messages;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the virtual world (default: ${DEFAULT-VALUE}).")
    long seed;

    @Mixin
    CaptureOptions capture = new CaptureOptions();

    @Override
    public Integer call() {
        if (!card.equals("medusa")) {
            throw new IllegalArgumentException("unknown card '" + card + "' for throughput; supported: medusa");
        }
        PcapWriter pcap = capture.openVirtual(PcapWriter.LINKTYPE_FDDI);
        try {
            return MedusaRingCli.throughput(System.out, nodes, words, messages, seed, pcap);
        } finally {
            CaptureOptions.finish(pcap, System.out);
        }
    }
}
