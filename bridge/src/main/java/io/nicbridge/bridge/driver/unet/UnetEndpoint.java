package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.queue.QueueCode;
import io.nicbridge.bridge.queue.UnetFreeQueue;
import io.nicbridge.bridge.queue.UnetReceiveQueue;
import io.nicbridge.bridge.queue.UnetSendQueue;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A process's U-Net endpoint (paper section 3.1): its communication segment, its send and free queues (in its own
 * endpoint page of board RAM) and its receive queue (host memory the card writes by DMA). The process reaches
 * exactly this: a 4 KiB slice of board RAM, its own segment and receive queue, and the doorbells of its own page;
 * nothing here can name another endpoint's memory.
 *
 * <pre>
 *  communication segment (process memory, DMA-mapped by the kernel)
 *  +----------------+----------------+-- ... --+----------------+
 *  | send buffers   | receive buffers (posted to the free queue) |   layout chosen by the process
 *  +----------------+----------------+-- ... --+----------------+
 *
 *  send:     compose in the segment -> send(channel, offset, length)        (base level: the one copy is the
 *            or sendInline(channel, src, offset, length <= 40 bytes)          application's, into the segment)
 *            -> completions: reapSends() / pollSendCompletion(): TX_STATUS_SENT or the card's error status
 *  receive:  poll() / await(timeout) / upcall  -> descriptor handle d
 *            isInline(d): the bytes are in the descriptor (single-cell message, no free buffer used)
 *            else bufferCount(d) x {bufferOffset, bufferLength} in the segment
 *            copyTo(d, dst, at) -> release(d): the descriptor goes back and its buffers are re-posted
 *            readinessListener(r): r is told of each delivery and consumes nothing (a runner schedules its poll)
 * </pre>
 *
 * <h2>Upcalls and critical sections</h2>
 * {@link #upcall(UnetUpcall, int)} installs a handler and asks the kernel for a signal mode. Each signal consumes
 * every pending message in one upcall. {@link #disableUpcalls()} / {@link #enableUpcalls()} bracket a critical
 * section with one CAS each on a counter - no system call, no allocation; a signal that arrives meanwhile is
 * recorded and its upcall runs when the outermost {@code enableUpcalls()} returns the counter to zero. The state word
 * is {@code >= 0}: upcalls enabled when 0, else the nesting depth of disables; {@code -1}: an upcall is running. A
 * signal sets {@code deferred} before it tries {@code 0 -> -1}; enabling stores the counter before it reads
 * {@code deferred}: both are volatile, so at least one side sees the other and no signal is lost.
 *
 * <h2>Threads</h2>
 * One thread sends and receives (the queues are single-producer / single-consumer, like the hardware's). Upcalls
 * run in the signalling thread (the card's interrupt, or {@link UnetKernelDriver#serviceEvents()}); while upcalls
 * are enabled that thread consumes the receive queue, so a process using upcalls receives only through them. A
 * {@link #readinessListener readiness listener} runs in the signalling thread too but consumes nothing: it only
 * tells the receiving thread to poll (the two exclude each other). Nothing on the send or receive path allocates.
 *
 * <h2>Misuse</h2>
 * Every handle is checked before any memory or counter is touched; a rejected call changes nothing.
 * <ul>
 *   <li>A receive descriptor is valid from the {@link #poll()} (or {@link #await}) that returned it until its
 *       {@link #release}: any other value - -1 from an empty poll, an offset outside the receive queue, a slot that
 *       was not received yet or was released already (a double release) - throws
 *       {@link IllegalArgumentException} naming it.</li>
 *   <li>Out-of-range channels, lengths, buffer indices and ranges throw {@link IllegalArgumentException} (or
 *       {@link IndexOutOfBoundsException} for an index or a destination that is too small).</li>
 *   <li>Every call after the kernel destroyed the endpoint ({@link UnetKernelDriver#destroyEndpoint},
 *       {@link UnetKernelDriver#close}) throws {@link IllegalStateException}. Destruction may come from another
 *       thread: it marks the endpoint dead and then waits until no call that writes the endpoint page (send, post,
 *       release) is in progress, so no late store of this endpoint can reach the page after the kernel handed it
 *       back - a later endpoint with the same number starts clean. A read that races the destruction ends in
 *       {@link IllegalStateException} as well (the receive queue memory is closed, never freed under a reader).</li>
 * </ul>
 * Errors the card detects (bad channel, segment bounds, ...) are send statuses and receive error codes, never
 * exceptions.
 */
public final class UnetEndpoint implements Endpoint {
    private static final VarHandle UPCALL_STATE;
    private static final VarHandle DEFERRED;
    private static final VarHandle SEND_BUSY;
    private static final VarHandle RECEIVE_BUSY;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            UPCALL_STATE = lookup.findVarHandle(UnetEndpoint.class, "upcallState", int.class);
            DEFERRED = lookup.findVarHandle(UnetEndpoint.class, "deferred", boolean.class);
            SEND_BUSY = lookup.findVarHandle(UnetEndpoint.class, "sendBusy", boolean.class);
            RECEIVE_BUSY = lookup.findVarHandle(UnetEndpoint.class, "receiveBusy", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final int UPCALL_RUNNING = -1;
    private static final java.lang.foreign.ValueLayout.OfInt WORD =
            java.lang.foreign.ValueLayout.JAVA_INT.withOrder(BYTE_ORDER);
    /** How long a blocked {@link #await} parks before it looks again without a signal (a bounded slice). */
    private static final long AWAIT_SLICE_NANOS = 200_000L;
    /**
     * The completion status of a send the card's firmware lost in a restart (host-side; outside the card's
     * {@code TX_STATUS_*} codes, so it counts as a failed send, under {@link #sendCompletions} of 7).
     */
    public static final int SEND_LOST_IN_RESTART = 0x100;

    private final UnetKernelDriver kernel;
    private final int id;
    /** In virtual time, an event at the pending {@link #await}'s deadline; {@code null} in real time. */
    private final io.nicbridge.bridge.time.Timer awaitDeadline;
    private final MemorySegment page;
    private final CommSegment comm;
    private final MemorySegment segment;
    private final long segmentBus;
    private final CommSegment rqMemory;
    private final long rqBus;
    private final int rqLen;
    private final EndpointDoorbell bell;
    private final UnetSendQueue sendQueue;
    private final UnetFreeQueue freeQueue;
    private final UnetReceiveQueue receiveQueue;
    /** Per receive-queue slot: its descriptor's inline area, the view {@link #inlineBytes} hands out. */
    private final MemorySegment[] inlineViews;
    private final long[] sendStatus = new long[TX_STATUS_DMA_ERROR + 2];
    private final long[] receiveErrors = new long[RX_ERR_DMA + 2];
    private long openChannels;
    private int upcallMode = UPCALL_NONE;
    private int receiveBufferSize;
    private long received;
    private long receivedBytes;
    private long freeQueueFull;
    private long unrecyclableBuffers;
    private long malformedDescriptors;
    /**
     * The held descriptor (from {@link #poll}) that the card handed over as a good message although its words do not
     * describe one (see {@link #describesGoodMessage}); -1 when none. Such a message is shown to the process as an
     * {@code RX_ERR_LENGTH} error, so nothing malformed goes up as good. Receive thread.
     */
    private long malformedHeld = -1;
    /**
     * Receive buffers the card holds (posted to the free queue and not yet seen in a received descriptor), one bit per
     * 64-byte unit of the segment: what must be posted again after a firmware restart. Owner's receive thread.
     */
    private final long[] cardHolds;
    /** Between {@link #cardRestarted()} and {@link #resume()}: the firmware forgot this endpoint. */
    private boolean restarting;
    /** False from {@link #cardRestarted()} until {@link #recreated()}: the free queue in board RAM is not the card's. */
    private boolean freeQueueLive = true;
    /** Sends forgotten by a restart (or made during it), each still to be reported by {@link #pollSendCompletion}. */
    private int lostCompletions;
    private long sendsLostInRestart;
    private long messagesLostInRestart;
    private long restarts;
    /**
     * Receive buffers {@link #release} found no room for in the free queue, kept here (offset, length) and re-posted
     * first at the next release: a buffer is never dropped from circulation. Grows (rarely, by doubling) only when
     * more buffers circulate than the free queue holds; starts at {@code FQ_LEN}.
     */
    private int[] pendingOffsets = new int[FQ_LEN];
    private int[] pendingLengths = new int[FQ_LEN];
    private int pendingCount;
    /** Cleared (volatile) by the kernel when it destroys the endpoint; every call checks it first. */
    private volatile boolean live = true;
    /**
     * Set (volatile, so with a full fence) while a call on the send side resp. the receive side may write the
     * endpoint page; {@link #detach()} clears {@code live} and then waits for both to drop. Dekker's pattern: the
     * caller stores its flag and then reads {@code live}, the destroyer stores {@code live} and then reads the
     * flags; one of the two sees the other. Each flag has one writing thread (the contract's one thread per queue
     * side), nested entries from an upcall on the same thread keep it set.
     */
    private volatile boolean sendBusy;
    private volatile boolean receiveBusy;
    private Thread sendThread;
    private Thread receiveThread;

    private volatile UnetUpcall upcall;
    /** Told of every signal without consuming anything; see {@link #readinessListener}. */
    private volatile Runnable readiness;
    private volatile int upcallState;
    private volatile boolean deferred;
    private volatile Thread waiter;
    private Thread dispatching;
    private int nestedInUpcall;
    private long upcalls;
    private long upcallMessages;
    private long deferredSignals;
    private long signals;

    UnetEndpoint(UnetKernelDriver kernel, int id, MemorySegment page, CommSegment comm, long segmentBus,
                 CommSegment rqMemory, long rqBus, int rqLen, EndpointDoorbell bell) {
        this.kernel = kernel;
        this.id = id;
        this.awaitDeadline = kernel.newDeadlineTimer("ep" + id + ".await-deadline");
        this.page = page;
        this.comm = comm;
        this.segment = comm.segment();
        this.segmentBus = segmentBus;
        this.rqMemory = rqMemory;
        this.rqBus = rqBus;
        this.rqLen = rqLen;
        this.bell = bell;
        this.sendQueue = new UnetSendQueue(page);
        this.freeQueue = new UnetFreeQueue(page);
        this.receiveQueue = new UnetReceiveQueue(rqMemory.segment(), 0, rqLen, page);
        this.inlineViews = new MemorySegment[rqLen];
        for (int i = 0; i < rqLen; i++) {
            inlineViews[i] = rqMemory.segment().asSlice((long) i * RECV_DESC_SIZE + RECV_DESC_INLINE_OFS, INLINE_MAX);
        }
        this.cardHolds = new long[(int) ((segment.byteSize() / FQ_BUF_ALIGN + 63) >>> 6)];
    }

    // ------------------------------------------------------------------ identity

    /** The endpoint number (its board RAM page is {@code EP_PAGE_BASE + id * EP_PAGE_SIZE}). */
    public int id() {
        return id;
    }

    /** The communication segment: compose messages here, receive buffers live here. */
    public MemorySegment segment() {
        return segment;
    }

    public CommSegment communicationSegment() {
        return comm;
    }

    /**
     * This endpoint's 4 KiB board RAM page (EPCB, send queue, free queue): the only board RAM it can reach. A raw
     * view for tools that stand in for the card or inspect it; it names the page only while the endpoint is live
     * (after destruction the kernel may hand the same page to a new endpoint).
     */
    public MemorySegment page() {
        return page;
    }

    @Override
    public int receiveQueueLength() {
        return rqLen;
    }

    /** {@code SQ_LEN}: the send queue's descriptors in board RAM. */
    @Override
    public int sendQueueLength() {
        return SQ_LEN;
    }

    /** {@code FQ_LEN}: the free queue's entries in board RAM. */
    @Override
    public int freeQueueLength() {
        return FQ_LEN;
    }

    /** {@code FQ_LEN} less the entries the card has not consumed yet. */
    @Override
    public int freeQueueRoom() {
        return FQ_LEN - freeBuffersPosted();
    }

    /** The message's own size: the card's DMA fills a receive buffer from its first byte. */
    @Override
    public int receiveBufferSizeFor(int maxMessage) {
        if (maxMessage < 1 || maxMessage > MAX_PDU) {
            throw new IllegalArgumentException("endpoint " + id + ": maxMessage must be in [1, " + MAX_PDU + "], was "
                    + maxMessage);
        }
        return maxMessage;
    }

    /** 0: the card writes a message at the start of its buffer. */
    @Override
    public int receiveOffset() {
        return 0;
    }

    /** The held inline message in its receive descriptor (host memory the card writes), read in place. */
    @Override
    public MemorySegment inlineBytes(long descriptor) {
        checkHeld(descriptor, "inlineBytes");
        if (!isInline(descriptor)) {
            throw new IllegalArgumentException("endpoint " + id + ": inlineBytes(descriptor " + descriptor
                    + "): the message is not inline");
        }
        return inlineViews[(int) (descriptor / RECV_DESC_SIZE)];
    }

    /**
     * The receive queue's host memory ({@code receiveQueueLength() x 64} bytes from offset 0), which the card
     * writes by DMA. For tools that stand in for the card (benchmarks isolating the API's own cost) and for
     * inspection; the endpoint reads it through its queue view.
     */
    public MemorySegment receiveQueueSegment() {
        return rqMemory.segment();
    }

    /** {@code INLINE_MAX}: 40 bytes travel in the descriptor, as one cell (see {@link Endpoint#inlineMax}). */
    @Override
    public int inlineMax() {
        return INLINE_MAX;
    }

    /** The kernel driver that created this endpoint (its clock and progress hook serve emulated endpoints too). */
    UnetKernelDriver kernel() {
        return kernel;
    }

    /** True when {@code channel} was opened by the kernel for this endpoint and not closed since. */
    @Override
    public boolean isChannelOpen(int channel) {
        return channel >= 0 && channel < MAX_CHANNELS && (openChannels & (1L << channel)) != 0;
    }

    /**
     * {@code ep_status} from the EPCB: {@code EP_ACTIVE}, {@code EP_SEGFAULT}, {@code EP_RQ_OVERRUN}, {@code EP_NO_FREE_BUF}.
     *
     * @throws IllegalStateException after the endpoint was destroyed
     */
    public int status() {
        return readEpcb(EPCB_EP_STATUS_OFS, "status");
    }

    /**
     * The firmware's per-endpoint drop counter at {@code EPCB_DROP_RQ_OVERRUN_OFS} etc.
     *
     * @throws IllegalArgumentException when {@code offset} is not a 4-aligned offset inside the EPCB
     * @throws IllegalStateException    after the endpoint was destroyed
     */
    public int epcbWord(int offset) {
        if (offset < 0 || offset >= EPCB_SIZE || (offset & 3) != 0) {
            throw new IllegalArgumentException("EPCB word offset must be 0..60 and 4-aligned, was " + offset);
        }
        return readEpcb(offset, "epcbWord");
    }

    /**
     * Reads an EPCB word, then checks liveness: the page is board RAM the kernel hands to the next endpoint after a
     * destroy, so a check before the read could be overtaken by a racing destroy and re-create and return another
     * endpoint's word. The fence keeps the page read before the second (volatile) read of {@code live}, so a value
     * returned was read while the endpoint was still live.
     */
    private int readEpcb(int offset, String what) {
        checkLive(what);
        int value = page.get(WORD, offset);
        VarHandle.loadLoadFence();
        checkLive(what);
        return value;
    }

    // ------------------------------------------------------------------ send

    /**
     * Sends {@code length} bytes at {@code offset} of the segment on {@code channel} (one buffer). The card checks
     * the channel and the bounds; its verdict comes back as the completion status.
     *
     * @return false when the send queue is full (back-pressure: reap completions and retry)
     * @throws IllegalArgumentException when {@code channel} is outside 0..63 or {@code length} outside 0..65535
     * @throws IllegalStateException    after the endpoint was destroyed, or when the card's {@code sq_cons} is
     *                                  impossible ({@link QueueCode#PEER_CORRUPT}: waiting would not help) and the
     *                                  kernel finds no firmware restart behind it (one it finds makes this send one
     *                                  lost in the restart, see {@link #cardRestarted()})
     */
    public boolean send(int channel, int offset, int length) {
        UnetSendQueue.checkOffer(channel, length); // before the reap below: a rejected call changes no counter
        boolean outer = enterSend("send");
        try {
            if (restarting) {
                return lostInRestart();
            }
            if (sendQueue.inFlight() == SQ_LEN) {
                reapSends();
            }
            long d = sendQueue.offer(channel, offset, length);
            if (d == QueueCode.PEER_CORRUPT && restartUnnoticed()) {
                return lostInRestart();
            }
            if (!accepted(d, "send queue")) {
                return false;
            }
            bell.send(sendQueue.producerIndex());
            return true;
        } finally {
            exitSend(outer);
        }
    }

    /**
     * Sends up to 40 bytes carried in the descriptor itself (the small-message optimisation, paper 3.4): no segment
     * buffer and no DMA on the card.
     *
     * @return false when the send queue is full
     * @throws IllegalArgumentException  when {@code channel} is outside 0..63 or {@code length} outside 0..40
     * @throws IndexOutOfBoundsException when {@code [srcOffset, srcOffset + length)} is not inside {@code src}
     * @throws IllegalStateException     after the endpoint was destroyed, or when the card's {@code sq_cons} is
     *                                   impossible ({@link QueueCode#PEER_CORRUPT}: waiting would not help) and the
     *                                   kernel finds no firmware restart behind it (as {@link #send})
     */
    public boolean sendInline(int channel, MemorySegment src, long srcOffset, int length) {
        if (length < 0 || length > INLINE_MAX) {
            throw new IllegalArgumentException("endpoint " + id + ": inline length must be 0.." + INLINE_MAX + ", was "
                    + length);
        }
        Objects.checkFromIndexSize(srcOffset, length, Objects.requireNonNull(src, "src").byteSize());
        UnetSendQueue.checkOfferInline(channel, length); // before the reap below: a rejected call changes no counter
        boolean outer = enterSend("sendInline");
        try {
            if (restarting) {
                return lostInRestart();
            }
            if (sendQueue.inFlight() == SQ_LEN) {
                reapSends();
            }
            long d = sendQueue.offerInline(channel, src, srcOffset, length);
            if (d == QueueCode.PEER_CORRUPT && restartUnnoticed()) {
                return lostInRestart();
            }
            if (!accepted(d, "send queue")) {
                return false;
            }
            bell.send(sendQueue.producerIndex());
            return true;
        } finally {
            exitSend(outer);
        }
    }

    /**
     * Gather send, step 1: the next send descriptor, {@link QueueCode#FULL} when the queue is full (or the card's
     * firmware restarted: back-pressure until the kernel re-created the endpoint), or {@link QueueCode#PEER_CORRUPT}
     * when the card's {@code sq_cons} is impossible. Claiming again before the commit returns the same descriptor.
     *
     * @throws IllegalStateException after the endpoint was destroyed
     */
    public long claimSend() {
        boolean outer = enterSend("claimSend");
        try {
            if (restarting) {
                return QueueCode.FULL; // the card is being re-initialised: back-pressure until resume()
            }
            if (sendQueue.inFlight() == SQ_LEN) {
                reapSends();
            }
            long d = sendQueue.claim();
            return d == QueueCode.PEER_CORRUPT && restartUnnoticed() ? QueueCode.FULL : d;
        } finally {
            exitSend(outer);
        }
    }

    /**
     * Gather send, step 2: buffer {@code i} (0..5) of the claimed descriptor.
     *
     * @throws IllegalArgumentException  when {@code descriptor} is not the claimed one
     * @throws IllegalStateException     when nothing is claimed, or after the endpoint was destroyed
     * @throws IndexOutOfBoundsException when {@code i} is outside 0..5
     */
    public void putSendBuffer(long descriptor, int i, int offset, int length) {
        boolean outer = enterSend("putSendBuffer");
        try {
            sendQueue.putBuffer(descriptor, i, offset, length);
        } finally {
            exitSend(outer);
        }
    }

    /**
     * Gather send, step 3: hands the descriptor (total {@code length}, {@code nbufs} buffers) to the card.
     *
     * @throws IllegalArgumentException when {@code descriptor} is not the claimed one, or length, channel or nbufs
     *                                  is out of range (the descriptor stays claimed)
     * @throws IllegalStateException    when nothing is claimed, or after the endpoint was destroyed
     */
    public void commitSend(long descriptor, int length, int channel, int nbufs) {
        boolean outer = enterSend("commitSend");
        try {
            sendQueue.commit(descriptor, length, channel, nbufs, false);
            bell.send(sendQueue.producerIndex());
        } finally {
            exitSend(outer);
        }
    }

    /**
     * Collects the oldest completed send.
     *
     * @return {@code TX_STATUS_SENT}, or the card's error ({@code TX_STATUS_BAD_CHANNEL}, {@code TX_STATUS_SEG_BOUNDS},
     *         {@code TX_STATUS_TOO_LONG}, {@code TX_STATUS_BAD_DESC}, {@code TX_STATUS_DMA_ERROR}); {@link QueueCode#EMPTY} if none completed, {@link QueueCode#PEER_CORRUPT} if the card's
     *         {@code sq_cons} is impossible
     * @throws IllegalStateException after the endpoint was destroyed
     */
    public int pollSendCompletion() {
        checkLive("pollSendCompletion");
        if (lostCompletions > 0) { // they are older than anything sent after the restart
            lostCompletions--;
            sendStatus[sendStatus.length - 1]++;
            return SEND_LOST_IN_RESTART;
        }
        if (restarting) {
            return QueueCode.EMPTY;
        }
        int status = sendQueue.pollCompletion();
        if (status == QueueCode.PEER_CORRUPT && restartUnnoticed()) {
            // A firmware restart behind the impossible sq_cons: the kernel found it, the sends in flight are lost in
            // it and are reported as such (as a send that meets the wiped page does).
            return pollSendCompletion();
        }
        if (status >= 0) {
            sendStatus[status >= 0 && status <= TX_STATUS_DMA_ERROR ? status : sendStatus.length - 1]++;
        }
        return status;
    }

    /**
     * Collects every completed send; returns how many.
     *
     * @throws IllegalStateException after the endpoint was destroyed
     */
    public int reapSends() {
        int n = 0;
        while (pollSendCompletion() >= 0) {
            n++;
        }
        return n;
    }

    /** Sends committed and not yet collected. */
    public int sendsInFlight() {
        return lostCompletions + (restarting ? 0 : sendQueue.inFlight());
    }

    /** Completions collected with {@code status} (a {@code TX_STATUS_*} value; other values count under 7). */
    public long sendCompletions(int status) {
        return sendStatus[status >= 0 && status <= TX_STATUS_DMA_ERROR ? status : sendStatus.length - 1];
    }

    // ------------------------------------------------------------------ free queue

    /**
     * Posts {@code count} receive buffers of {@code size} bytes each, back to back at 64-byte strides from
     * {@code offset} of the segment. Every receive buffer of an endpoint has the same size, so that a released
     * descriptor's buffers can be re-posted whole.
     *
     * @return how many were posted (fewer when the free queue filled up: back-pressure)
     * @throws IllegalArgumentException when the buffers do not lie inside the segment, are misaligned, or differ in
     *                                  size from the endpoint's receive buffers (nothing is posted)
     * @throws IllegalStateException    after the endpoint was destroyed, or when the card's {@code fq_cons} is
     *                                  impossible ({@link QueueCode#PEER_CORRUPT}: waiting would not help)
     */
    public int postReceiveBuffers(long offset, int count, int size) {
        if (size <= 0 || count < 0) {
            throw new IllegalArgumentException("endpoint " + id + ": buffer size must be positive and count >= 0, were "
                    + size + " and " + count);
        }
        if (receiveBufferSize != 0 && receiveBufferSize != size) {
            throw new IllegalArgumentException("endpoint " + id + ": receive buffers are " + receiveBufferSize
                    + " bytes, cannot post " + size);
        }
        long stride = ((long) size + FQ_BUF_ALIGN - 1) & -FQ_BUF_ALIGN;
        if (offset < 0 || (offset & (FQ_BUF_ALIGN - 1)) != 0 || !fits(offset, stride, count, size)) {
            throw new IllegalArgumentException("endpoint " + id + ": " + count + " buffers of " + size + " B from offset "
                    + offset + " do not fit the " + segment.byteSize() + "-byte segment at " + FQ_BUF_ALIGN + "-byte alignment");
        }
        boolean outer = enterReceive("postReceiveBuffers");
        try {
            if (count == 0) {
                return 0; // posts nothing, so it fixes no buffer size either
            }
            receiveBufferSize = size;
            int posted = 0;
            long result = 0;
            for (; posted < count; posted++) {
                if (!freeQueueLive) { // the card forgot the free queue: kept, posted once it is re-created
                    repost((int) (offset + stride * posted), size);
                    continue;
                }
                result = offerFree((int) (offset + stride * posted), size);
                if (result < 0) {
                    break;
                }
            }
            if (freeQueueLive) {
                bell.free(freeQueue.producerIndex()); // what was posted before a refusal still goes to the card
            }
            accepted(result, "free queue");
            return posted;
        } finally {
            exitReceive(outer);
        }
    }

    /**
     * Reads a queue's offer result: true for a written entry, false for back-pressure ({@link QueueCode#FULL}; a
     * full free queue is counted). A corrupt index of the card's is no back-pressure: it throws.
     *
     * @throws IllegalStateException on {@link QueueCode#PEER_CORRUPT}
     */
    private boolean accepted(long result, String queue) {
        if (result >= 0) {
            return true;
        }
        if (result == QueueCode.PEER_CORRUPT) {
            throw new IllegalStateException("endpoint " + id + ": the card's consumer index of the " + queue
                    + " is impossible (more entries consumed than were posted); the queue cannot be used until the"
                    + " endpoint is re-created");
        }
        if (queue.equals("free queue")) {
            freeQueueFull++;
        }
        return false;
    }

    /**
     * Whether {@code count} buffers of {@code size} bytes at {@code stride} from {@code offset} (non-negative, as is
     * everything here) end inside the segment, without overflowing on the way: {@code offset + stride * (count - 1)
     * + size} is formed only after each step is known to stay below the segment size.
     */
    private boolean fits(long offset, long stride, int count, int size) {
        long limit = segment.byteSize();
        if (count == 0) {
            return offset <= limit;
        }
        if (offset > limit || count - 1 > (limit - offset) / stride) {
            return false;
        }
        return offset + stride * (count - 1) <= limit - size;
    }

    /**
     * Posts one raw free-queue entry without the host-side bounds check (the card must reject a bad one on its own:
     * this is how tests exercise the card's protection). Returns false when the free queue is full.
     *
     * @throws IllegalArgumentException when {@code offset} is not 64-byte aligned or {@code length} is 0 (the
     *                                  contract's entry format cannot carry them)
     * @throws IllegalStateException    after the endpoint was destroyed, or when the card's {@code fq_cons} is
     *                                  impossible ({@link QueueCode#PEER_CORRUPT}: waiting would not help)
     */
    public boolean offerFreeBufferUnchecked(int offset, int length) {
        boolean outer = enterReceive("offerFreeBufferUnchecked");
        try {
            if (!freeQueueLive) {
                return false; // the card is being re-initialised
            }
            if (!accepted(offerFree(offset, length), "free queue")) {
                return false;
            }
            bell.free(freeQueue.producerIndex());
            return true;
        } finally {
            exitReceive(outer);
        }
    }

    /** The size of this endpoint's receive buffers (0 before the first post). */
    @Override
    public int receiveBufferSize() {
        return receiveBufferSize;
    }

    /** Free-queue entries the card has not consumed yet. */
    public int freeBuffersPosted() {
        return FQ_LEN - freeQueue.remainingCapacity();
    }

    // ------------------------------------------------------------------ receive

    /**
     * Polls the receive queue.
     *
     * @return the next received descriptor (polling again before {@link #release} returns the same one), or
     *         {@link QueueCode#EMPTY}
     * @throws IllegalStateException after the endpoint was destroyed
     */
    public long poll() {
        checkLive("poll");
        boolean fresh = receiveQueue.held() < 0;
        long d = receiveQueue.poll();
        if (d >= 0 && fresh) {
            if (!receiveQueue.isError(d) && !describesGoodMessage(d)) {
                malformedDescriptors++;
                malformedHeld = d;
            }
            if (!receiveQueue.isInline(d)) {
                int n = Math.min(receiveQueue.nbufs(d), MAX_BUFS);
                for (int i = 0; i < n; i++) {
                    markCardHolds(receiveQueue.bufferOffset(d, i), false); // the card handed it back
                }
            }
        }
        return d;
    }

    /**
     * Whether the card's words describe a good message it may hand up: inline, at most {@code INLINE_MAX} bytes; or
     * in 1 to {@code MAX_BUFS} buffers that lie inside the segment and hold exactly the message's length. The real
     * card never writes anything else without the error flag; a faulty or hostile one may, and the process must not
     * receive that as a good message (it would loop over more buffers than exist, or copy out fewer bytes than the
     * length it was told).
     */
    private boolean describesGoodMessage(long d) {
        int length = receiveQueue.length(d);
        if (receiveQueue.isInline(d)) {
            return length <= INLINE_MAX;
        }
        int n = receiveQueue.nbufs(d);
        if (n < 1 || n > MAX_BUFS) {
            return false;
        }
        long sum = 0;
        for (int i = 0; i < n; i++) {
            long off = Integer.toUnsignedLong(receiveQueue.bufferOffset(d, i));
            long len = Integer.toUnsignedLong(receiveQueue.bufferLength(d, i));
            if (off + len > segment.byteSize()) {
                return false;
            }
            sum += len;
        }
        return sum == length;
    }

    /**
     * Blocks (parking, the "select" of the paper) until a message is in the receive queue or the timeout passes.
     * Asks the kernel for non-empty signals the first time; runs the kernel's progress hook between looks so an
     * inline or virtual card can make progress. The timeout is on the kernel's clock ({@link UnetKernelDriver#timeOn}):
     * in virtual time it is virtual nanoseconds, and the wait steps the engine instead of parking.
     *
     * @return the next received descriptor, or {@link QueueCode#EMPTY} when the timeout passed first
     * @throws IllegalStateException after the endpoint was destroyed
     */
    public long await(long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        long d = poll();
        if (d >= 0) {
            return d;
        }
        long deadline = kernel.nanoTime() + unit.toNanos(timeout); // from the call: the set-up command counts
        if (upcallMode == UPCALL_NONE) {
            kernel.setUpcallMode(this, UPCALL_NONEMPTY);
        }
        boolean virtual = awaitDeadline != null;
        if (virtual) {
            awaitDeadline.armAt(deadline);
        }
        Thread self = Thread.currentThread();
        waiter = self;
        try {
            for (;;) {
                kernel.progress();
                d = poll();
                if (d >= 0) {
                    return d;
                }
                long remaining = deadline - kernel.nanoTime();
                if (remaining <= 0) {
                    return QueueCode.EMPTY;
                }
                if (!virtual) {
                    LockSupport.parkNanos(this, Math.min(remaining, AWAIT_SLICE_NANOS));
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        } finally {
            waiter = null;
            if (virtual) {
                awaitDeadline.cancel();
            }
        }
    }

    /**
     * The accessors below read the descriptor {@link #poll()} returned: each throws {@link IllegalArgumentException}
     * naming {@code descriptor} when it is not the one held (see the class comment), and
     * {@link IllegalStateException} after the endpoint was destroyed.
     *
     * @return the message length in bytes
     */
    public int length(long descriptor) {
        checkHeld(descriptor, "length");
        return receiveQueue.length(descriptor);
    }

    /** The channel the message arrived on. Checks {@code descriptor} like {@link #length}. */
    public int channel(long descriptor) {
        checkHeld(descriptor, "channel");
        return receiveQueue.channel(descriptor);
    }

    /**
     * True for a single-cell message (at most 40 bytes) carried in the descriptor itself. Checks {@code descriptor}
     * like {@link #length}.
     */
    public boolean isInline(long descriptor) {
        checkHeld(descriptor, "isInline");
        return receiveQueue.isInline(descriptor);
    }

    /**
     * True when the card delivered the message with an error code, or handed over as good a descriptor that does not
     * describe a message (counted in {@link #malformedDescriptors()}, reported as {@code RX_ERR_LENGTH}). Checks
     * {@code descriptor} like {@link #length}.
     */
    public boolean isError(long descriptor) {
        checkHeld(descriptor, "isError");
        return receiveQueue.isError(descriptor) || descriptor == malformedHeld;
    }

    /**
     * {@code RX_ERR_CRC}, {@code RX_ERR_LENGTH}, {@code RX_ERR_NO_BUFFERS}, {@code RX_ERR_TOO_MANY_BUFS},
     * {@code RX_ERR_DMA}, or 0. Checks {@code descriptor} like {@link #length}.
     */
    public int errorCode(long descriptor) {
        checkHeld(descriptor, "errorCode");
        if (descriptor == malformedHeld) {
            return RX_ERR_LENGTH;
        }
        // w1's error field means something only with RX_ERROR set: a good message has none, whatever the card left
        return receiveQueue.isError(descriptor) ? receiveQueue.errorCode(descriptor) : 0;
    }

    /**
     * Receive buffers the message occupies (0 for an inline message; at most {@code MAX_BUFS}, the most a descriptor
     * names, whatever count the card wrote). Checks {@code descriptor} like {@link #length}.
     */
    public int bufferCount(long descriptor) {
        checkHeld(descriptor, "bufferCount");
        return receiveQueue.isInline(descriptor) ? 0 : Math.min(receiveQueue.nbufs(descriptor), MAX_BUFS);
    }

    /**
     * Segment offset of buffer {@code i}. Checks {@code descriptor} like {@link #length}.
     *
     * @throws IndexOutOfBoundsException when {@code i} is not below {@link #bufferCount} (at most 6)
     */
    public int bufferOffset(long descriptor, int i) {
        checkHeld(descriptor, "bufferOffset");
        checkBuffer(descriptor, i);
        return receiveQueue.bufferOffset(descriptor, i);
    }

    /**
     * Bytes of the message in buffer {@code i}. Checks {@code descriptor} like {@link #length}.
     *
     * @throws IndexOutOfBoundsException when {@code i} is not below {@link #bufferCount} (at most 6)
     */
    public int bufferLength(long descriptor, int i) {
        checkHeld(descriptor, "bufferLength");
        checkBuffer(descriptor, i);
        return receiveQueue.bufferLength(descriptor, i);
    }

    /**
     * The card's receive timestamp in microseconds (0 when the card does not stamp). Checks {@code descriptor} like
     * {@link #length}.
     */
    public long timestampMicros(long descriptor) {
        checkHeld(descriptor, "timestampMicros");
        return receiveQueue.timestampMicros(descriptor);
    }

    /**
     * Copies the message's bytes to {@code dst} at {@code dstOffset} (the base-level architecture's one copy on the
     * receive side): from the descriptor for an inline message, else from its buffers in the segment in order.
     *
     * @return the number of bytes copied: the message length, or fewer for an error message whose buffers do not
     *         hold all of it
     * @throws IllegalArgumentException  when {@code descriptor} is not the held one (see {@link #length})
     * @throws IndexOutOfBoundsException when {@code dst} is too small (nothing is copied), or the card named a
     *                                   buffer outside the segment
     * @throws IllegalStateException     after the endpoint was destroyed
     */
    public int copyTo(long descriptor, MemorySegment dst, long dstOffset) {
        checkHeld(descriptor, "copyTo");
        return copyRange(descriptor, 0, dst, dstOffset, receiveQueue.length(descriptor));
    }

    /**
     * Copies bytes {@code [from, from + length)} of the message to {@code dst} at {@code dstOffset}, wherever they
     * lie: in the descriptor (inline) or spread over its buffers in the segment.
     *
     * @return the bytes copied: {@code length}, or fewer when the message ends first
     * @throws IllegalArgumentException  when {@code descriptor} is not the held one (see {@link #length}), or
     *                                   {@code from} or {@code length} is negative
     * @throws IndexOutOfBoundsException when {@code dst} cannot take the bytes (nothing is copied), or the card
     *                                   named a buffer outside the segment
     * @throws IllegalStateException     after the endpoint was destroyed
     */
    public int copyRange(long descriptor, int from, MemorySegment dst, long dstOffset, int length) {
        checkHeld(descriptor, "copyRange");
        Objects.requireNonNull(dst, "dst");
        int total = receiveQueue.length(descriptor);
        if (from < 0 || length < 0) {
            throw new IllegalArgumentException("endpoint " + id + ": range [" + from + ", +" + length + ") is negative");
        }
        int want = Math.min(length, Math.max(0, total - from));
        if (want == 0) {
            return 0;
        }
        Objects.checkFromIndexSize(dstOffset, want, dst.byteSize());
        if (receiveQueue.isInline(descriptor)) {
            // The descriptor carries at most INLINE_MAX bytes; a card's length word may claim more (an error message).
            int copied = Math.min(want, Math.max(0, INLINE_MAX - from));
            if (copied == 0) {
                return 0;
            }
            if (from == 0) {
                receiveQueue.copyInline(descriptor, dst, dstOffset, copied);
            } else {
                MemorySegment.copy(receiveQueue.segment(), descriptor + RECV_DESC_INLINE_OFS + from, dst, dstOffset,
                        copied);
            }
            return copied;
        }
        int n = Math.min(receiveQueue.nbufs(descriptor), MAX_BUFS);
        long at = dstOffset;
        int skip = from;
        int left = want;
        for (int i = 0; i < n && left > 0; i++) {
            int len = receiveQueue.bufferLength(descriptor, i);
            if (skip >= len) {
                skip -= len;
                continue;
            }
            int chunk = Math.min(len - skip, left);
            long off = Integer.toUnsignedLong(receiveQueue.bufferOffset(descriptor, i)) + skip;
            MemorySegment.copy(segment, off, dst, at, chunk);
            at += chunk;
            left -= chunk;
            skip = 0;
        }
        return want - left;
    }

    /**
     * Hands the descriptor back to the card and re-posts its receive buffers to the free queue (whole, at the
     * endpoint's receive buffer size). Counts the message (and its error code, if any). A buffer the card named at
     * an offset the free queue cannot carry (not 64-byte aligned) is not re-posted but counted
     * ({@link #unrecyclableBuffers()}). A buffer the free queue has no room for (more buffers circulate than it
     * holds) is kept and re-posted first at a later release ({@link #pendingReposts()}), never dropped.
     *
     * @throws IllegalArgumentException when {@code descriptor} is not the one {@link #poll()} returned, or was
     *                                  released already (e.g. {@code release(poll())} on an empty queue is
     *                                  {@code release(-1)}); nothing is counted or written
     * @throws IllegalStateException    after the endpoint was destroyed
     */
    public void release(long descriptor) {
        boolean outer = enterReceive("release");
        try {
            checkHeld(descriptor, "release");
            account(descriptor);
            boolean posted = pendingCount > 0 && freeQueueLive && repostPending();
            if (!receiveQueue.isInline(descriptor)) {
                int n = Math.min(receiveQueue.nbufs(descriptor), MAX_BUFS);
                int size = receiveBufferSize;
                for (int i = 0; i < n; i++) {
                    int off = receiveQueue.bufferOffset(descriptor, i);
                    int len = size == 0 ? receiveQueue.bufferLength(descriptor, i) : size;
                    if ((off & (FQ_BUF_ALIGN - 1)) != 0 || len == 0) {
                        unrecyclableBuffers++;
                    } else {
                        posted |= repost(off, len);
                    }
                }
            }
            if (posted) {
                bell.free(freeQueue.producerIndex());
            }
            receiveQueue.release(descriptor);
            bell.receive(receiveQueue.consumerIndex());
        } finally {
            exitReceive(outer);
        }
    }

    /**
     * Gives one receive buffer back to the card, or keeps it for the next release when the free queue is full (or
     * older buffers already wait: they go first). PEER_CORRUPT (the card's {@code fq_cons} is impossible) is counted
     * in the free queue's protocol errors and the buffer kept as well: the release itself must still happen.
     *
     * @return true when the free queue took it (the doorbell is due)
     */
    private boolean repost(int offset, int length) {
        if (pendingCount == 0 && freeQueueLive) {
            long result = offerFree(offset, length);
            if (result >= 0) {
                return true;
            }
            if (result == QueueCode.FULL) {
                freeQueueFull++;
            }
        }
        if (pendingCount == pendingOffsets.length) { // more buffers circulate than the free queue holds
            pendingOffsets = java.util.Arrays.copyOf(pendingOffsets, 2 * pendingCount);
            pendingLengths = java.util.Arrays.copyOf(pendingLengths, 2 * pendingCount);
        }
        pendingOffsets[pendingCount] = offset;
        pendingLengths[pendingCount] = length;
        pendingCount++;
        return false;
    }

    /** Offers the kept buffers, oldest first, until the free queue is full. @return true when any was taken */
    private boolean repostPending() {
        int taken = 0;
        while (taken < pendingCount && offerFree(pendingOffsets[taken], pendingLengths[taken]) >= 0) {
            taken++;
        }
        if (taken > 0) {
            System.arraycopy(pendingOffsets, taken, pendingOffsets, 0, pendingCount - taken);
            System.arraycopy(pendingLengths, taken, pendingLengths, 0, pendingCount - taken);
            pendingCount -= taken;
        }
        return taken > 0;
    }

    /**
     * Receive buffers {@link #release} could not give back yet because the free queue was full; each goes back,
     * oldest first, at a later release once the card has taken entries from the free queue.
     */
    public int pendingReposts() {
        return pendingCount;
    }

    /**
     * Hands the descriptor back but keeps its buffers: the application goes on reading them in place (true zero
     * copy, paper footnote to 3.3) and re-posts them later with {@link #postReceiveBuffers}.
     *
     * @throws IllegalArgumentException when {@code descriptor} is not the held one (as {@link #release})
     * @throws IllegalStateException    after the endpoint was destroyed
     */
    public void releaseKeepBuffers(long descriptor) {
        boolean outer = enterReceive("releaseKeepBuffers");
        try {
            checkHeld(descriptor, "releaseKeepBuffers");
            account(descriptor);
            receiveQueue.release(descriptor);
            bell.receive(receiveQueue.consumerIndex());
        } finally {
            exitReceive(outer);
        }
    }

    /** The descriptor this endpoint holds (polled, not released), or -1. */
    public long heldDescriptor() {
        return receiveQueue.held();
    }

    private void account(long descriptor) {
        received++;
        boolean malformed = descriptor == malformedHeld;
        malformedHeld = -1; // the descriptor goes back to the card now
        if (receiveQueue.isError(descriptor) || malformed) {
            int code = malformed ? RX_ERR_LENGTH : receiveQueue.errorCode(descriptor);
            receiveErrors[code >= 0 && code <= RX_ERR_DMA ? code : receiveErrors.length - 1]++;
        } else {
            receivedBytes += receiveQueue.length(descriptor);
        }
    }

    /** Messages released so far (good and bad). */
    public long received() {
        return received;
    }

    /** Payload bytes of good messages released so far. */
    public long receivedBytes() {
        return receivedBytes;
    }

    /** Released messages that carried error {@code code} ({@code RX_ERR_*}). */
    public long receiveErrors(int code) {
        return receiveErrors[code >= 0 && code <= RX_ERR_DMA ? code : receiveErrors.length - 1];
    }

    /**
     * Times a free-queue post found the queue full: a {@link #postReceiveBuffers} that posted fewer, or a
     * {@link #release} that kept a buffer for later ({@link #pendingReposts()}).
     */
    public long freeQueueFull() {
        return freeQueueFull;
    }

    /**
     * Impossible consumer indices the card left in this endpoint's send and free queues ({@link QueueCode#PEER_CORRUPT}
     * results), including those a {@link #release} met while re-posting buffers.
     */
    public long peerProtocolErrors() {
        return sendQueue.protocolErrors() + freeQueue.protocolErrors();
    }

    /**
     * Descriptors the card handed over as good messages that did not describe one (an inline length over
     * {@code INLINE_MAX}, a buffer count outside 1..{@code MAX_BUFS}, a buffer outside the segment, buffers that do
     * not hold the length): each was shown to the process as an {@code RX_ERR_LENGTH} error.
     */
    public long malformedDescriptors() {
        return malformedDescriptors;
    }

    /** Receive buffers {@link #release} could not re-post because the card named them at a misaligned offset. */
    public long unrecyclableBuffers() {
        return unrecyclableBuffers;
    }

    // ------------------------------------------------------------------ upcalls

    /**
     * Installs {@code handler} and sets the card's signal mode: {@code UPCALL_NONEMPTY} (the receive queue became
     * non-empty), {@code UPCALL_ALMOST_FULL} (it crossed 3/4 full) or {@code UPCALL_BOTH}; each condition is
     * edge-triggered (signalled once when it becomes true), so one upcall consumes every message that arrived since
     * (paper 3.1). {@code null} with {@code UPCALL_NONE} removes it.
     *
     * @throws IllegalArgumentException when {@code mode} is not one of the four, or does not match {@code handler}
     * @throws IllegalStateException    after the endpoint was destroyed
     */
    public void upcall(UnetUpcall handler, int mode) {
        if (mode != UPCALL_NONE && mode != UPCALL_NONEMPTY && mode != UPCALL_ALMOST_FULL && mode != UPCALL_BOTH) {
            throw new IllegalArgumentException("endpoint " + id + ": upcall mode must be UPCALL_NONE, UPCALL_NONEMPTY, "
                    + "UPCALL_ALMOST_FULL or UPCALL_BOTH, was " + mode);
        }
        if ((handler == null) != (mode == UPCALL_NONE)) {
            throw new IllegalArgumentException("endpoint " + id + ": a handler needs a signal mode and no handler needs "
                    + "UPCALL_NONE (handler " + (handler == null ? "null" : "set") + ", mode " + mode + ")");
        }
        if (handler != null && readiness != null) {
            throw new IllegalStateException("endpoint " + id + ": a readiness listener is installed; an upcall would "
                    + "consume the messages it announces (remove it first)");
        }
        kernel.setUpcallMode(this, mode); // first: a refused mode leaves the old handler in place
        this.upcall = handler;
    }

    /**
     * Installs the listener told each time the card signals this endpoint (the receive queue became non-empty: the
     * signal is edge-triggered, so the listener's poll must drain the queue), without consuming anything: the messages stay in the queue for the receiving thread's {@link #poll()}.
     * This is how a runner that sleeps between polls learns when to poll: the listener schedules the poll, it does
     * not receive. Asks the kernel for {@code UPCALL_NONEMPTY} signals (a setup-time command) unless that mode is set
     * already; {@code null} removes the listener and leaves the mode.
     *
     * <p><b>Thread rule.</b> The listener runs on the thread that signals the endpoint: the card's interrupt, i.e.
     * an inline engine's kicking thread, a threaded engine's device thread, the virtual scheduler's thread, or a
     * caller of {@link UnetKernelDriver#serviceEvents()}. It must be cheap, allocation-free and non-blocking, and it
     * must not touch this endpoint (it is not the receiving thread): arm a timer on the same virtual scheduler, or
     * wake an event loop. It runs after the descriptor was published, so a poll it schedules finds the message;
     * messages queued before the listener was installed are not announced (poll once after installing it). A
     * spurious call (the message was polled already) is harmless.
     *
     * @throws IllegalStateException when an upcall handler is installed (it would consume the messages announced),
     *                               or after the endpoint was destroyed
     */
    @Override
    public void readinessListener(Runnable listener) {
        checkLive("readinessListener");
        if (listener != null) {
            if (upcall != null) {
                throw new IllegalStateException("endpoint " + id + ": an upcall handler is installed and consumes the "
                        + "messages; a readiness listener and upcalls exclude each other");
            }
            if ((upcallMode & UPCALL_NONEMPTY) == 0) {
                kernel.setUpcallMode(this, UPCALL_NONEMPTY);
            }
        }
        readiness = listener;
    }

    /** Starts a critical section that is atomic relative to message reception; nests. One CAS, no allocation. */
    public void disableUpcalls() {
        if (upcallState == UPCALL_RUNNING && dispatching == Thread.currentThread()) {
            nestedInUpcall++; // inside the upcall itself: reception is already excluded
            return;
        }
        IdleStrategy idle = null;
        for (;;) {
            int s = upcallState;
            if (s >= 0 && UPCALL_STATE.compareAndSet(this, s, s + 1)) {
                return;
            }
            if (idle == null) { // made only when an upcall holds the section: the uncontended path does not allocate
                idle = BackoffIdle.cardWait(UnetKernelDriver.WAIT_PARK_NANOS);
            }
            idle.idle(); // an upcall runs in another thread: wait for it to finish
        }
    }

    /** Ends a critical section; the outermost end runs the upcall a signal deferred meanwhile. */
    public void enableUpcalls() {
        if (nestedInUpcall > 0 && dispatching == Thread.currentThread()) {
            nestedInUpcall--;
            return;
        }
        for (;;) {
            int s = upcallState;
            if (s <= 0) {
                throw new IllegalStateException("endpoint " + id + ": enableUpcalls() without disableUpcalls()");
            }
            if (UPCALL_STATE.compareAndSet(this, s, s - 1)) {
                if (s == 1 && deferred) {
                    dispatch();
                }
                return;
            }
        }
    }

    public boolean upcallsEnabled() {
        return upcallState == 0;
    }

    /** Upcalls run (each consumed every pending message). */
    public long upcalls() {
        return upcalls;
    }

    /** Messages consumed by upcalls. */
    public long upcallMessages() {
        return upcallMessages;
    }

    /** Signals that found upcalls disabled and were deferred. */
    public long deferredSignals() {
        return deferredSignals;
    }

    /** Signals from the kernel (interrupt edges or serviced events) for this endpoint. */
    public long signals() {
        return signals;
    }

    /** The kernel signals this endpoint: wake a blocked {@link #await}, run the upcall (or defer it). */
    void signal() {
        signals++;
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
        Runnable r = readiness;
        if (r != null) {
            r.run(); // announces, consumes nothing; excludes an upcall handler (see readinessListener)
        }
        if (upcall == null) {
            return;
        }
        DEFERRED.setVolatile(this, true);
        if (upcallState != 0) {
            deferredSignals++;
        }
        dispatch();
    }

    /** Runs the upcall over every pending message while a signal is outstanding and upcalls are enabled. */
    private void dispatch() {
        while (deferred) {
            if (!UPCALL_STATE.compareAndSet(this, 0, UPCALL_RUNNING)) {
                return; // disabled (the outermost enable will come back here) or already running (it re-checks)
            }
            dispatching = Thread.currentThread();
            try {
                DEFERRED.setVolatile(this, false);
                UnetUpcall handler = upcall;
                if (handler != null) {
                    upcalls++;
                    drain(handler);
                }
            } finally {
                dispatching = null;
                nestedInUpcall = 0;
                UPCALL_STATE.setVolatile(this, 0);
            }
        }
    }

    /**
     * One upcall: hands every pending message to {@code handler} and releases it. Ends when the endpoint is no longer
     * live - destroyed by the handler itself or by another thread meanwhile - instead of failing in poll() or
     * release(): a destroyed endpoint has nothing left to deliver, and an exception here would reach the thread that
     * raised the card's interrupt line. An {@link IllegalStateException} from poll() or release() while the endpoint
     * is still live (a real misuse) and any exception of the handler itself still propagate.
     */
    private void drain(UnetUpcall handler) {
        while (live) {
            long d;
            try {
                d = poll();
            } catch (IllegalStateException e) {
                if (live) {
                    throw e;
                }
                return; // destroyed between the check and the poll
            }
            if (d < 0) {
                return;
            }
            handler.onMessage(this, d);
            upcallMessages++;
            if (!live) {
                return; // the handler (or another thread) destroyed the endpoint: the message has no queue to go back to
            }
            try {
                release(d);
            } catch (IllegalStateException e) {
                if (live) {
                    throw e;
                }
                return;
            }
        }
    }

    // ------------------------------------------------------------------ firmware restarts

    /** One free-queue entry; on success the card holds that buffer (see {@link #cardHolds}). */
    private long offerFree(int offset, int length) {
        long result = freeQueue.offer(offset, length);
        if (result >= 0) {
            markCardHolds(offset, true);
        }
        return result;
    }

    private void markCardHolds(int offset, boolean held) {
        long unit = Integer.toUnsignedLong(offset) / FQ_BUF_ALIGN;
        if ((offset & (FQ_BUF_ALIGN - 1)) != 0 || unit >= (long) cardHolds.length << 6) {
            return; // never a buffer of ours (the card reports it as an error)
        }
        int w = (int) (unit >>> 6);
        long bit = 1L << unit;
        cardHolds[w] = held ? cardHolds[w] | bit : cardHolds[w] & ~bit;
    }

    /**
     * The send queue met an impossible {@code sq_cons}. A firmware restart the kernel has not found yet looks exactly
     * like that (the firmware wiped the page: {@code sq_cons} reads 0, behind what was collected), so rather than
     * wait for its next check the kernel looks at the card now ({@link UnetKernelDriver#restartSuspected}). Send
     * thread, which is the kernel watchdog's.
     *
     * @return true when the kernel found a restart: this endpoint is restarting, its sends are lost in it
     */
    private boolean restartUnnoticed() {
        return kernel.restartSuspected() && restarting;
    }

    private boolean lostInRestart() {
        lostCompletions++;
        sendsLostInRestart++;
        return true;
    }

    /**
     * The kernel found that the card's firmware restarted and forgot this endpoint (its page is blank). From now until
     * {@link #resume()} sends are accepted and completed as {@link #SEND_LOST_IN_RESTART} (the card cannot take them;
     * the protocol above retransmits), gather sends see back-pressure, received messages already in the receive queue
     * can still be polled, and released buffers are kept for the card. Every send that was in flight completes as
     * {@link #SEND_LOST_IN_RESTART}: the firmware lost the send queue in board RAM. Called by the kernel driver on the
     * endpoint's thread (its watchdog's scheduler thread), as are the three steps below; again when the firmware
     * restarts during the kernel's replay (the buffers posted since are the card's no more). Between the restart and
     * the kernel's next check the page is blank; a send that meets its impossible {@code sq_cons} has the kernel look
     * at once ({@link #restartUnnoticed()}), so the send path never sees a restart as a full queue or a corrupt card.
     */
    void cardRestarted() {
        restarts++;
        freeQueueLive = false; // also when it restarts again during the kernel's replay: the free queue is gone again
        if (restarting) {
            return; // nothing was sent since the first restart: sends have been lost in it
        }
        restarting = true;
        int inFlight = sendQueue.inFlight();
        lostCompletions += inFlight;
        sendsLostInRestart += inFlight;
    }

    /**
     * Just before the kernel posts EP_CREATE again: the re-created endpoint's card writes the receive queue from
     * descriptor 0, so every message the user has not polled is dropped now (counted in
     * {@link #messagesLostInRestart()}, its buffers kept for the card) and the user's index starts at 0.
     *
     * @return false while the user holds a received descriptor (the kernel tries again later)
     */
    boolean beforeRecreate() {
        if (receiveQueue.held() >= 0) {
            return false;
        }
        messagesLostInRestart += receiveQueue.restart(this::droppedInRestart);
        return true;
    }

    /**
     * EP_CREATE is done: the fresh page's send and free queues start at 0. Every receive buffer the card held, and
     * every one kept meanwhile, is posted to the fresh free queue. Sends stay lost until {@link #resume()} (the
     * channels are not open yet).
     */
    void recreated() {
        sendQueue.restart();
        freeQueue.restart();
        freeQueueLive = true;
        boolean posted = pendingCount > 0 && repostPending();
        int size = receiveBufferSize;
        for (int w = 0; w < cardHolds.length && size > 0; w++) {
            long bits = cardHolds[w];
            while (bits != 0) {
                int b = Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                cardHolds[w] &= ~(1L << b);
                posted |= repost((int) (((long) w << 6 | b) * FQ_BUF_ALIGN), size);
            }
        }
        if (posted) {
            bell.free(freeQueue.producerIndex());
        }
    }

    /** Channels and upcall mode are registered again: the endpoint works as before. */
    void resume() {
        restarting = false;
        signal(); // the link may send again, and wants to look at the queues
    }

    /** A received descriptor {@link #beforeRecreate} drops: its buffers go back to the card with the rest. */
    private void droppedInRestart(long d) {
        if (!receiveQueue.isInline(d)) {
            int n = Math.min(receiveQueue.nbufs(d), MAX_BUFS);
            for (int i = 0; i < n; i++) {
                markCardHolds(receiveQueue.bufferOffset(d, i), true);
            }
        }
    }

    /** Whether the card's firmware restarted and the kernel has not re-created this endpoint yet. */
    public boolean isRestarting() {
        return restarting;
    }

    /** Firmware restarts this endpoint went through. */
    @Override
    public long restarts() {
        return restarts;
    }

    /** Sends the card lost in firmware restarts (in flight then, or made while it was restarting). */
    public long sendsLostInRestart() {
        return sendsLostInRestart;
    }

    /** Received messages the user had not polled when the kernel re-created the endpoint after a restart: dropped. */
    public long messagesLostInRestart() {
        return messagesLostInRestart;
    }

    // ------------------------------------------------------------------ kernel bookkeeping

    void channelOpened(int channel) {
        if (channel >= 0 && channel < MAX_CHANNELS) {
            openChannels |= 1L << channel;
        }
    }

    void channelClosed(int channel) {
        if (channel >= 0 && channel < MAX_CHANNELS) {
            openChannels &= ~(1L << channel);
        }
    }

    void upcallModeSet(int mode) {
        upcallMode = mode;
    }

    public int upcallMode() {
        return upcallMode;
    }

    long segmentBusAddress() {
        return segmentBus;
    }

    long receiveQueueBusAddress() {
        return rqBus;
    }

    CommSegment receiveQueueMemory() {
        return rqMemory;
    }

    /**
     * The kernel takes the endpoint back: marks it dead, then waits until no call that may write the page is in
     * progress on another thread (see the {@code sendBusy} comment). A call in progress on this very thread (the
     * endpoint destroyed from its own upcall) is not waited for: it sees the endpoint dead at its next check.
     */
    void detach() {
        live = false; // volatile store, then the loads of the busy flags below
        upcall = null;
        readiness = null;
        openChannels = 0;
        Thread self = Thread.currentThread();
        IdleStrategy idle = BackoffIdle.cardWait(UnetKernelDriver.WAIT_PARK_NANOS); // teardown: allocating is fine
        while ((sendBusy && sendThread != self) || (receiveBusy && receiveThread != self)) {
            idle.idle();
        }
    }

    // ------------------------------------------------------------------ guards

    /** Enters a send-side call that may write the page; returns whether this is the outermost one. */
    private boolean enterSend(String what) {
        if (sendBusy && sendThread == Thread.currentThread()) {
            checkLive(what); // nested (an upcall sending from inside a send): the outer call holds the flag
            return false;
        }
        sendThread = Thread.currentThread();
        SEND_BUSY.setVolatile(this, true);
        if (!live) {
            SEND_BUSY.setRelease(this, false);
            throw destroyed(what);
        }
        return true;
    }

    private void exitSend(boolean outer) {
        if (outer) {
            SEND_BUSY.setRelease(this, false); // the page writes of this call happen-before a destroyer's wait ends
        }
    }

    private boolean enterReceive(String what) {
        if (receiveBusy && receiveThread == Thread.currentThread()) {
            checkLive(what);
            return false;
        }
        receiveThread = Thread.currentThread();
        RECEIVE_BUSY.setVolatile(this, true);
        if (!live) {
            RECEIVE_BUSY.setRelease(this, false);
            throw destroyed(what);
        }
        return true;
    }

    private void exitReceive(boolean outer) {
        if (outer) {
            RECEIVE_BUSY.setRelease(this, false);
        }
    }

    private void checkLive(String what) {
        if (!live) {
            throw destroyed(what);
        }
    }

    private IllegalStateException destroyed(String what) {
        return new IllegalStateException("endpoint " + id + ": " + what + "() after the endpoint was destroyed");
    }

    /**
     * Hot path: two compares and one volatile read; the messages are built off it. {@code descriptor < 0} catches
     * {@code release(-1)} while nothing is held (the held slot is -1 then too).
     */
    private void checkHeld(long descriptor, String what) {
        if (descriptor < 0 || descriptor != receiveQueue.held() || !live) {
            rejectDescriptor(descriptor, what);
        }
    }

    private void rejectDescriptor(long descriptor, String what) {
        checkLive(what);
        if (descriptor < 0 || descriptor >= (long) rqLen * RECV_DESC_SIZE || descriptor % RECV_DESC_SIZE != 0) {
            throw new IllegalArgumentException("endpoint " + id + ": " + what + "(descriptor " + descriptor
                    + "): not a receive descriptor (slots are 0.." + (long) (rqLen - 1) * RECV_DESC_SIZE + " step "
                    + RECV_DESC_SIZE + (descriptor < 0 ? "; " + QueueCode.describe(descriptor) + " is a queue code, not a descriptor)" : ")"));
        }
        long held = receiveQueue.held();
        throw new IllegalArgumentException("endpoint " + id + ": " + what + "(descriptor " + descriptor
                + "): not the received descriptor - released already or not received yet ("
                + (held < 0 ? "none is held: poll() first)" : "the held one is " + held + ")"));
    }

    private void checkBuffer(long descriptor, int i) {
        int n = receiveQueue.isInline(descriptor) ? 0 : Math.min(receiveQueue.nbufs(descriptor), MAX_BUFS);
        if (i < 0 || i >= n) {
            throw new IndexOutOfBoundsException("endpoint " + id + ": buffer index " + i + " of descriptor " + descriptor
                    + " must be below its buffer count " + n);
        }
    }

    /** False once the kernel destroyed the endpoint. */
    @Override
    public boolean isLive() {
        return live;
    }

    @Override
    public String toString() {
        return "UnetEndpoint[" + id + ", segment " + segment.byteSize() + " B, RQ " + rqLen + (live ? "" : ", destroyed")
                + "]";
    }
}
