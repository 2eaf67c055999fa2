package io.nicbridge.protocols.traditional;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Clock;
import io.nicbridge.protocols.core.Guarantee;
import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.cstar.EventInbox;
import io.nicbridge.protocols.cstar.FragmentHandler;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * The traditional protocol of the C* network layer (Mosberger, Turner and Peterson, TR 94-14, section 5.2 and
 * Appendix A): optimistic, no explicit flow control, reliable over a link that drops, duplicates, reorders and
 * corrupts frames. Frames: {@link TraditionalWire}.
 *
 * <h2>Send</h2>
 * Every fragment gets a <em>fragment descriptor</em> with a backup copy of its bytes (the protocol must be able to
 * resend it after the application has reused its buffer) and a sequence number on its <em>channel</em>: one per
 * destination, one for this node's broadcasts. The descriptor lives until every destination has acknowledged the
 * fragment (its <em>ACK mask</em>: one bit per destination still to acknowledge). None free, or the channel's
 * numbers a whole descriptor pool ahead of its oldest unacknowledged one, or the event ring full: {@code send}
 * answers {@link #BACK_PRESSURE}. Events are kept in a cyclic buffer of <em>event slots</em> that also records
 * whether this node's fragments of the event are point-to-point or broadcast.
 *
 * <h2>Acknowledgements</h2>
 * Implicit by default: every frame carries what its sender has received from its destination(s) (cumulative seq
 * and a selective mask per channel), so the reverse traffic that C*'s events create anyway acknowledges for free. A
 * fragment asks for an explicit, selective ACK ({@link TraditionalWire#F_ACK_REQ}) only when this node's
 * descriptors run low ({@link TraditionalConfig#ackLowWater()}) or when it belongs to a {@link #LARGE_EVENT} (an
 * event that may carry more than the descriptors hold; asking on only its last fragment makes the two-node flooding
 * test of Table 3 livelock at 10 x 16, asking on each keeps it completing as in the paper). A receiver that
 * refuses a fragment does not acknowledge it, so a slow receiver slows its sender: the protocol's only flow
 * control.
 *
 * <h2>Retransmission: the receiver asks</h2>
 * No timer per fragment. A receiver that sees a hole in a channel asks for it at once (an eager NAK, once per
 * hole); if that second copy is lost too, only its one timer asks again ({@link #nextDeadline()}): while it has a
 * hole, the application waits for an event not yet complete, or this node's own sends are held back for want of
 * acknowledgements, it broadcasts every {@link TraditionalConfig#timeoutNanos()} a NAK that asks every node for
 * everything it still holds for this one (and, in the last case, for an ACK). The same timer retries a link that
 * refused a claim while frames wait to go, for links that find "writable" only by looking. Duplicates and frames older than a
 * channel's window are dropped; a corrupt frame (CRC-32C) is dropped and counted.
 *
 * <h2>Receive side</h2>
 * Accepted fragments stay in place in the link's (on-board) receive buffers, or are copied out into host memory when
 * more than {@link TraditionalConfig#copyOutThreshold()} are held on board; once
 * {@link TraditionalConfig#highLoad()} are held, fragments of events later than the oldest the node still needs
 * (low priority) are refused, so that the fragments it needs next find a buffer. One level of demultiplexing: the
 * link's peer number and the frame's channel flag name the state, nothing else is looked up. On a link that
 * {@linkplain Link#receivesInOrder() receives in order} (the 21140's descriptor ring) nothing may stay in place: a
 * held buffer stops the chip when it comes round the ring to it, however many others are free, and a node waiting
 * out a loss (a card reset's, say) while the others' timeouts keep the segment busy then never receives the
 * retransmission it waits for (found by {@code 42/4/13/reset@0:256131} on the Ethernet: node 1 held 6 fragments of
 * later events, the chip wrapped onto one of them after 128 frames and missed the next 777). So there every accepted
 * fragment is copied out at once, a fragment that finds no host buffer is refused (and asked for again), and the
 * high-load mark applies to the host buffers alone.
 *
 * <p><b>Host work</b>: each Appendix A operation is a {@link HostCpu.Operation} named
 * {@code traditional.<name>} (see {@link TraditionalOperations}) charged where it is done; the backup copy, the
 * copy into the link's buffer and the copy-out as {@link CostItem#COPY}, the CRC as {@link CostItem#CHECKSUM}.
 * Nothing allocates after construction.
 *
 * <p>Declared guarantees: {@link Guarantee#EXACTLY_ONCE}, {@link Guarantee#PROGRESS} (once frames stop being lost,
 * every fragment arrives: timeouts repeat without limit while something is missing),
 * {@link Guarantee#BOUNDED_MEMORY}. Not {@link Guarantee#PER_PEER_ORDER}: C* delivers in no order within an event.
 * Livelock under flooding (receivers that consume only after many events) is a property of the design, not a bug:
 * see the paper's Table 3.
 */
public final class TraditionalCore implements CStarNetwork {
    private static final Set<Guarantee> GUARANTEES =
            EnumSet.of(Guarantee.EXACTLY_ONCE, Guarantee.PROGRESS, Guarantee.BOUNDED_MEMORY);
    /** A receive channel tracks this many seqs from its cumulative point (bit i = seq cum + i arrived). */
    static final int TRACK = 64;
    private static final byte KIND_NONE = 0;
    private static final byte KIND_P2P = 1;
    private static final byte KIND_BCAST = 2;

    private final Link link;
    private final Clock clock;
    private final HostCpu cpu;
    private final TraditionalConfig config;
    private final TraditionalOperations ops;
    private final TraditionalCounters counters = new TraditionalCounters();
    private final EventInbox inbox;
    private final int self;
    private final int nodes;
    private final int maxFragment;
    private final long others;
    private final boolean canBroadcast;
    /**
     * The link receives in order ({@link Link#receivesInOrder()}: a descriptor ring, a receive queue): a fragment
     * kept in its receive buffer would stop reception once the card came round to it, so every accepted fragment is
     * copied out at once, and one that finds no host buffer is refused (asked for again later).
     */
    private final boolean copyAtOnce;
    /** Fragments held on board beyond which the oldest is copied out: the config's, 0 on an in-order link. */
    private final int copyOutThreshold;
    /** Fragments held from which low-priority ones are refused: the config's, scaled to the host buffers alone on an
     *  in-order link (where nothing stays on board), so the fragments the application needs still find one. */
    private final int highLoad;

    // ---------------------------------------------------------------- send side: descriptors
    private final int descriptors;
    private final int ringMask;
    private final MemorySegment backup;
    private final int[] dChannel;
    private final int[] dSeq;
    private final int[] dEvent;
    private final int[] dFlags;
    private final int[] dFragNo;
    private final int[] dLength;
    /** Destinations still to acknowledge the fragment. */
    private final long[] dAckMask;
    /** Destinations the fragment waits to be (re)sent to, unicast. */
    private final long[] dResend;
    /** The first transmission is still to go out (the link refused a claim). */
    private final boolean[] dFirstPending;
    private final int[] freeStack;
    private int freeCount;
    /** The two bit sets over the descriptors: allocated, and queued for (re)transmission. */
    private final long[] allocatedBits;
    private final long[] queuedBits;
    private final int[] sendQueue;
    private int sendQueueHead;
    private int sendQueueCount;

    // ---------------------------------------------------------------- send side: channels (index self = broadcast)
    private final int[] nextSeq;
    private final int[] baseSeq;
    private final int[][] ring;
    /** Per destination: the cumulative point it has acknowledged on the unicast channel, and on the broadcast one. */
    private final int[] uniAcked;
    private final int[] bcastAcked;

    // ---------------------------------------------------------------- send side: events
    private final int[] slotEvent;
    private final int[] slotOutstanding;
    private final byte[] slotKind;
    private final int eventMask;
    private boolean sentAny;
    private int lastEvent;
    private final int[] fragCount;
    private final boolean[] lastFragSent;

    // ---------------------------------------------------------------- receive side: channels per source
    private final int[] rxUniCum;
    private final long[] rxUniSeen;
    private final int[] rxUniNaked;
    private final int[] rxBcastCum;
    private final long[] rxBcastSeen;
    private final int[] rxBcastNaked;
    private final boolean[] ackOwed;
    private final int[] nakUniLimit;
    private final int[] nakBcastLimit;
    private final boolean[] nakOwed;

    // ---------------------------------------------------------------- timer, waiting, scratch
    private long deadline = NO_DEADLINE;
    private boolean appWaiting;
    private boolean appWaitedEver;
    private int neededEvent;
    private boolean wantAcks;
    private boolean linkBlocked;
    private final byte[] crcScratch;
    private final CRC32C crc = new CRC32C();

    /**
     * @param link  the link to every node (its peers are the cluster's nodes; P up to 62)
     * @param clock the only time the core reads
     * @param cpu   the node's CPU, charged with the protocol's operations, copies and checksums
     * @throws IllegalArgumentException when the link's frames cannot hold a fragment of {@code maxFragment} bytes
     *                                  behind the largest header, or the cluster has more than 62 nodes
     */
    public TraditionalCore(Link link, Clock clock, HostCpu cpu, TraditionalConfig config) {
        this.link = Objects.requireNonNull(link, "link");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.cpu = Objects.requireNonNull(cpu, "cpu");
        this.config = Objects.requireNonNull(config, "config");
        this.self = link.self();
        this.nodes = link.peers();
        if (nodes < 2 || nodes > 62) {
            throw new IllegalArgumentException("a C* cluster has 2 .. 62 nodes, link " + link.name() + " has " + nodes);
        }
        this.maxFragment = config.maxFragment();
        int header = TraditionalWire.headerLength(nodes - 1);
        if (link.mtu() < header + maxFragment) {
            throw new IllegalArgumentException("link " + link.name() + " carries " + link.mtu() + " bytes, less than a "
                    + maxFragment + "-byte fragment behind the " + header + "-byte header of " + nodes + " nodes");
        }
        this.copyAtOnce = link.receivesInOrder();
        if (copyAtOnce && config.hostBuffers() == 0) {
            throw new IllegalArgumentException("link " + link.name() + " receives in order, so every fragment is"
                    + " copied out at once: the config needs hostBuffers > 0");
        }
        this.copyOutThreshold = copyAtOnce ? 0 : config.copyOutThreshold();
        this.highLoad = copyAtOnce
                ? Math.max(1, (int) ((long) config.highLoad() * config.hostBuffers()
                        / (config.receiveBuffers() + config.hostBuffers())))
                : config.highLoad();
        this.ops = new TraditionalOperations(cpu);
        this.inbox = new EventInbox(link, cpu, nodes, config.eventSlots(), config.receiveBuffers(),
                config.hostBuffers(), Math.max(1, maxFragment));
        this.others = ((1L << nodes) - 1) & ~(1L << self);
        this.canBroadcast = link.canBroadcast();
        descriptors = config.descriptors();
        ringMask = descriptors - 1;
        backup = MemorySegment.ofArray(new byte[Math.max(1, descriptors * maxFragment)]);
        dChannel = new int[descriptors];
        dSeq = new int[descriptors];
        dEvent = new int[descriptors];
        dFlags = new int[descriptors];
        dFragNo = new int[descriptors];
        dLength = new int[descriptors];
        dAckMask = new long[descriptors];
        dResend = new long[descriptors];
        dFirstPending = new boolean[descriptors];
        freeStack = new int[descriptors];
        for (int d = 0; d < descriptors; d++) {
            freeStack[d] = descriptors - 1 - d;
        }
        freeCount = descriptors;
        allocatedBits = new long[(descriptors + 63) / 64];
        queuedBits = new long[(descriptors + 63) / 64];
        sendQueue = new int[descriptors];
        nextSeq = new int[nodes];
        baseSeq = new int[nodes];
        ring = new int[nodes][];
        for (int c = 0; c < nodes; c++) {
            ring[c] = new int[descriptors];
            Arrays.fill(ring[c], -1);
        }
        uniAcked = new int[nodes];
        bcastAcked = new int[nodes];
        slotEvent = new int[config.eventSlots()];
        slotOutstanding = new int[config.eventSlots()];
        slotKind = new byte[config.eventSlots()];
        eventMask = config.eventSlots() - 1;
        fragCount = new int[nodes];
        lastFragSent = new boolean[nodes];
        rxUniCum = new int[nodes];
        rxUniSeen = new long[nodes];
        rxUniNaked = new int[nodes];
        rxBcastCum = new int[nodes];
        rxBcastSeen = new long[nodes];
        rxBcastNaked = new int[nodes];
        ackOwed = new boolean[nodes];
        nakUniLimit = new int[nodes];
        nakBcastLimit = new int[nodes];
        nakOwed = new boolean[nodes];
        crcScratch = new byte[link.mtu()];
    }

    // =============================================================================================== application API

    @Override
    public int send(int dst, int event, MemorySegment frag, long offset, int length, int flags) {
        boolean broadcast = dst == BROADCAST;
        if (!broadcast && (dst < 0 || dst >= nodes || dst == self)) {
            throw new IllegalArgumentException("dst must be BROADCAST or a node in [0, " + nodes + ") other than this one ("
                    + self + "), was " + dst);
        }
        if (length < 0 || length > maxFragment) {
            throw new IllegalArgumentException("length must be in [0, " + maxFragment + "], was " + length);
        }
        if ((flags & ~(LAST_FRAG | BCAST_EVENT | LARGE_EVENT)) != 0) {
            throw new IllegalArgumentException("unknown flag bits 0x"
                    + Integer.toHexString(flags & ~(LAST_FRAG | BCAST_EVENT | LARGE_EVENT)));
        }
        if (event < 0) {
            throw new IllegalArgumentException("event must be >= 0, was " + event);
        }
        Objects.requireNonNull(frag, "frag");
        int channel = broadcast ? self : dst;
        // get-tx-event-slot: validates the event number and checks the slot, before anything changes
        ops.getTxEventSlot.charge();
        int slot = txEventSlot(dst, event);
        if (slot < 0) {
            counters.backPressure++;
            wantAcks = true;
            updateTimer();
            return BACK_PRESSURE; // the ring wraps onto an event with unacknowledged fragments
        }
        ops.decideAckFlag.charge();
        int wireFlags = decideAckFlag(dst, flags);
        if (freeCount == 0 || nextSeq[channel] - baseSeq[channel] >= descriptors) {
            counters.backPressure++;
            wantAcks = true;
            updateTimer();
            return BACK_PRESSURE;
        }
        takeEventSlot(dst, event, slot);
        // fill-fragment-descriptor: allocate one, keep the backup copy
        ops.fillFragmentDescriptor.charge();
        int d = fillFragmentDescriptor(channel, event, wireFlags, length);
        MemorySegment.copy(frag, offset, backup, (long) d * maxFragment, length);
        cpu.charge(CostItem.COPY, length);
        if ((flags & LAST_FRAG) != 0) {
            lastFragSent[channel] = true;
        }
        ops.setAckMask.charge();
        setAckMask(d, dst, slot);
        ops.pushFragmentDescriptor.charge();
        pushFragmentDescriptor(d);
        ops.checkBitset.charge();
        markAllocated(d);
        counters.fragmentsSent++;
        // collect-tx-buffers: earlier (re)transmissions the link refused go first
        ops.collectTxBuffers.charge();
        pumpQueue();
        if (linkBlocked || sendQueueCount > 0 || (broadcast && !canBroadcast)) {
            dFirstPending[d] = broadcast && canBroadcast;
            dResend[d] = dFirstPending[d] ? 0 : dAckMask[d];
            enqueue(d);
        } else if (!transmit(d, broadcast ? Link.BROADCAST : dst)) {
            dFirstPending[d] = broadcast;
            dResend[d] = broadcast ? 0 : dAckMask[d];
            enqueue(d);
        }
        ops.checkBitset.charge();
        updateTimer();
        return OK;
    }

    // ---------------------------------------------------------------- Appendix A operations, send side
    // Package-private so that TraditionalAppendixA can benchmark exactly this code; the caller charges each.

    /**
     * Appendix A get-tx-event-slot, its check: the event number is valid for this node and its slot usable.
     *
     * @return the event's slot, or -1 when the ring wraps onto an event with unacknowledged fragments
     * @throws IllegalArgumentException when the event is below one already sent, or mixes kinds or follows LAST_FRAG
     */
    int txEventSlot(int dst, int event) {
        boolean broadcast = dst == BROADCAST;
        byte kind = broadcast ? KIND_BCAST : KIND_P2P;
        int slot = event & eventMask;
        boolean newEvent = !sentAny || event != lastEvent;
        if (sentAny && event < lastEvent) {
            throw new IllegalArgumentException("event " + event + " is lower than event " + lastEvent
                    + " this node has already sent for");
        }
        if (!newEvent) {
            if (slotKind[slot] != kind) {
                throw new IllegalArgumentException("event " + event + ": this node's fragments are "
                        + (slotKind[slot] == KIND_BCAST ? "broadcast" : "point-to-point") + ", not "
                        + (broadcast ? "broadcast" : "point-to-point") + " (one kind per node and event)");
            }
            if (lastFragSent[broadcast ? self : dst]) {
                throw new IllegalArgumentException("event " + event + ": LAST_FRAG was already sent to "
                        + (broadcast ? "every node" : "node " + dst));
            }
        } else if (slotOutstanding[slot] > 0) {
            return -1;
        }
        return slot;
    }

    /** Appendix A get-tx-event-slot, its store: a new event takes its slot, which records its kind. */
    void takeEventSlot(int dst, int event, int slot) {
        if (!sentAny || event != lastEvent) {
            sentAny = true;
            lastEvent = event;
            slotEvent[slot] = event;
            slotOutstanding[slot] = 0;
            slotKind[slot] = dst == BROADCAST ? KIND_BCAST : KIND_P2P;
            Arrays.fill(fragCount, 0);
            Arrays.fill(lastFragSent, false);
        }
    }

    /** Appendix A decide-ack-flag: @return the frame's flags, asking for an explicit ACK only when needed */
    int decideAckFlag(int dst, int flags) {
        int wireFlags = (flags & (LAST_FRAG | BCAST_EVENT | LARGE_EVENT))
                | (dst == BROADCAST ? TraditionalWire.F_BCAST_CHANNEL : 0);
        if (freeCount <= config.ackLowWater() || (flags & LARGE_EVENT) != 0) {
            wireFlags |= TraditionalWire.F_ACK_REQ;
        }
        return wireFlags;
    }

    /**
     * Appendix A fill-fragment-descriptor: allocates a descriptor (one must be free) and numbers the fragment on
     * its channel; the caller copies the bytes into its backup slot.
     *
     * @return the descriptor
     */
    int fillFragmentDescriptor(int channel, int event, int wireFlags, int length) {
        int d = freeStack[--freeCount];
        int seq = nextSeq[channel]++;
        dChannel[d] = channel;
        dSeq[d] = seq;
        dEvent[d] = event;
        dFlags[d] = wireFlags;
        dFragNo[d] = fragCount[channel]++;
        dLength[d] = length;
        return d;
    }

    /** Appendix A set-ack-mask: the destinations whose acknowledgement frees the descriptor. */
    void setAckMask(int d, int dst, int slot) {
        dAckMask[d] = dst == BROADCAST ? others : 1L << dst;
        slotOutstanding[slot]++;
    }

    /** Appendix A push-fragment-descriptor: onto its channel's ring, by seq. */
    void pushFragmentDescriptor(int d) {
        ring[dChannel[d]][dSeq[d] & ringMask] = d;
    }

    /** @return the fragment descriptors this core has */
    int descriptorCount() {
        return descriptors;
    }

    /** @return the seq of descriptor {@code d} on its channel (for TraditionalAppendixA's acknowledgements) */
    int seqOf(int d) {
        return dSeq[d];
    }

    /** @return the cumulative point of {@code src}'s unicast channel: every seq below it has arrived */
    int receivedThrough(int src) {
        return rxUniCum[src];
    }

    /** Appendix A check-bitset (send): marks the descriptor allocated. */
    void markAllocated(int d) {
        setBit(allocatedBits, d);
    }

    @Override
    public int receive(int src, int event, FragmentHandler handler) {
        if (src != ANY && (src < 0 || src >= nodes || src == self)) {
            throw new IllegalArgumentException("src must be ANY or a node in [0, " + nodes + ") other than this one ("
                    + self + "), was " + src);
        }
        Objects.requireNonNull(handler, "handler");
        if (!appWaitedEver || event - neededEvent > 0) {
            neededEvent = event;
            appWaitedEver = true;
        }
        if (event < 0) {
            throw new IllegalArgumentException("event must be >= 0, was " + event);
        }
        int status = inbox.take(src, event, handler);
        appWaiting = status == NOTHING;
        updateTimer();
        return status;
    }

    @Override
    public int maxFragment() {
        return maxFragment;
    }

    @Override
    public int nodes() {
        return nodes;
    }

    @Override
    public int self() {
        return self;
    }

    /**
     * @return fragments that arrived intact but could not be filed for the application: a sender broke the C* rules
     *     (a second source in a non-crowd event, a fragment beyond its LAST_FRAG); everything a lossy link does is
     *     recovered from and not counted here
     */
    @Override
    public long violations() {
        return counters.unfileable;
    }

    public TraditionalCounters counters() {
        return counters;
    }

    /** @return fragments held in the link's receive buffers now (0 on a link that receives in order) */
    public int heldInPlace() {
        return inbox.inPlace();
    }

    /** @return fragment descriptors in use (sent, not yet acknowledged by every destination) */
    public int descriptorsInUse() {
        return descriptors - freeCount;
    }

    // =============================================================================================== events

    @Override
    public void onFrame(Link from, int rxHandle) {
        counters.framesReceived++;
        ops.maintainBufferCounter.charge();
        int length = from.rxLength(rxHandle);
        int src = from.rxPeer(rxHandle);
        MemorySegment b = from.rxBuffer(rxHandle);
        if (length < TraditionalWire.HEADER || src < 0 || src >= nodes || src == self
                || b.get(ValueLayout.JAVA_BYTE, TraditionalWire.OFF_MAGIC) != TraditionalWire.MAGIC) {
            malformed(from, rxHandle);
            return;
        }
        byte type = b.get(ValueLayout.JAVA_BYTE, TraditionalWire.OFF_TYPE);
        int flags = b.get(ValueLayout.JAVA_BYTE, TraditionalWire.OFF_FLAGS) & 0xFF;
        int entries = b.get(ValueLayout.JAVA_BYTE, TraditionalWire.OFF_ACKS) & 0xFF;
        int payload = Short.toUnsignedInt(b.get(TraditionalWire.U16, TraditionalWire.OFF_LENGTH));
        int header = TraditionalWire.headerLength(entries);
        if (type < TraditionalWire.DATA || type > TraditionalWire.NAK || entries >= nodes
                || header + payload != length || (type != TraditionalWire.DATA && payload != 0)
                || payload > maxFragment) {
            malformed(from, rxHandle);
            return;
        }
        cpu.charge(CostItem.CHECKSUM, length - 4);
        if (b.get(TraditionalWire.U32, TraditionalWire.OFF_CRC) != TraditionalWire.crc(crc, b, length, crcScratch)) {
            counters.corrupt++;
            from.release(rxHandle);
            return;
        }
        int seq = b.get(TraditionalWire.U32, TraditionalWire.OFF_SEQ);
        int event = b.get(TraditionalWire.U32, TraditionalWire.OFF_EVENT);
        // implicit-ack: what the frame says src has received from this node frees descriptors
        ops.implicitAck.charge();
        implicitAck(b, src, type, entries, seq, event);
        if (type != TraditionalWire.DATA) {
            if ((flags & TraditionalWire.F_ACK_REQ) != 0) {
                ackOwed[src] = true;
            }
            from.release(rxHandle);
            flush();
            return;
        }
        received(from, rxHandle, src, flags, seq, event, header, payload);
        flush();
    }

    @Override
    public void onWritable(Link from) {
        linkBlocked = false;
        flush();
    }

    @Override
    public void onTimer() {
        long now = clock.nanoTime();
        if (deadline > now) {
            return;
        }
        counters.timeouts++;
        deadline = NO_DEADLINE;
        linkBlocked = false; // a link that finds "writable" only by looking (U-Net) may never say so: try again
        if (missingSomething() || wantAcks) {
            // the one timer: ask every node for everything it still holds for this one (and for an ACK)
            if (sendControl(Link.BROADCAST, TraditionalWire.NAK, wantAcks ? TraditionalWire.F_ACK_REQ : 0,
                    TraditionalWire.ALL, TraditionalWire.ALL)) {
                counters.timeoutNaks++;
                if (wantAcks) {
                    counters.ackRequests++;
                }
            }
            deadline = now + config.timeoutNanos();
        }
        flush();
    }

    @Override
    public long nextDeadline() {
        return deadline;
    }

    @Override
    public Set<Guarantee> guarantees() {
        return GUARANTEES;
    }

    /** @return fragments held: descriptors awaiting acknowledgement plus fragments arrived and not yet taken */
    @Override
    public int bufferedMessages() {
        return descriptorsInUse() + inbox.held();
    }

    @Override
    public int bufferCapacity() {
        return descriptors + config.receiveBuffers() + config.hostBuffers();
    }

    /**
     * Appendix A implicit-ack: what a frame from {@code src} says it has received from this node frees the
     * descriptors it covers (and a NAK queues what it lacks).
     */
    void implicitAck(MemorySegment b, int src, byte type, int entries, int seq, int event) {
        for (int i = 0; i < entries; i++) {
            long at = TraditionalWire.HEADER + (long) i * TraditionalWire.ENTRY;
            if (Short.toUnsignedInt(b.get(TraditionalWire.U16, at + TraditionalWire.E_NODE)) == self) {
                int uniCum = b.get(TraditionalWire.U32, at + TraditionalWire.E_UNI_CUM);
                int uniMask = b.get(TraditionalWire.U32, at + TraditionalWire.E_UNI_MASK);
                int bcastCum = b.get(TraditionalWire.U32, at + TraditionalWire.E_BCAST_CUM);
                int bcastMask = b.get(TraditionalWire.U32, at + TraditionalWire.E_BCAST_MASK);
                acknowledged(src, uniCum, uniMask, bcastCum, bcastMask);
                if (type == TraditionalWire.NAK) {
                    retransmitRequested(src, uniCum, uniMask, seq, bcastCum, bcastMask, event);
                }
            }
        }
    }

    // =============================================================================================== receive path

    private void received(Link from, int rxHandle, int src, int flags, int seq, int event, int header, int payload) {
        boolean bcastChannel = (flags & TraditionalWire.F_BCAST_CHANNEL) != 0;
        // check-all-to-all: who sends to this node in the event; the inbox files the crowd flag with the event
        ops.checkAllToAll.charge();
        int serviceFlags = serviceFlags(flags);
        // fragment-priority: a heavily loaded node keeps its buffers for the event the application needs
        ops.fragmentPriority.charge();
        if (!acceptable(event)) {
            counters.refusedLowPriority++;
            from.release(rxHandle);
            return;
        }
        // check-fragment-number: a duplicate or a frame beyond the channel's window is dropped
        ops.checkFragmentNumber.charge();
        int ahead = fragmentAhead(src, bcastChannel, seq);
        if (ahead < 0) {
            counters.duplicates++;
            ackOwed[src] = true; // the sender lacks our acknowledgement: give it one
            from.release(rxHandle);
            return;
        }
        if (ahead >= TRACK || event < 0) {
            counters.outOfWindow++;
            from.release(rxHandle);
            return;
        }
        // check-retransmission: a hole below this seq is asked for at once, once
        ops.checkRetransmission.charge();
        checkRetransmission(src, bcastChannel, seq, ahead);
        int fragNo = Short.toUnsignedInt(from.rxBuffer(rxHandle).get(TraditionalWire.U16,
                TraditionalWire.OFF_FRAG_NO));
        int filed = copyAtOnce && inbox.freeHostBuffers() == 0 ? EventInbox.FULL
                : inbox.add(src, event, fragNo, serviceFlags, rxHandle, header, payload);
        if (filed == EventInbox.FULL || filed == EventInbox.SLOT_BUSY) {
            counters.refusedNoBuffer++; // not recorded as arrived: asked for again later
            from.release(rxHandle);
            return;
        }
        if (filed != EventInbox.ADDED) {
            counters.unfileable++; // intact but against the C* rules: recorded, reported, never delivered
            from.release(rxHandle);
        } else {
            counters.accepted++;
        }
        recordArrival(src, bcastChannel, ahead);
        ops.checkExplicitAck.charge();
        checkExplicitAck(src, flags);
        // check-copy-out: beyond the threshold the oldest fragment on board moves to host memory
        ops.checkCopyOut.charge();
        checkCopyOut();
        // check-complete: the application waiting for this event has something to take: its wait is over
        ops.checkComplete.charge();
        checkComplete(event);
    }

    // ---------------------------------------------------------------- Appendix A operations, interrupt side
    // Package-private so that TraditionalAppendixA can benchmark exactly this code; the caller charges each.

    /** Appendix A check-all-to-all: the service flags (crowd, broadcast event) the inbox files with the event. */
    static int serviceFlags(int flags) {
        return flags & (LAST_FRAG | BCAST_EVENT | LARGE_EVENT);
    }

    /** Appendix A fragment-priority: @return false when a loaded node refuses a fragment of a later event */
    boolean acceptable(int event) {
        boolean high = appWaitedEver && event - neededEvent <= 0;
        return high || inbox.held() < highLoad;
    }

    /**
     * Appendix A check-fragment-number, the check.
     *
     * @return how far {@code seq} lies beyond the channel's cumulative point: in [0, TRACK) for a new fragment,
     *     TRACK or more beyond the window, -1 for a duplicate
     */
    int fragmentAhead(int src, boolean bcastChannel, int seq) {
        int cum = bcastChannel ? rxBcastCum[src] : rxUniCum[src];
        long seen = bcastChannel ? rxBcastSeen[src] : rxUniSeen[src];
        int ahead = seq - cum;
        if (ahead < 0 || (ahead < TRACK && (seen & (1L << ahead)) != 0)) {
            return -1;
        }
        return ahead;
    }

    /** Appendix A check-fragment-number, the update: the fragment {@code ahead} of the cumulative point arrived. */
    void recordArrival(int src, boolean bcastChannel, int ahead) {
        int cum = bcastChannel ? rxBcastCum[src] : rxUniCum[src];
        long seen = bcastChannel ? rxBcastSeen[src] : rxUniSeen[src];
        seen |= 1L << ahead;
        while ((seen & 1L) != 0) {
            seen >>>= 1;
            cum++;
        }
        if (bcastChannel) {
            rxBcastCum[src] = cum;
            rxBcastSeen[src] = seen;
        } else {
            rxUniCum[src] = cum;
            rxUniSeen[src] = seen;
        }
    }

    /** Appendix A check-retransmission: a hole below this seq is asked for at once, once. */
    void checkRetransmission(int src, boolean bcastChannel, int seq, int ahead) {
        if (ahead > 0) {
            eagerNak(src, bcastChannel, seq);
        }
    }

    /** Appendix A check-explicit-ack. */
    void checkExplicitAck(int src, int flags) {
        if ((flags & TraditionalWire.F_ACK_REQ) != 0) {
            ackOwed[src] = true;
        }
    }

    /** Appendix A check-copy-out: beyond the threshold the oldest fragments on board move to host memory. */
    void checkCopyOut() {
        while (inbox.inPlace() > copyOutThreshold && inbox.copyOutOldest() >= 0) {
            counters.copiedOut++;
        }
    }

    /** Appendix A check-complete: the application waiting for this event has something to take. */
    void checkComplete(int event) {
        if (appWaiting && event == neededEvent) {
            appWaiting = false;
        }
    }

    /** Records an eager retransmission request for the hole below {@code seq} on src's channel, once per hole. */
    private void eagerNak(int src, boolean bcastChannel, int seq) {
        int naked = bcastChannel ? rxBcastNaked[src] : rxUniNaked[src];
        if (seq - naked <= 0) {
            return; // asked already: only the timeout asks again
        }
        if (!nakOwed[src]) {
            nakUniLimit[src] = rxUniCum[src];
            nakBcastLimit[src] = rxBcastCum[src];
        }
        if (bcastChannel) {
            rxBcastNaked[src] = seq;
            if (seq - nakBcastLimit[src] > 0) {
                nakBcastLimit[src] = seq;
            }
        } else {
            rxUniNaked[src] = seq;
            if (seq - nakUniLimit[src] > 0) {
                nakUniLimit[src] = seq;
            }
        }
        nakOwed[src] = true;
    }

    private void malformed(Link from, int rxHandle) {
        counters.malformed++;
        from.release(rxHandle);
    }

    /** @return true while this node lacks a fragment: a hole in a channel, or the application waits */
    private boolean missingSomething() {
        if (appWaiting) {
            return true;
        }
        for (int s = 0; s < nodes; s++) {
            if (rxUniSeen[s] != 0 || rxBcastSeen[s] != 0) {
                return true;
            }
        }
        return false;
    }

    private void updateTimer() {
        boolean wanted = wantAcks || missingSomething() || (linkBlocked && sendQueueCount > 0);
        if (!wanted) {
            deadline = NO_DEADLINE;
        } else if (deadline == NO_DEADLINE) {
            deadline = clock.nanoTime() + config.timeoutNanos();
        }
    }

    // =============================================================================================== acknowledgements

    /** What {@code from} says it has received from this node: frees the descriptors it covers. */
    private void acknowledged(int from, int uniCum, int uniMask, int bcastCum, int bcastMask) {
        // unicast channel to `from`: every seq below uniCum, and the masked ones above
        if (uniCum - uniAcked[from] > 0 && uniCum - nextSeq[from] <= 0) {
            for (int s = uniAcked[from]; s != uniCum; s++) {
                ackOne(from, s, from);
            }
            uniAcked[from] = uniCum;
        }
        for (int m = uniMask, j; m != 0; m &= m - 1) {
            j = Integer.numberOfTrailingZeros(m);
            int s = uniCum + 1 + j;
            if (s - nextSeq[from] < 0 && s - uniAcked[from] >= 0) {
                ackOne(from, s, from);
            }
        }
        if (bcastCum - bcastAcked[from] > 0 && bcastCum - nextSeq[self] <= 0) {
            for (int s = bcastAcked[from]; s != bcastCum; s++) {
                ackOne(self, s, from);
            }
            bcastAcked[from] = bcastCum;
        }
        for (int m = bcastMask, j; m != 0; m &= m - 1) {
            j = Integer.numberOfTrailingZeros(m);
            int s = bcastCum + 1 + j;
            if (s - nextSeq[self] < 0 && s - bcastAcked[from] >= 0) {
                ackOne(self, s, from);
            }
        }
        advanceBase(from);
        advanceBase(self);
    }

    private void ackOne(int channel, int seq, int by) {
        if (seq - baseSeq[channel] < 0) {
            return;
        }
        int d = ring[channel][seq & ringMask];
        if (d < 0 || dSeq[d] != seq || dChannel[d] != channel) {
            return;
        }
        dAckMask[d] &= ~(1L << by);
        dResend[d] &= ~(1L << by);
        if (dAckMask[d] == 0) {
            freeDescriptor(d);
        }
    }

    private void freeDescriptor(int d) {
        int c = dChannel[d];
        ring[c][dSeq[d] & ringMask] = -1;
        slotOutstanding[dEvent[d] & eventMask]--;
        clearBit(allocatedBits, d);
        dResend[d] = 0;
        dFirstPending[d] = false;
        freeStack[freeCount++] = d;
        counters.descriptorsFreed++;
        if (wantAcks) {
            wantAcks = false; // a later refused send asks again
        }
    }

    private void advanceBase(int channel) {
        int[] r = ring[channel];
        while (baseSeq[channel] != nextSeq[channel] && r[baseSeq[channel] & ringMask] < 0) {
            baseSeq[channel]++;
        }
    }

    /** A NAK from {@code from}: queue what it lacks below the limits for a unicast retransmission to it. */
    private void retransmitRequested(int from, int uniCum, int uniMask, int uniLimit, int bcastCum, int bcastMask,
                                     int bcastLimit) {
        requeue(from, from, uniCum, uniMask, uniLimit);
        requeue(self, from, bcastCum, bcastMask, bcastLimit);
    }

    private void requeue(int channel, int to, int cum, int mask, int limit) {
        int first = baseSeq[channel];
        if (cum - first > 0) {
            first = cum;
        }
        int end = nextSeq[channel];
        if (limit != TraditionalWire.ALL && limit - end < 0) {
            end = limit;
        }
        for (int s = first; s - end < 0; s++) {
            int j = s - cum - 1;
            if (j >= 0 && j < 32 && (mask & (1 << j)) != 0) {
                continue;
            }
            int d = ring[channel][s & ringMask];
            if (d >= 0 && dSeq[d] == s && (dAckMask[d] & (1L << to)) != 0) {
                dResend[d] |= 1L << to;
                enqueue(d);
            }
        }
    }

    // =============================================================================================== transmission

    /** Sends what is owed: queued (re)transmissions, eager NAKs, explicit ACKs. */
    private void flush() {
        for (int n = 0; n < nodes && !linkBlocked; n++) {
            if (nakOwed[n]) {
                if (!sendControl(n, TraditionalWire.NAK, 0, nakUniLimit[n], nakBcastLimit[n])) {
                    break;
                }
                nakOwed[n] = false;
                counters.naksSent++;
            }
            if (ackOwed[n]) {
                if (!sendControl(n, TraditionalWire.ACK, 0, 0, 0)) {
                    break;
                }
                ackOwed[n] = false;
                counters.acksSent++;
            }
        }
        pumpQueue();
        updateTimer();
    }

    private void enqueue(int d) {
        ops.checkBitset.charge();
        if (getBit(queuedBits, d)) {
            return;
        }
        setBit(queuedBits, d);
        sendQueue[(sendQueueHead + sendQueueCount) & ringMask] = d;
        sendQueueCount++;
    }

    /** Works the queue of descriptors waiting for the link, oldest first, until it is empty or the link is full. */
    void pumpQueue() {
        while (sendQueueCount > 0 && !linkBlocked) {
            int d = sendQueue[sendQueueHead];
            if (getBit(allocatedBits, d)) {
                if (dFirstPending[d]) {
                    if (!transmit(d, Link.BROADCAST)) {
                        return;
                    }
                    dFirstPending[d] = false;
                }
                while (dResend[d] != 0) {
                    int to = Long.numberOfTrailingZeros(dResend[d]);
                    if (!transmit(d, to)) {
                        return;
                    }
                    dResend[d] &= ~(1L << to);
                    counters.retransmitted++;
                }
            }
            clearBit(queuedBits, d);
            sendQueueHead = (sendQueueHead + 1) & ringMask;
            sendQueueCount--;
        }
    }

    /** @return false when the link refused the claim (the core waits for onWritable) */
    private boolean transmit(int d, int to) {
        int h = link.claim(to);
        if (h == Link.NONE) {
            linkBlocked = true;
            counters.linkBackPressure++;
            return false;
        }
        MemorySegment f = link.txBuffer(h);
        int entries = writeAcks(f, to);
        int header = TraditionalWire.headerLength(entries);
        int flags = dFlags[d];
        if (freeCount <= config.ackLowWater()) {
            flags |= TraditionalWire.F_ACK_REQ; // decided again: the buffer space may have run low since
        }
        TraditionalWire.writeHeader(f, TraditionalWire.DATA, flags, entries, dSeq[d], dEvent[d], dFragNo[d],
                dLength[d]);
        MemorySegment.copy(backup, (long) d * maxFragment, f, header, dLength[d]);
        cpu.charge(CostItem.COPY, dLength[d]);
        commit(h, f, header + dLength[d]);
        return true;
    }

    /** @return false when the link refused the claim */
    private boolean sendControl(int to, byte type, int flags, int uniLimit, int bcastLimit) {
        if (to == Link.BROADCAST && !canBroadcast) {
            boolean all = true;
            for (int n = 0; n < nodes; n++) {
                if (n != self) {
                    all &= sendControl(n, type, flags, uniLimit, bcastLimit);
                }
            }
            return all;
        }
        int h = link.claim(to);
        if (h == Link.NONE) {
            linkBlocked = true;
            counters.linkBackPressure++;
            return false;
        }
        MemorySegment f = link.txBuffer(h);
        int entries = writeAcks(f, to);
        TraditionalWire.writeHeader(f, type, flags, entries, uniLimit, bcastLimit, 0, 0);
        commit(h, f, TraditionalWire.headerLength(entries));
        return true;
    }

    private void commit(int h, MemorySegment f, int length) {
        f.set(TraditionalWire.U32, TraditionalWire.OFF_CRC, TraditionalWire.crc(crc, f, length, crcScratch));
        cpu.charge(CostItem.CHECKSUM, length - 4);
        link.commit(h, length);
    }

    /** Writes this node's receive state for {@code to} (or for every other node): the implicit acknowledgements. */
    private int writeAcks(MemorySegment f, int to) {
        if (to != Link.BROADCAST) {
            writeEntry(f, 0, to);
            ackOwed[to] = false; // any frame to it carries the acknowledgement
            return 1;
        }
        int i = 0;
        for (int n = 0; n < nodes; n++) {
            if (n != self) {
                writeEntry(f, i++, n);
                ackOwed[n] = false;
            }
        }
        return i;
    }

    private void writeEntry(MemorySegment f, int index, int node) {
        TraditionalWire.writeEntry(f, index, node, rxUniCum[node], (int) (rxUniSeen[node] >>> 1), rxBcastCum[node],
                (int) (rxBcastSeen[node] >>> 1));
    }

    // =============================================================================================== bit sets

    private static boolean getBit(long[] bits, int i) {
        return (bits[i >>> 6] & (1L << i)) != 0;
    }

    private static void setBit(long[] bits, int i) {
        bits[i >>> 6] |= 1L << i;
    }

    private static void clearBit(long[] bits, int i) {
        bits[i >>> 6] &= ~(1L << i);
    }

    @Override
    public String toString() {
        return "traditional core " + self + " of " + nodes + " on " + link.name() + ": " + counters;
    }
}
