package io.nicbridge.protocols.ip.tcp;

/** The connection states of RFC 9293 section 3.3.2 (LISTEN is a {@link Tcp} port, not a connection). */
public enum TcpState {
    CLOSED, SYN_SENT, SYN_RECEIVED, ESTABLISHED, FIN_WAIT_1, FIN_WAIT_2, CLOSE_WAIT, CLOSING, LAST_ACK, TIME_WAIT;

    /** @return true once both SYNs are acknowledged and until the connection is closed */
    public boolean synchronized_() {
        return this != CLOSED && this != SYN_SENT && this != SYN_RECEIVED;
    }

    /** @return true while data from the peer is still accepted (the peer has not sent its FIN) */
    boolean receivesData() {
        return this == ESTABLISHED || this == FIN_WAIT_1 || this == FIN_WAIT_2;
    }
}
