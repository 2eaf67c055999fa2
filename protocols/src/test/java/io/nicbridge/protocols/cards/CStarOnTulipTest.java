package io.nicbridge.protocols.cards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.platform.VethBridge;
import io.nicbridge.bridge.shim.ShimTulipLinks;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.bridge.time.EventLoop;
import io.nicbridge.protocols.dst.CStarWorkload;
import io.nicbridge.protocols.careful.CarefulConfig;
import io.nicbridge.protocols.careful.CarefulCore;
import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.dst.SimProtocols;
import io.nicbridge.protocols.dst.SimSettings;
import io.nicbridge.protocols.runner.CoreBuilder;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.protocols.runner.ThreadPerNodeRunner;
import io.nicbridge.protocols.traditional.TraditionalCore;
import io.nicbridge.sim.backends.ShimTulipPair;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.fault.FaultPlan;
import io.nicbridge.sim.testbed.TulipTestbed;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Both C* cores of the careful-protocols paper, and the same C* application ({@link CStarWorkload}: ring,
 * one-to-all and crowd events, every fragment and every receive status checked), on the DEC 21140 instead of the
 * Medusa: two emulated 21140s on a simulated Ethernet segment in real time (one event loop, inline cards), and two to
 * four 21140s served by the native shim on the stations of a Linux bridge of veth pairs ({@link VethBridge},
 * {@link ShimTulipLinks}), one thread per node. The careful core uses the
 * 21140 link's Ethernet broadcast and its plain copy-and-sum send (no single-copy capability off the Medusa). The
 * virtual-time runs on the emulated 21140 are the simulation tester's ({@code nic simtest --medium ethernet}, bench's
 * CStarCardMediaSimulationTest).
 */
class CStarOnTulipTest {
    static final int EVENTS = 60;

    static CoreBuilder cores(String protocol) {
        SimSettings s = SimSettings.cstar();
        return switch (protocol) {
            case "careful" -> (l, clock, cpu) -> new CarefulCore(l, CarefulConfig.defaults().withReceiveBuffers(15)
                    .withEventSlots(64), cpu);
            case "traditional" -> (l, clock, cpu) -> new TraditionalCore(l, clock, cpu, SimProtocols.traditional(s));
            default -> throw new IllegalArgumentException(protocol);
        };
    }

    /** Ring, one-to-all and crowd events in turn, 3 fragments of 64 bytes per sender and event. */
    static CStarWorkload program(int nodes) {
        CStarWorkload.Pattern[] mix = new CStarWorkload.Pattern[EVENTS];
        for (int e = 0; e < EVENTS; e++) {
            mix[e] = CStarWorkload.Pattern.values()[e % 3];
        }
        return new CStarWorkload(nodes, EVENTS, 3, 64, 2, mix, true);
    }

    /**
     * Runs the program in real time until done (or 30 s) and checks every fragment arrived right: on one event loop
     * for cards whose readiness fires on that loop, or one thread per node for the shim (whose card threads signal
     * readiness), the program's steps then serialised on the program (its checks are one object).
     */
    static void runRealTime(String protocol, CStarWorkload app, Link[] links, boolean threadPerNode)
            throws Exception {
        CStarNetwork[] cores = new CStarNetwork[links.length];
        CoreBuilder build = cores(protocol);
        CoreBuilder keep = (l, clock, cpu) -> cores[l.self()] = (CStarNetwork) build.build(l, clock, cpu);
        boolean done;
        if (threadPerNode) {
            NodeApplication serialised = node -> {
                synchronized (app) {
                    app.afterEvent(node);
                }
            };
            try (ThreadPerNodeRunner runner = new ThreadPerNodeRunner("cstar-" + protocol, links, CostTable.zero(),
                    keep, serialised, TimeUnit.MILLISECONDS.toNanos(1))) {
                runner.start();
                done = await(app);
            }
        } else {
            EventLoop loop = new EventLoop("cstar-" + protocol, TimeUnit.MILLISECONDS.toNanos(1));
            NodeRunner runner = new NodeRunner(loop, links, HostCpu.forNodes(links.length, CostTable.zero(), loop),
                    keep, app, NodeSlowness.NONE);
            app.start(loop, runner);
            loop.start();
            try {
                done = await(app);
            } finally {
                loop.close();
            }
        }
        synchronized (app) {
            assertTrue(done, app::progress);
            assertEquals(0, app.errors(), () -> app.firstError());
            assertEquals(app.expectedTotal(), app.deliveredTotal());
        }
        for (int i = 0; i < links.length; i++) {
            assertEquals(0, cores[i].violations(), protocol + " node " + i);
            if (cores[i] instanceof CarefulCore c) {
                assertTrue(!c.singleCopy() && links[i].canBroadcast(), c::toString);
            }
        }
    }

    private static boolean await(CStarWorkload app) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() - deadline < 0) {
            synchronized (app) {
                if (app.isDone()) {
                    return true;
                }
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
        return false;
    }

    @ParameterizedTest
    @ValueSource(strings = {"careful", "traditional"})
    void onTwoEmulated21140sInRealTime(String protocol) throws Exception {
        try (TulipTestbed bed = TulipTestbed.builder().mode(EngineMode.INLINE).faults(FaultPlan.NONE).build()) {
            bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
            runRealTime(protocol, program(2), TulipGoBackNTest.links(bed), false);
        }
    }

    /**
     * N = 2, 3, 4 native-shim 21140s on the stations of a Linux bridge of veth pairs in one namespace: the careful
     * core's broadcasts are Ethernet broadcasts the bridge floods, its unicasts go to one station; every fragment of
     * the program is delivered exactly once (the workload counts each, by source, event and index) with no violation.
     */
    @ParameterizedTest
    @CsvSource({"careful, 2", "traditional, 2", "careful, 3", "traditional, 3", "careful, 4", "traditional, 4"})
    void onABridgedSegmentThroughTheShim(String protocol, int nodes) throws Exception {
        ShimTulipPair.assumeAvailable();
        Availability segments = VethBridge.availability();
        Requirements.assume(Capability.NET, segments.available(), segments::reason);
        try (VethBridge segment = VethBridge.create(nodes, 1600);
             ShimTulipLinks stations = ShimTulipLinks.on(segment, ShimTulipLinks.Mode.THREADED)) {
            runRealTime(protocol, program(nodes), stations.links(), true);
        }
    }
}
