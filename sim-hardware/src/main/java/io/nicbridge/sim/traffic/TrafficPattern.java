package io.nicbridge.sim.traffic;

import java.util.SplittableRandom;

/**
 * Chooses the destination of each new packet: the spatial half of a synthetic workload (the
 * temporal half is an {@link InjectionProcess}). Implementations are stateless after
 * construction apart from the random stream they are handed, so the same seed gives the same
 * destinations whatever network runs them.
 */
@FunctionalInterface
public interface TrafficPattern {
    /**
     * @param source the node creating the packet, in [0, nodes)
     * @param random the source node's own random stream (patterns that need no randomness ignore it)
     * @return the destination node, in [0, nodes)
     */
    int destination(int source, SplittableRandom random);
}
