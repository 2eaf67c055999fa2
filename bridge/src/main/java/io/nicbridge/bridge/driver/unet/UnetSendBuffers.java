package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.bridge.port.PortCounters;
import io.nicbridge.bridge.queue.QueueCode;
import java.lang.foreign.MemorySegment;
import java.util.function.IntConsumer;

/**
 * The send side that {@link UnetFramePort} and {@link UnetLink} share: TX buffers of an endpoint's segment handed
 * out by claim, each claim also reserving one send descriptor (so a commit never meets a full send queue), and a
 * commit that chooses the U-Net send by length - up to {@code INLINE_MAX} (40) bytes inline (copied into the
 * descriptor: one cell, no DMA, the buffer free again at once), longer from the buffer, which stays in flight until
 * the card completes the descriptor. Completions come back in send-queue order, so the in-flight buffers are a FIFO
 * ({@code -1} for an inline send, which holds none).
 *
 * <pre>
 *   FREE --claim--&gt; CLAIMED --commit (&gt; 40 B)--&gt; IN_FLIGHT --completion--&gt; FREE
 *                     |  \--commit (&lt;= 40 B, inline)-------------------------&gt; FREE
 *                     \--abort--------------------------------------------------&gt; FREE
 * </pre>
 * A claimed buffer may also carry up to {@link UnetGather#MAX_ATTACHED} ranges of the segment after its own bytes
 * ({@link #attach}): its commit is then one gather send (the buffer as the descriptor's first buffer, the ranges as
 * the next), never inline, and each range's token goes to the {@link #tokens token listener} when the send
 * completes - or at once on {@link #abort}.
 *
 * The owner must be its endpoint's only sender. One thread; nothing allocates after construction.
 */
final class UnetSendBuffers {
    static final int NONE = -1;
    private static final byte FREE = 0;
    private static final byte CLAIMED = 1;
    private static final byte IN_FLIGHT = 2;
    private static final int INLINE = -1;

    private final String owner;
    private final Endpoint ep;
    /** The endpoint as a card's, for the gather send (several buffers in one descriptor); {@code null} otherwise. */
    private final UnetEndpoint card;
    private final PortCounters counters;
    private final int base;
    private final int stride;
    private final MemorySegment[] slices;
    private final byte[] state;
    private final int[] free;
    private int freeCount;
    private int claimed;
    /** Sends the endpoint takes before it refuses one ({@link Endpoint#sendQueueLength}). */
    private final int sendQueue;
    private final int[] fifo;
    private int fifoHead;
    private int fifoCount;
    /** The endpoint's firmware restarts already counted as card resets ({@link #countRestarts}). */
    private long restartsCounted;
    /** Per buffer: ranges attached ({@code gatherCount[h]}), each at {@code h * MAX_ATTACHED + i} of the three. */
    private final int[] gatherCount;
    private final int[] gatherOffset;
    private final int[] gatherLength;
    private final int[] gatherToken;
    private IntConsumer tokens = t -> { };
    /** Committed buffers that carry attached ranges: their tokens wait for a completion. */
    private int gatheredInFlight;

    /**
     * @param owner    names the owner in exception messages
     * @param counters where failed completions ({@code txErrors}) and the card's firmware restarts
     *                 ({@code cardResets}) are counted
     * @param base     segment offset of buffer 0; buffer i lies at {@code base + i * stride}, {@code size} bytes
     */
    UnetSendBuffers(String owner, Endpoint endpoint, PortCounters counters, int base, int stride, int count,
                    int size) {
        this.owner = owner;
        this.ep = endpoint;
        // Only a card's send descriptor names several buffers; a direct-access endpoint's TX entry is one address.
        this.card = endpoint instanceof UnetEndpoint u ? u : null;
        this.sendQueue = endpoint.sendQueueLength();
        this.fifo = new int[sendQueue];
        this.counters = counters;
        this.base = base;
        this.stride = stride;
        slices = new MemorySegment[count];
        gatherCount = new int[count];
        gatherOffset = new int[count * UnetGather.MAX_ATTACHED];
        gatherLength = new int[count * UnetGather.MAX_ATTACHED];
        gatherToken = new int[count * UnetGather.MAX_ATTACHED];
        state = new byte[count];
        free = new int[count];
        MemorySegment seg = endpoint.segment();
        for (int i = 0; i < count; i++) {
            slices[i] = seg.asSlice(base + (long) stride * i, size);
            free[freeCount++] = count - 1 - i;
        }
    }

    /** @return a claimed buffer with a send descriptor reserved for it, or {@link #NONE} (back-pressure) */
    int claim() {
        reclaim();
        if (!hasRoom()) {
            return NONE;
        }
        int h = free[--freeCount];
        state[h] = CLAIMED;
        claimed++;
        return h;
    }

    /** @return true when a {@link #claim} would succeed now (after collecting completions) */
    boolean writable() {
        reclaim();
        return hasRoom();
    }

    private boolean hasRoom() {
        return freeCount > 0 && fifoCount + claimed < sendQueue;
    }

    MemorySegment buffer(int h) {
        return slices[check(h)];
    }

    /**
     * Sends the first {@code length} bytes (1 .. the buffer size, checked by the caller) of claimed buffer {@code h}
     * on {@code channel}: inline up to 40 bytes, else from the buffer.
     */
    void commit(int h, int channel, int length) {
        check(h);
        boolean inline = length <= INLINE_MAX && gatherCount[h] == 0;
        boolean sent;
        if (gatherCount[h] > 0) {
            sent = sendGathered(h, channel, length);
        } else {
            sent = inline ? ep.sendInline(channel, slices[h], 0, length) : ep.send(channel, base + stride * h, length);
        }
        if (!sent) {
            // claim reserved a descriptor and the owner is the endpoint's only sender, and the endpoint takes a send
            // that meets a page its firmware wiped as one lost in the restart: cannot happen.
            throw new IllegalStateException(owner + ": send queue full after a successful claim (another sender on "
                    + ep + "?)");
        }
        claimed--;
        if (inline) {
            state[h] = FREE;
            free[freeCount++] = h;
        } else {
            state[h] = IN_FLIGHT;
        }
        fifo[(fifoHead + fifoCount) % sendQueue] = inline ? INLINE : h;
        fifoCount++;
    }

    /** One descriptor: the buffer's {@code length} bytes, then the attached ranges. @return false when none was free */
    private boolean sendGathered(int h, int channel, int length) {
        long d = card.claimSend();
        if (d < 0) {
            return false;
        }
        int n = gatherCount[h];
        int total = length;
        card.putSendBuffer(d, 0, base + stride * h, length);
        for (int i = 0, k = h * UnetGather.MAX_ATTACHED; i < n; i++, k++) {
            card.putSendBuffer(d, i + 1, gatherOffset[k], gatherLength[k]);
            total += gatherLength[k];
        }
        card.commitSend(d, total, channel, n + 1);
        gatheredInFlight++;
        return true;
    }

    /**
     * Appends a segment range to claimed buffer {@code h} (the caller checked the range and the frame's length).
     *
     * @throws IllegalStateException when {@code h} carries {@link UnetGather#MAX_ATTACHED} ranges already
     */
    void attach(int h, int offset, int length, int token) {
        check(h);
        int n = gatherCount[h];
        if (n == UnetGather.MAX_ATTACHED) {
            throw new IllegalStateException(owner + ": TX handle " + h + " carries " + n + " ranges already, the most a"
                    + " send descriptor takes after the head");
        }
        int k = h * UnetGather.MAX_ATTACHED + n;
        gatherOffset[k] = offset;
        gatherLength[k] = length;
        gatherToken[k] = token;
        gatherCount[h] = n + 1;
    }

    /** @return the bytes attached to buffer {@code h} */
    int attachedBytes(int h) {
        int sum = 0;
        for (int i = 0, k = h * UnetGather.MAX_ATTACHED; i < gatherCount[h]; i++, k++) {
            sum += gatherLength[k];
        }
        return sum;
    }

    /** Sets who is told each attached range's token when the card is done with it (setup-time). */
    void tokens(IntConsumer listener) {
        this.tokens = listener;
    }

    /** @return true when the endpoint sends one descriptor gathered from several buffers (a card's) */
    boolean canGather() {
        return card != null;
    }

    /** @return true while a committed send carries attached ranges whose tokens have not come back */
    boolean tokensInFlight() {
        return gatheredInFlight > 0;
    }

    /** Hands buffer {@code h}'s attached tokens back, oldest first, and forgets them. */
    private void returnTokens(int h) {
        int n = gatherCount[h];
        gatherCount[h] = 0;
        for (int i = 0, k = h * UnetGather.MAX_ATTACHED; i < n; i++, k++) {
            tokens.accept(gatherToken[k]);
        }
    }

    void abort(int h) {
        check(h);
        returnTokens(h);
        state[h] = FREE;
        free[freeCount++] = h;
        claimed--;
    }

    /** Collects the card's completions, oldest first, freeing their buffers; a failed one is a {@code txError}. */
    void reclaim() {
        countRestarts();
        while (fifoCount > 0) {
            int status = ep.pollSendCompletion();
            if (status == QueueCode.PEER_CORRUPT) {
                // Not back-pressure: no completion will ever come, the buffers in flight would stay taken and the
                // link stop silently. The endpoint's answer to an impossible index (as its send gives it).
                throw new IllegalStateException(owner + ": the card's consumer index of " + ep
                        + "'s send queue is impossible (more completed than were sent); the link cannot go on until"
                        + " the endpoint is re-created");
            }
            if (status < 0) {
                return;
            }
            int h = fifo[fifoHead];
            fifoHead = fifoHead + 1 == sendQueue ? 0 : fifoHead + 1;
            fifoCount--;
            if (h != INLINE) {
                if (gatherCount[h] > 0) {
                    gatheredInFlight--;
                }
                returnTokens(h); // before the buffer is free: a listener that sends cannot get it yet
                state[h] = FREE;
                free[freeCount++] = h;
            }
            if (status != TX_STATUS_SENT) {
                counters.recordTxError();
            }
        }
    }

    /**
     * Counts the firmware restarts the kernel found since the last look as card resets of the owner's port
     * ({@link PortCounters#recordCardReset}): the card lost what it held - sends in flight (completed as lost),
     * messages it was receiving - and a protocol that relies on it losing nothing reads the count as the evidence.
     * The kernel's watchdog tells the endpoint on this thread; the owner calls this on every claim and poll, so a
     * node that only receives counts the restart at its next poll (the endpoint signals once it is re-created).
     */
    void countRestarts() {
        long restarts = ep.restarts();
        while (restartsCounted < restarts) {
            restartsCounted++;
            counters.recordCardReset();
        }
    }

    /** @throws IllegalStateException when {@code h} is not a claimed buffer */
    int check(int h) {
        if (h < 0 || h >= state.length || state[h] != CLAIMED) {
            throw new IllegalStateException(owner + ": TX handle " + h + " is not claimed by the caller");
        }
        return h;
    }
}
