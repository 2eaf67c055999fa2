package io.nicbridge.protocols.gbn;

/**
 * The go-back-N channel's parameters.
 *
 * @param window     w: messages in flight (unacknowledged) per peer; a power of two, 1 .. 1024
 * @param maxMessage the largest message, bytes (>= 0; the link's mtu must hold it plus the 16-byte header)
 * @param rtoNanos   the retransmission timeout: how long the oldest unacknowledged message waits before the
 *                   sender goes back and resends everything from it (> 0)
 * @param ackDelayNanos 0: an acknowledgement owed is sent at once (an explicit ACK frame when no DATA goes out);
 *                   &gt; 0: it waits up to this long for a DATA frame to the same peer to carry it (U-Net Active
 *                   Messages: a reply acknowledges its request, so only requests without a reply are acknowledged
 *                   explicitly), and goes out at once when w/2 arrivals are unacknowledged; in [0, rtoNanos / 2]
 */
public record GoBackNConfig(int window, int maxMessage, long rtoNanos, long ackDelayNanos) {
    /** Acknowledgements sent at once ({@code ackDelayNanos} 0). */
    public GoBackNConfig(int window, int maxMessage, long rtoNanos) {
        this(window, maxMessage, rtoNanos, 0);
    }

    public GoBackNConfig {
        if (window < 1 || window > 1024 || Integer.bitCount(window) != 1) {
            throw new IllegalArgumentException("window must be a power of two in [1, 1024], was " + window);
        }
        if (maxMessage < 0 || maxMessage > 65535 - GoBackNWire.HEADER) {
            throw new IllegalArgumentException("maxMessage must be in [0, " + (65535 - GoBackNWire.HEADER)
                    + "], was " + maxMessage);
        }
        if (rtoNanos <= 0) {
            throw new IllegalArgumentException("rtoNanos must be > 0, was " + rtoNanos);
        }
        if (ackDelayNanos < 0 || ackDelayNanos > rtoNanos / 2) {
            throw new IllegalArgumentException("ackDelayNanos must be in [0, rtoNanos / 2 = " + rtoNanos / 2
                    + "], was " + ackDelayNanos);
        }
    }

    /** @return these parameters with acknowledgements delayed by up to {@code nanos} (see {@link #ackDelayNanos}) */
    public GoBackNConfig withAckDelay(long nanos) {
        return new GoBackNConfig(window, maxMessage, rtoNanos, nanos);
    }

    /** @return the buffers per peer, 4w as in U-Net Active Messages: 2w to send, 2w received and not yet taken */
    public int buffersPerPeer() {
        return 4 * window;
    }
}
