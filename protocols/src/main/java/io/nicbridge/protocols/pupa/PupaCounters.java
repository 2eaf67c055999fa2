package io.nicbridge.protocols.pupa;

/** What a Pupa core counts: the fourteen rows of the paper's Table 3 first, then the core's own. */
public final class PupaCounters {
    long packetsSent;
    long ackPacketsSent;
    long validAcks;
    long validNacks;
    long messagesSent;
    long messagesRetransmitted;
    long messagesReceived;
    long overflows;
    long outOfOrder;
    long inPrimary;
    long inSecondary;
    long inMbuf;
    long duplicates;
    long framesReceived;
    long malformed;
    long corrupt;
    long timeouts;
    long ackTimerExpirations;
    long broadcastAcks;
    long creditUpdatesSent;
    long ackRequestsSent;
    long requestedAcks;
    long timerAcks;
    long creditStalls;
    long linkBackPressure;
    long delivered;
    long ackPacketsReceived;
    long multicasts;
    long multicastFrames;
    long multicastUnicasts;
    long multicastLetGo;
    long multicastIgnored;
    long spilled;

    /** Table 3 row 1: frames sent, data and control. */
    public long packetsSent() {
        return packetsSent;
    }

    /** Table 3 row 3: frames sent that carry no message (ACK, NACK, credit, ACK request, broadcast ACK). */
    public long ackPacketsSent() {
        return ackPacketsSent;
    }

    /** Table 3 row 5: acknowledgements that freed send-FIFO entries. */
    public long validAcks() {
        return validAcks;
    }

    /** Table 3 row 6: NACKs that made the sender go back. */
    public long validNacks() {
        return validNacks;
    }

    /** Table 3 row 7: messages sent (fragments count once each: each is a message on the wire). */
    public long messagesSent() {
        return messagesSent;
    }

    /** Table 3 row 8. */
    public long messagesRetransmitted() {
        return messagesRetransmitted;
    }

    /** Table 3 row 9: messages (fragments) accepted. */
    public long messagesReceived() {
        return messagesReceived;
    }

    /** Table 3 row 10: messages dropped for want of receive space. */
    public long overflows() {
        return overflows;
    }

    /** Table 3 row 11. */
    public long outOfOrder() {
        return outOfOrder;
    }

    /** Table 3 row 12: bodies stored in the primary FIFO. */
    public long inPrimary() {
        return inPrimary;
    }

    /** Table 3 row 13: bodies stored in the secondary receive pool. */
    public long inSecondary() {
        return inSecondary;
    }

    /** Table 3 row 14: bodies left in the link's receive buffer. */
    public long inMbuf() {
        return inMbuf;
    }

    public long duplicates() {
        return duplicates;
    }

    public long framesReceived() {
        return framesReceived;
    }

    public long malformed() {
        return malformed;
    }

    public long corrupt() {
        return corrupt;
    }

    public long timeouts() {
        return timeouts;
    }

    public long ackTimerExpirations() {
        return ackTimerExpirations;
    }

    public long broadcastAcks() {
        return broadcastAcks;
    }

    public long creditUpdatesSent() {
        return creditUpdatesSent;
    }

    public long ackRequestsSent() {
        return ackRequestsSent;
    }

    /** Times a peer's queued data waited for credit. */
    public long creditStalls() {
        return creditStalls;
    }

    public long linkBackPressure() {
        return linkBackPressure;
    }

    /**
     * Frames received that carry no message (ACK, NACK, credit, ACK request, broadcast ACK): with
     * {@link #ackPacketsSent()} of every node, the ACK-only packets lost on the way (Table 3 row 4).
     */
    public long ackPacketsReceived() {
        return ackPacketsReceived;
    }

    /** Messages multicast (each also counts once in {@link #messagesSent()}, per fragment). */
    public long multicasts() {
        return multicasts;
    }

    /** Broadcast frames that carried a multicast fragment (each one frame on the wire, however many peers). */
    public long multicastFrames() {
        return multicastFrames;
    }

    /** Multicast copies first sent by unicast (the destination was not ready for the broadcast, or no broadcast). */
    public long multicastUnicasts() {
        return multicastUnicasts;
    }

    /** Times a destination was let go from a pending multicast (credit exhausted, or behind): unicast for it. */
    public long multicastLetGo() {
        return multicastLetGo;
    }

    /** Multicast frames received that did not address this node. */
    public long multicastIgnored() {
        return multicastIgnored;
    }

    /**
     * ACK-only packets sent at once because a message asked for one (its ACK-requested flag, or an ACK request
     * packet): the sender-controlled ACKs of section 2.2.1.
     */
    public long requestedAcks() {
        return requestedAcks;
    }

    /** ACK-only packets the 10 ms ACK timer sent: an ACK owed to a peer that no frame to it had carried meanwhile. */
    public long timerAcks() {
        return timerAcks;
    }

    /** Messages handed to the application. */
    public long delivered() {
        return delivered;
    }

    /** Fragment bodies moved out of held link buffers because their message was still incomplete (PupaCore#spill). */
    public long spilled() {
        return spilled;
    }

    @Override
    public String toString() {
        return "packets " + packetsSent + " (ack-only " + ackPacketsSent + "), acks " + validAcks + ", nacks "
                + validNacks + ", messages sent " + messagesSent + " (rexmit " + messagesRetransmitted
                + "), received " + messagesReceived + ", overflow " + overflows + ", out-of-order " + outOfOrder
                + ", primary/secondary/mbuf " + inPrimary + "/" + inSecondary + "/" + inMbuf + ", duplicates "
                + duplicates + ", corrupt " + corrupt + ", malformed " + malformed + ", timeouts " + timeouts
                + ", delivered " + delivered + ", spilled " + spilled + ", multicasts " + multicasts + " (frames "
                + multicastFrames + ", by unicast " + multicastUnicasts + ")";
    }
}
