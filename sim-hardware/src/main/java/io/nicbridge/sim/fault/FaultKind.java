package io.nicbridge.sim.fault;

/**
 * What a {@link FaultInjector} does to one frame offered to a link. At most one fault per frame.
 * How a link applies each kind is the link's contract; the common meaning is:
 */
public enum FaultKind {
    /** No fault: the frame goes through unchanged. */
    NONE,
    /** The frame reaches nobody. */
    DROP,
    /** The frame arrives twice, the copy immediately after the original. */
    DUPLICATE,
    /**
     * The frame is held back and arrives immediately after the next frame offered to the link (a
     * frame held when a second frame is also drawn for reorder is released in that frame's place,
     * and the second one is held; a held frame that no further frame follows is never released).
     */
    REORDER,
    /** The frame arrives {@link FaultInjector#delayNanos()} later than it would have. */
    DELAY,
    /**
     * One bit of the frame, {@link FaultInjector#corruptBit()}, is inverted after its check sequence
     * was computed, so the receiver's check fails (21140: RDES0 CE).
     */
    CORRUPT;

    private static final FaultKind[] VALUES = values();

    /** @return the kind with this ordinal (a shared array: no allocation) */
    public static FaultKind ofOrdinal(int ordinal) {
        return VALUES[ordinal];
    }

    /** Number of kinds, including {@link #NONE}. */
    public static int count() {
        return VALUES.length;
    }
}
