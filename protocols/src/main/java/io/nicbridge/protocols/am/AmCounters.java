package io.nicbridge.protocols.am;

/** What an {@link AmCore} has done, like a card's statistics registers; read on the node's thread. */
public final class AmCounters {
    long requestsSent;
    long repliesSent;
    long acksSent;
    long storeChunksSent;
    long getChunksAsked;
    long requestsHandled;
    long repliesHandled;
    long acksReceived;
    long storesCompleted;
    long getsCompleted;
    long badAddress;
    long unknownHandler;
    long malformed;
    long replyRefused;

    public long requestsSent() {
        return requestsSent;
    }

    public long repliesSent() {
        return repliesSent;
    }

    /** @return explicit acknowledgements sent for requests and chunks whose handler did not reply */
    public long acksSent() {
        return acksSent;
    }

    public long storeChunksSent() {
        return storeChunksSent;
    }

    public long getChunksAsked() {
        return getChunksAsked;
    }

    public long requestsHandled() {
        return requestsHandled;
    }

    public long repliesHandled() {
        return repliesHandled;
    }

    public long acksReceived() {
        return acksReceived;
    }

    /** @return stores whose last chunk arrived here (their handler ran, if any) */
    public long storesCompleted() {
        return storesCompleted;
    }

    /** @return gets asked by this node whose last chunk arrived here */
    public long getsCompleted() {
        return getsCompleted;
    }

    /** @return stores and gets naming memory outside this node's segment: refused, acknowledged, nothing copied */
    public long badAddress() {
        return badAddress;
    }

    /** @return messages naming a handler this node has not registered: acknowledged, not run */
    public long unknownHandler() {
        return unknownHandler;
    }

    /** @return messages too short or of an unknown kind (not from an Active Messages peer): dropped */
    public long malformed() {
        return malformed;
    }

    /**
     * @return replies or acknowledgements the channel had no room for: only a peer that sends more than its window
     *     of requests causes one (a protocol violation); dropped and counted
     */
    public long replyRefused() {
        return replyRefused;
    }

    @Override
    public String toString() {
        return "requests " + requestsSent + "/" + requestsHandled + ", replies " + repliesSent + "/" + repliesHandled
                + ", acks " + acksSent + "/" + acksReceived + ", store chunks " + storeChunksSent + ", stores done "
                + storesCompleted + ", get chunks " + getChunksAsked + ", gets done " + getsCompleted
                + ", bad address " + badAddress + ", unknown handler " + unknownHandler + ", malformed " + malformed
                + ", reply refused " + replyRefused;
    }
}
