package io.nicbridge.bench.jmh;

import io.nicbridge.protocols.ip.tcp.TcpConnection;
import io.nicbridge.protocols.ip.tcp.TcpHandler;
import java.lang.foreign.MemorySegment;

/**
 * The receiving application of the TCP benchmarks ({@link TcpBench}, {@link UnetTcpBench}): remembers its
 * connection and reads everything that arrives into one buffer, counting the bytes - allocation-free.
 */
final class TcpSink implements TcpHandler {
    final MemorySegment buffer;
    long bytes;
    TcpConnection connection;

    TcpSink(MemorySegment buffer) {
        this.buffer = buffer;
    }

    @Override
    public void onEstablished(TcpConnection c, long now) {
        connection = c;
    }

    @Override
    public void onReadable(TcpConnection c, long now) {
        int n;
        while ((n = c.read(buffer, 0, (int) buffer.byteSize(), now)) > 0) {
            bytes += n;
        }
    }
}
