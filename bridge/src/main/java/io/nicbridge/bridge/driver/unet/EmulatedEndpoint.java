package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.bridge.queue.QueueCode;
import io.nicbridge.bridge.time.Timer;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A kernel-emulated U-Net endpoint (paper 3.5): the same {@link Endpoint} API as a regular one, its queues served by
 * the kernel ({@link EmulatedEndpointMux}) instead of the card. Made by {@link EmulatedEndpointMux#create}; channels
 * only by {@link EmulatedEndpointMux#openChannel} (the kernel's call, as for a regular endpoint).
 *
 * <pre>
 *   this endpoint (process memory, allocated by the kernel at create)
 *     segment         rqLen receive slots                         free ring (FQ_LEN)   completions (SQ_LEN)
 *     +----------+    +------------------------------------+     +--------------+      +--------------+
 *     | buffers  |    | length channel flags error nbufs   |     | buffer offs  |      | TX_STATUS_*  |
 *     +----------+    | 6 x {offset, length} | 40 B inline |     +--------------+      +--------------+
 *                     +------------------------------------+
 *   send:    a system call: the kernel checks the channel (its table of this endpoint's channels) and the bounds,
 *            copies the bytes into its staging buffer on the real endpoint and sends them; the completion is the
 *            kernel's verdict (SENT once copied: the process's buffer is free at once)
 *   receive: the kernel demultiplexes the real endpoint's messages by tag and channel and copies each into the
 *            next slot - inline when it has at most INLINE_MAX = 40 bytes, else into buffers popped from the free
 *            ring (all of its buffers or none: an entry that finds too few is an RX_ERR_NO_BUFFERS entry, one that
 *            needs more than MAX_BUFS an RX_ERR_TOO_MANY_BUFS entry, neither takes a buffer); a full receive queue
 *            drops the message, counted in {@link #receiveQueueDrops()}
 * </pre>
 * Descriptors are slot offsets ({@code slot x RECV_DESC_SIZE}), valid from the {@link #poll()} that returned them to
 * their {@link #release}, checked as a regular endpoint's are. The inline capacity is a regular endpoint's
 * ({@link #inlineMax()} = 40): what differs is the wire - with the kernel's 4-byte tag in front, a message of up to 36
 * bytes still travels as one cell, 37..40 bytes take two, and are delivered inline all the same.
 *
 * <p>Single-threaded: the endpoint and its multiplexer belong to the kernel's one thread (the world's, in virtual
 * time). Nothing on the send or receive path allocates.
 */
public final class EmulatedEndpoint implements Endpoint {
    private static final long AWAIT_SLICE_NANOS = 200_000L;
    private static final int FLAG_INLINE = 1;
    private static final int FLAG_ERROR = 2;

    private final EmulatedEndpointMux mux;
    private final int tag;
    private final MemorySegment segment;
    private final Timer awaitDeadline;
    /** Per emulated channel: the real channel it goes out on, or -1 when the kernel has not opened it. */
    private final int[] realChannels = new int[MAX_CHANNELS];
    /** Per emulated channel: the tag of the emulated endpoint at the other end. */
    private final int[] remoteTags = new int[MAX_CHANNELS];

    private final int[] completions = new int[SQ_LEN];
    private int completionHead;
    private int completionCount;
    private final long[] sendStatus = new long[TX_STATUS_DMA_ERROR + 1];

    /**
     * The free ring: what the process posted ({@code FQ_LEN} at most at a time, as the card's free queue) plus room
     * for every buffer the receive queue can hold, so a release always finds room to give its buffers back.
     */
    private final int[] free;
    private int freeHead;
    private int freeCount;
    private int receiveBufferSize;

    private final int rqLen;
    private final int[] lengths;
    private final int[] channels;
    private final int[] flags;
    private final int[] errors;
    private final int[] nbufs;
    private final int[] bufOffsets;
    private final int[] bufLengths;
    private final MemorySegment inlineBytes;
    /** Per receive slot: its {@code INLINE_MAX} bytes of {@link #inlineBytes}, the view {@link #inlineBytes(long)} gives. */
    private final MemorySegment[] inlineViews;
    /** Told when the kernel queues a message; see {@link #readinessListener}. */
    private Runnable readiness;
    private int rqHead;
    private int rqCount;
    private long held = -1;

    private long received;
    private long receivedBytes;
    private long receiveQueueDrops;
    private boolean live = true;

    EmulatedEndpoint(EmulatedEndpointMux mux, int tag, MemorySegment segment, int rqLen, MemorySegment inlineBytes,
                     Timer awaitDeadline) {
        this.mux = mux;
        this.tag = tag;
        this.segment = segment;
        this.rqLen = rqLen;
        this.inlineBytes = inlineBytes;
        this.awaitDeadline = awaitDeadline;
        java.util.Arrays.fill(realChannels, -1);
        free = new int[FQ_LEN + rqLen * MAX_BUFS];
        lengths = new int[rqLen];
        channels = new int[rqLen];
        flags = new int[rqLen];
        errors = new int[rqLen];
        nbufs = new int[rqLen];
        bufOffsets = new int[rqLen * MAX_BUFS];
        bufLengths = new int[rqLen * MAX_BUFS];
        inlineViews = new MemorySegment[rqLen];
        for (int i = 0; i < rqLen; i++) {
            inlineViews[i] = inlineBytes.asSlice((long) i * INLINE_MAX, INLINE_MAX);
        }
    }

    /** The kernel's 16-bit name of this endpoint: the destination tag of the messages it receives. */
    public int tag() {
        return tag;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public boolean isChannelOpen(int channel) {
        return channel >= 0 && channel < MAX_CHANNELS && realChannels[channel] >= 0;
    }

    @Override
    public int inlineMax() {
        return INLINE_MAX;
    }

    @Override
    public int receiveQueueLength() {
        return rqLen;
    }

    /** {@code SQ_LEN} completions, as a regular endpoint's send queue. */
    @Override
    public int sendQueueLength() {
        return SQ_LEN;
    }

    /** {@code FQ_LEN}, as a regular endpoint's free queue. */
    @Override
    public int freeQueueLength() {
        return FQ_LEN;
    }

    @Override
    public int freeQueueRoom() {
        return FQ_LEN - freeCount;
    }

    @Override
    public int receiveBufferSize() {
        return receiveBufferSize;
    }

    /** The message's own size: the kernel copies a message into its buffers from their first byte. */
    @Override
    public int receiveBufferSizeFor(int maxMessage) {
        if (maxMessage < 1 || maxMessage > MAX_PDU) {
            throw new IllegalArgumentException("emulated endpoint " + tag + ": maxMessage must be in [1, " + MAX_PDU
                    + "], was " + maxMessage);
        }
        return maxMessage;
    }

    @Override
    public int receiveOffset() {
        return 0;
    }

    /** The held inline message in the kernel's copy of it (this endpoint's inline area), read in place. */
    @Override
    public MemorySegment inlineBytes(long descriptor) {
        int s = slot(descriptor, "inlineBytes");
        if ((flags[s] & FLAG_INLINE) == 0) {
            throw new IllegalArgumentException("emulated endpoint " + tag + ": inlineBytes(descriptor " + descriptor
                    + "): the message is not inline");
        }
        return inlineViews[s];
    }

    /**
     * {@inheritDoc} Here the listener runs on the kernel's thread (the one that pumps the multiplexer), right after a
     * message was queued; the endpoint and its kernel are single-threaded, so a runner on the same thread polls next.
     */
    @Override
    public void readinessListener(Runnable listener) {
        checkLive("readinessListener");
        readiness = listener;
    }

    /** The real endpoint's firmware restarts: what the card lost then, this endpoint's traffic lost with it. */
    @Override
    public long restarts() {
        return mux.realEndpoint().restarts();
    }

    // ------------------------------------------------------------------ send

    /**
     * Asks the kernel to send {@code length} bytes at {@code offset} of the segment on {@code channel}; its verdict
     * (a channel not opened for this endpoint, bounds, length) comes back as the completion status, as the card's.
     *
     * @return false on back-pressure: {@code SQ_LEN} completions not collected yet, or the kernel's staging buffers
     *         on the real endpoint are all in flight
     * @throws IllegalArgumentException when {@code channel} is outside 0..63 or {@code length} outside 0..65535
     * @throws IllegalStateException    after the kernel destroyed the endpoint
     */
    @Override
    public boolean send(int channel, int offset, int length) {
        io.nicbridge.bridge.queue.UnetSendQueue.checkOffer(channel, length);
        checkLive("send");
        if (completionCount == SQ_LEN) {
            return false;
        }
        int status = offset < 0 || (long) offset + length > segment.byteSize() ? mux.refuse(TX_STATUS_SEG_BOUNDS)
                : mux.send(this, channel, segment, offset, length);
        return complete(status);
    }

    /**
     * As {@link #send}, the bytes taken from {@code src} (at most 40: the inline send of a regular endpoint).
     *
     * @throws IllegalArgumentException  when {@code channel} is outside 0..63 or {@code length} outside 0..40
     * @throws IndexOutOfBoundsException when {@code [srcOffset, srcOffset + length)} is not inside {@code src}
     */
    @Override
    public boolean sendInline(int channel, MemorySegment src, long srcOffset, int length) {
        if (length < 0 || length > INLINE_MAX) {
            throw new IllegalArgumentException("emulated endpoint " + tag + ": inline length must be 0.." + INLINE_MAX
                    + ", was " + length);
        }
        Objects.checkFromIndexSize(srcOffset, length, Objects.requireNonNull(src, "src").byteSize());
        io.nicbridge.bridge.queue.UnetSendQueue.checkOfferInline(channel, length);
        checkLive("sendInline");
        if (completionCount == SQ_LEN) {
            return false;
        }
        return complete(mux.send(this, channel, src, srcOffset, length));
    }

    private boolean complete(int status) {
        if (status < 0) {
            return false; // the kernel's staging buffers are all in flight
        }
        completions[(completionHead + completionCount) & (SQ_LEN - 1)] = status;
        completionCount++;
        return true;
    }

    @Override
    public int pollSendCompletion() {
        checkLive("pollSendCompletion");
        if (completionCount == 0) {
            return QueueCode.EMPTY;
        }
        int status = completions[completionHead];
        completionHead = (completionHead + 1) & (SQ_LEN - 1);
        completionCount--;
        sendStatus[status]++;
        return status;
    }

    @Override
    public int reapSends() {
        int n = 0;
        while (pollSendCompletion() >= 0) {
            n++;
        }
        return n;
    }

    @Override
    public int sendsInFlight() {
        return completionCount;
    }

    @Override
    public long sendCompletions(int status) {
        return status >= 0 && status < sendStatus.length ? sendStatus[status] : 0;
    }

    // ------------------------------------------------------------------ free queue

    /**
     * Posts {@code count} receive buffers of {@code size} bytes, back to back at 64-byte strides from {@code offset}
     * of the segment (a regular endpoint's rules: one size per endpoint, aligned, inside the segment).
     *
     * @return how many were posted (fewer when the free ring of {@code FQ_LEN} filled up)
     * @throws IllegalArgumentException when the buffers do not fit the segment, are misaligned or differ in size
     */
    @Override
    public int postReceiveBuffers(long offset, int count, int size) {
        if (size <= 0 || count < 0) {
            throw new IllegalArgumentException("emulated endpoint " + tag + ": buffer size must be positive and count"
                    + " >= 0, were " + size + " and " + count);
        }
        if (receiveBufferSize != 0 && receiveBufferSize != size) {
            throw new IllegalArgumentException("emulated endpoint " + tag + ": receive buffers are "
                    + receiveBufferSize + " bytes, cannot post " + size);
        }
        long stride = ((long) size + FQ_BUF_ALIGN - 1) & -FQ_BUF_ALIGN;
        if (offset < 0 || (offset & (FQ_BUF_ALIGN - 1)) != 0
                || count > 0 && offset + stride * (count - 1) + size > segment.byteSize()) {
            throw new IllegalArgumentException("emulated endpoint " + tag + ": " + count + " buffers of " + size
                    + " B from offset " + offset + " do not fit the " + segment.byteSize() + "-byte segment at "
                    + FQ_BUF_ALIGN + "-byte alignment");
        }
        checkLive("postReceiveBuffers");
        if (count == 0) {
            return 0;
        }
        receiveBufferSize = size;
        int posted = 0;
        while (posted < count && freeCount < FQ_LEN) {
            pushFree((int) (offset + stride * posted++));
        }
        return posted;
    }

    // ------------------------------------------------------------------ receive

    @Override
    public long poll() {
        checkLive("poll");
        if (held >= 0) {
            return held;
        }
        if (rqCount == 0) {
            return QueueCode.EMPTY;
        }
        held = (long) rqHead * RECV_DESC_SIZE;
        return held;
    }

    /**
     * Waits until a message is in the receive queue or the timeout passes, on the kernel's clock (virtual
     * nanoseconds in virtual time, where the wait steps the world instead of parking): the process sleeps in the
     * kernel, which looks at the real endpoint meanwhile.
     */
    @Override
    public long await(long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        long d = poll();
        if (d >= 0) {
            return d;
        }
        UnetKernelDriver kernel = mux.kernel();
        long deadline = kernel.nanoTime() + unit.toNanos(timeout);
        if (awaitDeadline != null) {
            awaitDeadline.armAt(deadline);
        }
        try {
            for (;;) {
                kernel.progress();
                mux.pump();
                d = poll();
                if (d >= 0) {
                    return d;
                }
                long remaining = deadline - kernel.nanoTime();
                if (remaining <= 0) {
                    return QueueCode.EMPTY;
                }
                if (awaitDeadline == null) {
                    LockSupport.parkNanos(this, Math.min(remaining, AWAIT_SLICE_NANOS));
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        } finally {
            if (awaitDeadline != null) {
                awaitDeadline.cancel();
            }
        }
    }

    @Override
    public int length(long descriptor) {
        return lengths[slot(descriptor, "length")];
    }

    @Override
    public int channel(long descriptor) {
        return channels[slot(descriptor, "channel")];
    }

    @Override
    public boolean isInline(long descriptor) {
        return (flags[slot(descriptor, "isInline")] & FLAG_INLINE) != 0;
    }

    @Override
    public boolean isError(long descriptor) {
        return (flags[slot(descriptor, "isError")] & FLAG_ERROR) != 0;
    }

    @Override
    public int errorCode(long descriptor) {
        return errors[slot(descriptor, "errorCode")];
    }

    @Override
    public int bufferCount(long descriptor) {
        return nbufs[slot(descriptor, "bufferCount")];
    }

    @Override
    public int bufferOffset(long descriptor, int i) {
        return bufOffsets[buffer(descriptor, i, "bufferOffset")];
    }

    @Override
    public int bufferLength(long descriptor, int i) {
        return bufLengths[buffer(descriptor, i, "bufferLength")];
    }

    @Override
    public int copyTo(long descriptor, MemorySegment dst, long dstOffset) {
        return copyRange(descriptor, 0, dst, dstOffset, lengths[slot(descriptor, "copyTo")]);
    }

    @Override
    public int copyRange(long descriptor, int from, MemorySegment dst, long dstOffset, int length) {
        int s = slot(descriptor, "copyRange");
        Objects.requireNonNull(dst, "dst");
        if (from < 0 || length < 0) {
            throw new IllegalArgumentException("emulated endpoint " + tag + ": range [" + from + ", +" + length
                    + ") is negative");
        }
        int stored = (flags[s] & FLAG_INLINE) != 0 ? lengths[s] : storedInBuffers(s);
        int want = Math.min(length, Math.max(0, stored - from));
        if (want == 0) {
            return 0;
        }
        Objects.checkFromIndexSize(dstOffset, want, dst.byteSize());
        if ((flags[s] & FLAG_INLINE) != 0) {
            MemorySegment.copy(inlineBytes, (long) s * INLINE_MAX + from, dst, dstOffset, want);
            return want;
        }
        long at = dstOffset;
        int skip = from;
        int left = want;
        for (int i = 0; i < nbufs[s] && left > 0; i++) {
            int len = bufLengths[s * MAX_BUFS + i];
            if (skip >= len) {
                skip -= len;
                continue;
            }
            int chunk = Math.min(len - skip, left);
            MemorySegment.copy(segment, bufOffsets[s * MAX_BUFS + i] + (long) skip, dst, at, chunk);
            at += chunk;
            left -= chunk;
            skip = 0;
        }
        return want - left;
    }

    private int storedInBuffers(int s) {
        int sum = 0;
        for (int i = 0; i < nbufs[s]; i++) {
            sum += bufLengths[s * MAX_BUFS + i];
        }
        return sum;
    }

    /** Hands the descriptor back; its buffers return to the free ring (whole, at the endpoint's buffer size). */
    @Override
    public void release(long descriptor) {
        int s = slot(descriptor, "release");
        received++;
        if ((flags[s] & FLAG_ERROR) == 0) {
            receivedBytes += lengths[s];
        }
        for (int i = 0; i < nbufs[s]; i++) {
            pushFree(bufOffsets[s * MAX_BUFS + i]); // the ring has room for every buffer the queue holds

        }
        rqHead = rqHead + 1 == rqLen ? 0 : rqHead + 1;
        rqCount--;
        held = -1;
    }

    @Override
    public long received() {
        return received;
    }

    /** Payload bytes of good messages released so far. */
    public long receivedBytes() {
        return receivedBytes;
    }

    /** Messages the kernel dropped because this endpoint's receive queue was full. */
    public long receiveQueueDrops() {
        return receiveQueueDrops;
    }

    /** Free-ring entries not taken by the kernel yet. */
    public int freeBuffersPosted() {
        return freeCount;
    }

    @Override
    public boolean isLive() {
        return live;
    }

    // ------------------------------------------------------------------ the kernel's side

    /** The real channel emulated {@code channel} goes out on, or -1 when it is not open. */
    int realChannel(int channel) {
        return channel >= 0 && channel < MAX_CHANNELS ? realChannels[channel] : -1;
    }

    int remoteTag(int channel) {
        return remoteTags[channel];
    }

    /** The open channel whose messages come in on {@code realChannel} from {@code sourceTag}, or -1. */
    int channelFrom(int realChannel, int sourceTag) {
        for (int c = 0; c < MAX_CHANNELS; c++) {
            if (realChannels[c] == realChannel && remoteTags[c] == sourceTag) {
                return c;
            }
        }
        return -1;
    }

    void opened(int channel, int realChannel, int remoteTag) {
        realChannels[channel] = realChannel;
        remoteTags[channel] = remoteTag;
    }

    void closed(int channel) {
        realChannels[channel] = -1;
    }

    void destroyed() {
        live = false;
        java.util.Arrays.fill(realChannels, -1);
    }

    /**
     * The kernel delivers {@code length} payload bytes of the held real descriptor {@code d} (from byte
     * {@code TAG_SIZE}) on emulated {@code channel}. @return false when the receive queue was full (counted)
     */
    boolean deliver(UnetEndpoint real, long d, int channel, int length) {
        if (rqCount == rqLen) {
            receiveQueueDrops++;
            return false;
        }
        int s = rqHead + rqCount;
        s = s >= rqLen ? s - rqLen : s;
        lengths[s] = length;
        channels[s] = channel;
        errors[s] = RX_ERR_NONE;
        nbufs[s] = 0;
        if (length <= INLINE_MAX) {
            flags[s] = FLAG_INLINE;
            real.copyRange(d, EmulatedEndpointMux.TAG_SIZE, inlineBytes, (long) s * INLINE_MAX, length);
        } else {
            int size = receiveBufferSize;
            int need = size == 0 ? Integer.MAX_VALUE : (length + size - 1) / size;
            if (need > MAX_BUFS) {
                flags[s] = FLAG_ERROR;
                errors[s] = RX_ERR_TOO_MANY_BUFS;
            } else if (need > freeCount) {
                flags[s] = FLAG_ERROR;
                errors[s] = RX_ERR_NO_BUFFERS;
            } else {
                flags[s] = 0;
                int from = EmulatedEndpointMux.TAG_SIZE;
                for (int i = 0; i < need; i++) {
                    int off = free[freeHead];
                    freeHead = freeHead + 1 == free.length ? 0 : freeHead + 1;
                    freeCount--;
                    int len = Math.min(size, length - (from - EmulatedEndpointMux.TAG_SIZE));
                    real.copyRange(d, from, segment, off, len);
                    bufOffsets[s * MAX_BUFS + i] = off;
                    bufLengths[s * MAX_BUFS + i] = len;
                    from += len;
                }
                nbufs[s] = need;
            }
        }
        rqCount++;
        Runnable r = readiness;
        if (r != null) {
            r.run(); // announces, consumes nothing: the message waits in the queue for poll
        }
        return true;
    }

    private void pushFree(int offset) {
        int at = freeHead + freeCount;
        free[at >= free.length ? at - free.length : at] = offset;
        freeCount++;
    }

    // ------------------------------------------------------------------ checks

    private int slot(long descriptor, String what) {
        checkLive(what);
        if (descriptor < 0 || descriptor != held) {
            if (descriptor < 0 || descriptor >= (long) rqLen * RECV_DESC_SIZE || descriptor % RECV_DESC_SIZE != 0) {
                throw new IllegalArgumentException("emulated endpoint " + tag + ": " + what + "(descriptor "
                        + descriptor + "): not a receive descriptor (slots are 0.." + (long) (rqLen - 1) * RECV_DESC_SIZE
                        + " step " + RECV_DESC_SIZE + ")");
            }
            throw new IllegalArgumentException("emulated endpoint " + tag + ": " + what + "(descriptor " + descriptor
                    + "): not the received descriptor - released already or not received yet ("
                    + (held < 0 ? "none is held: poll() first)" : "the held one is " + held + ")"));
        }
        return (int) (descriptor / RECV_DESC_SIZE);
    }

    private int buffer(long descriptor, int i, String what) {
        int s = slot(descriptor, what);
        if (i < 0 || i >= nbufs[s]) {
            throw new IndexOutOfBoundsException("emulated endpoint " + tag + ": buffer index " + i + " of descriptor "
                    + descriptor + " must be below its buffer count " + nbufs[s]);
        }
        return s * MAX_BUFS + i;
    }

    private void checkLive(String what) {
        if (!live) {
            throw new IllegalStateException("emulated endpoint " + tag + ": " + what
                    + "() after the kernel destroyed the endpoint");
        }
    }

    @Override
    public String toString() {
        return "EmulatedEndpoint[tag " + tag + ", segment " + segment.byteSize() + " B, RQ " + rqLen
                + (live ? "" : ", destroyed") + "]";
    }
}
