package io.nicbridge.protocols.sim;

/** Decides the fate of each frame committed on an {@link InMemoryMedium}; none = every frame arrives intact. */
@FunctionalInterface
public interface FrameFaults {
    FrameFaults NONE = (frameIndex, source, destination, now, fate) -> { };

    /**
     * @param frameIndex  0 for the first frame the medium carried, then 1, 2, ...
     * @param destination a peer, or {@link io.nicbridge.bridge.link.Link#BROADCAST}
     * @param fate        reset to a plain delivery; set what should happen instead
     */
    void decide(long frameIndex, int source, int destination, long now, FrameFate fate);
}
