package io.nicbridge.sim.dec21140;

/**
 * A hook on every change of the transmit or receive process state (CSR5.TS, CSR5.RS), the counterpart of QEMU's
 * {@code tulip_tx_state} / {@code tulip_rx_state} trace points. It runs in the card's service thread, under the
 * card's lock, in the middle of the state machine: it must be quick, must not block, and must not touch the
 * card's registers. Unused, it is {@link #NONE}: a call that does nothing and allocates nothing.
 *
 * <pre>
 *   TS (transmit) 0 stopped, 1 fetch descriptor, 2 wait end of transmission, 3 read buffer, 5 setup frame,
 *                 6 suspended, 7 close descriptor
 *   RS (receive)  0 stopped, 1 fetch descriptor, 2 check end of reception, 3 wait for packet, 4 suspended,
 *                 5 close descriptor, 6 flush the FIFO, 7 queue from the FIFO
 * </pre>
 */
@FunctionalInterface
public interface Dec21140Trace {
    /** {@link #stateChanged}'s {@code process}: the transmit process (CSR5.TS). */
    int TRANSMIT = 0;
    /** {@link #stateChanged}'s {@code process}: the receive process (CSR5.RS). */
    int RECEIVE = 1;

    /** No tracing. */
    Dec21140Trace NONE = (process, from, to) -> { };

    /**
     * @param process {@link #TRANSMIT} or {@link #RECEIVE}
     * @param from    the state before (a CSR5.TS or CSR5.RS value)
     * @param to      the state after, never equal to {@code from}
     */
    void stateChanged(int process, int from, int to);
}
