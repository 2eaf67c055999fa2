package io.nicbridge.protocols.sim;

/**
 * What happens to one committed frame on an {@link InMemoryMedium}: filled in by its {@link FrameFaults} (reset to
 * "delivered once, on time, intact" before each call), one reusable instance per medium.
 */
public final class FrameFate {
    /** The frame never arrives. */
    public boolean drop;
    /** Nanoseconds added to the frame's arrival: a delay, or a reordering when later frames overtake it. */
    public long extraDelayNanos;
    /** A second copy arrives this many nanoseconds after the first; negative = no duplicate. */
    public long duplicateAfterNanos = -1;
    /** The byte at this payload offset (taken modulo the frame length) is damaged; negative = intact. */
    public int corruptOffset = -1;
    /** XORed into the damaged byte (never 0, so the byte really changes). */
    public byte corruptMask = 1;

    void reset() {
        drop = false;
        extraDelayNanos = 0;
        duplicateAfterNanos = -1;
        corruptOffset = -1;
        corruptMask = 1;
    }

    /** @return true when this fate differs from a plain on-time delivery */
    public boolean isFault() {
        return drop || extraDelayNanos != 0 || duplicateAfterNanos >= 0 || corruptOffset >= 0;
    }
}
