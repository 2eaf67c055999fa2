package io.nicbridge.sim.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/**
 * Starvation freedom of the default allocator (separable input-first, round-robin arbiters whose pointers move
 * past the used grant), with the old time-rotating input priority as the control that shows each check can fail.
 */
class AllocatorFairnessTest {
    private static final FabricConfig RING = FabricConfig.defaults().withVcsPerClass(2).withBufferDepth(3);

    /** Flits/cycle ejected at each node over {@code window} cycles after {@code warmup}. */
    static double[] acceptedPerNode(Network net, long warmup, long window) {
        net.run(warmup);
        long[] before = new long[net.nodes()];
        for (int n = 0; n < before.length; n++) {
            before[n] = net.flitsEjectedAt(n);
        }
        net.run(window);
        double[] a = new double[before.length];
        for (int n = 0; n < a.length; n++) {
            a[n] = (net.flitsEjectedAt(n) - before[n]) / (double) window;
        }
        return a;
    }

    private static double[] ringTornadoAtFullLoad(Allocator allocator) {
        Network net = new Network(Topologies.torus(8), RING.withAllocator(allocator), 1);
        int[] tornado = new int[8];
        for (int s = 0; s < 8; s++) {
            tornado[s] = (s + 3) % 8;
        }
        TestLoad.attachAll(net, 1.0, 4, tornado, 2);
        return acceptedPerNode(net, 5_000, 50_000);
    }

    /**
     * 8-node ring (torus k=8 n=1, 2 VCs x 3 flits per class, 4-flit packets), tornado (each node sends 3 hops
     * clockwise) at offered load 1.0: every link carries three flows, so a fair router gives each destination
     * about 1/3 flit/cycle.
     * Round-robin arbitration is fair per router, not per flow (a flow merging at a link competes with the sum of
     * the flows already on it: the parking-lot effect), so the shares differ; every destination must still get at
     * least a third of the fair share.
     */
    @Test
    void ring8TornadoFullLoad2x3ServesEveryDestination() {
        double[] a = ringTornadoAtFullLoad(Allocator.SEPARABLE_INPUT_FIRST);
        double min = Arrays.stream(a).min().orElseThrow();
        assertTrue(min > 1.0 / 9, "a destination starves: " + Arrays.toString(a));
        // 8 flows x 3 hops over 8 links: the average cannot exceed 1/3 (one flow may, if its link-mates get less)
        assertTrue(Arrays.stream(a).average().orElseThrow() <= 1.0 / 3 + 1e-3, "above the channel bound: "
            + Arrays.toString(a));
    }

    /** The control: the same run with the old rotating priority leaves destinations with nothing. */
    @Test
    void ring8TornadoFullLoad2x3StarvesWithRotatingPriority() {
        double[] a = ringTornadoAtFullLoad(Allocator.ROTATING_PRIORITY);
        long starved = Arrays.stream(a).filter(x -> x == 0.0).count();
        assertTrue(starved >= 1, "expected the rotating priority to starve a destination: " + Arrays.toString(a));
    }

    // ----------------------------------------------------------------------------------------------------------

    /** The property's fabric: a 4x4 mesh, dimension order, the ring case's 2 VCs x 3 flits per class. */
    static final FabricConfig MESH = FabricConfig.defaults().withVcsPerClass(2).withBufferDepth(3);
    /**
     * Offered load as a fraction of what the permutation's busiest channel can carry. Not 0.9: an input-queued
     * router with 2 VCs x 3 flits does not reach full channel rate on every permutation (head-of-line blocking), and
     * at 0.9 permutation 17427190 is past saturation with either allocator - its worst wait grows with the run
     * (separable 2,465 cycles in 20,000, 9,828 in 80,000) - which is queueing without bound, not starvation. At 0.8
     * that permutation's worst wait is 153 cycles in 20,000 and 164 in 80,000: stable.
     */
    static final double BOTTLENECK_FRACTION = 0.8;
    /**
     * The stated bound: no packet of any flow waits longer than this from creation to delivery. At 0.8, over
     * permutation seeds 1..60, the separable allocator's worst wait was 188 cycles (median 98); the rotating
     * priority's was 1,443 (seed 18).
     */
    static final long WAIT_BOUND = 500;
    static final long CYCLES = 20_000;

    /** Records the worst wait (creation to delivery) of the flow it sends. */
    static final class FlowLoad extends TestLoad {
        long maxWait;

        FlowLoad(double rate, int flits, int nodes, int[] permutation, long seed) {
            super(rate, flits, nodes, permutation, seed);
        }

        @Override
        public void deliver(NodePort port, PacketRecord packet, long cycle) {
            super.deliver(port, packet, cycle);
            maxWait = Math.max(maxWait, cycle - packet.createdCycle());
        }
    }

    /**
     * The most flows of {@code perm} that share one router-to-router channel, from the routes the topology
     * computes (deterministic routing: the first candidate).
     */
    static int maxFlowsPerChannel(Topology t, int[] perm) {
        int[] load = new int[t.routers() * t.ports()];
        int[] out = new int[Math.max(1, t.maxCandidates())];
        int[] sub = new int[out.length];
        SplittableRandom unused = new SplittableRandom(0);
        int max = 1;
        for (int i = 0; i < t.injections(); i++) {
            int src = t.injection(i, 0);
            int r = t.injection(i, 1);
            int in = t.injection(i, 2);
            while (true) {
                t.route(r, in, src, perm[src], unused, out, sub);
                int channel = r * t.ports() + out[0];
                int next = t.linkOf(channel);
                if (next < 0) {
                    break; // ejection port
                }
                max = Math.max(max, ++load[channel]);
                r = next / t.ports();
                in = next % t.ports();
            }
        }
        return max;
    }

    /**
     * The longest any packet of any flow waited (creation to delivery, or to the end of the run if still in the
     * source backlog) under permutation {@code seed} at {@link #BOTTLENECK_FRACTION} of its busiest channel.
     */
    static long worstFlowWait(Allocator allocator, long seed) {
        Topology mesh = Topologies.mesh(4, 4);
        int[] perm = permutation(16, seed);
        double load = BOTTLENECK_FRACTION / maxFlowsPerChannel(mesh, perm);
        Network net = new Network(mesh, MESH.withAllocator(allocator), seed);
        SplittableRandom seeds = new SplittableRandom(seed);
        FlowLoad[] flows = new FlowLoad[16];
        for (int n = 0; n < 16; n++) {
            flows[n] = new FlowLoad(load, 4, 16, perm, seeds.nextLong());
            net.attach(n, flows[n]);
        }
        net.run(CYCLES);
        long worst = 0;
        for (FlowLoad f : flows) {
            long oldest = f.oldestWaitingSince();
            worst = Math.max(worst, Math.max(f.maxWait, oldest < 0 ? 0 : CYCLES - oldest));
        }
        return worst;
    }

    static int[] permutation(int n, long seed) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = n - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    /**
     * 4x4 mesh, dimension order, 2 VCs x 3 flits per class, 4-flit packets, a random permutation offered at 80 %
     * of what its busiest channel carries (Bernoulli, unbounded source backlog): below saturation, so with fair
     * allocators no flow may wait more than {@link #WAIT_BOUND} cycles for any packet in 20,000 cycles (measured
     * worst over 60 permutations: 188 cycles; see {@link #BOTTLENECK_FRACTION} for why not 90 %).
     */
    @Property(tries = 25)
    void mesh4x4RandomPermutationBelowSaturation2x3NoFlowWaitsBeyondTheBound(
            @ForAll @LongRange(min = 1, max = 1L << 40) long seed) {
        long worst = worstFlowWait(Allocator.SEPARABLE_INPUT_FIRST, seed);
        assertTrue(worst <= WAIT_BOUND, "permutation seed " + seed + ": a flow waited " + worst + " cycles");
    }

    /** The control: the same check fails with the old rotating priority (permutation seed 18 holds a flow back). */
    @Test
    void mesh4x4RandomPermutationBelowSaturation2x3ExceedsTheBoundWithRotatingPriority() {
        long worst = worstFlowWait(Allocator.ROTATING_PRIORITY, 18);
        assertTrue(worst > WAIT_BOUND, "expected the rotating priority to hold a flow back, worst wait " + worst);
        assertTrue(worstFlowWait(Allocator.SEPARABLE_INPUT_FIRST, 18) <= WAIT_BOUND);
    }

    @Test
    void arbiterPointerMovesPastTheWinner() {
        RoundRobinArbiters a = new RoundRobinArbiters(2, 4);
        assertTrue(a.prefers(0, 1, 3), "pointer at 0: 1 comes before 3");
        a.granted(0, 1);
        assertEquals(2, a.pointer(0));
        assertTrue(a.prefers(0, 3, 1), "the last winner has the lowest priority");
        assertTrue(a.prefers(0, 2, 3));
        assertFalse(a.prefers(0, 2, 2));
        assertTrue(a.prefers(1, 1, 3), "arbiters of a bank are independent");
        a.granted(0, 3);
        assertEquals(0, a.pointer(0), "the pointer wraps");
    }
}
