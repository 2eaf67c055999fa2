package io.nicbridge.protocols.dst;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Clock;
import io.nicbridge.protocols.core.ProtocolCore;

/**
 * Builds the core under test for one node of a simulated world. Its application API picks the workload a schedule
 * runs: a {@link io.nicbridge.protocols.core.MessageCore} gets messages between peers, a
 * {@link io.nicbridge.protocols.cstar.CStarNetwork} a C* program of events ({@link SimulationRun}).
 */
@FunctionalInterface
public interface CoreFactory {
    ProtocolCore create(Link link, Clock clock, HostCpu cpu, SimSettings settings);
}
