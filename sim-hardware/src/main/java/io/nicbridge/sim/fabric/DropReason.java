package io.nicbridge.sim.fabric;

/** Why the drop-when-blocked fabric, or a destination NI's fault plan, discarded a packet; counted separately by {@link Network#drops(DropReason)}. */
public enum DropReason {
    /** The head was blocked inside the network: no free output VC, no credit, or lost switch arbitration. */
    HEAD_BLOCKED,
    /** The head was blocked at the last router because the destination's ejection buffer was full. */
    EJECT_BLOCKED,
    /**
     * The destination's NI dropped the whole packet it consumed, by its fault plan ({@link InterfaceFaults});
     * not counted in {@link Network#packetsDropped()} (no flit was lost inside the network).
     */
    NI_FAULT,
    /**
     * The destination's NI found the packet corrupted (its check failed; the fault plan's CORRUPT) and discarded
     * it; not counted in {@link Network#packetsDropped()}.
     */
    NI_CHECKSUM
}
