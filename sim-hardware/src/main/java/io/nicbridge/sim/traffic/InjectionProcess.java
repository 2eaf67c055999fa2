package io.nicbridge.sim.traffic;

import java.util.SplittableRandom;

/**
 * Decides, once per node per cycle, whether that node creates a packet: the temporal half of a
 * synthetic workload. Per-node state (the on/off state of a bursty source) lives inside the
 * process, indexed by node, so one instance serves a whole network.
 */
public interface InjectionProcess {
    /**
     * @param node the node asking
     * @param random the node's own random stream
     * @return whether the node creates a packet this cycle
     */
    boolean inject(int node, SplittableRandom random);

    /** @return the long-run packets per node per cycle this process generates */
    double packetRate();
}
