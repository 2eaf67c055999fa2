package io.nicbridge.sim.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Seeded random fabrics (topology, switching, discipline, VCs, depth, latencies, serialization, time
 * multiplexing) under random two-class traffic: every packet arrives at its destination intact, from the source
 * it names, or is counted as dropped; flits are conserved; the fabric drains and leaves nothing allocated;
 * a single-VC dimension-order mesh delivers each source's packets in order.
 */
class RandomConfigurationSweepTest {

    /** Sends random packets whose payload id encodes (src, class, sequence); checks every delivery. */
    static final class Checker implements Endpoint {
        final SplittableRandom random;
        final int nodes;
        final double probability;
        final int maxFlits;
        final long[][] lastSeq; // [src][class] last sequence number seen here (in-order check)
        boolean stopped;
        boolean inOrder;
        long sent;
        long received;
        long outOfOrder;

        Checker(long seed, int nodes, double probability, int maxFlits) {
            this.random = new SplittableRandom(seed);
            this.nodes = nodes;
            this.probability = probability;
            this.maxFlits = maxFlits;
            this.lastSeq = new long[nodes][2];
            for (long[] l : lastSeq) {
                java.util.Arrays.fill(l, -1);
            }
        }

        @Override
        public void attached(NodePort port) {
            port.wakeAt(0);
        }

        @Override
        public void wake(NodePort port, long cycle) {
            if (stopped) {
                return;
            }
            if (random.nextDouble() < probability) {
                int cls = random.nextInt(2);
                int dst = random.nextInt(nodes);
                long id = ((long) port.node() << 40) | ((long) cls << 39) | sent;
                if (port.inject(dst, 1 + random.nextInt(maxFlits), cls, cycle, id)) {
                    sent++;
                }
            }
            port.wakeAt(cycle + 1);
        }

        @Override
        public void deliver(NodePort port, PacketRecord p, long cycle) {
            assertEquals(port.node(), p.dst(), "delivered to the wrong node: " + p);
            long id = p.payloadId();
            assertEquals(p.src(), (int) (id >>> 40), "source does not match the payload: " + p);
            assertEquals(p.packetClass(), (int) (id >>> 39) & 1, "class does not match the payload: " + p);
            assertTrue(p.createdCycle() <= p.injectedCycle() && p.injectedCycle() < cycle, p.toString());
            assertTrue(p.hops() >= 1, p.toString());
            long seq = id & ((1L << 39) - 1);
            if (seq < lastSeq[p.src()][p.packetClass()]) {
                outOfOrder++;
            }
            lastSeq[p.src()][p.packetClass()] = seq;
            received++;
        }
    }

    private static Topology randomTopology(SplittableRandom r) {
        return switch (r.nextInt(9)) {
            case 0 -> Topologies.mesh(2 + r.nextInt(5), 2 + r.nextInt(5));
            case 1 -> Topologies.torus(2 + r.nextInt(5), 2 + r.nextInt(5));
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

    @Test
    void randomFabricsDeliverConserveAndDrain() {
        SplittableRandom r = new SplittableRandom(2026);
        for (int trial = 0; trial < 48; trial++) {
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
            String what = "trial " + trial + ": " + topo + " " + cfg;
            Network net = new Network(topo, cfg, r.nextLong());
            double p = 0.02 + r.nextDouble() * 0.4;
            Checker[] checkers = new Checker[topo.nodes()];
            for (int n = 0; n < checkers.length; n++) {
                checkers[n] = new Checker(r.nextLong(), topo.nodes(), p, maxFlits);
                net.attach(n, checkers[n]);
            }
            net.run(3_000);
            for (Checker c : checkers) {
                c.stopped = true;
            }
            assertTrue(net.drain(200_000), what + ": did not drain");
            assertNull(net.leakedResource(), what);
            long sent = 0;
            long received = 0;
            long outOfOrder = 0;
            for (Checker c : checkers) {
                sent += c.sent;
                received += c.received;
                outOfOrder += c.outOfOrder;
            }
            assertTrue(sent > 0, what);
            assertEquals(sent, received + net.packetsDropped(), what);
            assertEquals(net.packetsDelivered(), received, what);
            assertEquals(net.flitsInjected(), net.flitsEjected() + net.flitsDropped(), what);
            if (discipline == Discipline.BUFFERED) {
                assertEquals(0, net.packetsDropped(), what);
            }
            boolean singlePathSingleVc = topo instanceof KaryNCube && topo.vcSubclasses() == 1 && vcs == 1;
            if (singlePathSingleVc && discipline == Discipline.BUFFERED) {
                assertEquals(0, outOfOrder, what + ": a one-VC DOR mesh delivers in order");
            }
        }
    }
}
