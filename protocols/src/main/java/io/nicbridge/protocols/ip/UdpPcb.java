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
    private final MemorySegment area;
    private final long areaOffset;
    private final int capacity;
    long received;
    long sent;

    UdpPcb(Udp udp, int port, UdpReceiver receiver, boolean checksum, MemorySegment area, long areaOffset,
           int capacity) {
        this.udp = udp;
        this.port = port;
        this.receiver = receiver;
        this.checksum = checksum;
        this.area = area;
        this.areaOffset = areaOffset;
        this.capacity = capacity;
    }

    /** @return the application memory datagrams are copied into (the checksum verified during the copy), or null */
    MemorySegment area() {
        return area;
    }

    long areaOffset() {
        return areaOffset;
    }

    int capacity() {
        return capacity;
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

    /**
     * Sends one datagram whose data are the first {@code lengths[i]} bytes of block {@code blocks[i]} of
     * {@code pool}, {@code i < count}, in order - U-Net's scatter-gather send (paper 7.3). On a link that gathers
     * from {@code pool} (U-Net, {@link UnetIpLink#sharedBuffers}) the blocks are not copied: the card reads them,
     * and each holds one more reference until it has; the caller may {@link SharedBuffers#release} its own at once.
     * Elsewhere they are copied into the frame. The checksum (when on) is summed over the blocks where they lie.
     *
     * @return 0 when sent, or the back-pressure status of {@link Ipv4Stack#claim}
     * @throws IllegalArgumentException for a port outside 1..65535, a bad block or length, more blocks than the
     *                                  link gathers (5 on U-Net), or data past the MTU
     * @throws IllegalStateException    for a block that is free (the caller must hold a reference)
     */
    public int sendBlocks(int destination, int destinationPort, SharedBuffers pool, int[] blocks, int[] lengths,
                          int count, long nowNanos) {
        return udp.sendBlocks(this, destination, destinationPort, pool, blocks, lengths, count, nowNanos);
    }
}
