package io.nicbridge.sim.fabric.link;

import io.nicbridge.bridge.link.Link;
import io.nicbridge.sim.fabric.Network;

/**
 * The fabric link's request/reply classes, reached through {@code link.capability(PacketClasses.class)}: the two
 * logical networks of the fabric ({@link Network#REQUEST}, {@link Network#REPLY}) each with its own NI send queue and
 * its own virtual channels, which is what keeps a request/reply protocol free of fetch deadlock. A plain
 * {@link Link#claim(int)} sends in the request class; a core that needs both (idempotent messaging, NIFDY's replies)
 * claims with a class and reads the class of what it receives.
 */
public interface PacketClasses {
    /**
     * Like {@link Link#claim(int)}, for a frame of class {@code packetClass}. Back-pressure is per class: a full
     * request queue does not hold up replies.
     *
     * @return a TX handle, or {@link Link#NONE} when no payload buffer is free or that class's NI send queue is full
     * @throws IllegalArgumentException for a bad peer (as {@link Link#claim}) or a class other than 0 and 1
     */
    int claim(int peer, int packetClass);

    /** @return {@link Network#REQUEST} or {@link Network#REPLY}: the class a received frame travelled in */
    int rxClass(int rxHandle);
}
