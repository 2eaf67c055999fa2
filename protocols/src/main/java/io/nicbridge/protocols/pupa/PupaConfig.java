package io.nicbridge.protocols.pupa;

/**
 * Pupa's tunable parameters, fixed for a run (section 2 of the paper; defaults are the paper's where it gives one).
 *
 * @param sendBuffers         buffers in the secondary send pool (paper: 128)
 * @param sendBufferSize      bytes per secondary send buffer (paper: 512)
 * @param receiveBuffers      buffers in the secondary receive pool (paper: 512)
 * @param receiveBufferSize   bytes per secondary receive buffer, also the threshold above which a received body stays
 *                            in the link's receive buffer, the paper's mbuf (paper: 128)
 * @param mbufs               link receive buffers the core may hold at once for bodies left in place; a body that
 *                            finds none free is an overflow (dropped and NACKed). The paper's driver refills its ring
 *                            with fresh mbufs; a link's receive buffers are its ring, so each one held is a descriptor
 *                            the card cannot fill: default 64, half of the 21140 driver's 128-entry ring (16, smaller
 *                            than one poll batch of fragments, made the core overflow on its own)
 * @param maxMessage          the largest message offered (bytes); capped further by the send pool and the FIFO
 * @param rtoNanos            retransmission timeout of the oldest unacknowledged message
 * @param ackTimerNanos       the acknowledgement timer's period (paper: 10 ms)
 * @param broadcastAckEvery   a broadcast acknowledgement every this many timer expirations (paper: 50)
 * @param packDelayNanos      how long a packed (non-fast-path) message may wait for company before its frame goes
 * @param flowControl         optimistic credits on (paper's default) or off
 * @param ackEveryMessage     every message asks for an acknowledgement (Figure 4's "per-message ACK" mode) instead of
 *                            the sender-controlled scheme
 * @param frameCheck          a software CRC-32C over every frame: off in the paper (the card's FCS catches damage);
 *                            on for media that deliver damaged bytes (the simulation tester's in-memory medium)
 */
public record PupaConfig(int sendBuffers, int sendBufferSize, int receiveBuffers, int receiveBufferSize, int mbufs,
                         int maxMessage, long rtoNanos, long ackTimerNanos, int broadcastAckEvery,
                         long packDelayNanos, boolean flowControl, boolean ackEveryMessage, boolean frameCheck) {
    public PupaConfig {
        if (sendBuffers < 2 || receiveBuffers < 2) {
            throw new IllegalArgumentException("sendBuffers and receiveBuffers must be >= 2 (one always stays free),"
                    + " were " + sendBuffers + " and " + receiveBuffers);
        }
        positive("sendBufferSize", sendBufferSize);
        if (receiveBufferSize < PupaWire.INLINE_LIMIT) {
            throw new IllegalArgumentException("receiveBufferSize must be >= " + PupaWire.INLINE_LIMIT + ", was "
                    + receiveBufferSize);
        }
        positive("mbufs", mbufs);
        if (maxMessage < 0) {
            throw new IllegalArgumentException("maxMessage must be >= 0, was " + maxMessage);
        }
        positive("rtoNanos", rtoNanos);
        positive("ackTimerNanos", ackTimerNanos);
        positive("broadcastAckEvery", broadcastAckEvery);
        if (packDelayNanos < 0) {
            throw new IllegalArgumentException("packDelayNanos must be >= 0, was " + packDelayNanos);
        }
    }

    /**
     * The paper's defaults: pools 128 x 512 B and 512 x 128 B, 10 ms ACK timer, broadcast ACK every 50, credits on;
     * ours: 64 mbufs, a 20 ms retransmission timeout, 100 us packing delay, 16 KiB messages.
     */
    public static PupaConfig defaults() {
        return new PupaConfig(128, 512, 512, 128, 64, 16 * 1024, 20_000_000L, 10_000_000L, 50, 100_000L, true,
                false, false);
    }

    public PupaConfig withSendPool(int buffers, int size) {
        return new PupaConfig(buffers, size, receiveBuffers, receiveBufferSize, mbufs, maxMessage, rtoNanos,
                ackTimerNanos, broadcastAckEvery, packDelayNanos, flowControl, ackEveryMessage, frameCheck);
    }

    public PupaConfig withReceivePool(int buffers, int size) {
        return new PupaConfig(sendBuffers, sendBufferSize, buffers, size, mbufs, maxMessage, rtoNanos,
                ackTimerNanos, broadcastAckEvery, packDelayNanos, flowControl, ackEveryMessage, frameCheck);
    }

    public PupaConfig withTimers(long rto, long ackTimer, long packDelay) {
        return new PupaConfig(sendBuffers, sendBufferSize, receiveBuffers, receiveBufferSize, mbufs, maxMessage, rto,
                ackTimer, broadcastAckEvery, packDelay, flowControl, ackEveryMessage, frameCheck);
    }

    public PupaConfig withMaxMessage(int bytes) {
        return new PupaConfig(sendBuffers, sendBufferSize, receiveBuffers, receiveBufferSize, mbufs, bytes, rtoNanos,
                ackTimerNanos, broadcastAckEvery, packDelayNanos, flowControl, ackEveryMessage, frameCheck);
    }

    public PupaConfig withFlowControl(boolean on) {
        return new PupaConfig(sendBuffers, sendBufferSize, receiveBuffers, receiveBufferSize, mbufs, maxMessage,
                rtoNanos, ackTimerNanos, broadcastAckEvery, packDelayNanos, on, ackEveryMessage, frameCheck);
    }

    public PupaConfig withAckEveryMessage(boolean on) {
        return new PupaConfig(sendBuffers, sendBufferSize, receiveBuffers, receiveBufferSize, mbufs, maxMessage,
                rtoNanos, ackTimerNanos, broadcastAckEvery, packDelayNanos, flowControl, on, frameCheck);
    }

    public PupaConfig withFrameCheck(boolean on) {
        return new PupaConfig(sendBuffers, sendBufferSize, receiveBuffers, receiveBufferSize, mbufs, maxMessage,
                rtoNanos, ackTimerNanos, broadcastAckEvery, packDelayNanos, flowControl, ackEveryMessage, on);
    }

    public PupaConfig withMbufs(int n) {
        return new PupaConfig(sendBuffers, sendBufferSize, receiveBuffers, receiveBufferSize, n, maxMessage,
                rtoNanos, ackTimerNanos, broadcastAckEvery, packDelayNanos, flowControl, ackEveryMessage, frameCheck);
    }

    private static void positive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " out of range: " + value);
        }
    }
}
