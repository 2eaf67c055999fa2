package io.nicbridge.sim.traffic;

/**
 * What traffic generators, the measurement harness and the trace engine need from a network: one
 * network-interface port per node on each logical network (0 = request, 1 = reply), and a clock
 * advanced one cycle at a time. A packet is identified by an opaque {@code tag} chosen by the
 * caller; the network hands the same tag back when the packet leaves it (ejected or dropped).
 */
public interface FabricPorts {
    /** Logical network for requests. */
    int REQUEST = 0;
    /** Logical network for replies. */
    int REPLY = 1;
    /** {@link #poll} result when no packet is waiting. */
    long NO_PACKET = -1;

    /** @return number of nodes (terminals) */
    int nodeCount();

    /** @return number of logical networks (1 or 2) */
    int networkCount();

    /** @return the current cycle */
    long cycle();

    /**
     * Offers a packet to a node's injection port.
     *
     * @param tag the caller's identity for the packet, >= 0
     * @return {@code false} when the port cannot take it this cycle (back-pressure; offer again later)
     */
    boolean offer(int network, int source, int destination, int flits, long tag);

    /**
     * Takes the next packet that has fully arrived at a node's ejection port.
     *
     * @return its tag, or {@link #NO_PACKET}
     */
    long poll(int network, int node);

    /** @return routers traversed by the packet the last {@link #poll} returned */
    int polledHops();

    /**
     * @return cycles from the head of the packet the last {@link #poll} returned leaving the port's
     *         queue to its delivery, or -1 when the fabric does not track it (the caller then counts
     *         from its offer)
     */
    default int polledNetworkLatency() {
        return -1;
    }

    /**
     * Turns a node's ejection on or off: a node that stops pulling packets from its port (a
     * processor that does not poll) leaves them in the network, which backs up behind it.
     */
    void receiving(int node, boolean on);

    /** Advances every router, link and port by one cycle. */
    void step();

    /** Registers the listener told about packets the network drops (drop-when-blocked mode). */
    void dropListener(DropListener listener);

    /** Told about each packet the network drops. */
    @FunctionalInterface
    interface DropListener {
        void dropped(int network, long tag);
    }
}
