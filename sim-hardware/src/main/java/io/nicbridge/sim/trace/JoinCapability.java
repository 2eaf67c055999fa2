package io.nicbridge.sim.trace;

import java.util.function.LongConsumer;

/**
 * A join capability: the right to write one register of the thread that created it (the paper's
 * JCap). {@link TraceMachine#join} writes it, {@link TraceMachine#sync} reads it. One write, one read.
 */
public final class JoinCapability {
    final int ownerNode;
    int syncBlock = -1;
    boolean joined;
    boolean synced;
    long value;
    // Sync-before-join (continuation form): the waiting continuation and its thread's state.
    LongConsumer continuation;
    TraceMachine.ThreadState waiting;

    JoinCapability(int ownerNode) {
        this.ownerNode = ownerNode;
    }

    /** @return the node whose thread owns the register */
    public int ownerNode() {
        return ownerNode;
    }

    /** @return whether the join has happened (in program order of the single-threaded run) */
    public boolean joined() {
        return joined;
    }
}
