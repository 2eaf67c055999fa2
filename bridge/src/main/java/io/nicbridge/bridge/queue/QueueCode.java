package io.nicbridge.bridge.queue;

/**
 * The negative results of every queue in this package, one meaning per value (as Aeron's {@code Publication} codes):
 * a method that hands out a slot returns its byte offset or index (&gt;= 0) on success and one of these otherwise.
 * Back-pressure ({@link #FULL}, {@link #EMPTY}) is normal and passes; {@link #PEER_CORRUPT} is the other side
 * breaking the contract and does not pass by waiting.
 *
 * <pre>
 *   value  name          returned by                                   meaning
 *   -1     FULL          claim, offer, post..., transmit                no free slot: retry once the consumer frees one
 *   -2     EMPTY         peek, poll, reclaim, pollCompletion            nothing published (or completed) yet: poll again
 *   -3     PEER_CORRUPT  claim, peek, offer, poll, pollCompletion       the other side's index word is impossible
 *   -4     NOT_HELD      claimedOffset, peekedOffset                    this end holds no slot
 * </pre>
 */
public final class QueueCode {
    /** A producer found no free slot (back-pressure): retry after the consumer has freed one. Nothing was written. */
    public static final int FULL = -1;

    /** A consumer found nothing published (or a sender nothing completed): poll again later. Nothing was consumed. */
    public static final int EMPTY = -2;

    /**
     * The index word the other side owns in shared memory says more slots are in use than the queue has ({@code
     * prod - cons} above the capacity as an unsigned number, or a consumer index ahead of what was produced). The
     * word is never trusted: nothing is claimed or consumed, the end counts a protocol error, and the result repeats
     * until the other side is reset, so waiting does not help.
     */
    public static final int PEER_CORRUPT = -3;

    /** {@code claimedOffset()} / {@code peekedOffset()}: this end holds no claimed or peeked slot. */
    public static final int NOT_HELD = -4;

    private QueueCode() {
    }

    /** @return the code's name ({@code FULL}, ...), the value in decimal for a slot (&gt;= 0) or an unknown code */
    public static String describe(long code) {
        return switch ((int) Math.max(code, Integer.MIN_VALUE)) {
            case FULL -> "FULL";
            case EMPTY -> "EMPTY";
            case PEER_CORRUPT -> "PEER_CORRUPT";
            case NOT_HELD -> "NOT_HELD";
            default -> Long.toString(code);
        };
    }
}
