package io.nicbridge.protocols.ip.tcp;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A test application on one connection: writes {@code toSend} as the send ring allows (closing after it when asked),
 * reads everything that arrives when {@code reading} (into {@link #received}), and records the events. Public for the
 * TCP tests of other packages (TCP over a U-Net channel).
 */
public final class StreamApp implements TcpHandler {
    public final ByteArrayOutputStream received = new ByteArrayOutputStream();
    public final List<String> events = new ArrayList<>();
    private final MemorySegment buffer = Arena.ofAuto().allocate(4096);
    public TcpConnection connection;
    byte[] toSend = new byte[0];
    public int sent;
    boolean closeAfterSend;
    boolean reading = true;
    public boolean endOfStream;
    /** Set by a test once it released {@link #connection}: the application no longer touches it. */
    boolean released;
    public TcpCloseReason closed;

    public static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = patternAt(i, seed);
        }
        return b;
    }

    /** @return byte {@code i} of {@link #pattern}'s stream for {@code seed}, for any position (past any length too) */
    static byte patternAt(long i, int seed) {
        return (byte) (i * 31 + seed + (i >>> 8));
    }

    public StreamApp send(byte[] data, boolean thenClose) {
        toSend = data;
        sent = 0;
        closeAfterSend = thenClose;
        return this;
    }

    @Override
    public void onEstablished(TcpConnection c, long now) {
        connection = c;
        events.add("established");
        pump(now);
    }

    @Override
    public void onReadable(TcpConnection c, long now) {
        connection = c;
        drain(now);
    }

    @Override
    public void onWritable(TcpConnection c, long now) {
        pump(now);
    }

    @Override
    public void onClosed(TcpConnection c, TcpCloseReason reason, long now) {
        closed = reason;
        events.add("closed " + reason);
    }

    void drain(long now) {
        if (!reading || connection == null) {
            return;
        }
        while (true) {
            int n = connection.read(buffer, 0, (int) buffer.byteSize(), now);
            if (n < 0) {
                if (!endOfStream) {
                    endOfStream = true;
                    events.add("eof");
                }
                return;
            }
            if (n == 0) {
                return;
            }
            received.write(buffer.asSlice(0, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), 0, n);
        }
    }

    void pump(long now) {
        if (connection == null || connection.state() == TcpState.CLOSED) {
            return;
        }
        while (sent < toSend.length) {
            int chunk = Math.min(toSend.length - sent, (int) buffer.byteSize());
            MemorySegment.copy(MemorySegment.ofArray(toSend), sent, buffer, 0, chunk);
            int n = connection.write(buffer, 0, chunk, now);
            if (n <= 0) {
                return;
            }
            sent += n;
        }
        if (closeAfterSend && sent == toSend.length) {
            closeAfterSend = false;
            connection.close(now);
        }
    }
}
