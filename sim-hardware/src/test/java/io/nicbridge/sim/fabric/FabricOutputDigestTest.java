package io.nicbridge.sim.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The fabric's outputs pinned: every delivery and drop (cycle, packet fields, reason) and the end counters of 120
 * seeded runs over random topologies, switchings, disciplines, buffer shapes, latencies, serialization, time
 * multiplexing and both allocators, at loads from light to past saturation, plus the speed benchmark's two meshes,
 * folded into one 64-bit digest per run and compared with {@code fabric-output-digests.txt}. A change to the router
 * that is meant to be a pure speed-up must leave every digest as it is; a change that moves behaviour on purpose
 * regenerates the file (the failure message lists every run's digest, one a line) and says what moved.
 */
class FabricOutputDigestTest {
    private static final String EXPECTED = "fabric-output-digests.txt";
    private static final int RANDOM_RUNS = 120;

    /** Folds 64-bit words into a digest (SplitMix64's finalizer on a running sum: order-sensitive, cheap). */
    static final class Digest implements FabricListener {
        private long state = 0x9E37_79B9_7F4A_7C15L;

        void add(long word) {
            long z = state + word * 0xBF58_476D_1CE4_E5B9L + 0x9E37_79B9_7F4A_7C15L;
            z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
            state = z ^ (z >>> 31);
        }

        @Override
        public void delivered(PacketRecord p, long cycle) {
            add(cycle);
            add(((long) p.src() << 32) | p.dst());
            add(((long) p.lengthFlits() << 40) | ((long) p.packetClass() << 32) | p.hops());
            add(p.createdCycle());
            add(p.injectedCycle());
            add(p.payloadId());
        }

        @Override
        public void dropped(PacketRecord p, DropReason reason, long cycle) {
            add(-cycle);
            add(((long) p.src() << 32) | p.dst());
            add(((long) reason.ordinal() << 32) | p.hops());
            add(p.payloadId());
        }

        long value() {
            return state;
        }
    }

    /** Random two-class traffic from a source backlog: a run past saturation keeps the NI queues full. */
    static final class Load implements Endpoint {
        private final SplittableRandom random;
        private final int nodes;
        private final double probability;
        private final int maxFlits;
        private long sent;

        Load(long seed, int nodes, double probability, int maxFlits) {
            this.random = new SplittableRandom(seed);
            this.nodes = nodes;
            this.probability = probability;
            this.maxFlits = maxFlits;
        }

        @Override
        public void attached(NodePort port) {
            port.wakeAt(0);
        }

        @Override
        public void wake(NodePort port, long cycle) {
            if (random.nextDouble() < probability) {
                int cls = random.nextInt(2);
                int dst = random.nextInt(nodes);
                long id = ((long) port.node() << 40) | sent;
                if (port.inject(dst, 1 + random.nextInt(maxFlits), cls, cycle, id)) {
                    sent++;
                }
            }
            port.wakeAt(cycle + 1);
        }

        @Override
        public void deliver(NodePort port, PacketRecord packet, long cycle) {
        }
    }

    private static Topology randomTopology(SplittableRandom r) {
        return switch (r.nextInt(9)) {
            case 0 -> Topologies.mesh(2 + r.nextInt(6), 2 + r.nextInt(6));
            case 1 -> Topologies.torus(2 + r.nextInt(6), 2 + r.nextInt(5));
            case 2 -> Topologies.mesh(2 + r.nextInt(3), 2 + r.nextInt(3), 2 + r.nextInt(3));
            case 3 -> Topologies.torus(3, 3, 2 + r.nextInt(3));
            case 4 -> Topologies.fatTree(2 + r.nextInt(3), 2);
            case 5 -> Topologies.cm5FatTree(2 + r.nextInt(2));
            case 6 -> Topologies.butterfly(2 + r.nextInt(3), 2 + r.nextInt(2));
            case 7 -> Topologies.multibutterfly(2 + r.nextInt(3), 2 + r.nextInt(2), 2, r.nextLong());
            default -> r.nextBoolean() ? Topologies.adaptiveMesh(3 + r.nextInt(4), 3 + r.nextInt(4))
                : Topologies.adaptiveTorus(4, 2 + r.nextInt(4));
        };
    }

    private static String digestLine(String what, Network net, Digest digest) {
        digest.add(net.flitsInjected());
        digest.add(net.flitsEjected());
        digest.add(net.flitsDropped());
        digest.add(net.flitHops());
        digest.add(net.packetsInjected());
        digest.add(net.packetsDelivered());
        digest.add(net.packetsDropped());
        digest.add(net.packetsQueued());
        digest.add(net.flitsInNetwork());
        return String.format(Locale.ROOT, "%016x %s", digest.value(), what);
    }

    static List<String> randomRuns() {
        List<String> lines = new ArrayList<>();
        SplittableRandom r = new SplittableRandom(120_2026);
        for (int trial = 0; trial < RANDOM_RUNS; trial++) {
            Topology topo = randomTopology(r);
            boolean adaptive = topo instanceof KaryNCube k && !k.deadlockFreeWhenBuffered();
            Discipline discipline = adaptive || r.nextInt(3) == 0 ? Discipline.DROP_WHEN_BLOCKED : Discipline.BUFFERED;
            Switching switching = Switching.values()[r.nextInt(3)];
            int maxFlits = 1 + r.nextInt(6);
            int vcs = topo.vcSubclasses() == 2 ? 2 * (1 + r.nextInt(2)) : 1 + r.nextInt(3);
            int depth = Math.max(1 + r.nextInt(6), switching == Switching.WORMHOLE ? 1 : maxFlits + 1);
            FabricConfig cfg = FabricConfig.defaults().withVcsPerClass(vcs).withBufferDepth(depth)
                .withLinkLatency(1 + r.nextInt(3)).withRouterDelay(r.nextInt(3)).withCyclesPerFlit(1 + r.nextInt(2))
                .withSwitching(switching).withDiscipline(discipline).withDropTimeoutCycles(r.nextInt(4))
                .withTimeMultiplexedClasses(r.nextInt(4) == 0).withInjectQueuePackets(1 + r.nextInt(8))
                .withAllocator(trial % 4 == 3 ? Allocator.ROTATING_PRIORITY : Allocator.SEPARABLE_INPUT_FIRST);
            Network net = new Network(topo, cfg, r.nextLong());
            Digest digest = new Digest();
            net.listener(digest);
            double p = 0.02 + r.nextDouble() * 0.6;
            for (int n = 0; n < topo.nodes(); n++) {
                net.attach(n, new Load(r.nextLong(), topo.nodes(), p, maxFlits));
            }
            net.run(1_500);
            lines.add(digestLine("trial " + trial + " " + topo.name(), net, digest));
        }
        return lines;
    }

    /** FabricSpeedBench's router (2 VCs per class x 8 flits) on its two meshes, shorter. */
    static List<String> speedBenchRuns() {
        List<String> lines = new ArrayList<>();
        for (Allocator a : Allocator.values()) {
            FabricConfig cfg = FabricConfig.defaults().withVcsPerClass(2).withBufferDepth(8).withAllocator(a);
            for (int[] kAndPerMille : new int[][] {{8, 300}, {8, 450}, {16, 120}}) {
                int k = kAndPerMille[0];
                Network net = new Network(Topologies.mesh(k, k), cfg, 42);
                Digest digest = new Digest();
                net.listener(digest);
                TestLoad.attachAll(net, kAndPerMille[1] / 1000.0, 4, null, 4242);
                net.run(3_000);
                lines.add(digestLine("mesh " + k + "x" + k + " load " + kAndPerMille[1] / 1000.0 + " " + a.configName(),
                    net, digest));
            }
        }
        return lines;
    }

    @Test
    void outputsMatchThePinnedDigests() throws IOException {
        List<String> actual = new ArrayList<>(randomRuns());
        actual.addAll(speedBenchRuns());
        List<String> expected;
        try (InputStream in = FabricOutputDigestTest.class.getResourceAsStream(EXPECTED)) {
            if (in == null) {
                throw new IllegalStateException(EXPECTED + " missing; the runs give:\n" + String.join("\n", actual));
            }
            expected = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        }
        assertEquals(String.join("\n", expected), String.join("\n", actual),
            "fabric outputs moved; if that is intended, these are the new digests");
    }
}
