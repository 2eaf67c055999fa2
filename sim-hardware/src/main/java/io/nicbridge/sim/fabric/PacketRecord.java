package io.nicbridge.sim.fabric;

/**
 * Flyweight view of one packet, handed to {@link Endpoint#deliver} and {@link FabricListener}; valid only during
 * that call (the handle is recycled afterwards). Copy the fields you need.
 */
public final class PacketRecord {
    private final Network network;
    private int handle;

    PacketRecord(Network network) {
        this.network = network;
    }

    PacketRecord at(int handle) {
        this.handle = handle;
        return this;
    }

    public int src() {
        return network.src(handle);
    }

    public int dst() {
        return network.dst(handle);
    }

    /** Flits in the network, checksum flit included. */
    public int lengthFlits() {
        return network.length(handle);
    }

    /** Flits of payload (network flits minus the checksum flit in drop mode). */
    public int payloadFlits() {
        return network.length(handle) - (network.config().networkFlits(1) - 1);
    }

    /** {@link Network#REQUEST} or {@link Network#REPLY}. */
    public int packetClass() {
        return network.cls(handle);
    }

    /** Routers the head has passed through so far (channel hops + 1 once delivered). */
    public int hops() {
        return network.hops(handle);
    }

    public long createdCycle() {
        return network.created(handle);
    }

    /** Cycle the head left the NI, or -1 if it never did. */
    public long injectedCycle() {
        return network.injected(handle);
    }

    public long payloadId() {
        return network.payload(handle);
    }

    /**
     * @return true when the NI hands this same packet over again right after this call (its fault plan duplicated
     *         it, {@link InterfaceFaults}): an endpoint that frees resources per packet waits for the last copy
     */
    public boolean copyFollows() {
        return network.copyFollows();
    }

    @Override
    public String toString() {
        return "Packet[" + src() + "->" + dst() + ", " + lengthFlits() + " flits, class " + packetClass() + ", hops "
            + hops() + ", created " + createdCycle() + ", injected " + injectedCycle() + ", id " + payloadId() + "]";
    }
}
