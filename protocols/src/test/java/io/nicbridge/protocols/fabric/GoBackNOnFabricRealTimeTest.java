package io.nicbridge.protocols.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.protocols.cards.Exchange;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.runner.ThreadPerNodeRunner;
import io.nicbridge.sim.fabric.Discipline;
import io.nicbridge.sim.fabric.DropReason;
import io.nicbridge.sim.fabric.FabricConfig;
import io.nicbridge.sim.fabric.Network;
import io.nicbridge.sim.fabric.Topologies;
import io.nicbridge.sim.fabric.link.FabricLinks;
import io.nicbridge.sim.fabric.link.RealTimeFabric;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The go-back-N core and the card tests' {@link Exchange} application, unchanged, on the MPP fabric in real time: a
 * 4x4 mesh stepped by its own thread ({@link RealTimeFabric}) and one thread per node ({@link ThreadPerNodeRunner})
 * calling its {@link FabricLinks} link across threads. Every node sends to every other; every message must arrive
 * exactly once, in order, byte for byte - also when the drop-on-block fabric, loaded with cross traffic, discards
 * frames the senders never hear of.
 */
class GoBackNOnFabricRealTimeTest {
    static final int NODES = 8;
    static final int MESSAGES = 40;
    static final int SIZE = 64;
    static final long SECONDS = 120;

    record Result(long cycles, double nanosPerCycle, long dropped, long ejectBlocked, long headBlocked,
                  long foreign, long timeouts, long retransmitted) {
    }

    static Result run(FabricConfig fabric, int crossPeriod, int crossFlits) throws Exception {
        Network network = new Network(Topologies.mesh(4, 4), fabric, 5);
        try (RealTimeFabric medium = new RealTimeFabric(network, NODES, CostTable.measured(),
                new FabricLinks.Config(128, 16, 16, FabricLinks.CM5_CYCLE_NANOS), new BackoffIdle())) {
            if (crossPeriod > 0) {
                for (int n = NODES; n < network.nodes(); n++) {
                    network.attach(n, new GoBackNOnFabricTest.CrossTraffic(31L * n, crossPeriod, crossFlits));
                }
            }
            Exchange app = new Exchange(NODES, MESSAGES, SIZE);
            GoBackNConfig cfg = new GoBackNConfig(8, SIZE, TimeUnit.MILLISECONDS.toNanos(10));
            ThreadPerNodeRunner runner = new ThreadPerNodeRunner("fabric-gbn", medium.links(), CostTable.zero(),
                    (link, clock, cpu) -> new GoBackNCore(link, clock, cfg, cpu), app,
                    TimeUnit.MILLISECONDS.toNanos(1));
            medium.start();
            try {
                runner.start();
                boolean done = app.await(SECONDS);
                assertNull(medium.failure(), "the fabric thread ran without failing");
                assertTrue(done, () -> "delivered " + app.delivered() + " of " + app.expectedTotal());
            } finally {
                runner.close();
            }
            long timeouts = 0;
            long retransmitted = 0;
            for (int i = 0; i < NODES; i++) { // the node threads have stopped: their counters are final
                GoBackNCore core = (GoBackNCore) runner.node(i).core();
                timeouts += core.counters().timeouts();
                retransmitted += core.counters().retransmitted();
            }
            medium.close();
            assertEquals(0, app.errors(), app::firstError);
            for (int i = 0; i < NODES; i++) {
                assertTrue(medium.cpu(i).units(CostItem.COPY) > 0, "the link work was counted on node " + i);
            }
            return new Result(medium.cyclesStepped(), medium.nanosPerCycle(), medium.framesDropped(),
                    medium.drops(DropReason.EJECT_BLOCKED), medium.drops(DropReason.HEAD_BLOCKED),
                    medium.foreignPackets(), timeouts, retransmitted);
        }
    }

    @Test
    void everyNodePairExchangesEverythingInOrderOverABufferedMeshInRealTime() throws Exception {
        Result r = run(FabricConfig.defaults(), 0, 0);
        System.out.println("go-back-N on a real-time 4x4 mesh, buffered: " + r);
        assertEquals(0, r.dropped(), "a buffered fabric loses nothing");
        assertTrue(r.cycles() > 0, r.toString());
        assertTrue(r.nanosPerCycle() >= FabricLinks.CM5_CYCLE_NANOS * 0.9,
                "never faster than the wall clock allows: " + r);
    }

    @Test
    void dropsUnderCrossTrafficAreRepairedInRealTime() throws Exception {
        FabricConfig lossy = FabricConfig.defaults().withBufferDepth(2).withDiscipline(Discipline.DROP_WHEN_BLOCKED);
        Result r = run(lossy, 6, 8);
        System.out.println("go-back-N on a real-time 4x4 mesh, drop on block, cross traffic: " + r);
        assertTrue(r.dropped() > 0, "cross traffic made the fabric drop protocol frames: " + r);
        assertEquals(r.dropped(), r.ejectBlocked() + r.headBlocked());
        assertTrue(r.foreign() > 0, "cross traffic reached link nodes and was counted, not delivered");
        assertTrue(r.timeouts() > 0 && r.retransmitted() > 0, "the cores went back and resent: " + r);
    }
}
