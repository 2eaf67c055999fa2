package io.nicbridge.protocols.runner;

/** How late a node gets to handle its events at a given time: a slow (overloaded, descheduled) node. */
@FunctionalInterface
public interface NodeSlowness {
    NodeSlowness NONE = (node, now) -> 0L;

    /** @return nanoseconds (>= 0) by which node {@code node}'s handling of an event due at {@code now} is late */
    long delayNanos(int node, long now);
}
