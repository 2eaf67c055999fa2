package io.nicbridge.protocols.cards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.EventLoop;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.protocols.runner.RunnerNode;
import io.nicbridge.protocols.runner.ThreadPerNodeRunner;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.fault.FaultPlan;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The go-back-N core and the {@link Exchange} application, unchanged, all-to-all over a ring of emulated Medusa
 * FDDI cards through {@link io.nicbridge.bridge.driver.medusa.MedusaLink} (PIO copy at commit, receive in place
 * in buffer RAM): in virtual time, deterministic, and in real time, clean and with the ring losing and corrupting
 * frames.
 */
class MedusaGoBackNTest {
    static final int NODES = 4;
    static final int MESSAGES = 150;
    static final int SIZE = 200;

    static FaultPlan lossy(long seed) {
        return FaultPlan.builder().seed(seed).drop(0.05).corrupt(0.02).build();
    }

    record VirtualRun(long digest, long endNanos, long retransmitted, long damaged) {
    }

    static long retransmitted(IntFunction<RunnerNode> node, int nodes) {
        long n = 0;
        for (int i = 0; i < nodes; i++) {
            n += ((GoBackNCore) node.apply(i).core()).counters().retransmitted();
        }
        return n;
    }

    static VirtualRun runVirtual(long seed, FaultPlan faults) {
        try (MedusaRing ring = new MedusaRing(NODES, EngineMode.VIRTUAL, seed, faults)) {
            VirtualTimeBase vt = ring.virtualTime();
            Exchange app = new Exchange(NODES, MESSAGES, SIZE);
            GoBackNConfig cfg = new GoBackNConfig(4, SIZE, TimeUnit.MILLISECONDS.toNanos(2));
            NodeRunner runner = new NodeRunner(vt, ring.links(), HostCpu.forNodes(ring.links().length, CostTable.zero(), vt),
                    (l, s, cpu) -> new GoBackNCore(l, s, cfg, cpu), app,
                    NodeSlowness.NONE);
            app.start(vt, runner);
            long t0 = vt.nanoTime();
            assertTrue(vt.runUntil(app::isDone, t0 + TimeUnit.SECONDS.toNanos(30)),
                    () -> "delivered " + app.delivered() + " of " + app.expectedTotal());
            assertEquals(0, app.errors(), app::firstError);
            long damaged = 0;
            for (var l : ring.links) {
                damaged += l.framesDamaged();
            }
            System.out.println(runner.costSummary()); // the table this card run was priced by
            return new VirtualRun(runner.traceDigest(), vt.nanoTime() - t0, retransmitted(runner::node, NODES),
                    damaged);
        }
    }

    @Test
    void virtualTimeAllToAllOnAFourStationRingDeterministically() {
        VirtualRun a = runVirtual(21, FaultPlan.NONE);
        assertEquals(a, runVirtual(21, FaultPlan.NONE), "same seed, same trace");
        assertEquals(0, a.retransmitted(), "a clean ring needs no retransmission");
    }

    @Test
    void virtualTimeRecoversFromALossyRingDeterministically() {
        VirtualRun a = runVirtual(22, lossy(3));
        assertEquals(a, runVirtual(22, lossy(3)), "same seeds, same trace");
        assertNotEquals(a.digest(), runVirtual(22, lossy(4)).digest(), "another fault seed, another trace");
        assertTrue(a.retransmitted() > 0, "losses were recovered by retransmission");
        assertTrue(a.damaged() > 0, "corrupted frames failed the card's FCS check and were counted, not delivered");
    }

    @Test
    void realTimeInlineCardsOnOneEventLoop() throws Exception {
        try (MedusaRing ring = new MedusaRing(NODES, EngineMode.INLINE, 5, lossy(5))) {
            EventLoop loop = new EventLoop("medusa-gbn", TimeUnit.MILLISECONDS.toNanos(1));
            // Inline cards have no threads: the ring's token and delays advance when someone polls the engine.
            loop.addSource(() -> ring.bed.engine().poll());
            Exchange app = new Exchange(NODES, MESSAGES, SIZE);
            GoBackNConfig cfg = new GoBackNConfig(4, SIZE, TimeUnit.MILLISECONDS.toNanos(5));
            NodeRunner runner = new NodeRunner(loop, ring.links(), HostCpu.forNodes(ring.links().length, CostTable.zero(), loop),
                    (l, s, cpu) -> new GoBackNCore(l, s, cfg, cpu), app,
                    NodeSlowness.NONE);
            app.start(loop, runner);
            loop.start();
            try {
                assertTrue(app.await(60), () -> "delivered " + app.delivered() + " of " + app.expectedTotal());
            } finally {
                loop.close();
            }
            assertEquals(0, app.errors(), app::firstError);
            assertTrue(retransmitted(runner::node, NODES) > 0);
        }
    }

    @ParameterizedTest
    @EnumSource(value = EngineMode.class, names = {"THREADED"})
    void realTimeOneThreadPerNode(EngineMode mode) throws Exception {
        try (MedusaRing ring = new MedusaRing(NODES, mode, 6, lossy(6))) {
            Link[] links = ring.links();
            Exchange app = new Exchange(NODES, MESSAGES, SIZE);
            GoBackNConfig cfg = new GoBackNConfig(4, SIZE, TimeUnit.MILLISECONDS.toNanos(5));
            try (ThreadPerNodeRunner runner = new ThreadPerNodeRunner("medusa-gbn", links, CostTable.zero(),
                    (l, c, cpu) -> new GoBackNCore(l, c, cfg, cpu), app, TimeUnit.MILLISECONDS.toNanos(1))) {
                runner.start();
                assertTrue(app.await(60), () -> "delivered " + app.delivered() + " of " + app.expectedTotal());
                assertEquals(0, app.errors(), app::firstError);
                assertTrue(retransmitted(runner::node, NODES) > 0);
            }
        }
    }
}
