package io.nicbridge.bridge.link;

/**
 * What a {@link Link} calls from {@link Link#poll}: a protocol core (or its runner) implements it. Both calls run
 * on the thread that polls the link, so a single-threaded core needs no locks.
 */
public interface LinkHandler {
    /**
     * A frame arrived. It stays in place in the link's receive buffer, readable through {@link Link#rxPeer},
     * {@link Link#rxBuffer} and {@link Link#rxLength}, until the handler gives it back with
     * {@link Link#release(int)} (now or later: holding frames is how a slow receiver back-pressures the medium,
     * which then drops and counts, as a card does when its receive ring is full).
     */
    void onFrame(Link link, int rxHandle);

    /** A {@link Link#claim} that returned {@link Link#NONE} would now succeed: the link is writable again. */
    void onWritable(Link link);
}
