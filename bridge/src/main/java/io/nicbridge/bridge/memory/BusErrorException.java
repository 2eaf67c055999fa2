package io.nicbridge.bridge.memory;

/**
 * Thrown by the cold-path conveniences of {@link DmaSpace} (e.g. {@link DmaSpace#slice}) when a range
 * is not registered host memory. The hot path returns {@link BusError} codes instead.
 */
public final class BusErrorException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int code;
    private final long busAddress;
    private final long length;

    public BusErrorException(String message, int code, long busAddress, long length) {
        super(message);
        this.code = code;
        this.busAddress = busAddress;
        this.length = length;
    }

    /** @return one of the {@link BusError} codes */
    public int code() {
        return code;
    }

    public long busAddress() {
        return busAddress;
    }

    public long length() {
        return length;
    }
}
