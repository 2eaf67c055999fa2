package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.CpuPacedTransmits;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.bridge.link.ReceivedFrames;
import io.nicbridge.bridge.port.PortCounters;
import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.bridge.time.Timer;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * The U-Net framing of {@link Link} on any {@link Endpoint} - a card's (the SBA-200, U-Net over Ethernet served by
 * the shim's card), a kernel-emulated one, or a direct-access one on an AF_XDP socket - one implementation: peer
 * i is the channel to peer i, one channel per peer opened by the kernel driver at setup, so a frame carries no
 * header at all - the channel tag names the peer, and {@link #mtu()} is the whole receive buffer.
 *
 * <pre>
 *  endpoint segment, from areaOffset: buffers at strides of receiveBufferSizeFor(mtu) rounded up to 64 bytes
 *  (a card: mtu; a direct-access endpoint: one UMEM chunk)
 *  +----------------------+-------------------------------+
 *  | txBuffers x TX buf   | rxBuffers x receive buffer    |
 *  |  (claim/fill/commit) |  (posted to the free queue)   |
 *  +----------------------+-------------------------------+
 *  a received message lies receiveOffset() into its buffer (a card: 0; direct access: XDP headroom + headers);
 *  an inline message is read in place where the endpoint keeps it (Endpoint#inlineBytes: a card's receive
 *  descriptor, a direct-access endpoint's chunk)
 * </pre>
 *
 * <h2>Send</h2>
 * {@link #claim} hands out a TX buffer of the segment and reserves a send descriptor, so {@link #commit} never
 * fails. At commit the framing chooses: up to {@code INLINE_MAX} (40) bytes go as an inline send (the bytes are
 * copied into the descriptor, one cell, no DMA; the buffer is free again at once), longer frames are sent from the
 * buffer, which stays in flight until the card completes the descriptor (completions come back in send-queue order,
 * so the in-flight buffers form a FIFO). No free buffer or descriptor: {@link #NONE}, and
 * {@link LinkHandler#onWritable} follows once a completion freed one. A frame may also gather ranges of the
 * segment after its buffer's bytes ({@link UnetGather}, the capability): one descriptor of up to six buffers.
 *
 * <h2>Receive</h2>
 * In place, straight from the receive queue: {@link #poll} takes the next descriptor and hands it to the handler as
 * the frame - an inline message is read in its descriptor, a longer one in the one receive buffer the card filled.
 * {@link #release} gives the descriptor back and its buffer to the free queue ({@link Endpoint#release}). The
 * receive queue is consumed in order, so <b>one frame is held at a time</b>: while the handler holds one, poll hands
 * out no other and the card queues (and, when the queue is full, drops and counts) what arrives - U-Net's own
 * back-pressure. Messages the card marked with an error (a lost cell: CRC or length; no free buffer), on a channel
 * that names no peer, or spread over several buffers (longer than this link's mtu) are counted
 * ({@code rxErrors}, {@code rxDrops}) and released, never delivered.
 *
 * <h2>Readiness</h2>
 * The endpoint's {@link Endpoint#readinessListener readiness signal} (no message consumed) announces arrivals.
 * A direct-access endpoint has no thread to announce anything: a runner on it waits in {@link #awaitFrame}, which
 * sleeps in the endpoint's own wait (ppoll on the socket) - also the cheapest wait on a card endpoint (its signal
 * unparks the waiting thread directly).
 * The card has no send-completion signal (the i960 only advances {@code sq_cons}; the process looks), so after a
 * refused claim "writable" is found by looking: at every {@link #poll}, and - for a runner that polls only when told
 * - by an optional {@link #writableProbe probe timer} that calls the listener while a claim waits. A runner that
 * polls every pass (one event loop per node) needs no probe.
 *
 * <h2>Firmware restarts</h2>
 * When the kernel driver's watchdog finds that the card's firmware restarted ({@link UnetKernelDriver#watchdog}), the
 * endpoint's sends in flight complete as lost ({@code txErrors}) and the link counts the restart as a card reset
 * ({@link PortCounters#cardResets()}, at its next poll or claim): a protocol that relies on the card losing nothing
 * reads that as the evidence, as it does for the 21140's and the Medusa's resets.
 *
 * <h2>Host cost</h2>
 * Given its node's CPU ({@link #hostCpu}), the link charges per {@link io.nicbridge.bridge.cost}: a successful
 * claim reclaims a send descriptor ({@code DESCRIPTOR_RECLAIM}); a commit posts one send descriptor
 * ({@code DESCRIPTOR_POST}: the double-word store into the i960's send queue), and an inline send also copies its
 * bytes into the descriptor ({@code COPY} per byte; a buffer send's bytes are the card's DMA); every receive
 * descriptor polled is one reclaimed, and one whose message is kept has its channel tag looked up
 * ({@code TABLE_LOOKUP}); giving a message back posts its receive descriptor and, for a buffer message, the buffer
 * to the free queue (one {@code DESCRIPTOR_POST} each). An inline message is read in place in the receive queue,
 * which lies in host memory: no copy. In virtual time the send reaches the card when the CPU gets there
 * ({@link CpuPacedTransmits}).
 *
 * <h2>Threads</h2>
 * One thread claims, commits, polls and releases (the core's); the link is its endpoint's only sender and receiver.
 * The readiness listener runs where the endpoint announces arrivals ({@link Endpoint#readinessListener}: a card's
 * signalling thread, an emulated endpoint's kernel thread, a direct-access endpoint's own waiting thread) or on the
 * probe's scheduler thread. The probe is armed from the polling thread, so its scheduler must be the one that thread
 * runs (a virtual scheduler, the node's event loop). Nothing allocates after construction.
 *
 * <h2>Misuse</h2>
 * As {@link Link}'s: {@link IllegalStateException} for a handle not held and for calls after {@link #close()};
 * {@link IllegalArgumentException} for a peer outside {@code [0, peers())}, {@link #BROADCAST} (U-Net has no
 * broadcast: a channel is point to point), {@link #self()}, or a length outside {@code [1, mtu()]}. A misuse
 * changes nothing.
 */
public final class UnetLink implements Link {
    private static final int COMMITTED = -3;

    private final String name;
    private final Endpoint ep;
    private final int self;
    private final int[] channelOf;
    private final int[] peerOf = new int[MAX_CHANNELS];
    private final int mtu;
    private final int stride;
    private final int rxBase;
    private final int rxBuffers;
    /** Where a message starts in its receive buffer ({@link Endpoint#receiveOffset}). */
    private final int rxOffset;
    private final PortCounters counters = new PortCounters();

    private final UnetSendBuffers tx;
    private final Gather gather = new Gather();
    /** Per TX buffer: the peer named at claim, or {@link #COMMITTED} while a commit waits for the CPU. */
    private final int[] txPeer;
    private boolean wantWritable;
    private final CpuPacedTransmits transmits;
    private HostCpu cpu;

    private final MemorySegment[] rxBufferSlices;
    /**
     * Receive handles go round {@code receiveQueueLength()} numbers, one per frame taken; one is held at a time (the
     * queue is consumed in order), so a stale handle is refused until the numbers come round.
     */
    private final ReceivedFrames rx;
    private int nextHandle;
    private int heldHandle = NONE;
    private long heldDescriptor = -1;

    private volatile Runnable readiness;
    private Runnable progress = () -> { };
    private Timer probe;
    private long probeNanos;
    private boolean closed;

    /**
     * @param endpoint   the endpoint (its channels opened by the kernel driver); this link is its only user
     * @param self       this node's peer number
     * @param channels   {@code channels[p]} = the endpoint's channel to peer {@code p}, for every {@code p != self}
     *                   ({@code channels[self]} is ignored); {@link #peers()} is its length
     * @param areaOffset 64-byte aligned offset in the endpoint's segment where the link lays out its buffers
     * @param mtu        frame bytes: 1 .. 65535, and at most what one receive buffer of the endpoint takes
     *                   ({@link Endpoint#receiveBufferSizeFor})
     * @param txBuffers  TX buffers, 1 .. the endpoint's {@link Endpoint#sendQueueLength} (more could never be in
     *                   flight)
     * @param rxBuffers  receive buffers posted to the free queue, 1 .. its {@link Endpoint#freeQueueLength}
     * @throws IllegalArgumentException for any argument out of range, a channel not open on the endpoint, one
     *                                  channel named for two peers, or an area the endpoint cannot post receive
     *                                  buffers from (a direct-access endpoint's are whole chunks: chunk-aligned)
     * @throws IllegalStateException    when the endpoint has a receive buffer of another size posted already, or an
     *                                  upcall handler (it would consume the frames), or was destroyed
     */
    public UnetLink(String name, Endpoint endpoint, int self, int[] channels, long areaOffset, int mtu,
                    int txBuffers, int rxBuffers) {
        this.name = Objects.requireNonNull(name, "name");
        this.ep = Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(channels, "channels");
        if (channels.length < 2 || self < 0 || self >= channels.length) {
            throw new IllegalArgumentException(name + ": need at least 2 peers and self in [0, peers), were "
                    + channels.length + " peers and self " + self);
        }
        int sendQueue = endpoint.sendQueueLength();
        int freeQueue = endpoint.freeQueueLength();
        if (mtu < 1 || mtu > MAX_PDU || txBuffers < 1 || txBuffers > sendQueue || rxBuffers < 1
                || rxBuffers > freeQueue) {
            throw new IllegalArgumentException(name + ": need 1 <= mtu <= " + MAX_PDU + ", 1 <= txBuffers <= "
                    + sendQueue + " (the endpoint's send queue), 1 <= rxBuffers <= " + freeQueue + " (its free queue)"
                    + " (were " + mtu + ", " + txBuffers + ", " + rxBuffers + ")");
        }
        this.self = self;
        this.channelOf = channels.clone();
        Arrays.fill(peerOf, NONE);
        for (int p = 0; p < channels.length; p++) {
            if (p == self) {
                channelOf[p] = NONE;
                continue;
            }
            int c = channels[p];
            if (!endpoint.isChannelOpen(c)) {
                throw new IllegalArgumentException(name + ": channel " + c + " (to peer " + p + ") is not open on "
                        + endpoint);
            }
            if (peerOf[c] != NONE) {
                throw new IllegalArgumentException(name + ": channel " + c + " named for peers " + peerOf[c] + " and " + p);
            }
            peerOf[c] = p;
        }
        this.mtu = mtu;
        int bufferSize = endpoint.receiveBufferSizeFor(mtu);
        this.rxOffset = endpoint.receiveOffset();
        this.stride = (bufferSize + FQ_BUF_ALIGN - 1) & -FQ_BUF_ALIGN;
        MemorySegment seg = endpoint.segment();
        long need = (long) stride * (txBuffers + rxBuffers);
        if (areaOffset < 0 || (areaOffset & (FQ_BUF_ALIGN - 1)) != 0 || areaOffset > seg.byteSize() - need) {
            throw new IllegalArgumentException(name + ": " + need + " bytes of buffers at offset " + areaOffset
                    + " do not fit the " + seg.byteSize() + "-byte segment (64-byte aligned)");
        }
        this.rxBase = (int) areaOffset + stride * txBuffers;
        this.rxBuffers = rxBuffers;
        this.tx = new UnetSendBuffers(name, endpoint, counters, (int) areaOffset, stride, txBuffers, mtu);
        txPeer = new int[txBuffers];
        cpu = HostCpu.uncharged(name);
        transmits = new CpuPacedTransmits(name, txBuffers, cpu, (h, length, channel) -> tx.commit(h, channel, length));
        rxBufferSlices = new MemorySegment[rxBuffers];
        for (int i = 0; i < rxBuffers; i++) {
            rxBufferSlices[i] = seg.asSlice(rxBase + (long) stride * i + rxOffset, mtu);
        }
        rx = ReceivedFrames.ofHandles(name, endpoint.receiveQueueLength());
        if (endpoint.receiveBufferSize() != 0 && endpoint.receiveBufferSize() != bufferSize) {
            throw new IllegalStateException(name + ": " + endpoint + " has " + endpoint.receiveBufferSize()
                    + "-byte receive buffers posted, this link needs " + bufferSize);
        }
        if (endpoint.freeQueueRoom() < rxBuffers) {
            throw new IllegalStateException(name + ": the free queue of " + endpoint + " has room for "
                    + endpoint.freeQueueRoom() + " buffers, this link posts " + rxBuffers);
        }
        endpoint.readinessListener(this::signalled); // setup: asks the kernel for non-empty signals
        int posted;
        try {
            posted = endpoint.postReceiveBuffers(rxBase, rxBuffers, bufferSize);
        } catch (RuntimeException e) {
            endpoint.readinessListener(null);
            throw e;
        }
        if (posted != rxBuffers) {
            endpoint.readinessListener(null);
            throw new IllegalStateException(name + ": the free queue took only " + posted + " of " + rxBuffers
                    + " receive buffers (another user of the endpoint?)");
        }
    }

    /**
     * What {@link #poll} runs first so that a card with no thread of its own makes progress: an inline engine's
     * poll, or a shim card's. Leave it unset for a card with its own threads and in virtual time (there the card's
     * events are the scheduler's). Setup-time.
     */
    public UnetLink progress(Runnable progress) {
        this.progress = Objects.requireNonNull(progress, "progress");
        return this;
    }

    /**
     * Arms a timer of {@code scheduler} every {@code intervalNanos} while a refused claim waits for a send
     * completion, which calls the readiness listener so that a runner polling only when told looks again (the card
     * signals no completion). {@code scheduler} must run on the thread that polls this link. Setup-time.
     */
    public UnetLink writableProbe(Scheduler scheduler, long intervalNanos) {
        Objects.requireNonNull(scheduler, "scheduler");
        if (intervalNanos <= 0) {
            throw new IllegalArgumentException(name + ": probe interval must be > 0, was " + intervalNanos);
        }
        if (probe != null) {
            throw new IllegalStateException(name + ": the writable probe is set already");
        }
        this.probeNanos = intervalNanos;
        this.probe = scheduler.newTimer(name + ".writable", this::probed);
        return this;
    }

    /**
     * Blocks the polling thread until the endpoint has a message for the next {@link #poll}, or {@code timeoutNanos}
     * pass: the endpoint's own wait ({@link Endpoint#await}) - a card endpoint parks until its signal unparks this
     * thread, a direct-access endpoint sleeps in ppoll on its socket and the kernel wakes it. The message stays where
     * it is (the endpoint holds it) for {@link #poll} to take. In real time; a virtual-time runner waits for the
     * {@link #readinessListener} instead.
     *
     * @return true when a message is waiting, false when the timeout passed first
     * @throws InterruptedException when the thread was interrupted while it waited
     */
    public boolean awaitFrame(long timeoutNanos) throws InterruptedException {
        checkOpen();
        if (rx.heldCount() != 0) {
            return true;
        }
        return ep.await(timeoutNanos, TimeUnit.NANOSECONDS) >= 0;
    }

    @Override
    public void hostCpu(HostCpu cpu) {
        checkOpen();
        transmits.cpu(cpu);
        this.cpu = cpu;
    }

    public Endpoint endpoint() {
        return ep;
    }

    /** @return the endpoint channel to {@code peer} */
    public int channel(int peer) {
        checkPeer(peer);
        return channelOf[peer];
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int self() {
        return self;
    }

    @Override
    public int peers() {
        return channelOf.length;
    }

    @Override
    public int mtu() {
        return mtu;
    }

    @Override
    public boolean canBroadcast() {
        return false;
    }

    /** The receive queue is consumed in order: while one frame is held, nothing behind it is handed over. */
    @Override
    public boolean receivesInOrder() {
        return true;
    }

    // ------------------------------------------------------------------ send

    @Override
    public int claim(int peer) {
        checkOpen();
        checkPeer(peer);
        int h = tx.claim();
        if (h == NONE) {
            wantWritable = true;
            counters.recordTxBackPressure();
            armProbe();
            return NONE;
        }
        cpu.charge(CostItem.DESCRIPTOR_RECLAIM);
        txPeer[h] = peer;
        return h;
    }

    @Override
    public MemorySegment txBuffer(int txHandle) {
        checkClaimed(txHandle);
        return tx.buffer(txHandle);
    }

    /**
     * {@inheritDoc} With ranges {@link UnetGather#attach attached}, {@code length} is the head's (the bytes in the
     * buffer) and the frame is the head and the ranges, at most {@link #mtu()} in all.
     */
    @Override
    public void commit(int txHandle, int length) {
        checkClaimed(txHandle);
        int attached = tx.attachedBytes(txHandle);
        if (length < 1 || length > mtu - attached) {
            throw new IllegalArgumentException(name + ": frame length must be in [1, " + (mtu - attached) + "] (mtu "
                    + mtu + " less " + attached + " attached bytes), was " + length);
        }
        if (length <= INLINE_MAX && attached == 0) {
            cpu.charge(CostItem.COPY, length); // into the descriptor: one cell, no DMA
        }
        cpu.charge(CostItem.DESCRIPTOR_POST);
        int channel = channelOf[txPeer[txHandle]];
        txPeer[txHandle] = COMMITTED;
        counters.recordTx(length + attached);
        transmits.commit(txHandle, length, channel);
    }

    @Override
    public void abort(int txHandle) {
        checkClaimed(txHandle);
        tx.abort(txHandle);
    }

    /** @throws IllegalStateException when {@code txHandle} is not claimed (or its commit waits for the CPU) */
    private void checkClaimed(int txHandle) {
        checkOpen();
        tx.check(txHandle);
        if (txPeer[txHandle] == COMMITTED) {
            throw new IllegalStateException(name + ": TX handle " + txHandle + " is committed already");
        }
    }

    // ------------------------------------------------------------------ receive

    @Override
    public int poll(LinkHandler handler, int limit) {
        checkOpen();
        Objects.requireNonNull(handler, "handler");
        progress.run();
        tx.countRestarts(); // before the frames: a core reading the count in onFrame sees the restart first
        if (tx.tokensInFlight()) {
            tx.reclaim(); // gathered ranges are referenced until their send completes: give them back promptly
        }
        int n = 0;
        while (n < limit && rx.heldCount() == 0) {
            long d = ep.poll();
            if (d < 0) {
                break;
            }
            if (take(d)) {
                n++;
                handler.onFrame(this, heldHandle);
            }
        }
        if (wantWritable) {
            if (tx.writable()) {
                wantWritable = false;
                handler.onWritable(this);
            } else {
                armProbe();
            }
        }
        return n;
    }

    /** Makes descriptor {@code d} the held frame, or counts and releases it. @return true when it is a frame */
    private boolean take(long d) {
        cpu.charge(CostItem.DESCRIPTOR_RECLAIM);
        int length = ep.length(d);
        if (ep.isError(d)) {
            counters.recordRxError(); // the card found it damaged (lost cell, CRC, length) or had no buffer
            giveBack(d);
            return false;
        }
        cpu.charge(CostItem.TABLE_LOOKUP);
        int peer = peerOf[ep.channel(d)];
        MemorySegment buffer = null;
        if (ep.isInline(d)) {
            buffer = ep.inlineBytes(d);
        } else if (ep.bufferCount(d) == 1 && length <= mtu) {
            long off = Integer.toUnsignedLong(ep.bufferOffset(d, 0)) - rxBase - rxOffset;
            if (off >= 0 && off % stride == 0 && off / stride < rxBuffers) {
                buffer = rxBufferSlices[(int) (off / stride)];
            }
        }
        if (peer == NONE || buffer == null || length < 1) {
            counters.recordRxDrop(); // a channel of no peer, or a frame this framing never sends (too long, empty)
            giveBack(d);
            return false;
        }
        heldDescriptor = d;
        heldHandle = nextHandle;
        nextHandle = nextHandle + 1 == rx.capacity() ? 0 : nextHandle + 1;
        rx.hold(heldHandle, peer, length, buffer);
        counters.recordRx(length);
        return true;
    }

    /** The descriptor back to the card, and a buffer message's buffers to the free queue: one post each. */
    private void giveBack(long d) {
        cpu.charge(CostItem.DESCRIPTOR_POST, ep.isInline(d) ? 1 : 1 + ep.bufferCount(d));
        ep.release(d);
    }

    @Override
    public int rxPeer(int rxHandle) {
        checkOpen();
        return rx.peer(rxHandle);
    }

    @Override
    public MemorySegment rxBuffer(int rxHandle) {
        checkOpen();
        return rx.buffer(rxHandle);
    }

    @Override
    public int rxLength(int rxHandle) {
        checkOpen();
        return rx.length(rxHandle);
    }

    @Override
    public void release(int rxHandle) {
        checkOpen();
        rx.release(rxHandle);
        long d = heldDescriptor;
        heldDescriptor = -1;
        heldHandle = NONE;
        giveBack(d);
    }

    // ------------------------------------------------------------------ readiness

    @Override
    public void readinessListener(Runnable listener) {
        checkOpen();
        this.readiness = listener;
    }

    /** The endpoint's signal (the card's thread): a message is in the receive queue. */
    private void signalled() {
        Runnable r = readiness;
        if (r != null) {
            r.run();
        }
    }

    /** The probe expired (the polling thread's scheduler): a refused claim may succeed now; let the runner look. */
    private void probed() {
        if (wantWritable && !closed) {
            signalled();
        }
    }

    private void armProbe() {
        if (probe != null && !probe.isArmed()) {
            probe.armAfter(probeNanos);
        }
    }

    /**
     * @return the {@link UnetGather} of this link for {@code UnetGather.class} on an endpoint whose send descriptor
     *     gathers several buffers (a card's), else {@code null}
     */
    @Override
    public <C> C capability(Class<C> type) {
        return type == UnetGather.class && tx.canGather() ? type.cast(gather) : null;
    }

    /** The scatter-gather send of this link's frames: ranges of the endpoint's segment after a claimed head. */
    private final class Gather implements UnetGather {
        @Override
        public MemorySegment segment() {
            return ep.segment();
        }

        @Override
        public void attach(int txHandle, int offset, int length, int token) {
            checkClaimed(txHandle);
            long size = ep.segment().byteSize();
            if (length < 1 || offset < 0 || offset > size - length) {
                throw new IllegalArgumentException(name + ": an attached range must be non-empty and inside the "
                        + size + "-byte segment, was [" + offset + ", +" + length + ")");
            }
            int room = mtu - 1 - tx.attachedBytes(txHandle); // the head has at least one byte
            if (length > room) {
                throw new IllegalArgumentException(name + ": attaching " + length + " bytes would take the frame past"
                        + " the mtu " + mtu + " (room for " + room + " beside a head of at least 1 byte)");
            }
            tx.attach(txHandle, offset, length, token);
        }

        @Override
        public int attachedBytes(int txHandle) {
            checkClaimed(txHandle);
            return tx.attachedBytes(txHandle);
        }

        @Override
        public void completionListener(IntConsumer listener) {
            tx.tokens(Objects.requireNonNull(listener, "listener"));
        }
    }

    @Override
    public PortCounters counters() {
        return counters;
    }

    /**
     * Stops the link: the endpoint's readiness signal is removed and the probe cancelled; a held frame goes back to
     * the card. The channels and the endpoint stay the kernel's (torn down by whoever set them up). Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        readiness = null;
        if (probe != null) {
            probe.cancel();
        }
        if (ep.isLive()) {
            ep.readinessListener(null);
            transmits.flush(); // frames committed still go out
            if (heldDescriptor >= 0) {
                rx.release(heldHandle);
                ep.release(heldDescriptor);
                heldDescriptor = -1;
                heldHandle = NONE;
            }
        }
    }

    // ------------------------------------------------------------------ checks

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
    }

    private void checkPeer(int peer) {
        if (peer < 0 || peer >= channelOf.length || peer == self) {
            throw new IllegalArgumentException(name + ": peer must be in [0, " + channelOf.length + ") and not this node ("
                    + self + ")" + (peer == BROADCAST ? "; U-Net has no broadcast (a channel is point to point)" : "")
                    + ", was " + peer);
        }
    }

    @Override
    public String toString() {
        return "U-Net link " + name + " (peer " + self + " of " + channelOf.length + ", " + ep + "): "
                + counters;
    }
}
