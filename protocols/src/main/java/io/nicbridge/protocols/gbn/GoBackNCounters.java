package io.nicbridge.protocols.gbn;

/** What a {@link GoBackNCore} did, like a card's statistics registers. Written only by the core's thread. */
public final class GoBackNCounters {
    long dataSent;
    long retransmitted;
    long acksSent;
    long timeouts;
    long framesReceived;
    long delivered;
    long malformed;
    long corrupt;
    long duplicates;
    long outOfOrder;
    long receiveOverflow;
    long linkBackPressure;

    /** @return DATA frames sent for the first time */
    public long dataSent() {
        return dataSent;
    }

    /** @return DATA frames sent again after a timeout (go back N) */
    public long retransmitted() {
        return retransmitted;
    }

    /** @return ACK frames sent (acks carried by DATA frames are not counted) */
    public long acksSent() {
        return acksSent;
    }

    /** @return retransmission timeouts that found a message still unacknowledged */
    public long timeouts() {
        return timeouts;
    }

    /** @return frames handed in by the link, good or bad */
    public long framesReceived() {
        return framesReceived;
    }

    /** @return messages handed to the application */
    public long delivered() {
        return delivered;
    }

    /** @return frames dropped for a wrong length, magic, type or sender */
    public long malformed() {
        return malformed;
    }

    /** @return frames dropped because their CRC did not match */
    public long corrupt() {
        return corrupt;
    }

    /** @return DATA frames already delivered (a retransmission or a duplicate), dropped and re-acknowledged */
    public long duplicates() {
        return duplicates;
    }

    /** @return DATA frames ahead of the next expected one, dropped (go-back-N keeps no out-of-order frames) */
    public long outOfOrder() {
        return outOfOrder;
    }

    /** @return in-order DATA frames dropped because the application had not taken the 2w held before them */
    public long receiveOverflow() {
        return receiveOverflow;
    }

    /** @return claims the link refused */
    public long linkBackPressure() {
        return linkBackPressure;
    }

    @Override
    public String toString() {
        return "data " + dataSent + " (+" + retransmitted + " retransmitted, " + timeouts + " timeouts), acks "
                + acksSent + ", received " + framesReceived + " (delivered " + delivered + ", duplicates "
                + duplicates + ", out of order " + outOfOrder + ", overflow " + receiveOverflow + ", malformed "
                + malformed + ", corrupt " + corrupt + "), link back-pressure " + linkBackPressure;
    }
}
