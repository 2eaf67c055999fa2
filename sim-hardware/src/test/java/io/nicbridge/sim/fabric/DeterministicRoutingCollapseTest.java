package io.nicbridge.sim.fabric;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * docs/interconnect-facts.md: dimension-order routing on an 8x8 mesh is bounded by channel load (tornado 1/3,
 * bit-complement 1/4 flits/node/cycle), and past saturation the minimum accepted rate over nodes collapses
 * well below its peak - the regime NIFDY's admission control is meant to avoid.
 */
class DeterministicRoutingCollapseTest {

    /** {min, average} accepted flits/node/cycle over a 20000-cycle window after a 5000-cycle warm-up. */
    static double[] accepted(int[] permutation, double load) {
        Network net = new Network(Topologies.mesh(8, 8), FabricConfig.defaults().withVcsPerClass(2)
            .withBufferDepth(8), 3);
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

    private static void collapses(String name, int[] permutation, double bound, double peakLoad) {
        double[] peak = accepted(permutation, peakLoad);
        double[] past = accepted(permutation, 1.0);
        assertTrue(peak[1] <= bound && past[1] <= bound, name + ": accepted above the channel-load bound " + bound);
        assertTrue(peak[0] > 0.7 * peakLoad, name + ": below saturation every node gets its load, min " + peak[0]);
        assertTrue(past[0] < 0.6 * peak[0], name + ": min accepted " + past[0] + " at load 1.0 should collapse"
            + " well below the peak " + peak[0]);
    }

    @Test
    void tornadoCollapsesPastSaturation() {
        int[] p = new int[64];
        for (int s = 0; s < 64; s++) {
            p[s] = AverageHopsTest.tornado8(s);
        }
        collapses("tornado", p, 1.0 / 3, 0.25);
    }

    @Test
    void bitComplementCollapsesPastSaturation() {
        int[] p = new int[64];
        for (int s = 0; s < 64; s++) {
            p[s] = 63 - s;
        }
        collapses("bit-complement", p, 0.25, 0.2);
    }
}
