package io.nicbridge.protocols.cstar;

/**
 * A C* core's own count of the frames it numbered for each peer and of the frames it accounted for from each. Only
 * a view across nodes - which no node has, but the simulation tester does - can compare the two ends: when node s
 * numbered more frames for q than q accounted for from s, and the world has gone quiet, those frames were lost with
 * nothing after them from s to q. A core without timers (the careful protocol) cannot notice such a trailing loss:
 * a later frame from the same sender is what exposes a gap, and there is none. The tester uses these counts to tell
 * that documented limit from a core that stalls or loses data by itself.
 */
public interface FrameCounts {
    /** @return the frames this node has numbered for {@code peer}: its unicast frames to it and its broadcasts */
    long framesNumberedFor(int peer);

    /**
     * @return of {@code peer}'s frames to this node, how many it has accounted for: received in sequence, or passed
     *     over by a gap it reported
     */
    long framesAccountedFrom(int peer);
}
