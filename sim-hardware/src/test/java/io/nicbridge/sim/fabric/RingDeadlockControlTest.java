package io.nicbridge.sim.fabric;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Negative control for the deadlock tests: a unidirectional ring without dateline VCs has a cyclic channel
 * dependency, and the simulator must show the deadlock (no progress, cannot drain) - otherwise "no deadlock"
 * elsewhere would prove nothing. The same ring in drop mode cannot deadlock.
 */
class RingDeadlockControlTest {

    /** n routers in a ring, port 0 = node, port 1 = clockwise link; always routes clockwise. */
    static final class UnsafeRing extends Topology {
        UnsafeRing(int n) {
            super("unidirectional ring without dateline, " + n + " nodes", n, n, 2);
            for (int r = 0; r < n; r++) {
                attachInjection(r, r, 0);
                attachEjection(r, r, 0);
                connect(r, 1, (r + 1) % n, 1);
            }
        }

        @Override
        public int route(int router, int inPort, int src, int dst, SplittableRandom random, int[] outPorts,
                         int[] outSubclass) {
            outPorts[0] = router == dst ? 0 : 1;
            outSubclass[0] = 0;
            return 1;
        }
    }

    @Test
    void ringWithoutDatelineDeadlocksUnderFullLoad() {
        Network net = new Network(new UnsafeRing(8), FabricConfig.defaults().withBufferDepth(2), 1);
        TestLoad[] loads = TestLoad.attachAll(net, 1.0, 8, null, 2);
        net.run(20_000);
        long ejected = net.flitsEjected();
        net.run(5_000);
        TestLoad.stopAll(loads);
        assertFalse(net.flitsEjected() > ejected && net.drain(20_000), "expected a deadlock");
        assertFalse(net.drain(20_000));
    }

    @Test
    void theSameRingInDropModeKeepsMoving() {
        FabricConfig cfg = FabricConfig.defaults().withBufferDepth(2).withDiscipline(Discipline.DROP_WHEN_BLOCKED)
            .withDropTimeoutCycles(4);
        Network net = new Network(new UnsafeRing(8), cfg, 1);
        TestLoad[] loads = TestLoad.attachAll(net, 1.0, 8, null, 2);
        net.run(20_000);
        long ejected = net.flitsEjected();
        net.run(5_000);
        assertTrue(net.flitsEjected() > ejected);
        TestLoad.stopAll(loads);
        assertTrue(net.drain(20_000));
    }
}
