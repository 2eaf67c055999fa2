package io.nicbridge.protocols.ip.tcp;

import io.nicbridge.protocols.ip.Ipv4Stack;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The {@link SegmentSink} over an {@link Ipv4Stack}: its claim (with the stack's back-pressure: no TX buffer, an ARP
 * resolution under way), its TX buffer with the segment at the stack's {@link Ipv4Stack#transportOffset()} (34 on
 * Ethernet, 20 on a U-Net channel), and its send as protocol 6. Segments up to the MTU less the IPv4 header.
 */
public record Ipv4SegmentSink(Ipv4Stack ip) implements SegmentSink {
    public Ipv4SegmentSink {
        Objects.requireNonNull(ip, "ip");
    }

    @Override
    public int claim(int destination, long nowNanos) {
        return ip.claim(destination, nowNanos);
    }

    @Override
    public MemorySegment buffer(int handle) {
        return ip.txBuffer(handle);
    }

    @Override
    public int offset() {
        return ip.transportOffset();
    }

    @Override
    public int maxSegment() {
        return ip.mtu() - Ipv4Stack.IPV4_HEADER;
    }

    @Override
    public void send(int handle, int destination, int length) {
        ip.send(handle, Ipv4Stack.PROTOCOL_TCP, destination, length);
    }
}
