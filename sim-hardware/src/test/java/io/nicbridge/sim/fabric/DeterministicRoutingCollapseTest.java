package io.nicbridge.sim.fabric;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * What dimension-order routing on an 8x8 mesh does past saturation with fair (separable, round-robin) allocators,
 * by buffer size. docs/interconnect-facts.md bounds the channel load at 1/3 (tornado) and 1/4 (bit-complement)
 * flits/node/cycle.
 *
 * <ul>
 *   <li>Small buffers (2 VCs x 4 flits per class, one 4-flit packet per VC): a blocked worm holds a VC on every
 *       link behind it, blocked worms pile up behind the bottleneck channels (tree saturation) and starve the
 *       flows that merge into them. The minimum accepted rate collapses (tornado 0.24 to 0.13, bit-complement
 *       0.19 to 0.06) and under bit-complement the average falls too (0.20 to 0.15), fair arbitration or not.</li>
 *   <li>Adequate buffers (4 x 8, 8 x 16): past saturation the average stays at or near the channel bound
 *       (bit-complement 0.25, tornado 0.28) and the worst node keeps at least two thirds of its fair share; what
 *       is left of the min/avg gap is the parking-lot effect of locally fair arbitration (a flow that merges late
 *       competes with the sum of the flows already on the link).</li>
 * </ul>
 * The old time-rotating priority ({@link Allocator#ROTATING_PRIORITY}) made the small-buffer collapse deeper and
 * could starve single nodes outright (bit-complement at load 0.5: min 0).
 */
class DeterministicRoutingCollapseTest {

    /** {min, average} accepted flits/node/cycle over a 20000-cycle window after a 5000-cycle warm-up. */
    static double[] accepted(int vcs, int depth, int[] permutation, double load) {
        Network net = new Network(Topologies.mesh(8, 8), FabricConfig.defaults().withVcsPerClass(vcs)
            .withBufferDepth(depth), 3);
        TestLoad.attachAll(net, load, 4, permutation, 4);
        net.run(5_000);
        long[] before = new long[64];
        for (int n = 0; n < 64; n++) {
            before[n] = net.flitsEjectedAt(n);
        }
        net.run(20_000);
        double min = Double.MAX_VALUE;
        double sum = 0;
        for (int n = 0; n < 64; n++) {
            double a = (net.flitsEjectedAt(n) - before[n]) / 20_000.0;
            min = Math.min(min, a);
            sum += a;
        }
        return new double[] {min, sum / 64};
    }

    private static int[] tornado() {
        int[] p = new int[64];
        for (int s = 0; s < 64; s++) {
            p[s] = AverageHopsTest.tornado8(s);
        }
        return p;
    }

    private static int[] bitComplement() {
        int[] p = new int[64];
        for (int s = 0; s < 64; s++) {
            p[s] = 63 - s;
        }
        return p;
    }

    @Test
    void mesh8x8Dor2x4TornadoMinimumCollapsesPastSaturation() {
        double[] peak = accepted(2, 4, tornado(), 0.25);
        double[] past = accepted(2, 4, tornado(), 1.0);
        assertTrue(peak[0] > 0.85 * 0.25, "below saturation every node gets its load, min " + peak[0]);
        assertTrue(past[1] <= 1.0 / 3, "above the channel-load bound: " + past[1]);
        assertTrue(past[0] < 0.6 * peak[0], "min accepted " + past[0] + " at load 1.0 should collapse well below"
            + " the peak " + peak[0]);
    }

    @Test
    void mesh8x8Dor2x4BitComplementThroughputCollapsesPastSaturation() {
        double[] peak = accepted(2, 4, bitComplement(), 0.2);
        double[] past = accepted(2, 4, bitComplement(), 1.0);
        assertTrue(peak[0] > 0.85 * 0.2, "below saturation every node gets its load, min " + peak[0]);
        assertTrue(past[1] < 0.85 * peak[1], "average accepted " + past[1] + " at load 1.0 should fall below the"
            + " peak " + peak[1]);
        assertTrue(past[0] < 0.6 * peak[0], "min accepted " + past[0] + " should collapse below the peak " + peak[0]);
    }

    @Test
    void mesh8x8Dor4x8And8x16TornadoHoldsThroughputPastSaturation() {
        for (int[] vb : new int[][] {{4, 8}, {8, 16}}) {
            double[] past = accepted(vb[0], vb[1], tornado(), 1.0);
            String cfg = vb[0] + " VCs x " + vb[1] + " flits";
            assertTrue(past[1] <= 1.0 / 3 && past[1] > 0.8 / 3, cfg + ": average near the 1/3 bound, got " + past[1]);
            assertTrue(past[0] > 2.0 / 3 * 0.25, cfg + ": the worst node keeps 2/3 of the 0.25 it got below"
                + " saturation, got " + past[0]);
        }
    }

    @Test
    void mesh8x8Dor4x8And8x16BitComplementHoldsTheChannelBoundPastSaturation() {
        for (int[] vb : new int[][] {{4, 8}, {8, 16}}) {
            double[] past = accepted(vb[0], vb[1], bitComplement(), 1.0);
            String cfg = vb[0] + " VCs x " + vb[1] + " flits";
            assertTrue(past[1] <= 0.25 + 1e-3 && past[1] > 0.95 * 0.25, cfg + ": average at the 1/4 bound, got "
                + past[1]);
            assertTrue(past[0] > 0.6 * 0.25, cfg + ": the worst node keeps a fair share, got " + past[0]);
        }
    }
}
