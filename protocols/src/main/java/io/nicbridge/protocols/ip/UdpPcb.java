package io.nicbridge.protocols.ip;

import java.lang.foreign.MemorySegment;

/**
 * One bound UDP port (a protocol control block): its receiver, whether it checksums what it sends, and its own
 * datagram counts. Made by {@link Udp#bind}; sends through {@link #send}.
 */
public final class UdpPcb {
    private final Udp udp;
    private final int port;
    private final UdpReceiver receiver;
    private final boolean checksum;
    long received;
    long sent;

    UdpPcb(Udp udp, int port, UdpReceiver receiver, boolean checksum) {
        this.udp = udp;
        this.port = port;
        this.receiver = receiver;
        this.checksum = checksum;
    }

    public int port() {
        return port;
    }

    /** @return true when datagrams sent from this port carry a checksum (RFC 768 makes it optional) */
    public boolean checksums() {
        return checksum;
    }

    UdpReceiver receiver() {
        return receiver;
    }

    public long received() {
        return received;
    }

    public long sent() {
        return sent;
    }

    /**
     * Sends {@code data[offset, offset + length)} to {@code destination:destinationPort}: the data is copied into the
     * frame, the checksum (when this pcb has it on) computed in the same pass.
     *
     * @return 0 when sent, or the back-pressure status of {@link Ipv4Stack#claim}
     * @throws IllegalArgumentException for a port outside 1..65535 or data past the MTU (no fragmentation)
     */
    public int send(int destination, int destinationPort, MemorySegment data, long offset, int length,
                    long nowNanos) {
        return udp.send(this, destination, destinationPort, data, offset, length, nowNanos);
    }
}
