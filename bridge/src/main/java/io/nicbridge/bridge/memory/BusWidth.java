package io.nicbridge.bridge.memory;

/** Width of a card's bus addresses; it bounds the bus address ranges a {@link DmaSpace} hands out. */
public enum BusWidth {
    /** 32-bit bus addresses (DEC 21140, SBA-200): every range lies below 4 GiB. */
    BITS_32(0xFFFF_FFFFL),
    /** 64-bit bus addresses, restricted to the non-negative half so they fit a Java {@code long}. */
    BITS_64(Long.MAX_VALUE);

    private final long maxAddress;

    BusWidth(long maxAddress) {
        this.maxAddress = maxAddress;
    }

    /** @return the highest valid bus address (inclusive) */
    public long maxAddress() {
        return maxAddress;
    }
}
