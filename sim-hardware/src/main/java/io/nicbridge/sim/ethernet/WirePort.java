package io.nicbridge.sim.ethernet;

import java.lang.foreign.MemorySegment;

/** A station's attachment to an Ethernet wire: the transmit side of its PHY. */
public interface WirePort {
    /**
     * What {@link #transmit} returns on a {@link EthernetMode#HUB} segment: the frame's fate is not known yet; the
     * station's {@link TransmitListener} hears it when the transmission ends.
     */
    long PENDING = -1L;

    /**
     * Puts a frame on the wire: destination address through FCS, as the card's MAC built it. The
     * wire copies what it needs before returning (so the card may reuse its transmit FIFO at once)
     * and delivers the frame to every other station's {@link FrameSink}, through the wire's fault
     * layer and capture.
     *
     * @return nanoseconds from now until the frame's last bit (and the inter-frame gap) has left
     *     this station: in virtual time the wait for the shared medium plus
     *     {@code (length + 20) x 8} bit times; 0 in real time. The card completes the transmit
     *     descriptor after that long. {@link #PENDING} on a half-duplex hub, where the segment calls the
     *     station's {@link TransmitListener} instead.
     */
    long transmit(MemorySegment frame, long offset, int length);

    /** @return the name the station attached with */
    String name();
}
