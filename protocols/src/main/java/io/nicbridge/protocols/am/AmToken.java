package io.nicbridge.protocols.am;

/**
 * The message a handler is running for: who sent it and whether it may still be replied to. One per core, reused
 * for every dispatch (nothing allocates); valid only during the handler call.
 */
public final class AmToken {
    int source;
    boolean request;
    boolean replied;
    boolean active;

    AmToken() {
    }

    /** @return the node the message came from (a reply goes back to it) */
    public int source() {
        return source;
    }

    /** @return true for a request or store handler (it may reply once), false for a reply or get handler */
    public boolean isRequest() {
        return request;
    }

    void begin(int from, boolean isRequest) {
        source = from;
        request = isRequest;
        replied = false;
        active = true;
    }
}
