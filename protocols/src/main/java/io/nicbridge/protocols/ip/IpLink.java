package io.nicbridge.protocols.ip;

import java.lang.foreign.MemorySegment;

/**
 * The seam between the one {@link Ipv4Stack} and the medium it runs on: a link adapter maps IPv4 destinations onto
 * the medium's addresses, frames datagrams for it and hands the datagrams it receives to the stack. Two exist:
 * <ul>
 *   <li>{@link EthernetIpLink}: Ethernet II on a card's {@code FramePort} (the 21140, emulated or on the shim), ARP
 *       to find a neighbour's MAC, the 14-byte Ethernet header in front of every datagram, MTU 1500;</li>
 *   <li>{@link UnetIpLink}: a U-Net endpoint's channels (U-Net paper 7.1 and 7.5): the channel is the route (no ARP),
 *       one AAL5 PDU is one datagram with no header in front, MTU 9 KB, and data blocks of the communication
 *       segment can be gathered into a datagram without a copy.</li>
 * </ul>
 * The stack writes the IPv4 header at {@link #header()} of a claimed buffer and the transports their headers after
 * it ({@link Ipv4Stack#transportOffset()}). Same thread as the stack; nothing allocates per frame.
 */
public sealed interface IpLink permits EthernetIpLink, UnetIpLink {
    /** Called once by the stack's constructor: the link delivers what it receives to {@code stack}. */
    void attach(Ipv4Stack stack);

    /** @return the bytes in front of the IPv4 header in a claimed buffer and a received frame (14 Ethernet, 0 U-Net) */
    int header();

    /** @return the largest IPv4 datagram one frame carries (an upper bound of the stack's MTU) */
    int maxDatagram();

    /** @return this station's MAC as a 48-bit value, or 0 on a medium without one (U-Net: the channel names the peer) */
    long mac();

    /**
     * @return a TX handle whose link header is written, or the stack's back-pressure statuses
     *     ({@link Ipv4Stack#NO_BUFFER}, {@link Ipv4Stack#ARP_PENDING}, {@link Ipv4Stack#NO_ROUTE})
     */
    int claim(int destination, long nowNanos);

    /** @return the claimed handle's buffer (the frame from its first byte, link header included) */
    MemorySegment txBuffer(int handle);

    /**
     * Sends the claimed frame: its first {@code headBytes} bytes from the buffer, then any ranges attached with
     * {@link #attach(int, SharedBuffers, int, int)}.
     */
    void commit(int handle, int headBytes);

    /** Returns a claimed frame unsent (its attached ranges' references go back at once). */
    void abort(int handle);

    /**
     * @return how many data blocks of {@code buffers} one frame can gather after its head without a copy: 0 when the
     *     medium has no scatter-gather or {@code buffers} does not lie in the memory its card reads
     */
    int gatherLimit(SharedBuffers buffers);

    /**
     * Appends the first {@code length} bytes of block {@code buffer} of {@code buffers} to claimed frame
     * {@code handle}, taking a reference to the block that the link drops when the card no longer reads it.
     *
     * @throws IllegalStateException when {@link #gatherLimit} is 0 for {@code buffers} or the frame carries that many
     */
    void attach(int handle, SharedBuffers buffers, int buffer, int length);

    /** Takes up to {@code limit} arrived frames and hands their datagrams to the stack. @return frames taken */
    int poll(int limit, long nowNanos);

    /** Processes one frame of this medium (link header included) in place: for tests and runners that take frames. */
    void receive(MemorySegment frame, int length, long nowNanos);
}
