package io.nicbridge.sim.fabric;

/** Why the drop-when-blocked fabric discarded a packet; counted separately by {@link Network#drops(DropReason)}. */
public enum DropReason {
    /** The head was blocked inside the network: no free output VC, no credit, or lost switch arbitration. */
    HEAD_BLOCKED,
    /** The head was blocked at the last router because the destination's ejection buffer was full. */
    EJECT_BLOCKED
}
