package io.nicbridge.protocols.traditional;

/** The traditional core's statistics, like a card's counters: read by tests and reports, written by the core. */
public final class TraditionalCounters {
    long fragmentsSent;
    long retransmitted;
    long acksSent;
    long naksSent;
    long timeoutNaks;
    long ackRequests;
    long framesReceived;
    long malformed;
    long corrupt;
    long duplicates;
    long outOfWindow;
    long refusedLowPriority;
    long refusedNoBuffer;
    long copiedOut;
    long accepted;
    long unfileable;
    long descriptorsFreed;
    long backPressure;
    long linkBackPressure;
    long timeouts;

    public long fragmentsSent() { return fragmentsSent; }
    public long retransmitted() { return retransmitted; }
    public long acksSent() { return acksSent; }
    public long naksSent() { return naksSent; }
    public long timeoutNaks() { return timeoutNaks; }
    public long ackRequests() { return ackRequests; }
    public long framesReceived() { return framesReceived; }
    public long malformed() { return malformed; }
    public long corrupt() { return corrupt; }
    public long duplicates() { return duplicates; }
    public long outOfWindow() { return outOfWindow; }
    public long refusedLowPriority() { return refusedLowPriority; }
    public long refusedNoBuffer() { return refusedNoBuffer; }
    public long copiedOut() { return copiedOut; }
    public long accepted() { return accepted; }
    public long unfileable() { return unfileable; }
    public long descriptorsFreed() { return descriptorsFreed; }
    public long backPressure() { return backPressure; }
    public long linkBackPressure() { return linkBackPressure; }
    public long timeouts() { return timeouts; }

    @Override
    public String toString() {
        return "sent " + fragmentsSent + ", retransmitted " + retransmitted + ", acks " + acksSent + ", naks "
                + naksSent + " (" + timeoutNaks + " on timeout), ack requests " + ackRequests + "; received "
                + framesReceived + ", accepted " + accepted + ", duplicates " + duplicates + ", out of window "
                + outOfWindow + ", refused " + refusedLowPriority + " low-priority / " + refusedNoBuffer
                + " no buffer, copied out " + copiedOut + ", malformed " + malformed + ", corrupt " + corrupt
                + "; descriptors freed " + descriptorsFreed + ", back-pressure " + backPressure + " (link "
                + linkBackPressure + "), timeouts " + timeouts;
    }
}
