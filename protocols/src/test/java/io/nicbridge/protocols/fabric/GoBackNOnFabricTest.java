package io.nicbridge.protocols.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.fabric.Discipline;
import io.nicbridge.sim.fabric.DropReason;
import io.nicbridge.sim.fabric.Endpoint;
import io.nicbridge.sim.fabric.FabricConfig;
import io.nicbridge.sim.fabric.Network;
import io.nicbridge.sim.fabric.NodePort;
import io.nicbridge.sim.fabric.PacketRecord;
import io.nicbridge.sim.fabric.Topologies;
import io.nicbridge.sim.fabric.Topology;
import io.nicbridge.sim.fabric.link.FabricLinks;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The go-back-N core, unchanged, on the MPP fabric: a 4x4 mesh whose nodes are {@link FabricLinks}, the cycles
 * stepped on the runner's {@link VirtualTimeBase}, so fabric, links, cores and application are one deterministic
 * world. Node pairs {@code i <-> n-1-i} exchange messages across the middle of the mesh.
 */
class GoBackNOnFabricTest {
    static final int MTU = 128;
    static final GoBackNConfig CONFIG = new GoBackNConfig(8, MTU - 16, TimeUnit.MICROSECONDS.toNanos(50));

    /** What one run left behind. */
    record Run(long digest, long dispatches, long endNanos, long delivered, long timeouts, long retransmitted,
               long framesDropped, long ejectBlocked, long headBlocked, long foreignPackets, long cycles,
               long txBackPressure) {
    }

    /**
     * @param linkNodes nodes running the core (the first ones); the others inject cross traffic when {@code cross}
     * @param fabric    the fabric's configuration
     */
    static Run run(long seed, int linkNodes, int messages, FabricConfig fabric, boolean cross) {
        return run(seed, Topologies.mesh(4, 4), linkNodes, messages, fabric, cross ? 6 : 0, 8);
    }

    /**
     * @param crossPeriod cycles between two cross-traffic packets of each non-link node (0: none)
     * @param crossFlits  flits of each cross-traffic packet
     */
    static Run run(long seed, Topology topology, int linkNodes, int messages, FabricConfig fabric, int crossPeriod,
                   int crossFlits) {
        VirtualTimeBase world = new VirtualTimeBase(seed);
        Network network = new Network(topology, fabric, seed);
        HostCpu[] cpus = HostCpu.forNodes(linkNodes, CostTable.zero(), world);
        FabricLinks medium = new FabricLinks(network, world, cpus,
                new FabricLinks.Config(MTU, 64, 64, FabricLinks.CM5_CYCLE_NANOS));
        PairExchange app = new PairExchange(PairExchange.mirrored(linkNodes, linkNodes), messages, CONFIG.maxMessage());
        CrossTraffic[] generators = new CrossTraffic[network.nodes() - linkNodes];
        if (crossPeriod > 0) {
            for (int n = linkNodes; n < network.nodes(); n++) {
                generators[n - linkNodes] = new CrossTraffic(seed * 131 + n, crossPeriod, crossFlits);
                network.attach(n, generators[n - linkNodes]);
            }
        }
        NodeRunner runner = new NodeRunner(world, medium.links(), cpus,
                (link, clock, cpu) -> new GoBackNCore(link, clock, CONFIG, cpu), app, NodeSlowness.NONE);
        Timer start = world.newTimer("start", () -> {
            for (int i = 0; i < runner.nodeCount(); i++) {
                app.afterEvent(runner.node(i));
                runner.node(i).applicationActed();
            }
        });
        start.armAfter(0);
        boolean finished = world.runUntil(app::done, world.nanoTime() + TimeUnit.SECONDS.toNanos(2));
        assertEquals(0, app.errors(), app.firstError());
        assertTrue(finished, "delivered " + app.delivered() + " of " + app.total() + " by " + world.nanoTime()
                + " ns; dropped " + medium.framesDropped() + "; " + runner.node(0).core());
        long timeouts = 0;
        long retransmitted = 0;
        long backPressure = 0;
        for (int i = 0; i < linkNodes; i++) {
            GoBackNCore core = (GoBackNCore) runner.node(i).core();
            timeouts += core.counters().timeouts();
            retransmitted += core.counters().retransmitted();
            backPressure += medium.link(i).counters().txBackPressure();
        }
        return new Run(runner.traceDigest(), runner.dispatches(), world.nanoTime(), app.delivered(), timeouts,
                retransmitted, medium.framesDropped(), medium.drops(DropReason.EJECT_BLOCKED),
                medium.drops(DropReason.HEAD_BLOCKED), medium.foreignPackets(), medium.cyclesStepped(),
                backPressure);
    }

    /** A raw fabric endpoint: every {@code period} cycles one {@code flits}-flit packet to a random node. */
    static final class CrossTraffic implements Endpoint {
        private final SplittableRandom random;
        private final int period;
        private final int flits;

        CrossTraffic(long seed, int period, int flits) {
            this.random = new SplittableRandom(seed);
            this.period = period;
            this.flits = flits;
        }

        @Override
        public void attached(NodePort port) {
            port.wakeAt(port.cycle() + random.nextInt(period));
        }

        @Override
        public void wake(NodePort port, long cycle) {
            int dst = random.nextInt(port.network().nodes() - 1);
            port.inject(dst >= port.node() ? dst + 1 : dst, flits, Network.REQUEST, cycle, 0); // full queue: skip
            port.wakeAt(cycle + period);
        }

        @Override
        public void deliver(NodePort port, PacketRecord packet, long cycle) {
        }
    }

    @Test
    void eightPairsAcrossA4x4MeshGetEveryMessageOnceInOrderAndTheSameSeedGivesTheSameTrace() {
        Run first = run(7, 16, 150, FabricConfig.defaults(), false);
        System.out.println("go-back-N on a 4x4 mesh, buffered: " + first);
        assertEquals(16L * 150, first.delivered());
        assertEquals(0, first.framesDropped(), "a buffered fabric loses nothing");
        assertEquals(first, run(7, 16, 150, FabricConfig.defaults(), false),
                "same seed, same world: same trace digest, end time and counters");
        assertTrue(first.cycles() > 0 && first.endNanos() >= (first.cycles() - 1) * FabricLinks.CM5_CYCLE_NANOS,
                first.toString());
    }

    @Test
    void dropsUnderCrossTrafficAreRepairedByGoingBackAndShowInTheMediumsCounters() {
        FabricConfig lossy = FabricConfig.defaults().withBufferDepth(2).withDiscipline(Discipline.DROP_WHEN_BLOCKED);
        Run run = run(11, 8, 100, lossy, true);
        System.out.println("go-back-N on a 4x4 mesh, drop on block, cross traffic: " + run);
        assertEquals(8L * 100, run.delivered());
        assertTrue(run.framesDropped() > 0, "cross traffic made the fabric drop protocol frames: " + run);
        assertEquals(run.framesDropped(), run.ejectBlocked() + run.headBlocked());
        assertTrue(run.timeouts() > 0 && run.retransmitted() > 0, "the cores went back and resent: " + run);
        assertTrue(run.foreignPackets() > 0, "cross traffic reached link nodes and was counted, not delivered");
        assertEquals(run, run(11, 8, 100, lossy, true), "same seed, same drops, same trace");
        assertNotEquals(run.digest(), run(12, 8, 100, lossy, true).digest(), "another seed, other cross traffic");
    }
}
