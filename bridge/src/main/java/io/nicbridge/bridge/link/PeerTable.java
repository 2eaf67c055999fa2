package io.nicbridge.bridge.link;

import java.util.Arrays;
import java.util.Objects;

/**
 * The peer numbers of a framing and the medium's 48-bit station addresses they stand for (Ethernet MACs, FDDI
 * station addresses): peer i is {@code address(i)}, and {@link #peerOf} maps an address read from a received
 * frame back to its peer without allocating (open addressing, linear probing, at most half full).
 */
public final class PeerTable {
    /** What {@link #peerOf} answers for an address that is no peer's. */
    public static final int UNKNOWN = -1;
    private static final long BROADCAST = 0xFFFF_FFFF_FFFFL;

    private final long[] addresses;
    private final long[] keys;
    private final int[] values;
    private final int mask;

    /**
     * @param addresses peer i's address at index i: at least 2, each a 48-bit value, distinct, none the broadcast
     *                  address
     * @throws IllegalArgumentException naming the bad entry
     */
    public PeerTable(long[] addresses) {
        Objects.requireNonNull(addresses, "addresses");
        if (addresses.length < 2) {
            throw new IllegalArgumentException("a link needs at least 2 peers, got " + addresses.length);
        }
        this.addresses = addresses.clone();
        int capacity = Integer.highestOneBit(Math.max(4, addresses.length * 2 - 1)) << 1;
        keys = new long[capacity];
        values = new int[capacity];
        Arrays.fill(values, UNKNOWN);
        mask = capacity - 1;
        for (int i = 0; i < this.addresses.length; i++) {
            long a = this.addresses[i];
            if ((a & ~BROADCAST) != 0 || a == BROADCAST) {
                throw new IllegalArgumentException("peer " + i + "'s address 0x" + Long.toHexString(a)
                        + " is not a 48-bit station address");
            }
            int dup = peerOf(a);
            if (dup != UNKNOWN) {
                throw new IllegalArgumentException("peers " + dup + " and " + i + " have the same address 0x"
                        + Long.toHexString(a));
            }
            int slot = slot(a);
            while (values[slot] != UNKNOWN) {
                slot = (slot + 1) & mask;
            }
            keys[slot] = a;
            values[slot] = i;
        }
    }

    /** @return the number of peers */
    public int size() {
        return addresses.length;
    }

    /** @return peer {@code peer}'s address */
    public long address(int peer) {
        return addresses[peer];
    }

    /** @return the peer whose address is {@code address}, or {@link #UNKNOWN} */
    public int peerOf(long address) {
        int slot = slot(address);
        for (;;) {
            int v = values[slot];
            if (v == UNKNOWN || keys[slot] == address) {
                return v;
            }
            slot = (slot + 1) & mask;
        }
    }

    private int slot(long address) {
        long h = address * 0x9E37_79B9_7F4A_7C15L;
        return (int) (h >>> 40) & mask;
    }
}
