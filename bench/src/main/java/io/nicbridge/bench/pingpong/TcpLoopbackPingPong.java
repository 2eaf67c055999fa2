package io.nicbridge.bench.pingpong;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The baseline every pingpong figure is compared with: Java TCP over loopback with TCP_NODELAY, a blocking
 * socket ping-pong between two threads (an echo thread and the caller). Direct buffers, allocated once, so a
 * round trip allocates nothing on the Java side.
 *
 * <pre>
 *   caller:  write N bytes --&gt; [loopback] --&gt; echo thread: read N bytes, write them back
 *            read N bytes  &lt;-- [loopback] &lt;--
 *   one round trip = one RTT sample
 * </pre>
 */
public final class TcpLoopbackPingPong implements AutoCloseable {
    private final int size;
    private final ServerSocketChannel server;
    private final SocketChannel client;
    private final SocketChannel accepted;
    private final Thread echo;
    private final ByteBuffer out;
    private final ByteBuffer in;
    private volatile boolean closing;

    /** @param size payload bytes per message, at least 1 */
    public TcpLoopbackPingPong(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("TCP ping-pong message size must be at least 1 byte, was " + size);
        }
        this.size = size;
        try {
            server = ServerSocketChannel.open();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            client = SocketChannel.open(server.getLocalAddress());
            accepted = server.accept();
            for (SocketChannel c : new SocketChannel[] {client, accepted}) {
                c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                c.configureBlocking(true);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot set up the TCP loopback baseline", e);
        }
        out = ByteBuffer.allocateDirect(size);
        in = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i++) {
            out.put(i, (byte) i);
        }
        echo = Thread.ofPlatform().name("tcp-echo").daemon().start(this::echoLoop);
    }

    private void echoLoop() {
        ByteBuffer buf = ByteBuffer.allocateDirect(size);
        try {
            for (;;) {
                buf.clear();
                if (!readFully(accepted, buf)) {
                    return;
                }
                buf.flip();
                while (buf.hasRemaining()) {
                    accepted.write(buf);
                }
            }
        } catch (IOException e) {
            if (!closing) {
                throw new UncheckedIOException("TCP echo thread failed", e);
            }
        }
    }

    /** One round trip: send {@code size} bytes and read the echo. @return the RTT in nanoseconds */
    public long roundTrip() {
        long start = System.nanoTime();
        try {
            out.clear();
            while (out.hasRemaining()) {
                client.write(out);
            }
            in.clear();
            if (!readFully(client, in)) {
                throw new EOFException("echo side closed the connection");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("TCP round trip failed", e);
        }
        return System.nanoTime() - start;
    }

    /** @return the first byte of the last echo (keeps the JIT from discarding the read) */
    public int lastByte() {
        return in.get(0);
    }

    public int size() {
        return size;
    }

    private static boolean readFully(SocketChannel c, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (c.read(b) < 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        closing = true;
        try {
            client.close();
            accepted.close();
            server.close();
            echo.join(1000);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
