package io.nicbridge.sim.fabric;

/**
 * What sits behind a node's network-interface port: a traffic generator, a trace engine, or a protocol core
 * (NIFDY, idempotent messaging). Called on the simulation thread only, from inside {@link Network#step()}.
 *
 * <p>An endpoint is driven by two things: wake-ups it asked for with {@link NodePort#wakeAt(long)}, and whole
 * packets arriving. It sends with {@link NodePort#inject} / {@link NodePort#send}; a {@code false} return is
 * back-pressure (the NI queue of that class is full), to be retried at a later wake-up.
 */
public interface Endpoint {

    /** Called once when attached to {@code port}; typically arms the first wake-up. */
    default void attached(NodePort port) {
    }

    /** A wake-up requested with {@link NodePort#wakeAt(long)} is due at {@code cycle}. */
    void wake(NodePort port, long cycle);

    /**
     * The tail of a packet for this node was consumed by the NI at {@code cycle}. {@code packet} is a flyweight
     * valid only during this call.
     */
    void deliver(NodePort port, PacketRecord packet, long cycle);
}
