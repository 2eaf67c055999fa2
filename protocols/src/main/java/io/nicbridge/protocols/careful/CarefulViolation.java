package io.nicbridge.protocols.careful;

/**
 * What a {@link CarefulCore} detects when the ring breaks the protocol's assumption (no loss, no duplicate, no
 * damage, only cluster members) or a peer breaks the protocol: each is counted, reported on the log, and the frame
 * is never delivered wrongly.
 */
public enum CarefulViolation {
    /** Frames are missing before this one (a sequence number jumped): the lost fragments never arrive. */
    GAP,
    /** A frame arrived a second time (its sequence number was already seen): not delivered again. */
    DUPLICATE,
    /** The frame's checksum does not match its bytes: not delivered. */
    BAD_CHECKSUM,
    /** A frame from a node outside the cluster. */
    UNKNOWN_PEER,
    /** Too short for the header, or not a careful-protocol frame. */
    MALFORMED,
    /** A peer sent beyond the window it was given. */
    WINDOW_OVERRUN,
    /** A peer's event number went back. */
    EVENT_WENT_BACK,
    /** The receive side could not file the fragment (event slot busy, crossed senders, beyond LAST_FRAG, full). */
    UNFILED,
    /**
     * This node's card was reset and re-initialised by its driver ({@code PortCounters.cardResets()}): frames it was
     * receiving or held unreported may be lost, and frames it had not reported sent may go twice. Reported when the
     * core next runs, whether or not a later frame would expose a gap: the lost frames may have no successor.
     */
    CARD_RESET;

    private static final CarefulViolation[] ALL = values();

    static CarefulViolation[] all() {
        return ALL;
    }
}
