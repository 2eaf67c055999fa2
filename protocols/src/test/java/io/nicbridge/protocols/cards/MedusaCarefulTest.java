package io.nicbridge.protocols.cards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.dst.CStarWorkload;
import io.nicbridge.protocols.careful.CarefulConfig;
import io.nicbridge.protocols.careful.CarefulCore;
import io.nicbridge.protocols.careful.CarefulViolation;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.fault.FaultPlan;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The careful core on a ring of exactly P emulated Medusa FDDI cards (the paper's setup), in virtual time: the
 * fragment goes from the application's buffer to the card in one PIO copy whose checksum the card computes, the
 * receiver reads it in place in buffer RAM, and windows are floor(R/P) of R = 56 of the driver's 64 receive buffers.
 */
class MedusaCarefulTest {
    static final int R = 56; // of MedusaConfig's default 64 receive buffers: R + P - 1 <= 64 for P <= 8

    record Run(long digest, long endNanos, long violations, long gaps, long errors, boolean done, long delivered,
               long expected) {
    }

    static Run run(int p, long seed, FaultPlan faults, CStarWorkload app, long limitSeconds) {
        try (MedusaRing ring = new MedusaRing(p, EngineMode.VIRTUAL, seed, faults)) {
            VirtualTimeBase vt = ring.virtualTime();
            CarefulCore[] cores = new CarefulCore[p];
            CarefulConfig cfg = CarefulConfig.defaults().withReceiveBuffers(R).withEventSlots(64);
            NodeRunner runner = new NodeRunner(vt, ring.links(), HostCpu.forNodes(p, CostTable.zero(), vt),
                    (l, s, cpu) -> cores[l.self()] = new CarefulCore(l, cfg, cpu), app, NodeSlowness.NONE);
            app.start(vt, runner);
            long t0 = vt.nanoTime();
            boolean done = vt.runUntil(app::isDone, t0 + TimeUnit.SECONDS.toNanos(limitSeconds));
            long violations = 0;
            long gaps = 0;
            for (CarefulCore c : cores) {
                assertTrue(c.singleCopy(), "the Medusa's single-copy PIO send is used");
                assertTrue(c.bufferedMessages() <= c.bufferCapacity());
                violations += c.violations();
                gaps += c.violations(CarefulViolation.GAP);
            }
            return new Run(runner.traceDigest(), vt.nanoTime() - t0, violations, gaps, app.errors(), done,
                    app.deliveredTotal(), app.expectedTotal());
        }
    }

    static CStarWorkload mixed(int p) {
        CStarWorkload.Pattern[] mix = new CStarWorkload.Pattern[24];
        for (int e = 0; e < mix.length; e++) {
            mix[e] = CStarWorkload.Pattern.values()[e % 3];
        }
        return new CStarWorkload(p, mix.length, 3, 400, 2, mix, true);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4, 8})
    void ringCrowdAndBroadcastEventsOnARingOfPMedusas(int p) {
        CStarWorkload app = mixed(p);
        Run r = run(p, 31, FaultPlan.NONE, app, 30);
        assertTrue(r.done(), app::progress);
        assertEquals(0, r.errors(), () -> app.firstError());
        assertEquals(r.expected(), r.delivered());
        assertEquals(0, r.violations(), "a clean ring keeps the careful protocol's assumption");
    }

    @Test
    void sameSeedSameTrace() {
        assertEquals(run(4, 32, FaultPlan.NONE, mixed(4), 30), run(4, 32, FaultPlan.NONE, mixed(4), 30));
    }

    @Test
    void aLossyRingIsDetectedNotHidden() {
        // the ring drops and corrupts frames (the cards' FCS check drops the corrupted ones): the careful protocol
        // cannot recover, but reports every loss at the sender's next frame and never delivers wrong data
        CStarWorkload app = mixed(4);
        Run r = run(4, 33, FaultPlan.builder().seed(9).drop(0.02).corrupt(0.01).build(), app, 2);
        assertFalse(r.done(), "lost fragments leave their events incomplete");
        assertTrue(r.gaps() > 0, "the losses were detected: " + r);
        assertEquals(0, r.errors(), () -> app.firstError());
    }
}
