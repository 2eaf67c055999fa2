package io.nicbridge.protocols.traditional;

/**
 * The traditional protocol's parameters (TR 94-14 section 5.2).
 *
 * @param descriptors       fragment descriptors: fragments sent and not yet acknowledged by every destination, each
 *                          with its backup copy (a power of two, 2 .. 4096); none free = {@code BACK_PRESSURE}
 * @param maxFragment       the largest fragment, bytes (the link's mtu must hold it plus the header with one ack
 *                          entry per other node)
 * @param ackLowWater       when no more than this many descriptors are free, fragments ask for an explicit ACK
 * @param receiveBuffers    the link's (on-board) receive buffers the node may hold fragments in, awaiting the
 *                          application: at most what the link has (the Medusa's receive buffers)
 * @param hostBuffers       host buffers fragments are copied out into, to give on-board buffers back
 * @param copyOutThreshold  fragments held on board beyond which the oldest is copied out into a host buffer (a
 *                          link whose receive buffers are all held drops what arrives, as a card does; a link
 *                          that hands out one frame at a time, as U-Net's does, needs 0 here)
 * @param highLoad          fragments held (on board and copied out) from which the node refuses low-priority
 *                          fragments: those of events later than the one the application needs
 * @param timeoutNanos      the receiver's retransmission timeout: while it misses a fragment (a hole, or the
 *                          application waits for an incomplete event) it asks again this long after the last try
 * @param eventSlots        the cyclic buffer of events with unacknowledged fragments (a power of two, >= 2)
 */
public record TraditionalConfig(int descriptors, int maxFragment, int ackLowWater, int receiveBuffers,
                                int hostBuffers, int copyOutThreshold, int highLoad, long timeoutNanos, int eventSlots) {
    public TraditionalConfig {
        if (descriptors < 2 || descriptors > 4096 || Integer.bitCount(descriptors) != 1) {
            throw new IllegalArgumentException("descriptors must be a power of two in [2, 4096], was " + descriptors);
        }
        if (maxFragment < 0 || maxFragment > 65535) {
            throw new IllegalArgumentException("maxFragment must be in [0, 65535], was " + maxFragment);
        }
        if (ackLowWater < 0 || ackLowWater >= descriptors) {
            throw new IllegalArgumentException("ackLowWater must be in [0, descriptors), was " + ackLowWater);
        }
        if (receiveBuffers < 1) {
            throw new IllegalArgumentException("receiveBuffers must be >= 1, was " + receiveBuffers);
        }
        if (hostBuffers < 0) {
            throw new IllegalArgumentException("hostBuffers must be >= 0, was " + hostBuffers);
        }
        if (copyOutThreshold < 0 || copyOutThreshold > receiveBuffers) {
            throw new IllegalArgumentException("copyOutThreshold must be in [0, receiveBuffers], was "
                    + copyOutThreshold);
        }
        if (highLoad < 1 || highLoad > receiveBuffers + hostBuffers) {
            throw new IllegalArgumentException("highLoad must be in [1, receiveBuffers + hostBuffers], was "
                    + highLoad);
        }
        if (timeoutNanos <= 0) {
            throw new IllegalArgumentException("timeoutNanos must be > 0, was " + timeoutNanos);
        }
        if (eventSlots < 2 || Integer.bitCount(eventSlots) != 1) {
            throw new IllegalArgumentException("eventSlots must be a power of two >= 2, was " + eventSlots);
        }
    }

    /**
     * The Medusa's budget (128 on-board buffers, the driver's default split 64 receive / 64 transmit): 64 fragment
     * descriptors, fragments held in up to 64 receive buffers with the oldest copied out into one of 64 host buffers
     * beyond 48 on board, low-priority fragments refused from 96 held, an ACK requested when 8 descriptors are left,
     * 64 event slots.
     *
     * @param timeoutNanos the receiver's timeout (the paper kept its timeouts deliberately large)
     */
    public static TraditionalConfig medusa(int maxFragment, long timeoutNanos) {
        return new TraditionalConfig(64, maxFragment, 8, 64, 64, 48, 96, timeoutNanos, 64);
    }
}
