package io.nicbridge.bridge.driver.medusa;

/**
 * Who holds one of the card's 128 buffers, as the driver tracks it. The card owns a buffer only while it sits in
 * the FREE FIFO or between TX_FIFO and TXDONE (C.2); everything else is the host's.
 *
 * <pre>
 *                 claim          commit / send                    TXDONE (reclaim)
 *  HOST_TX_FREE -------> HOST_CLAIMED --------------> CARD_TX ---------------------> HOST_TX_FREE
 *        ^                    | abort
 *        +--------------------+
 *
 *               RX_FIFO pop (poll)           release
 *  CARD_FREE  ---------------------> HOST_RX --------> CARD_FREE        (FREE_FIFO push)
 *      ^                               | forward (transmit in place, no copy)
 *      |           TXDONE (reclaim)    v
 *      +------------------------ CARD_TX_FORWARD
 * </pre>
 */
public enum MedusaBufferState {
    /** A transmit buffer in the driver's free pool. */
    HOST_TX_FREE,
    /** A transmit buffer claimed by the application (being filled). */
    HOST_CLAIMED,
    /** A transmit buffer queued in TX_FIFO or on the ring, until its TXDONE entry is popped. */
    CARD_TX,
    /** A receive buffer in the card's FREE FIFO (or holding a frame not yet popped from RX_FIFO). */
    CARD_FREE,
    /** A received frame held by the application (popped from RX_FIFO, not yet released). */
    HOST_RX,
    /** A received buffer being transmitted again in place; returns to the FREE FIFO after TXDONE. */
    CARD_TX_FORWARD;

    private static final MedusaBufferState[] VALUES = values();

    static MedusaBufferState of(int ordinal) {
        return VALUES[ordinal];
    }
}
