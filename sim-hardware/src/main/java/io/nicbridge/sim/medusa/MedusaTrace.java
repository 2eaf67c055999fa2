package io.nicbridge.sim.medusa;

/**
 * A trace point on every state change of the Medusa's chip core ({@link MedusaCore}), in the spirit of QEMU's
 * trace events: the core calls {@link #event} right after the change, on the core's one thread (with the card's
 * lock held), so a tracer sees the core exactly as the change left it. Events carry no time: the tracer stamps
 * them from the card's time base if it wants to (as QEMU's trace backends do).
 *
 * <p>Unused it costs nothing: the core holds {@link #NONE}, a call the JIT inlines away. A tracer must not call
 * back into the card (its registers or the ring): it runs inside the card's critical section.
 */
@FunctionalInterface
public interface MedusaTrace {
    /** The tracer that records nothing (the default). */
    MedusaTrace NONE = (event, buffer, value) -> { };

    /**
     * @param event  what changed
     * @param buffer the buffer number concerned (0..127), or -1 when the event concerns no buffer
     * @param value  the event's detail: see each {@link Event}
     */
    void event(Event event, int buffer, int value);

    /** The core's state changes. {@code value} is given per event. */
    enum Event {
        /** CTRL.RESET (or power-on): FIFOs empty, every buffer the host's. value: the new epoch. */
        RESET,
        /** A host TX_FIFO push accepted: the buffer is the card's until its TXDONE entry. value: 0. */
        TX_QUEUED,
        /** A host TX_FIFO push refused (out of range or not the host's buffer). value: the pushed word. */
        TX_PUSH_REJECTED,
        /** A host FREE_FIFO push accepted. value: 0. */
        FREE_QUEUED,
        /** A host FREE_FIFO push refused. value: the pushed word. */
        FREE_PUSH_REJECTED,
        /** A queued TX buffer staged for the wire (or loopback). value: frame length with FCS. */
        TX_STARTED,
        /**
         * A TX buffer handed back to the host: its STAT and TSTAMP are written and its number is in TXDONE_FIFO.
         * value: the TXDONE_FIFO entry.
         */
        TX_COMPLETED,
        /** A frame recognised and stored with no FREE_FIFO buffer to take it: dropped. value: frame length. */
        RX_DROPPED_NO_BUFFER,
        /**
         * A received frame handed to the host: its bytes and its status entry are written and its number is in
         * RX_FIFO. value: the RX_FIFO entry.
         */
        RX_COMPLETED,
        /** The host popped TXDONE_FIFO. value: the word read (0: empty). */
        TXDONE_POPPED,
        /** The host popped RX_FIFO. value: the word read (0: empty). */
        RX_POPPED,
        /** ISR bits raised. value: the bits. */
        INTERRUPT_RAISED,
        /** The ring reported a new state. value: the state ({@code FddiRing.STATE_*}). */
        RING_STATE,
        /** The card decided to join (value 1) or leave (value 0) the ring. */
        RING_MEMBERSHIP
    }
}
