package io.nicbridge.protocols.ip.tcp;

import java.util.concurrent.TimeUnit;

/**
 * The settings of one {@link Tcp} endpoint, fixed at setup.
 *
 * @param mss                the largest data a segment carries that this side offers and sends with; {@code 0} means
 *                           "from the MTU" (the sink's largest segment less the TCP header: 1460 over Ethernet).
 *                           U-Net's TCP over an ATM channel uses 2048 (the paper, section 7.6)
 * @param sendBuffer         bytes of the off-heap send ring of each connection (a power of two, 1 KiB..1 GiB): what
 *                           the application may have written and the peer not yet acknowledged
 * @param receiveBuffer      bytes of the off-heap receive ring of each connection (a power of two, 1 KiB..1 GiB): the
 *                           receive window is its free space (capped at 65535 unless window scaling is negotiated)
 * @param connections        connection slots (each with its two rings), allocated at setup
 * @param initialRtoNanos    the RTO before the first RTT sample (RFC 6298 2.1: 1 s)
 * @param minRtoNanos        the RTO floor; Linux's 200 ms by default, so a Linux peer's delayed ACK (40..200 ms) never
 *                           draws a spurious retransmission (docs: tcpip-gam-facts B6). RFC 6298's 1 s is a SHOULD
 * @param maxRtoNanos        the RTO ceiling after backoff (RFC 6298 2.5: at least 60 s)
 * @param maxRetransmissions consecutive expiries of the retransmission timer before the connection is given up
 * @param delayedAckNanos    0 (the default, as in the paper's TCP): every segment with data is acknowledged at once;
 *                           otherwise an in-order segment's ACK waits up to this long or for a second full segment
 *                           (RFC 9293 3.8.6.3: under 0.5 s)
 * @param timeWaitNanos      the TIME-WAIT length, 2 MSL (Linux: 60 s)
 * @param issSeed            seeds the initial sequence numbers (deterministic under simulation)
 * @param windowScaling      offer the window-scale option in the SYN (RFC 7323 2) with the shift that lets the
 *                           window cover the whole receive ring, and accept the peer's; in use only when both SYNs
 *                           carry it
 * @param sack               offer SACK-permitted in the SYN (RFC 2018 2); when both SYNs carry it, our ACKs report
 *                           the out-of-order blocks held in the receive ring
 * @param ackAtPoll          with no delayed ACK: the ACK an in-order data segment owes is left for the end of the
 *                           runner's step - the next {@link Tcp#poll} - so that a reply the application writes before
 *                           then carries it; a second unacknowledged segment, a gap, a FIN are acknowledged at once.
 *                           Still "no delayed ACK" (no timer: the ACK leaves within the step that took the segment,
 *                           as a BSD stack's end-of-input {@code tcp_output}); off by default (every data segment is
 *                           acknowledged inside {@link Tcp#onSegment}). A runner that sets it polls after every step
 *                           that took segments ({@link Tcp#nextDeadline} is due at once while an ACK is owed)
 */
public record TcpConfig(int mss, int sendBuffer, int receiveBuffer, int connections, long initialRtoNanos,
                        long minRtoNanos, long maxRtoNanos, int maxRetransmissions, long delayedAckNanos,
                        long timeWaitNanos, long issSeed, boolean windowScaling, boolean sack, boolean ackAtPoll) {
    /** The RTT and timer granularity G of RFC 6298: 1 ms, as the paper's TCP (section 7.6). */
    public static final long GRANULARITY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** The largest value of a segment's window field: the largest window without window scaling. */
    public static final int MAX_WINDOW = 65535;

    public TcpConfig {
        if (mss != 0 && (mss < 64 || mss > 65495)) {
            throw new IllegalArgumentException("mss must be 0 (from the MTU) or in [64, 65495], was " + mss);
        }
        checkRing("sendBuffer", sendBuffer);
        checkRing("receiveBuffer", receiveBuffer);
        if (connections < 1 || connections > 4096) {
            throw new IllegalArgumentException("connections must be in [1, 4096], was " + connections);
        }
        if (minRtoNanos < GRANULARITY_NANOS || initialRtoNanos < minRtoNanos || maxRtoNanos < initialRtoNanos) {
            throw new IllegalArgumentException("need 1 ms <= minRtoNanos <= initialRtoNanos <= maxRtoNanos, were "
                + minRtoNanos + ", " + initialRtoNanos + ", " + maxRtoNanos);
        }
        if (maxRetransmissions < 1) {
            throw new IllegalArgumentException("maxRetransmissions must be >= 1, was " + maxRetransmissions);
        }
        if (delayedAckNanos < 0 || delayedAckNanos >= TimeUnit.MILLISECONDS.toNanos(500)) {
            throw new IllegalArgumentException("delayedAckNanos must be in [0, 500 ms) (RFC 9293 MUST-40), was "
                + delayedAckNanos);
        }
        if (timeWaitNanos < 0) {
            throw new IllegalArgumentException("timeWaitNanos must be >= 0, was " + timeWaitNanos);
        }
    }

    /** The settings before {@code ackAtPoll}: every data segment acknowledged inside {@link Tcp#onSegment}. */
    public TcpConfig(int mss, int sendBuffer, int receiveBuffer, int connections, long initialRtoNanos,
                     long minRtoNanos, long maxRtoNanos, int maxRetransmissions, long delayedAckNanos,
                     long timeWaitNanos, long issSeed, boolean windowScaling, boolean sack) {
        this(mss, sendBuffer, receiveBuffer, connections, initialRtoNanos, minRtoNanos, maxRtoNanos,
            maxRetransmissions, delayedAckNanos, timeWaitNanos, issSeed, windowScaling, sack, false);
    }

    private static void checkRing(String name, int bytes) {
        if (bytes < 1024 || bytes > (1 << 30) || Integer.bitCount(bytes) != 1) {
            throw new IllegalArgumentException(name + " must be a power of two in [1024, 2^30], was " + bytes);
        }
    }

    /**
     * MSS from the MTU, 64 KiB rings, 16 connections, RTO 1 s initial / 200 ms floor / 60 s ceiling, 12 retries, no
     * delayed ACK (each data segment acknowledged inside onSegment), Linux's 60 s TIME-WAIT, window scaling and SACK
     * offered.
     */
    public static TcpConfig defaults() {
        return new TcpConfig(0, 1 << 16, 1 << 16, 16, TimeUnit.SECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(200),
            TimeUnit.SECONDS.toNanos(60), 12, 0, TimeUnit.SECONDS.toNanos(60), 0x5eed_7cb1L, true, true, false);
    }

    /**
     * @return the window-scale shift this side offers: the smallest that lets a 16-bit window field cover the whole
     *     receive ring (0 for rings up to 64 KiB less one byte), or {@link TcpOptions#NO_WINDOW_SCALE} when window
     *     scaling is off
     */
    public int windowShift() {
        if (!windowScaling) {
            return TcpOptions.NO_WINDOW_SCALE;
        }
        int shift = 0;
        while ((receiveBuffer >>> shift) > MAX_WINDOW) {
            shift++;
        }
        return shift;
    }

    public TcpConfig withWindowScaling(boolean v) {
        return new TcpConfig(mss, sendBuffer, receiveBuffer, connections, initialRtoNanos, minRtoNanos, maxRtoNanos,
            maxRetransmissions, delayedAckNanos, timeWaitNanos, issSeed, v, sack, ackAtPoll);
    }

    public TcpConfig withSack(boolean v) {
        return new TcpConfig(mss, sendBuffer, receiveBuffer, connections, initialRtoNanos, minRtoNanos, maxRtoNanos,
            maxRetransmissions, delayedAckNanos, timeWaitNanos, issSeed, windowScaling, v, ackAtPoll);
    }

    public TcpConfig withMss(int v) {
        return new TcpConfig(v, sendBuffer, receiveBuffer, connections, initialRtoNanos, minRtoNanos, maxRtoNanos,
            maxRetransmissions, delayedAckNanos, timeWaitNanos, issSeed, windowScaling, sack, ackAtPoll);
    }

    public TcpConfig withBuffers(int send, int receive) {
        return new TcpConfig(mss, send, receive, connections, initialRtoNanos, minRtoNanos, maxRtoNanos,
            maxRetransmissions, delayedAckNanos, timeWaitNanos, issSeed, windowScaling, sack, ackAtPoll);
    }

    public TcpConfig withConnections(int v) {
        return new TcpConfig(mss, sendBuffer, receiveBuffer, v, initialRtoNanos, minRtoNanos, maxRtoNanos,
            maxRetransmissions, delayedAckNanos, timeWaitNanos, issSeed, windowScaling, sack, ackAtPoll);
    }

    public TcpConfig withRto(long initial, long min, long max) {
        return new TcpConfig(mss, sendBuffer, receiveBuffer, connections, initial, min, max, maxRetransmissions,
            delayedAckNanos, timeWaitNanos, issSeed, windowScaling, sack, ackAtPoll);
    }

    public TcpConfig withMaxRetransmissions(int v) {
        return new TcpConfig(mss, sendBuffer, receiveBuffer, connections, initialRtoNanos, minRtoNanos, maxRtoNanos,
            v, delayedAckNanos, timeWaitNanos, issSeed, windowScaling, sack, ackAtPoll);
    }

    public TcpConfig withDelayedAck(long nanos) {
        return new TcpConfig(mss, sendBuffer, receiveBuffer, connections, initialRtoNanos, minRtoNanos, maxRtoNanos,
            maxRetransmissions, nanos, timeWaitNanos, issSeed, windowScaling, sack, ackAtPoll);
    }

    public TcpConfig withTimeWait(long nanos) {
        return new TcpConfig(mss, sendBuffer, receiveBuffer, connections, initialRtoNanos, minRtoNanos, maxRtoNanos,
            maxRetransmissions, delayedAckNanos, nanos, issSeed, windowScaling, sack, ackAtPoll);
    }

    /** @see TcpConfig the {@code ackAtPoll} component */
    public TcpConfig withAckAtPoll(boolean v) {
        return new TcpConfig(mss, sendBuffer, receiveBuffer, connections, initialRtoNanos, minRtoNanos, maxRtoNanos,
            maxRetransmissions, delayedAckNanos, timeWaitNanos, issSeed, windowScaling, sack, v);
    }

    public TcpConfig withIssSeed(long seed) {
        return new TcpConfig(mss, sendBuffer, receiveBuffer, connections, initialRtoNanos, minRtoNanos, maxRtoNanos,
            maxRetransmissions, delayedAckNanos, timeWaitNanos, seed, windowScaling, sack, ackAtPoll);
    }
}
