package io.nicbridge.protocols.careful;

/**
 * How a {@link CarefulCore} is set up (TR 94-14, section 5.3).
 *
 * @param receiveBuffers R, the receive buffers the protocol manages (the Medusa has 128); each of the other P - 1
 *                       nodes gets a static window of floor(R/P) frames. The link needs R + P - 1 receive buffers
 *                       (one per peer for an update frame in flight), or the card may drop what the windows allowed
 *                       (which the core then reports as a gap).
 * @param eventSlots     slots of the cyclic event buffer of the receive side (a power of two): how many events may
 *                       be live at once
 * @param hostBuffers    host buffers for copy-out (each one frame's payload)
 * @param copyOutBelow   copy frames out of the receive buffers into host buffers while fewer than this many receive
 *                       buffers are free; -1 for the default, R less half of the (P-1) windows
 * @param safety         {@link Safety#CHECKED} for the protocol; the others exist to demonstrate the deadlocks
 *                       Theorem 1 rules out
 * @param clusterNodes   P, the cluster: the link's peers {@code [0, P)}; 0 for all of the link's peers. A frame from
 *                       a peer beyond it is a frame from an unknown node.
 */
public record CarefulConfig(int receiveBuffers, int eventSlots, int hostBuffers, int copyOutBelow, Safety safety,
                            int clusterNodes) {
    /** Whether the core enforces the conditions of Theorem 1. */
    public enum Safety {
        /** R &gt;= 2P and the two-frame rule: deadlock-free (Theorem 1). */
        CHECKED,
        /** Accepts R &lt; 2P (windows under two frames): data can never be sent; for the demonstration only. */
        UNDERSIZED_WINDOWS,
        /** Sends data down to a closed window (ignores the two-frame rule): can deadlock; demonstration only. */
        IGNORE_TWO_FRAME_RULE
    }

    public CarefulConfig {
        if (receiveBuffers < 1 || receiveBuffers > 0xFFFF) {
            throw new IllegalArgumentException("receiveBuffers must be in [1, 65535], was " + receiveBuffers);
        }
        if (eventSlots < 2 || Integer.bitCount(eventSlots) != 1) {
            throw new IllegalArgumentException("eventSlots must be a power of two >= 2, was " + eventSlots);
        }
        if (hostBuffers < 0) {
            throw new IllegalArgumentException("hostBuffers must be >= 0, was " + hostBuffers);
        }
        if (copyOutBelow < -1 || copyOutBelow > receiveBuffers) {
            throw new IllegalArgumentException("copyOutBelow must be -1 (default) or in [0, receiveBuffers = "
                    + receiveBuffers + "], was " + copyOutBelow);
        }
        if (safety == null) {
            throw new IllegalArgumentException("safety must not be null");
        }
        if (clusterNodes != 0 && (clusterNodes < 2 || clusterNodes > 64)) {
            throw new IllegalArgumentException("clusterNodes must be 0 (the link's peers) or in [2, 64], was "
                    + clusterNodes);
        }
    }

    /** @return the paper's setup: R = 128 (the Medusa's buffers), 256 event slots, 512 host buffers */
    public static CarefulConfig defaults() {
        return new CarefulConfig(128, 256, 512, -1, Safety.CHECKED, 0);
    }

    public CarefulConfig withReceiveBuffers(int r) {
        return new CarefulConfig(r, eventSlots, hostBuffers, copyOutBelow, safety, clusterNodes);
    }

    public CarefulConfig withEventSlots(int slots) {
        return new CarefulConfig(receiveBuffers, slots, hostBuffers, copyOutBelow, safety, clusterNodes);
    }

    public CarefulConfig withHostBuffers(int n) {
        return new CarefulConfig(receiveBuffers, eventSlots, n, copyOutBelow, safety, clusterNodes);
    }

    public CarefulConfig withCopyOutBelow(int free) {
        return new CarefulConfig(receiveBuffers, eventSlots, hostBuffers, free, safety, clusterNodes);
    }

    public CarefulConfig withClusterNodes(int p) {
        return new CarefulConfig(receiveBuffers, eventSlots, hostBuffers, copyOutBelow, safety, p);
    }

    public CarefulConfig withSafety(Safety s) {
        return new CarefulConfig(receiveBuffers, eventSlots, hostBuffers, copyOutBelow, s, clusterNodes);
    }
}
