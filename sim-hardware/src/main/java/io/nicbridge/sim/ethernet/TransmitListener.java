package io.nicbridge.sim.ethernet;

/**
 * A station's MAC hears how its frame fared: on a {@link EthernetMode#HUB} segment, where {@link WirePort#transmit}
 * returns {@link WirePort#PENDING} because the outcome depends on what the other stations do during the frame's
 * collision window. Called once per frame, in virtual time, at the moment the station's transmission ends: after the
 * frame's last bit and the inter-frame gap when it was sent, or after the jam of the collision that ended it when it
 * was abandoned. Never called with the segment's lock held; must not block.
 */
@FunctionalInterface
public interface TransmitListener {
    /** How a frame's transmission ended. */
    enum Result {
        /** The frame went out whole (possibly after collisions and backoff). */
        SENT,
        /** A collision was detected after the slot time (IEEE 802.3 4.2.3.2.3 late collision): frame abandoned. */
        LATE_COLLISION,
        /** The 16th attempt collided too (IEEE 802.3 4.2.3.2.5, attemptLimit 16): frame abandoned. */
        EXCESSIVE_COLLISIONS
    }

    /** Never told anything: for stations on segments that never return {@link WirePort#PENDING}. */
    TransmitListener NONE = (result, collisions) -> { };

    /**
     * @param result     how the transmission ended
     * @param collisions collisions this frame met (0..16), the late one included
     */
    void transmitDone(Result result, int collisions);
}
