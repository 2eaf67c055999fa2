package io.nicbridge.bridge.memory;

/**
 * Codes a {@link DmaSpace} returns instead of a region index when a card's DMA would leave host memory
 * the host registered. A bus error is a card event, not a Java exception: the backend reports it the
 * card's way (21140: CSR5 FBE with an EB code; U-Net: the descriptor's error status).
 *
 * <p>All codes are negative so {@code code < 0} separates them from region indices. When several
 * apply, the first in this order wins: {@link #BAD_LENGTH}, {@link #ADDRESS_WRAP}, {@link #NO_REGION},
 * {@link #OUT_OF_REGION}, {@link #REGION_CLOSED}, {@link #MISALIGNED}.
 */
public final class BusError {
    /** The start address lies in no registered region: a gap, address 0, an unregistered range. */
    public static final int NO_REGION = -1;
    /** The start is inside a region but the transfer runs past its end (overrun, or straddles into the next). */
    public static final int OUT_OF_REGION = -2;
    /** The length is zero or negative. */
    public static final int BAD_LENGTH = -3;
    /** The range leaves the bus's address space: beyond 4 GiB on a 32-bit bus, or 64-bit overflow. */
    public static final int ADDRESS_WRAP = -4;
    /** A word access with ordering (acquire/release) at an address that is not 4-byte aligned. */
    public static final int MISALIGNED = -5;
    /** The region's memory has been freed (its comm segment was closed while still registered). */
    public static final int REGION_CLOSED = -6;

    private BusError() {
    }

    /** @return true when {@code result} of a translation or access is a bus error */
    public static boolean isError(long result) {
        return result < 0;
    }

    /** @return the constant's name, e.g. {@code "NO_REGION"} */
    public static String name(int code) {
        return switch (code) {
            case NO_REGION -> "NO_REGION";
            case OUT_OF_REGION -> "OUT_OF_REGION";
            case BAD_LENGTH -> "BAD_LENGTH";
            case ADDRESS_WRAP -> "ADDRESS_WRAP";
            case MISALIGNED -> "MISALIGNED";
            case REGION_CLOSED -> "REGION_CLOSED";
            default -> code >= 0 ? "OK" : "UNKNOWN(" + code + ")";
        };
    }
}
