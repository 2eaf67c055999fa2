package io.nicbridge.protocols.ip.tcp;

import java.lang.foreign.MemorySegment;

/** Builds raw TCP segments (valid checksum) for tests that play a misbehaving or hostile peer. */
final class Segments {
    private Segments() {
    }

    static byte[] build(int source, int destination, int sourcePort, int destinationPort, int seq, int ack, int flags,
                        int window, byte[] data) {
        byte[] bytes = new byte[TcpHeader.LENGTH + data.length];
        MemorySegment s = MemorySegment.ofArray(bytes);
        TcpHeader.write(s, 0, sourcePort, destinationPort, seq, ack, flags, window, 0);
        MemorySegment.copy(MemorySegment.ofArray(data), 0, s, TcpHeader.LENGTH, data.length);
        TcpHeader.checksum(s, 0, bytes.length, source, destination);
        return bytes;
    }

    /** A segment without data whose options are one SACK block, {@code [left, right)}. */
    static byte[] sackAck(int source, int destination, int sourcePort, int destinationPort, int seq, int ack,
                          int window, int left, int right) {
        byte[] bytes = new byte[TcpHeader.LENGTH + TcpOptions.sackLength(1)];
        MemorySegment s = MemorySegment.ofArray(bytes);
        TcpHeader.write(s, 0, sourcePort, destinationPort, seq, ack, TcpHeader.ACK, window, 0);
        TcpOptions.writeSack(s, 0, new int[] {left}, new int[] {right}, 1);
        TcpHeader.checksum(s, 0, bytes.length, source, destination);
        return bytes;
    }
}
