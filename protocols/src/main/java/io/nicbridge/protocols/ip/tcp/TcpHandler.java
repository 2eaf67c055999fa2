package io.nicbridge.protocols.ip.tcp;

/**
 * What a connection tells its application, called on the thread that drives the {@link Tcp} (inside
 * {@link Tcp#onSegment}, {@link Tcp#poll} or the application's own call), after the TCP has finished processing the
 * event, so a handler may read, write or close from here. Every method defaults to nothing.
 */
public interface TcpHandler {
    /** The three-way handshake completed (both the active and the passive side). */
    default void onEstablished(TcpConnection connection, long nowNanos) {
    }

    /** In-order data arrived or the peer's FIN did ({@link TcpConnection#read} then returns -1 at the end). */
    default void onReadable(TcpConnection connection, long nowNanos) {
    }

    /** The peer acknowledged data, so send-ring space came free. */
    default void onWritable(TcpConnection connection, long nowNanos) {
    }

    /** The connection reached CLOSED; the slot is reused once the application {@link TcpConnection#release}s it. */
    default void onClosed(TcpConnection connection, TcpCloseReason reason, long nowNanos) {
    }
}
