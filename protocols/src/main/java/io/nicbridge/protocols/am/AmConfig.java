package io.nicbridge.protocols.am;

/**
 * U-Net Active Messages' parameters (U-Net paper, section 5.1).
 *
 * @param window        w: requests outstanding per peer (a power of two, 1 .. 512); the channel keeps 4w buffers
 *                      per peer, 2w to send (w requests, w replies) and 2w received
 * @param bufferBytes   bytes of data one buffer (one message) carries: a store or get moves in chunks of this
 *                      (the paper's UAM: 4160, hence its bandwidth dip at 4164 bytes)
 * @param rtoNanos      the go-back-N retransmission timeout
 * @param ackDelayNanos how long an acknowledgement may wait for a message to carry it (see
 *                      {@link io.nicbridge.protocols.gbn.GoBackNConfig#ackDelayNanos()}); at most rtoNanos / 2
 * @param memoryBytes   the node's memory that stores write and gets read (its "global address space"), &gt;= 0
 */
public record AmConfig(int window, int bufferBytes, long rtoNanos, long ackDelayNanos, int memoryBytes) {
    /** The paper's UAM buffer: 4160 bytes of data. */
    public static final int PAPER_BUFFER_BYTES = 4160;
    /** The Active Messages header every message carries before its data ({@link AmWire}). */
    public static final int HEADER_BYTES = AmWire.HEADER;

    public AmConfig {
        if (window < 1 || window > 512 || Integer.bitCount(window) != 1) {
            throw new IllegalArgumentException("window must be a power of two in [1, 512], was " + window);
        }
        if (bufferBytes < 1 || bufferBytes > 65535 - 16 - AmWire.HEADER) {
            throw new IllegalArgumentException("bufferBytes must be in [1, " + (65535 - 16 - AmWire.HEADER)
                    + "], was " + bufferBytes);
        }
        if (memoryBytes < 0) {
            throw new IllegalArgumentException("memoryBytes must be >= 0, was " + memoryBytes);
        }
        // rtoNanos and ackDelayNanos are checked by the go-back-N configuration built from them.
    }

    /**
     * The paper's UAM: w = 8, 4160-byte buffers, a 4 ms retransmission timeout, acknowledgements held for up to
     * 100 us, and {@code memoryBytes} of memory.
     *
     * <p>The paper gives no UAM timeout, so it is derived by a rule: a timeout must not expire on a window that is only
     * queued. A full window of w = 8 buffers of 4160 bytes is 8 x 87 cells, which at the fiber's 3.03 us per cell
     * (140 Mb/s TAXI) takes about 2.1 ms to leave the card; the timeout is twice that, rounded to 4 ms. (A 1 ms
     * timeout retransmitted queued windows on a lossless switch once the firmware pipelines its sends.)
     */
    public static AmConfig paper(int memoryBytes) {
        return new AmConfig(8, PAPER_BUFFER_BYTES, 4_000_000, 100_000, memoryBytes);
    }

    /** @return the largest message of the channel below: the header and one buffer of data */
    public int maxMessage() {
        return AmWire.HEADER + bufferBytes;
    }

    /** @return the most bytes one store or get moves: w buffers (GAM's am_max_size()) */
    public int maxTransfer() {
        return window * bufferBytes;
    }

    /** @return the link mtu the configuration needs: the go-back-N header and {@link #maxMessage()} */
    public int linkMtu() {
        return io.nicbridge.protocols.gbn.GoBackNWire.HEADER + maxMessage();
    }
}
