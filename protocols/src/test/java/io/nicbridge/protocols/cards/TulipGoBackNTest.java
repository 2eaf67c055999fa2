package io.nicbridge.protocols.cards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.EventLoop;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.protocols.runner.ThreadPerNodeRunner;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.fault.FaultKind;
import io.nicbridge.sim.fault.FaultPlan;
import io.nicbridge.sim.testbed.TulipTestbed;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The go-back-N core and the {@link Exchange} application, unchanged, over two emulated 21140s on a simulated
 * Ethernet segment through {@link TulipLink}: in virtual time (the runner on the cards' own {@link VirtualTimeBase},
 * deterministic), and in real time (inline cards on one event loop, or one thread per node over inline or threaded
 * cards), clean and with the segment losing, corrupting and duplicating frames.
 */
class TulipGoBackNTest {
    static final int MESSAGES = 400;
    static final int SIZE = 64;
    static final long SECONDS = 60;

    static FaultPlan lossy(long seed) {
        return FaultPlan.builder().seed(seed).drop(0.05).corrupt(0.02).duplicate(0.02).build();
    }

    static Link[] links(TulipTestbed bed) {
        List<MacAddress> macs = List.of(TulipTestbed.mac(0), TulipTestbed.mac(1));
        return new Link[] {new TulipLink(bed.driver(0), macs, TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE),
                new TulipLink(bed.driver(1), macs, TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE)};
    }

    record VirtualRun(long digest, long endNanos, long retransmitted, long faults, long damaged) {
    }

    static VirtualRun runVirtual(long seed, FaultPlan faults) {
        try (TulipTestbed bed = TulipTestbed.builder().mode(EngineMode.VIRTUAL).seed(seed).faults(faults).build()) {
            bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
            Link[] links = links(bed);
            VirtualTimeBase vt = bed.virtualTime();
            Exchange app = new Exchange(2, MESSAGES, SIZE);
            GoBackNConfig cfg = new GoBackNConfig(8, SIZE, TimeUnit.MICROSECONDS.toNanos(400));
            NodeRunner runner = new NodeRunner(vt, links, HostCpu.forNodes(links.length, CostTable.zero(), vt),
                    (l, s, cpu) -> new GoBackNCore(l, s, cfg, cpu), app,
                    NodeSlowness.NONE);
            app.start(vt, runner);
            long t0 = vt.nanoTime();
            assertTrue(vt.runUntil(app::isDone, t0 + TimeUnit.SECONDS.toNanos(20)),
                    () -> "delivered " + app.delivered() + " of " + app.expectedTotal() + "; " + links[0] + "; "
                            + links[1]);
            assertEquals(0, app.errors(), app::firstError);
            long retransmitted = ((GoBackNCore) runner.node(0).core()).counters().retransmitted()
                    + ((GoBackNCore) runner.node(1).core()).counters().retransmitted();
            long damaged = ((TulipLink) links[0]).framesDamaged() + ((TulipLink) links[1]).framesDamaged();
            System.out.println(runner.costSummary()); // the table this card run was priced by
            return new VirtualRun(runner.traceDigest(), vt.nanoTime() - t0, retransmitted, bed.wire().faultsInjected(),
                    damaged);
        }
    }

    @Test
    void virtualTimeDeliversEverythingBothWaysDeterministically() {
        VirtualRun a = runVirtual(11, FaultPlan.NONE);
        VirtualRun b = runVirtual(11, FaultPlan.NONE);
        assertEquals(a, b, "same seed, same trace");
        assertEquals(0, a.retransmitted(), "a clean segment needs no retransmission");
        // 400 x 2 messages of 64 + 16 + 16 bytes (+ preamble, IFG) at 100 Mb/s take at least ~7 ms of wire time.
        assertTrue(a.endNanos() > TimeUnit.MILLISECONDS.toNanos(5), "virtual time advanced: " + a.endNanos());
    }

    @Test
    void virtualTimeRecoversFromALossySegmentDeterministically() {
        VirtualRun a = runVirtual(12, lossy(5));
        VirtualRun b = runVirtual(12, lossy(5));
        VirtualRun c = runVirtual(12, lossy(6));
        assertEquals(a, b, "same seeds, same trace");
        assertNotEquals(a.digest(), c.digest(), "another fault seed, another trace");
        assertTrue(a.faults() > 0 && a.retransmitted() > 0, "faults " + a.faults() + ", retransmitted "
                + a.retransmitted());
        assertTrue(a.damaged() > 0, "corrupted frames failed the card's CRC and were counted, not delivered");
    }

    @ParameterizedTest
    @EnumSource(value = EngineMode.class, names = {"INLINE"})
    void realTimeOnOneEventLoopWithInlineCards(EngineMode mode) throws Exception {
        try (TulipTestbed bed = TulipTestbed.builder().mode(mode).faults(lossy(7)).build()) {
            bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
            Link[] links = links(bed);
            EventLoop loop = new EventLoop("tulip-gbn", TimeUnit.MILLISECONDS.toNanos(1));
            Exchange app = new Exchange(2, MESSAGES, SIZE);
            GoBackNConfig cfg = new GoBackNConfig(8, SIZE, TimeUnit.MILLISECONDS.toNanos(2));
            NodeRunner runner = new NodeRunner(loop, links, HostCpu.forNodes(links.length, CostTable.zero(), loop),
                    (l, s, cpu) -> new GoBackNCore(l, s, cfg, cpu), app,
                    NodeSlowness.NONE);
            app.start(loop, runner);
            loop.start();
            try {
                assertTrue(app.await(SECONDS), () -> "delivered " + app.delivered() + " of " + app.expectedTotal());
            } finally {
                loop.close();
            }
            assertEquals(0, app.errors(), app::firstError);
            assertTrue(bed.wire().faultCount(FaultKind.DROP) > 0);
            assertTrue(((GoBackNCore) runner.node(0).core()).counters().retransmitted()
                    + ((GoBackNCore) runner.node(1).core()).counters().retransmitted() > 0);
        }
    }

    @ParameterizedTest
    @EnumSource(value = EngineMode.class, names = {"INLINE", "THREADED"})
    void realTimeOneThreadPerNode(EngineMode mode) throws Exception {
        try (TulipTestbed bed = TulipTestbed.builder().mode(mode).faults(lossy(8)).build()) {
            bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
            Link[] links = links(bed);
            Exchange app = new Exchange(2, MESSAGES, SIZE);
            GoBackNConfig cfg = new GoBackNConfig(8, SIZE, TimeUnit.MILLISECONDS.toNanos(2));
            try (ThreadPerNodeRunner runner = new ThreadPerNodeRunner("tulip-gbn", links, CostTable.zero(),
                    (l, c, cpu) -> new GoBackNCore(l, c, cfg, cpu), app, TimeUnit.MILLISECONDS.toNanos(1))) {
                runner.start();
                assertTrue(app.await(SECONDS), () -> "delivered " + app.delivered() + " of " + app.expectedTotal());
            }
            assertEquals(0, app.errors(), app::firstError);
            assertTrue(bed.wire().faultCount(FaultKind.DROP) > 0);
        }
    }
}
