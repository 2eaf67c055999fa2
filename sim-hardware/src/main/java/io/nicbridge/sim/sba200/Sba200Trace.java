package io.nicbridge.sim.sba200;

/**
 * A trace point on every state change of the SBA-200's firmware core ({@link Sba200Firmware}), in the spirit of
 * QEMU's trace events: the core calls {@link #event} right after the change, on the engine's thread, so a tracer
 * sees the card exactly as the change left it. Events carry no time: a tracer stamps them from the card's time
 * base if it wants to (as QEMU's trace backends do).
 *
 * <p>Unused it costs nothing: the core holds {@link #NONE}, a call the JIT inlines away. A tracer must not call
 * back into the card.
 */
@FunctionalInterface
public interface Sba200Trace {
    /** The tracer that records nothing (the default). */
    Sba200Trace NONE = (event, endpoint, value) -> { };

    /**
     * @param event    what changed
     * @param endpoint the endpoint concerned (0..MAX_ENDPOINTS-1), or -1 when the event concerns none
     * @param value    the event's detail: see each {@link Event}
     */
    void event(Event event, int endpoint, int value);

    /** The firmware's state changes. {@code value} is given per event. */
    enum Event {
        /** The firmware (re)booted: every endpoint forgotten, board RAM cleared, CP_RUNNING. value: 0. */
        BOOTED,
        /** A kernel command executed and its status written. value: opcode &lt;&lt; 16 | result (0 or CMD_ERR_*). */
        COMMAND_DONE,
        /** A send descriptor refused: its status is written. value: the TX_STATUS_* code. */
        TX_REJECTED,
        /** A PDU's cells handed to the uplink. value: the number of cells. */
        TX_CELLS_SENT,
        /** A send descriptor completed with SENT (the send queue's consumer index moved). value: 0. */
        TX_COMPLETED,
        /** A cell dropped before reassembly (bad HEC, unknown VCI, inactive endpoint). value: the cell's VCI. */
        RX_CELL_DROPPED,
        /** The first cell of a multi-cell PDU reserved a receive-queue entry. value: the VCI. */
        RX_ENTRY_RESERVED,
        /** A PDU dropped because the receive queue had no room (RQ overrun). value: 0. */
        RX_OVERRUN,
        /**
         * A receive-queue entry handed to the process: payload and entry body written, then its VALID word with
         * release, then rq_prod_shadow. value: the entry's w0 as published.
         */
        RX_PUBLISHED,
        /** The endpoint's upcall condition fired: its pending bit is set (and the line raised if enabled). value: 0. */
        UPCALL
    }
}
