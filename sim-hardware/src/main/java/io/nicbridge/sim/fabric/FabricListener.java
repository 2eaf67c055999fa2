package io.nicbridge.sim.fabric;

/**
 * Fabric-wide observer for measurement (latency, hops, drops). The {@link PacketRecord} is a flyweight valid only
 * during the call. Called on the simulation thread after the destination endpoint's {@code deliver}.
 */
public interface FabricListener {

    /** A packet's tail reached its destination NI at {@code cycle}. */
    void delivered(PacketRecord packet, long cycle);

    /**
     * The drop-when-blocked fabric discarded a packet at {@code cycle} (its head), or a destination NI discarded it
     * ({@link DropReason#NI_FAULT}, {@link DropReason#NI_CHECKSUM}).
     */
    default void dropped(PacketRecord packet, DropReason reason, long cycle) {
    }
}
