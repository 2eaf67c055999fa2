package io.nicbridge.sim.sba200;

/**
 * What the emulated SBA-200 costs in virtual time, besides the fiber (the {@link io.nicbridge.sim.atm.CellLink}
 * serializes cells at 140 Mb/s). Real-time engines ignore it: there the card runs as fast as the host does.
 *
 * <pre>
 *   doorbell (sq_prod / cmd_prod write) --pollLatency--&gt; i960 sees it (one pass of its polling loop)
 *   send:    txSetup (descriptor read, channel + bounds checks, DMA set-up)
 *            then cell c may start once its 48 bytes are fetched:  ready(c) = txSetup + (c + 1) x 48 x dmaPerByte
 *            (inline sends fetch nothing: ready(c) = txSetup); the fiber adds one cell time per cell
 *   receive: the i960 takes the cells from its input FIFO one at a time; a cell's effects (buffer DMA, receive
 *            descriptor) become visible when its processing ends:
 *              single-cell PDU (inline):      rxCell + rxInline
 *              other cell:                    rxCell + 48 x dmaPerByte
 *              last cell of a multi-cell PDU: rxCell + 48 x dmaPerByte + rxBufferPdu
 *            cells that arrive meanwhile wait in the FIFO (the i960, not the fiber, is then the bottleneck)
 * </pre>
 *
 * <h2>One i960</h2>
 * The card has one processor (U-Net paper 4.2), and its polling loop does one thing at a time, so send and receive
 * work share one timeline ({@code Sba200Firmware.i960FreeAt}). A work item is either one received cell (its cost
 * above) or one send descriptor (txSetup, then the fetch of all its cells: the i960 drives the DMA, paper 4.2.2:
 * "three 32-byte burst transfers to fetch two cells at a time"); each starts when the item reserved before it ends,
 * in the order the loop meets them, and runs to completion. Under full-duplex load the loop therefore alternates a
 * received cell with a send descriptor, and the two directions together cannot get more i960 time than one: when
 * the i960 is the bottleneck, bidirectional throughput is less than twice one-way.
 *
 * <h2>Send pipelining</h2>
 * The fiber drains the output FIFO on its own, so the firmware need not wait for a PDU's last cell to leave before
 * it takes the next descriptor. It moves on (status SENT, {@code sq_cons} advanced: the send buffer is free again)
 * when (a) it has fetched the PDU's last cell and (b) the fiber will have sent that last cell within
 * {@code txSetup + 48 x dmaPerByte} (the next one-buffer PDU's first cell is then ready as the fiber frees up, so
 * the fiber never idles between back-to-back PDUs, and at most about one PDU waits in the output FIFO, which keeps
 * the FIFO bounded when the fiber is the bottleneck). For back-to-back single-cell sends the i960's txSetup thus
 * overlaps the previous cell's time on the fiber. Rejected descriptors cost no i960 time (the checks are folded
 * into txSetup of the good ones). With {@link #WIRE_ONLY} every cost is 0 and (b) is "the last cell has left".
 *
 * <p>The native shim's card ({@code sba200_eth_card.c}) runs in real time only, as fast as its host: it has no
 * timing model to keep consistent with this one.
 *
 * @param pollLatencyNanos    from a doorbell write to the firmware acting on it
 * @param txSetupNanos        per send descriptor, before the first cell can leave
 * @param dmaPicosPerByte     SBus DVMA cost of moving one byte between host memory and the card
 * @param rxCellNanos         i960 work per received cell (demux, reassembly state)
 * @param rxInlineNanos       writing a single-cell message into the receive-queue entry
 * @param rxBufferPduNanos    completing a multi-cell PDU: free-buffer bookkeeping and the descriptor's DMA
 */
public record Sba200Timing(long pollLatencyNanos, long txSetupNanos, long dmaPicosPerByte, long rxCellNanos,
                           long rxInlineNanos, long rxBufferPduNanos) {
    /** No card costs at all: only the fiber's cell time and propagation. */
    public static final Sba200Timing WIRE_ONLY = new Sba200Timing(0, 0, 0, 0, 0, 0);

    /**
     * [P] A 25 MHz i960 polling its queues and an SBus DVMA master, as proposed for this emulator (assumed, not
     * measured on a real board; 1 us is about 25 i960 instructions): a polling-loop pass of 2 us; 2 us to check
     * and set up a send; DVMA at 25 MB/s (40 ns/byte), faster than the fiber, so cells leave back to back; 1 us of
     * reassembly work per received cell; 2 us to write a single-cell message into its receive-queue entry; 5 us to
     * pop free buffers and DMA the descriptor of a multi-cell message (the work the single-cell path avoids).
     */
    public static final Sba200Timing I960_25MHZ = new Sba200Timing(2_000, 2_000, 40_000, 1_000, 2_000, 5_000);

    /** Send-side costs only; receive processing is instantaneous. */
    public Sba200Timing(long pollLatencyNanos, long txSetupNanos, long dmaPicosPerByte) {
        this(pollLatencyNanos, txSetupNanos, dmaPicosPerByte, 0, 0, 0);
    }

    public Sba200Timing {
        if (pollLatencyNanos < 0 || txSetupNanos < 0 || dmaPicosPerByte < 0 || rxCellNanos < 0 || rxInlineNanos < 0
            || rxBufferPduNanos < 0) {
            throw new IllegalArgumentException("timings must be >= 0, were poll " + pollLatencyNanos + " ns, setup "
                + txSetupNanos + " ns, DMA " + dmaPicosPerByte + " ps/byte, rx cell " + rxCellNanos
                + " ns, rx inline " + rxInlineNanos + " ns, rx buffer PDU " + rxBufferPduNanos + " ns");
        }
    }
}
