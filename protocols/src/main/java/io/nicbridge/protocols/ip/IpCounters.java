package io.nicbridge.protocols.ip;

/**
 * What an {@link Ipv4Stack} and its transports saw, one counter per event (counters over logs: a malformed frame is
 * counted here, never thrown). Written by the stack's one thread; read by anyone (plain longs: a reader on another
 * thread sees a recent value).
 */
public final class IpCounters {
    /** Each counter's meaning; the ordinal indexes the array. */
    public enum Counter {
        /** Ethernet frames handed to the stack. */
        RX_FRAMES,
        /** Frames shorter than an Ethernet header, or than the header their ethertype needs. */
        RX_TRUNCATED,
        /** Frames whose destination MAC is neither this station nor broadcast. */
        RX_OTHER_STATION,
        /** Frames of an ethertype other than IPv4 and ARP. */
        RX_OTHER_ETHERTYPE,
        /** ARP packets that are not Ethernet/IPv4 request or reply. */
        ARP_MALFORMED,
        ARP_REQUESTS_ANSWERED,
        /** Requests for this host not answered because no TX buffer was free. */
        ARP_REPLY_DROPPED,
        /** Requests for another host's address (the sender is still refreshed when known: RFC 826's merge). */
        ARP_OTHER_TARGET,
        ARP_REPLIES_RECEIVED,
        ARP_REQUESTS_SENT,
        /** IPv4: version not 4, header length under 20 or past the total length, total length past the frame. */
        IP_BAD_HEADER,
        IP_BAD_CHECKSUM,
        /** Fragments: there is no reassembly (the paper's IP does none), so they are dropped here. */
        IP_FRAGMENTS,
        /** Datagrams for another IPv4 address (there is no forwarding). */
        IP_NOT_FOR_US,
        /** Datagrams of a protocol no transport is registered for. */
        IP_UNKNOWN_PROTOCOL,
        IP_DELIVERED,
        IP_SENT,
        /** ICMP messages too short or with a bad checksum. */
        ICMP_MALFORMED,
        ICMP_ECHO_REPLIED,
        /** Echo requests not answered because no TX buffer was free or the asker's MAC is unknown. */
        ICMP_REPLY_DROPPED,
        ICMP_ECHO_REPLIES_RECEIVED,
        /** ICMP types the stack does not handle (only echo is), and echo requests sent to a broadcast address. */
        ICMP_OTHER,
        /** UDP: length under 8 or past the IP payload. */
        UDP_BAD_LENGTH,
        UDP_BAD_CHECKSUM,
        /** Datagrams to a port with no pcb. */
        UDP_NO_PORT,
        UDP_DELIVERED,
        UDP_SENT,
        /** Datagrams longer than the receive area of the pcb they were for (nothing copied, nothing delivered). */
        UDP_TOO_LONG
    }

    private static final Counter[] ALL = Counter.values();
    private final long[] values = new long[ALL.length];

    void increment(Counter c) {
        values[c.ordinal()]++;
    }

    public long get(Counter c) {
        return values[c.ordinal()];
    }

    /** @return the sum of every counter that records a dropped malformed input */
    public long malformed() {
        return get(Counter.RX_TRUNCATED) + get(Counter.ARP_MALFORMED) + get(Counter.IP_BAD_HEADER)
            + get(Counter.IP_BAD_CHECKSUM) + get(Counter.ICMP_MALFORMED) + get(Counter.UDP_BAD_LENGTH)
            + get(Counter.UDP_BAD_CHECKSUM);
    }

    /** @return the sum of every counter that records a frame or datagram the stack did not deliver */
    public long dropped() {
        return malformed() + get(Counter.RX_OTHER_STATION) + get(Counter.RX_OTHER_ETHERTYPE)
            + get(Counter.IP_FRAGMENTS) + get(Counter.IP_NOT_FOR_US) + get(Counter.IP_UNKNOWN_PROTOCOL)
            + get(Counter.ICMP_OTHER) + get(Counter.UDP_NO_PORT) + get(Counter.UDP_TOO_LONG);
    }

    /**
     * @return the sum of the counters that end a received frame's story: each frame handed to the stack ends in
     *     exactly one of them, so this equals {@link Counter#RX_FRAMES} (the fuzz test holds the stack to it)
     */
    public long outcomes() {
        return dropped() + get(Counter.ARP_REQUESTS_ANSWERED) + get(Counter.ARP_REPLY_DROPPED)
            + get(Counter.ARP_OTHER_TARGET) + get(Counter.ARP_REPLIES_RECEIVED) + get(Counter.ICMP_ECHO_REPLIED)
            + get(Counter.ICMP_REPLY_DROPPED) + get(Counter.ICMP_ECHO_REPLIES_RECEIVED) + get(Counter.UDP_DELIVERED);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("IpCounters{");
        for (Counter c : ALL) {
            if (values[c.ordinal()] != 0) {
                b.append(c.name().toLowerCase(java.util.Locale.ROOT)).append('=').append(values[c.ordinal()])
                    .append(' ');
            }
        }
        return b.append('}').toString();
    }
}
