package io.nicbridge.bridge.link;

/**
 * A link capability ({@link Link#capability}): the frames a core commits between {@link #begin()} and {@link #end()}
 * reach the card with one doorbell, rung at {@code end()}, instead of one per frame - what Linux's {@code xmit_more}
 * lets a driver do with its tail-pointer write. It fits a card whose doorbell means "look at the ring" rather than
 * "send this frame": the DEC 21140's transmit poll demand (CSR1) makes the chip take every descriptor the host has
 * handed it, so a burst of descriptors needs one write, and on the native shim one system call
 * ({@code sendmmsg}) instead of one {@code send} per frame.
 *
 * <pre>
 *   burst.begin();
 *   try { ... link.claim / commit, as many frames as the core has ... } finally { burst.end(); }
 * </pre>
 * Frames committed inside a burst are on the ring but not yet the card's to look at until {@code end()}: a core
 * opens a burst only around work that does not wait (a send call, one poll's answers), never across a wait. Bursts
 * nest; the outermost {@code end()} rings. Allocation-free; the link's thread only.
 */
public interface TransmitBurst {
    /** Defers the doorbell of the frames committed from now on to the matching {@link #end()}. */
    void begin();

    /**
     * Ends the burst; the outermost end rings the doorbell once if any frame was committed in it.
     *
     * @throws IllegalStateException without a matching {@link #begin()}
     */
    void end();
}
