package io.nicbridge.protocols.dst;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Clock;
import io.nicbridge.protocols.core.MessageCore;

/** Builds the core under test for one node of a simulated world. */
@FunctionalInterface
public interface CoreFactory {
    MessageCore create(Link link, Clock clock, HostCpu cpu, SimSettings settings);
}
