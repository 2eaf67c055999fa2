package io.nicbridge.protocols.ip.tcp;

/** Why a connection reached CLOSED, as {@link TcpHandler#onClosed} reports it. */
public enum TcpCloseReason {
    /** Both FINs exchanged and acknowledged (after TIME-WAIT on the side that closed first). */
    ORDERLY,
    /** The peer reset the connection (an acceptable RST; a refused SYN in SYN-SENT). */
    RESET,
    /** The retransmission timer expired {@link TcpConfig#maxRetransmissions} times in a row. */
    TIMED_OUT,
    /** The application aborted it ({@link TcpConnection#abort}: a RST went out). */
    ABORTED
}
