package io.nicbridge.protocols.ip;

/**
 * A small fixed-size IPv4-to-MAC table (RFC 826), allocation-free: parallel arrays searched linearly (a host on one
 * Ethernet talks to a handful of neighbours). An entry is complete (a MAC is known) or incomplete (a request went out
 * at {@code requested} and no answer came yet). Complete entries expire after {@link #LIFETIME_NANOS}; a full table
 * replaces its oldest entry.
 */
final class ArpCache {
    /** Linux's base_reachable_time is 30 s; an entry lives that long after it was last confirmed. */
    static final long LIFETIME_NANOS = 30_000_000_000L;
    /** An unanswered request is repeated at most this often. */
    static final long RETRY_NANOS = 100_000_000L;
    static final long INCOMPLETE = -1L;

    private final int[] address;
    private final long[] mac;
    /** When the entry was learnt (complete) or its last request sent (incomplete). */
    private final long[] stamp;
    private final boolean[] used;

    ArpCache(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("ARP cache capacity must be >= 1, was " + capacity);
        }
        address = new int[capacity];
        mac = new long[capacity];
        stamp = new long[capacity];
        used = new boolean[capacity];
    }

    private int find(int ip) {
        for (int i = 0; i < address.length; i++) {
            if (used[i] && address[i] == ip) {
                return i;
            }
        }
        return -1;
    }

    /** @return the MAC of {@code ip}, or {@link #INCOMPLETE} when unknown or expired */
    long lookup(int ip, long now) {
        int i = find(ip);
        if (i < 0 || mac[i] == INCOMPLETE || now - stamp[i] > LIFETIME_NANOS) {
            return INCOMPLETE;
        }
        return mac[i];
    }

    /** @return true when there is an entry for {@code ip} (RFC 826's "merge": only known senders are updated) */
    boolean contains(int ip) {
        return find(ip) >= 0;
    }

    void learn(int ip, long station, long now) {
        int i = slot(ip);
        mac[i] = station;
        stamp[i] = now;
    }

    /**
     * Records that a request for {@code ip} is due, unless one went out less than {@link #RETRY_NANOS} ago.
     *
     * @return true when the caller should send a request now
     */
    boolean requestDue(int ip, long now) {
        int i = find(ip);
        if (i >= 0 && mac[i] == INCOMPLETE && now - stamp[i] < RETRY_NANOS) {
            return false;
        }
        i = slot(ip);
        mac[i] = INCOMPLETE;
        stamp[i] = now;
        return true;
    }

    private int slot(int ip) {
        int i = find(ip);
        if (i >= 0) {
            return i;
        }
        int oldest = 0;
        for (int j = 0; j < address.length; j++) {
            if (!used[j]) {
                oldest = j;
                break;
            }
            if (stamp[j] - stamp[oldest] < 0) {
                oldest = j;
            }
        }
        used[oldest] = true;
        address[oldest] = ip;
        return oldest;
    }
}
