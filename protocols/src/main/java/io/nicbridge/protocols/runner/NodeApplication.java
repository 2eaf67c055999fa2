package io.nicbridge.protocols.runner;

/**
 * The application on one node of a runner ({@link NodeRunner}, {@link ThreadPerNodeRunner}): it runs on the node's
 * thread after each event its core handled.
 */
@FunctionalInterface
public interface NodeApplication {
    NodeApplication NONE = node -> { };

    /** Offer and take messages on {@code node}'s core; the runner re-arms the core's timer afterwards. */
    void afterEvent(RunnerNode node);
}
