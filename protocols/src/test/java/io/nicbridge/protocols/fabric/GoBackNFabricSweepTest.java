package io.nicbridge.protocols.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.sim.fabric.Discipline;
import io.nicbridge.sim.fabric.FabricConfig;
import io.nicbridge.sim.fabric.Topologies;
import io.nicbridge.sim.fabric.Topology;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The go-back-N core on randomly drawn lossy fabrics: the DST harness ({@code protocols.dst}) builds its own
 * {@code InMemoryMedium} and decides frame faults inside it, so it cannot take the fabric; this sweep is the fabric's
 * counterpart, its faults being the fabric's own drops. Each seed draws a topology (4x4 mesh, 4x4 torus, 16-node fat
 * tree), buffer depth, drop timeout and cross-traffic load (wormhole), and the pairs' messages must all arrive
 * exactly once, in order, byte for byte ({@link PairExchange}), deterministically.
 */
class GoBackNFabricSweepTest {
    static final int SEEDS = 24;

    @Test
    void everyDrawnLossyFabricDeliversEveryMessageExactlyOnceInOrder() {
        long drops = 0;
        long retransmitted = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L);
            Topology topology = switch (r.nextInt(3)) {
                case 0 -> Topologies.mesh(4, 4);
                case 1 -> Topologies.torus(4, 4);
                default -> Topologies.fatTree(4, 2);
            };
            FabricConfig fabric = FabricConfig.defaults()
                    .withVcsPerClass(2)
                    .withBufferDepth(1 + r.nextInt(4))
                    .withDiscipline(Discipline.DROP_WHEN_BLOCKED)
                    .withDropTimeoutCycles(r.nextInt(4));
            int linkNodes = 2 * (2 + r.nextInt(4));
            int period = 3 + r.nextInt(10);
            int flits = 2 + r.nextInt(15);
            GoBackNOnFabricTest.Run run = GoBackNOnFabricTest.run(seed, topology, linkNodes, 40, fabric, period, flits);
            String what = "seed " + seed + ", " + topology.name() + ", " + fabric + ", " + linkNodes
                    + " link nodes, cross traffic " + flits + " flits every " + period + " cycles: " + run;
            assertEquals(linkNodes * 40L, run.delivered(), what);
            assertEquals(run.framesDropped(), run.ejectBlocked() + run.headBlocked(), what);
            drops += run.framesDropped();
            retransmitted += run.retransmitted();
        }
        assertTrue(drops > 0 && retransmitted > 0, "the sweep exercised loss and repair: " + drops + " drops, "
                + retransmitted + " retransmissions");
        System.out.println("go-back-N fabric sweep: " + SEEDS + " lossy fabrics, " + drops + " frames dropped, "
                + retransmitted + " retransmitted, every message delivered once and in order");
    }
}
