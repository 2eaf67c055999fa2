package io.nicbridge.protocols.ip.tcp;

import java.util.Locale;

/**
 * What a {@link Tcp} saw and did, one counter per event (counters over logs: malformed segments are counted here,
 * never thrown). Written by the TCP's one thread; read by anyone (plain longs).
 */
public final class TcpCounters {
    /** Each counter's meaning; the ordinal indexes the array. */
    public enum Counter {
        /** Segments handed to the TCP. Each ends in exactly one of the counters marked "outcome". */
        SEGMENTS_RECEIVED,
        /** Outcome: shorter than a TCP header, or a length the IP payload cannot hold. */
        BAD_LENGTH,
        /** Outcome: a data offset under 5 words or past the segment. */
        BAD_OFFSET,
        /** Outcome: an option whose length is under 2 or runs past the header, or an MSS option not 4 bytes long. */
        BAD_OPTIONS,
        /** Outcome: the checksum over the pseudo-header and segment does not verify. */
        BAD_CHECKSUM,
        /** Outcome: sent to a broadcast address or from or to port 0. */
        BAD_ADDRESS,
        /** Outcome: no connection and no listener (answered with a RST unless it was one). */
        NO_CONNECTION,
        /** Outcome: a SYN for a listener with no free connection slot (dropped; the peer retries). */
        LISTEN_OVERFLOW,
        /** Outcome: processed by a connection or a listener. */
        ACCEPTED,
        /** Of the accepted: outside the receive window (answered with an ACK unless it was a RST). */
        OUT_OF_WINDOW,
        /**
         * Of the out-of-window: pure ACKs and SYNs left unanswered, because this connection answered one less than
         * 500 ms before (the ACK-loop rate limit).
         */
        OUT_OF_WINDOW_ACKS_SKIPPED,
        /** Of the accepted: data entirely already received. */
        DUPLICATE_SEGMENTS,
        /** Of the accepted: data queued ahead of a gap. */
        OUT_OF_ORDER_SEGMENTS,
        /** Of the accepted: out-of-order data dropped because every gap-tracking range was in use. */
        OUT_OF_ORDER_DROPPED,
        /** RFC 5961 challenge ACKs sent (an in-window RST not at RCV.NXT, a SYN in a synchronized state). */
        CHALLENGE_ACKS,
        RESETS_RECEIVED,
        RESETS_SENT,
        SEGMENTS_SENT,
        DATA_BYTES_SENT,
        DATA_BYTES_RECEIVED,
        /** Segments sent again after a retransmission timeout. */
        TIMEOUT_RETRANSMISSIONS,
        /** Segments sent again on the third duplicate ACK (RFC 5681 3.2) or a partial ACK (RFC 6582). */
        FAST_RETRANSMISSIONS,
        DUPLICATE_ACKS_RECEIVED,
        /**
         * Tail loss probes sent (RFC 8985 7): the last segment again after max(2 SRTT, 40 ms) without an ACK, so that a
         * lost tail or a lost final ACK costs a probe's round trip instead of the RTO's 200 ms floor.
         */
        TAIL_LOSS_PROBES,
        /** Zero-window probes sent (persist timer). */
        WINDOW_PROBES,
        /** Segments not sent because the sink had no buffer or the next hop was unresolved (retried on poll). */
        SEND_BACKPRESSURE,
        CONNECTIONS_OPENED,
        CONNECTIONS_ACCEPTED,
        CONNECTIONS_TIMED_OUT
    }

    private static final Counter[] ALL = Counter.values();
    private final long[] values = new long[ALL.length];

    void increment(Counter c) {
        values[c.ordinal()]++;
    }

    void add(Counter c, long n) {
        values[c.ordinal()] += n;
    }

    public long get(Counter c) {
        return values[c.ordinal()];
    }

    /** @return the segments dropped as malformed (length, offset, options, checksum, address) */
    public long malformed() {
        return get(Counter.BAD_LENGTH) + get(Counter.BAD_OFFSET) + get(Counter.BAD_OPTIONS)
            + get(Counter.BAD_CHECKSUM) + get(Counter.BAD_ADDRESS);
    }

    /** @return the sum of the outcome counters; equals {@link Counter#SEGMENTS_RECEIVED} (the fuzz test holds to it) */
    public long outcomes() {
        return malformed() + get(Counter.NO_CONNECTION) + get(Counter.LISTEN_OVERFLOW) + get(Counter.ACCEPTED);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("TcpCounters{");
        for (Counter c : ALL) {
            if (values[c.ordinal()] != 0) {
                b.append(c.name().toLowerCase(Locale.ROOT)).append('=').append(values[c.ordinal()]).append(' ');
            }
        }
        return b.append('}').toString();
    }
}
