package io.nicbridge.bench.pupa.real;

import io.nicbridge.bridge.shim.ShimStatistics;
import io.nicbridge.protocols.pupa.PupaCounters;
import java.util.Locale;

/**
 * What Pupa's one-way streams cost per message, per side - the breakdown {@code nic pupa real-bandwidth} prints beside
 * the bandwidth, summed over a size's trials of one stack: each end's thread CPU (its own thread only: user and
 * system, so the kernel's send path and the waits in epoll, but not the other end's softirq that a veth runs on it),
 * the frames it sent (and of them the ACK-only ones), its card's doorbells (kicks), shim polls and interrupts, and its
 * waits in the kernel for card work. Side 0 is the sender (node A), side 1 the receiver (node B).
 */
final class StreamCosts {
    static final int SENDER = 0;
    static final int RECEIVER = 1;

    private final long[] cpuNanos = new long[2];
    private final long[] frames = new long[2];
    private final long[] ackFrames = new long[2];
    private final long[] kicks = new long[2];
    private final long[] polls = new long[2];
    private final long[] interrupts = new long[2];
    private final long[] waits = new long[2];
    private long ackRequests;
    private long messages;

    /** Adds one stream's figures for {@code side}. */
    void add(int side, long cpu, ShimStatistics card, PupaCounters core, long nodeWaits) {
        cpuNanos[side] += cpu;
        frames[side] += card.txFrames();
        ackFrames[side] += core.ackPacketsSent();
        kicks[side] += card.kicks();
        polls[side] += card.polls();
        interrupts[side] += card.interrupts();
        waits[side] += nodeWaits;
        if (side == SENDER) {
            ackRequests += core.ackRequestsSent();
        }
    }

    /** Counts the messages of one stream (once per stream, not per side). */
    void messages(long n) {
        messages += n;
    }

    /** @return thread CPU of {@code side} per message, in microseconds */
    double cpuMicros(int side) {
        return cpuNanos[side] / 1e3 / Math.max(1, messages);
    }

    /** @return one line per side: CPU us, frames, ACK-only frames, kicks, polls, interrupts, waits, per message */
    String describe(String stack) {
        double m = Math.max(1, messages);
        return String.format(Locale.ROOT, "    %s, per message: sender %.2f us CPU, %.2f frames (%.3f ACK-only, %.3f"
                + " explicit ACK requests), %.2f kicks, %.2f polls, %.2f interrupts, %.2f waits | receiver %.2f us CPU,"
                + " %.2f frames (%.3f ACK-only), %.2f kicks, %.2f polls, %.2f interrupts, %.2f waits", stack,
            cpuMicros(SENDER), frames[SENDER] / m, ackFrames[SENDER] / m, ackRequests / m, kicks[SENDER] / m,
            polls[SENDER] / m, interrupts[SENDER] / m, waits[SENDER] / m, cpuMicros(RECEIVER), frames[RECEIVER] / m,
            ackFrames[RECEIVER] / m, kicks[RECEIVER] / m, polls[RECEIVER] / m, interrupts[RECEIVER] / m,
            waits[RECEIVER] / m);
    }
}
