package io.nicbridge.protocols.ip;

import java.lang.foreign.MemorySegment;

/**
 * A transport above {@link Ipv4Stack}, registered for one IPv4 protocol number (ICMP 1, UDP 17; TCP 6 will sit
 * beside UDP here). The stack has checked the IPv4 header (version, lengths, checksum, not a fragment, addressed to
 * this host); the transport checks its own header and checksum, and counts what it drops.
 */
@FunctionalInterface
public interface IpProtocol {
    /**
     * One datagram, in place in the receive buffer; valid only during the call.
     *
     * @param frame   the whole received frame
     * @param offset  where the transport header starts in {@code frame}
     * @param length  the IPv4 payload length (the total length less the header; Ethernet padding excluded)
     * @param source  the sender's IPv4 address
     * @param destination this host's address or a broadcast address the datagram was sent to
     * @param nowNanos the caller's clock
     */
    void onDatagram(MemorySegment frame, int offset, int length, int source, int destination, long nowNanos);
}
