package io.nicbridge.protocols.runner;

import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.core.ProtocolCore;

/** One node as its {@link NodeApplication} sees it, whichever runner drives it. */
public interface RunnerNode {
    int id();

    Link link();

    ProtocolCore core();

    /**
     * Call after the application acted on the core from outside an event the runner dispatched (e.g. from its own
     * timer): the runner re-arms the core's timer for the deadline it may have changed. On the node's thread only.
     */
    void applicationActed();
}
