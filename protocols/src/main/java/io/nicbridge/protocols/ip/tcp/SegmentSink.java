package io.nicbridge.protocols.ip.tcp;

import java.lang.foreign.MemorySegment;

/**
 * Where a {@link Tcp} puts the segments it sends: the IP layer below it ({@link Tcp#over}), or an in-memory pipe in
 * tests and simulation. The TCP writes its whole segment (header, options, data, checksum over the pseudo-header) at
 * {@link #offset()} in the claimed buffer; the sink adds what lies below (IPv4 and Ethernet headers).
 */
public interface SegmentSink {
    /**
     * @return a handle, or a negative back-pressure status (no buffer, the next hop's address not resolved yet): the
     *     TCP then keeps the segment's work pending and tries again on its next {@link Tcp#poll}
     */
    int claim(int destination, long nowNanos);

    /** @return the claimed buffer; the segment goes at {@link #offset()} */
    MemorySegment buffer(int handle);

    /** @return where the TCP header starts in every claimed buffer */
    int offset();

    /** @return the largest TCP segment (header and data) one buffer carries: the MTU less the IPv4 header */
    int maxSegment();

    /** Sends the {@code length} bytes of segment written at {@link #offset()}. */
    void send(int handle, int destination, int length);
}
