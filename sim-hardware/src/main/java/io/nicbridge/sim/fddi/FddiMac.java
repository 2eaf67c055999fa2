package io.nicbridge.sim.fddi;

import java.lang.foreign.MemorySegment;

/**
 * A station's MAC as the {@link FddiRing} sees it: what the ring asks of a card (its address, its T_Req
 * bid, the next frame to send while it holds the token) and what it tells it (frames passing by, its own
 * frames coming back with their frame-status indicators, ring state changes, tokens).
 *
 * <p>The ring calls these methods under its own lock, on the thread that runs the ring (the virtual-time
 * scheduler, or in real time the thread whose card asked for the token). Implementations may take their
 * own lock inside (ring lock, then card lock - never the other way round: a card calls its
 * {@link FddiRingPort} only while holding none of its own locks). They must not allocate.
 */
public interface FddiMac {
    /** {@link #pullFrame} result: nothing (more) to send now. */
    long NO_FRAME = -1L;

    /** Frame-status indicator E: a station detected an error (bad FCS). */
    int FS_E = 1;
    /** Frame-status indicator A: a station recognised the destination address as its own. */
    int FS_A = 2;
    /** Frame-status indicator C: a station copied the frame. */
    int FS_C = 4;

    String name();

    /** @return the station address, canonical bit order, byte 0 in bits 47:40 */
    long address();

    /** @return the TTRT this station bids in the claim process (T_Req), ns */
    long requestedTtrtNanos();

    /**
     * The station holds a usable token: give the next frame to send, FC .. INFO followed by the FCS the MAC
     * appends, written at offset 0 of {@code frame}.
     *
     * @param capacity bytes available in {@code frame}
     * @return {@code (tag << 32) | lengthWithFcs}, where {@code tag} comes back in {@link #frameReturned};
     *     or {@link #NO_FRAME}
     */
    long pullFrame(MemorySegment frame, int capacity);

    /**
     * A frame from another station passes (its last bit has arrived here).
     *
     * @param lengthWithFcs FC .. INFO plus FCS
     * @param fsIn          indicators set by the stations it passed before
     * @return indicators this station sets ({@link #FS_E}, {@link #FS_A}, {@link #FS_C})
     */
    int frameArrived(MemorySegment frame, int lengthWithFcs, int fsIn);

    /** A frame this station sent came back round and was stripped; {@code fs} = indicators set on the way. */
    void frameReturned(int tag, int fs);

    /** The ring changed state ({@link FddiRing#STATE_ISOLATED} ...); {@code ttrtNanos} is the negotiated TTRT. */
    void ringStateChanged(int state, long ttrtNanos);

    /** {@code count} tokens passed this station since the last call. */
    void tokensSeen(long count);
}
