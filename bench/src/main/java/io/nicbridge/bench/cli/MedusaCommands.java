package io.nicbridge.bench.cli;

import io.nicbridge.bench.medusa.MedusaRingExperiments;
import io.nicbridge.sim.capture.PcapWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code nic medusa}: the careful-protocols paper's ring tests on emulated HP Medusa cards, in virtual time. */
@Command(name = "medusa", mixinStandardHelpOptions = true,
        description = "The careful-protocols paper's ring tests on emulated HP Medusa FDDI cards on a timed-token"
            + " ring of exactly the participating stations, in virtual time, beside its Tables 1 and 2.",
        subcommands = {MedusaCommands.Latency.class, MedusaCommands.Throughput.class})
final class MedusaCommands extends GroupCommand {

    /** {@code --nodes} and {@code --words}: the rings and payloads of a Medusa sweep (a picocli mixin). */
    static final class RingOptions {
        @Option(names = "--nodes", paramLabel = "LIST", description = "Ring sizes P, comma-separated, 2..64 (default:"
            + " 2,4,8, the paper's).")
        String nodes;

        @Option(names = "--words", paramLabel = "LIST", description = "Payload sizes in 4-byte words, comma-separated,"
            + " 1..2000 (default: latency 1,100,250,500,1000,1500,2000; throughput the paper's 1,200,1000,2000).")
        String words;

        int[] nodes() {
            return nodes == null ? MedusaRingExperiments.NODES.clone() : SizeList.parse("--nodes", nodes);
        }

        int[] words(int[] defaults) {
            return words == null ? defaults.clone() : SizeList.parse("--words", words);
        }
    }

    /** {@code nic medusa latency}: the paper's latency test, a message around the ring, per hop. */
    @Command(name = "latency", mixinStandardHelpOptions = true,
            description = "A message goes around a ring of P stations (each passes it on): time per hop vs payload,"
                + " its least-squares slope checked against the ring's 100 Mb/s (a model self-check), beside the"
                + " paper's Table 1.")
    static final class Latency extends VirtualRunCommand {
        @Mixin
        RingOptions ring = new RingOptions();

        @Option(names = "--rounds", defaultValue = "10", description = "Measured trips around the ring per point"
            + " (default: ${DEFAULT-VALUE}).")
        int rounds;

        @Option(names = "--warmup", defaultValue = "2", description = "Trips around the ring before measuring, per"
            + " point (default: ${DEFAULT-VALUE}).")
        int warmup;

        @Option(names = "--host-ns", defaultValue = "0", description = "Each node's host reaction time in virtual ns,"
            + " receive interrupt to passing the message on (default: ${DEFAULT-VALUE} = host software not"
            + " modelled).")
        long hostNanos;

        Latency() {
            super(PcapWriter.LINKTYPE_FDDI);
        }

        @Override
        int run(long seed, PcapWriter pcap) {
            int[] nodes = ring.nodes();
            int[] words = ring.words(MedusaRingExperiments.LATENCY_WORDS);
            return MedusaRingExperiments.latency(System.out, nodes, words, warmup, rounds, seed, hostNanos, pcap);
        }
    }

    /** {@code nic medusa throughput}: the paper's throughput test. */
    @Command(name = "throughput", mixinStandardHelpOptions = true,
            description = "Node 0 streams messages to node P-1 through the other nodes: the ring's throughput vs"
                + " payload, the largest frames checked against the wire's ceiling (a model self-check), beside the"
                + " paper's Table 2.")
    static final class Throughput extends VirtualRunCommand {
        @Mixin
        RingOptions ring = new RingOptions();

        @Option(names = "--messages", defaultValue = "400", description = "Messages per point (default:"
            + " ${DEFAULT-VALUE}).")
        int messages;

        Throughput() {
            super(PcapWriter.LINKTYPE_FDDI);
        }

        @Override
        int run(long seed, PcapWriter pcap) {
            int[] nodes = ring.nodes();
            int[] words = ring.words(MedusaRingExperiments.THROUGHPUT_WORDS);
            return MedusaRingExperiments.throughput(System.out, nodes, words, messages, seed, pcap);
        }
    }
}
