package io.nicbridge.sim.dec21140;

/**
 * The emulated 21140's own delays in virtual time: how long its DMA engine takes, on top of the wire's
 * serialization and propagation (which the {@link io.nicbridge.sim.ethernet.WirePort} reports).
 *
 * <p>The model is a 32-bit, 33 MHz PCI bus (a 30 ns clock, rounded) that the card masters:
 * <pre>
 *   transmit  poll/doorbell --[ n x descriptorFetch + bytes x dmaPerByte ]--> first bit on the wire
 *             (store and forward: the whole frame is read into the FIFO first)
 *             last bit + IFG left (WirePort.transmit's answer) --[ statusWrite ]--> TDES0 written, TI
 *   receive   last bit arrived --[ descriptorFetch + bytes x dmaPerByte + statusWrite ]--> RDES0 written, RI
 *             (one descriptor fetch is charged per received frame: the common one-buffer-per-frame case;
 *              the further descriptors of a frame spanning several are not charged)
 * </pre>
 * Frames are not pipelined: the transmit process fetches the next frame after the previous one's status is
 * written, and the receive process moves one frame at a time (later frames wait in the receive FIFO).
 *
 * <p>Defaults ({@link #PCI_33MHZ}): a descriptor fetch is 8 bus clocks (arbitration, address, 4 data phases,
 * turnaround) = 240 ns; buffer DMA moves 4 bytes per 30 ns clock = 7.5 ns per byte; a status write
 * (one longword) plus raising INTA is 4 clocks = 120 ns. These are this project's model, not measured
 * 21140 figures. In real time (inline and threaded engines) the card uses {@link #ZERO}: it works as fast as
 * the host thread runs it.
 *
 * @param descriptorFetchNanos time to read one 16-byte descriptor
 * @param dmaPicosPerByte      time to move one buffer byte between host memory and the FIFO, in picoseconds
 * @param statusWriteNanos     time to write a descriptor's status word and raise the interrupt
 */
public record Dec21140Timing(long descriptorFetchNanos, long dmaPicosPerByte, long statusWriteNanos) {
    /** No card delays: what the card uses in real time. */
    public static final Dec21140Timing ZERO = new Dec21140Timing(0, 0, 0);
    /** The default virtual-time model (see the class comment). */
    public static final Dec21140Timing PCI_33MHZ = new Dec21140Timing(240, 7_500, 120);

    public Dec21140Timing {
        if (descriptorFetchNanos < 0 || dmaPicosPerByte < 0 || statusWriteNanos < 0) {
            throw new IllegalArgumentException("card delays must be >= 0, were descriptorFetch="
                + descriptorFetchNanos + " ns, dma=" + dmaPicosPerByte + " ps/byte, statusWrite="
                + statusWriteNanos + " ns");
        }
    }

    /** @return true when every delay is 0 (the card never arms a timer for its own work) */
    public boolean isZero() {
        return descriptorFetchNanos == 0 && dmaPicosPerByte == 0 && statusWriteNanos == 0;
    }

    /** Transmit: from the poll that finds the frame to its first bit on the wire. */
    public long transmitStartNanos(int descriptors, int bytes) {
        return descriptors * descriptorFetchNanos + dmaNanos(bytes);
    }

    /** Transmit: from the frame having left the station to its status being written. */
    public long transmitCloseNanos() {
        return statusWriteNanos;
    }

    /** Receive: from a frame's last bit arriving to its RDES0 being written and RI raised. */
    public long receiveNanos(int bytes) {
        return descriptorFetchNanos + dmaNanos(bytes) + statusWriteNanos;
    }

    /** Buffer DMA time for {@code bytes}, rounded up to whole nanoseconds. */
    public long dmaNanos(int bytes) {
        return (bytes * dmaPicosPerByte + 999) / 1000;
    }

    /**
     * One-way card delay that a frame of {@code frameBytes} (FCS included) adds between the sending driver's
     * doorbell and the receiving driver seeing it: sender's fetch + read DMA of the frame without FCS (the card
     * appends it), receiver's fetch + write DMA of the frame with FCS + status write.
     */
    public long oneWayNanos(int frameBytes) {
        return transmitStartNanos(1, frameBytes - 4) + receiveNanos(frameBytes);
    }

    /** @return the model in one line, for tools that print what they simulated */
    public String describe() {
        return "21140 card model: descriptor fetch " + descriptorFetchNanos + " ns, buffer DMA "
            + (dmaPicosPerByte / 1000.0) + " ns/byte, status write + interrupt " + statusWriteNanos
            + " ns (transmit: fetch per descriptor + DMA of the frame before the first bit; receive: one fetch"
            + " + DMA of the frame with FCS + status write after the last bit)";
    }
}
