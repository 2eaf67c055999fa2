package io.nicbridge.protocols.traditional;

import io.nicbridge.protocols.cstar.CStarNetwork;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The traditional core's Appendix A operations, one public method each, for benchmarking (bench's
 * {@code AppendixABench}): every method calls exactly the package-private method the core runs where it charges
 * {@code traditional.<name>}, with the arguments of the paper's measurement: a short unicast fragment (4 bytes,
 * LAST_FRAG) to the one other node of a two-node latency test, and its reply arriving from that node.
 *
 * <p>Give it a core that has done a few latency rounds (so its application has waited for an event and every
 * fragment it sent is acknowledged). The methods keep the core on the latency test's path call after call: each
 * send uses a new event (as each round of the test does), each arrival the next sequence number. The two operations
 * that consume something, {@link #fillFragmentDescriptor()} (a free descriptor) and {@link #implicitAck(int)} (an
 * outstanding fragment), come in batches prepared outside the timed part ({@link #prepareFills(int)},
 * {@link #prepareAcks(int)}). Operations whose state drifts harmlessly (a counter that nothing on the path reads)
 * are left to drift: use a fresh core per measurement iteration.
 *
 * <p>{@code maintain-buffer-counter} has no method: the core has no code of its own for it (the count of fragments
 * held on board is {@link io.nicbridge.protocols.cstar.EventInbox}'s, kept by both protocols alike).
 * Not thread-safe; the core is the view's alone while it is used.
 */
public final class TraditionalAppendixA {
    /** The names of the operations this view measures, in the paper's order ({@code maintain-buffer-counter} has no code). */
    public static final String[] MEASURED = {
        "decide-ack-flag", "fill-fragment-descriptor", "set-ack-mask", "get-tx-event-slot",
        "push-fragment-descriptor", "collect-tx-buffers", "check-bitset",
        "fragment-priority", "check-copy-out", "implicit-ack", "check-fragment-number",
        "check-explicit-ack", "check-retransmission", "check-all-to-all", "check-complete"};
    /** The operation the core charges without code of its own. */
    public static final String NO_CODE = "maintain-buffer-counter";

    private static final int FLAGS = CStarNetwork.LAST_FRAG;
    private static final int LENGTH = 4;

    private final TraditionalCore core;
    private final int peer;
    private final int fixedDescriptor;
    private final int fixedSlot;
    private final int fixedEvent;
    private int event;
    private int seq;
    private int[] batch = new int[0];
    private int batchSize;
    private MemorySegment[] acks = new MemorySegment[0];

    /**
     * @param core the core of one node of a two-node cluster, after a few rounds of the latency test
     * @param peer the other node
     * @throws IllegalArgumentException when peer is not another node of the core's cluster, or the core has
     *                                  fragments unacknowledged
     */
    public TraditionalAppendixA(TraditionalCore core, int peer) {
        this.core = Objects.requireNonNull(core, "core");
        if (peer < 0 || peer >= core.nodes() || peer == core.self()) {
            throw new IllegalArgumentException("peer must be another node of the core's cluster, was " + peer);
        }
        if (core.descriptorsInUse() != 0) {
            throw new IllegalArgumentException("the core has " + core.descriptorsInUse()
                    + " fragments unacknowledged; give it a core whose latency rounds are complete");
        }
        this.peer = peer;
        this.event = 1 << 20; // above any event of the warm-up rounds
        this.seq = core.receivedThrough(peer);
        // one fragment of a latency round, sent and acknowledged: its descriptor (free again, numbered) is what
        // set-ack-mask, push-fragment-descriptor and check-bitset work on, and its event the batches'
        fixedEvent = event++;
        fixedSlot = core.txEventSlot(peer, fixedEvent);
        core.takeEventSlot(peer, fixedEvent, fixedSlot);
        ensure(1);
        fixedDescriptor = fillFragmentDescriptor();
        completeAndAcknowledgeBatch();
    }

    // ---------------------------------------------------------------------------------------------- send

    public int decideAckFlag() {
        return core.decideAckFlag(peer, FLAGS);
    }

    /** Up to {@link #prepareFills(int)}'s count of calls, then prepare again. */
    public int fillFragmentDescriptor() {
        int d = core.fillFragmentDescriptor(peer, fixedEvent, FLAGS, LENGTH);
        batch[batchSize++] = d;
        return d;
    }

    public void setAckMask() {
        core.setAckMask(fixedDescriptor, peer, fixedSlot);
    }

    /** The check and, each call being a new event, the store. */
    public int getTxEventSlot() {
        int e = event++;
        int slot = core.txEventSlot(peer, e);
        core.takeEventSlot(peer, e, slot);
        return slot;
    }

    public void pushFragmentDescriptor() {
        core.pushFragmentDescriptor(fixedDescriptor);
    }

    public void collectTxBuffers() {
        core.pumpQueue();
    }

    public void checkBitset() {
        core.markAllocated(fixedDescriptor);
    }

    // ---------------------------------------------------------------------------------------------- interrupt

    public boolean fragmentPriority() {
        return core.acceptable(0);
    }

    public void checkCopyOut() {
        core.checkCopyOut();
    }

    /** The next prepared acknowledgement (call {@code k} of a batch: the k-th fragment of {@link #prepareAcks}). */
    public void implicitAck(int k) {
        core.implicitAck(acks[k], peer, TraditionalWire.DATA, 1, 0, 0);
    }

    /** The check and the update of the expected sequence number, for the next fragment in order. */
    public int checkFragmentNumber() {
        int ahead = core.fragmentAhead(peer, false, seq++);
        core.recordArrival(peer, false, ahead);
        return ahead;
    }

    public void checkExplicitAck() {
        core.checkExplicitAck(peer, FLAGS);
    }

    public void checkRetransmission() {
        core.checkRetransmission(peer, false, seq, 0);
    }

    public int checkAllToAll() {
        return TraditionalCore.serviceFlags(FLAGS);
    }

    public void checkComplete() {
        core.checkComplete(0);
    }

    // ---------------------------------------------------------------------------------------------- batches

    /**
     * Gives back the descriptors of the last fill batch (their send completed by the core's own set-ack-mask,
     * push and bit-set operations and acknowledged through {@code implicit-ack}), so that {@code count} fills may
     * follow.
     *
     * @throws IllegalArgumentException when the core cannot have {@code count} more descriptors in use
     */
    public void prepareFills(int count) {
        completeAndAcknowledgeBatch();
        ensure(count);
        batchSize = 0;
    }

    /**
     * Sends (without transmitting) {@code count} fragments through the core's own send-side operations and prepares
     * for each the reply frame that acknowledges it and nothing else, the k-th for {@link #implicitAck(int) call k}.
     */
    public void prepareAcks(int count) {
        completeAndAcknowledgeBatch();
        ensure(count);
        batchSize = 0;
        for (int k = 0; k < count; k++) {
            int d = fillFragmentDescriptor();
            core.setAckMask(d, peer, fixedSlot);
            core.pushFragmentDescriptor(d);
            core.markAllocated(d);
            writeAck(acks[k], core.seqOf(d) + 1);
        }
        batchSize = 0; // acknowledged by the batch itself
    }

    private void completeAndAcknowledgeBatch() {
        if (batchSize == 0) {
            return;
        }
        for (int i = 0; i < batchSize; i++) {
            core.setAckMask(batch[i], peer, fixedSlot);
            core.pushFragmentDescriptor(batch[i]);
            core.markAllocated(batch[i]);
        }
        writeAck(acks[0], core.seqOf(batch[batchSize - 1]) + 1);
        core.implicitAck(acks[0], peer, TraditionalWire.DATA, 1, 0, 0);
        batchSize = 0;
    }

    private void ensure(int count) {
        int free = core.descriptorCount() - core.descriptorsInUse();
        if (count < 1 || count > free) {
            throw new IllegalArgumentException("count must be in [1, " + free + "] (free descriptors), was " + count);
        }
        if (batch.length < count) {
            batch = new int[count];
            acks = new MemorySegment[count];
            for (int i = 0; i < count; i++) {
                acks[i] = MemorySegment.ofArray(new byte[TraditionalWire.HEADER + TraditionalWire.ENTRY]);
            }
        }
    }

    /** The one acknowledgement entry a two-node reply carries: everything below {@code uniCum} arrived. */
    private void writeAck(MemorySegment f, int uniCum) {
        TraditionalWire.writeEntry(f, 0, core.self(), uniCum, 0, 0, 0);
    }
}
