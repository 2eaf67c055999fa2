package io.nicbridge.protocols.runner;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.protocols.core.ProtocolCore;

/** Builds one node's core for a runner, at setup, from what the node has: its link, its clock and its CPU. */
@FunctionalInterface
public interface CoreBuilder {
    /**
     * @param link  the node's link (its {@code self()} is the node's number)
     * @param clock the node's scheduler: the only time the core may read
     * @param cpu   the node's CPU, to charge the core's own work to (copies, checksums)
     */
    ProtocolCore build(Link link, Scheduler clock, HostCpu cpu);
}
