package io.nicbridge.protocols.careful;

import java.util.Objects;

/**
 * The careful core's Appendix A operations, one public method each, for benchmarking (bench's
 * {@code AppendixABench}): every method calls exactly the package-private method the core runs where it charges
 * {@code careful.<name>}, with the arguments of the paper's measurement: a short unicast fragment to the one other
 * node of a two-node latency test, carrying the one-buffer window update of the previous round, and its reply
 * arriving from that node with the same.
 *
 * <p>Give it a core that has done a few latency rounds. The methods keep the core on the latency test's path call
 * after call; the windows and counters they change drift (nothing on the path branches on their values), except the
 * sender's window that {@link #decrementSenderWindow()} uses up: it comes in batches prepared outside the timed part
 * ({@link #prepareDecrements(int)}). Use a fresh core per measurement iteration. Not thread-safe.
 */
public final class CarefulAppendixA {
    /** The names of the operations, in the paper's order. */
    public static final String[] OPERATIONS = {
        "shrink-window", "fill-in-window-update", "process-window-update", "track-last-event",
        "decrement-sender-window", "skip-copy-out"};

    private static final int UPDATE = 1;
    private static final int EVENT = 1 << 30; // above any event of the warm-up rounds: the path that records it

    private final CarefulCore core;
    private final int peer;

    /**
     * @param core the core of one node of a two-node cluster, after a few rounds of the latency test
     * @param peer the other node
     */
    public CarefulAppendixA(CarefulCore core, int peer) {
        this.core = Objects.requireNonNull(core, "core");
        if (peer < 0 || peer >= core.nodes() || peer == core.self()) {
            throw new IllegalArgumentException("peer must be another node of the core's cluster, was " + peer);
        }
        this.peer = peer;
    }

    public void shrinkWindow() {
        core.shrinkWindow(peer);
    }

    public void fillInWindowUpdate() {
        core.fillInWindowUpdate(peer, UPDATE);
    }

    public void processWindowUpdate() {
        core.processWindowUpdate(peer, UPDATE);
    }

    public boolean trackLastEvent() {
        return core.trackLastEvent(peer, EVENT, -1);
    }

    /** Up to {@link #prepareDecrements(int)}'s count of calls, then prepare again. */
    public void decrementSenderWindow() {
        core.decrementSenderWindow(peer);
    }

    public void skipCopyOut() {
        core.skipCopyOut(peer);
    }

    /**
     * Lets the peer send {@code count} more frames than its window (as this node sees it) before it would overrun:
     * returns that many buffers to it through the core's own fill-in-window-update.
     */
    public void prepareDecrements(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be >= 1, was " + count);
        }
        core.fillInWindowUpdate(peer, count);
    }
}
