package io.nicbridge.sim.sba200;

/**
 * What the emulated SBA-200 costs in virtual time, besides the fiber (the {@link io.nicbridge.sim.atm.CellLink}
 * serializes cells at 140 Mb/s). Real-time engines ignore it: there the card runs as fast as the host does.
 *
 * <pre>
 *   doorbell (sq_prod / cmd_prod write) --pollLatency--&gt; i960 sees it (one pass of its polling loop)
 *   send:  txSetup (descriptor read, channel + bounds checks, DMA set-up)
 *          then cell c may start once its 48 bytes are fetched:  ready(c) = txSetup + (c + 1) x 48 x dmaPerByte
 *          (inline sends fetch nothing: ready(c) = txSetup); the fiber adds one cell time per cell
 * </pre>
 *
 * @param pollLatencyNanos  from a doorbell write to the firmware acting on it
 * @param txSetupNanos      per send descriptor, before the first cell can leave
 * @param dmaPicosPerByte   SBus DVMA cost of gathering one byte from the host segment
 */
public record Sba200Timing(long pollLatencyNanos, long txSetupNanos, long dmaPicosPerByte) {
    /** No card costs at all: only the fiber's cell time and propagation. */
    public static final Sba200Timing WIRE_ONLY = new Sba200Timing(0, 0, 0);

    /**
     * [P] A 25 MHz i960 polling its queues and an SBus DVMA master, as proposed for this emulator (not measured on
     * a real board): a polling-loop pass of about 50 instructions (2 us), about 50 instructions to check and set up
     * a send (2 us), and DVMA at 25 MB/s (40 ns/byte), which is faster than the fiber so that cells leave
     * back to back.
     */
    public static final Sba200Timing I960_25MHZ = new Sba200Timing(2_000, 2_000, 40_000);

    public Sba200Timing {
        if (pollLatencyNanos < 0 || txSetupNanos < 0 || dmaPicosPerByte < 0) {
            throw new IllegalArgumentException("timings must be >= 0, were poll " + pollLatencyNanos + " ns, setup "
                + txSetupNanos + " ns, DMA " + dmaPicosPerByte + " ps/byte");
        }
    }
}
