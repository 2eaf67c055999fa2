package io.nicbridge.sim.fddi;

/**
 * One station's attachment to an {@link FddiRing}: it joins and leaves the ring (each change starts a claim)
 * and asks for the token when it has frames to send. Safe from any thread; call it while holding none of the
 * card's locks.
 */
public interface FddiRingPort {
    String name();

    /** Inserts the station into the ring (a claim follows). No-op when already joined. */
    void join();

    /** Bypasses the station (a claim follows among the others). No-op when not joined. */
    void leave();

    boolean isJoined();

    /**
     * The station has frames queued: in virtual time it will be offered the token (the ring calls
     * {@link FddiMac#pullFrame} at each token arrival until that returns {@link FddiMac#NO_FRAME}); in real time
     * its frames are sent and delivered at once, on this thread. Ignored when the station is not joined.
     */
    void requestToken();

    /**
     * In virtual time an idle token is not simulated hop by hop; this brings every station's token count up to
     * now (the Medusa calls it when the host reads CNT_TOKENS_SEEN). Cheap when the token is busy: a no-op.
     */
    void updateIdleTokens();
}
