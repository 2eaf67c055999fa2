package io.nicbridge.protocols.pupa;

import static io.nicbridge.protocols.pupa.PupaWire.FRAME_HEADER;
import static io.nicbridge.protocols.pupa.PupaWire.MESSAGE_HEADER;
import static io.nicbridge.protocols.pupa.PupaWire.U16;
import static io.nicbridge.protocols.pupa.PupaWire.U32;
import static io.nicbridge.protocols.pupa.PupaWire.U64;
import static io.nicbridge.protocols.pupa.PupaWire.UNLIMITED;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.TransmitBurst;
import io.nicbridge.bridge.time.Clock;
import io.nicbridge.protocols.core.BufferAudit;
import io.nicbridge.protocols.core.Guarantee;
import io.nicbridge.protocols.core.MessageCore;
import io.nicbridge.protocols.core.MessageHandler;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * Pupa's reliable communication layer (Chiueh and Verma, "Pupa: a low-latency communication system for Fast Ethernet",
 * section 2) as a sans-I/O core over a {@link Link}. The application calls ({@link #send}, {@link #offer},
 * {@link #deliver}) are the paper's user library; {@link #onFrame}, {@link #onTimer} and {@link #onWritable} are its
 * network interrupt handler and ACK timer. Frames: {@link PupaWire}.
 *
 * <h2>Buffers</h2>
 * Per peer a primary send FIFO and a primary receive FIFO ({@link PrimaryFifo}, 4 KiB, 63 entries of a 28-byte
 * message header plus 36 bytes), and two shared secondary pools ({@link BufferPool}, default 128 x 512 B to send,
 * 512 x 128 B to receive). A message is one entry per fragment (fragments carry at most
 * {@code min(1436, mtu - 48)} bytes). Sending, a body under 32 bytes goes into its entry, a longer one into a chain of
 * send-pool buffers. Receiving, a body under 32 bytes goes into the entry, one of 32 .. 128 bytes into a receive-pool
 * buffer, a longer one stays in the link's receive buffer (the paper's mbuf), held until the application takes it.
 * All of it lives in one off-heap segment allocated at construction; nothing on the hot paths allocates.
 *
 * <h2>Reliability</h2>
 * Sequence numbers per (sender, receiver) pair and fragment; the receiver accepts only the expected one (into the
 * FIFO: in order is the only order it can store); a duplicate is dropped (and acknowledged), an out-of-order message
 * or one that finds no room is dropped and answered at once with a NACK carrying the expected number, which sends
 * the sender back to it; NACKs are numbered and DATA frames echo the last one acted on, so the frames already in
 * flight behind a loss draw one NACK, and a resent message lost again draws the next at once ({@link #rejected}). Every frame carries the cumulative acknowledgement (piggy-backed). Sender-controlled ACKs:
 * below a low-water mark of free send-FIFO entries (15 of 63), or of available send-pool buffers (an eighth), every
 * message asks for an acknowledgement until one lifts the free space above the high-water mark (31 entries, a
 * quarter of the pool); when the pool runs low, explicit ACK requests go to every peer holding pool buffers
 * unacknowledged. The receiver acknowledges a request at once and everything else on the ACK timer (10 ms), and
 * sends a broadcast ACK (all peers' expected numbers and credits in one frame, where the link can broadcast) every 50
 * expirations. The oldest unacknowledged message times out after {@code rtoNanos}; the sender then resends from it,
 * each resent message asking for an acknowledgement.
 *
 * <h2>Flow control</h2>
 * Optimistic credits: a sender may send without limit until the receiver overflows; the receiver then grants zero
 * (on the NACK and every later frame) until the application frees space, then the fragments that surely fit (free
 * FIFO entries, capped by the free receive-pool buffers and mbufs), and unlimited again once that is above half the
 * FIFO. A sender at zero credit sends nothing new but probes once per timeout. Off with
 * {@link PupaConfig#flowControl()}.
 *
 * <h2>Packing</h2>
 * Queued messages to one peer go out together in one frame. Without the fast path a message waits until a frame's
 * worth is queued or {@code packDelayNanos} have passed; {@code send(..., fastPath = true)} sends at once.
 * {@link #offer} packs.
 *
 * <h2>Multicast</h2>
 * {@link #multicast} sends one message to a set of peers by Ethernet broadcast, as the paper's Pupa does: a copy in
 * each destination's send FIFO under that pair's sequence number (the body once in the send pool), one MULTICAST frame
 * per fragment on the wire carrying each destination's sequence number, ACK, credit and NACK echo; losses are repaired
 * per peer by unicast, like any other message's, and NACKed at once under the same numbering ({@link #multicastFrame}).
 * Table 3 counts such a message once as sent and once per receiver as received.
 *
 * <h2>Host work</h2>
 * Named operations on the node's {@link HostCpu}, one charge per call of the code they name (the names, what each
 * covers and the paper's Table 2 component it belongs to: {@link PupaOperations}), and {@link CostItem#COPY} per
 * body byte copied (into the FIFO or the send pool, into the frame, out of the frame into the FIFO or the receive
 * pool, fragments into one message on delivery; the 28-byte header copies are part of header-out and header-in);
 * {@link CostItem#CHECKSUM} only with the frame check on. Each operation's code is one package-private method (or
 * two halves around the link's own call), so that {@link PupaOperations} can benchmark exactly that code.
 *
 * <h2>Threads</h2>
 * One thread calls everything, as for every core; the FIFOs and pools are nevertheless written the paper's way
 * (each pointer by one side, release/acquire), so the library half could run on another thread.
 *
 * <p>Declared guarantees: exactly once, per-peer order, progress (timeouts resend without limit; a zero credit is
 * probed) and bounded memory (two FIFOs of 63 entries per peer).
 */
public final class PupaCore implements MessageCore, BufferAudit {
    private static final Set<Guarantee> GUARANTEES = EnumSet.allOf(Guarantee.class);
    private static final int NO_SLOT = -1;
    static final int K_POOL = 0x100; // send entry: body in a send-pool chain
    static final int K_SECONDARY = 0x200; // receive entry: body in a receive-pool buffer
    static final int K_MBUF = 0x400; // receive entry: body in a held link receive buffer
    static final int K_MULTI = 0x800; // send entry: one of a multicast's copies; its pool chain is shared (chainRefs)
    static final int K_SPILL = 0x1000; // receive entry: body moved out of its link buffer into the peer's spill area
    static final int SEND_LOW_WATER = 15;
    static final int SEND_HIGH_WATER = 31;
    static final int CREDIT_HIGH_WATER = PrimaryFifo.ENTRIES / 2;

    private final Link link;
    private final Clock clock;
    private final HostCpu cpu;
    private final PupaConfig config;
    private final int self;
    private final int peers;
    private final int mtu; // the link's, read once: sendData asks per message packed
    private final int fragment;
    private final int maxMessage;
    private final int poolLowWater;
    private final int poolHighWater;
    private final boolean broadcastAck;
    private final int multicastFragment;
    private final int maxMulticast;
    private final PupaCounters counters = new PupaCounters();

    private final PrimaryFifo[] sendFifo;
    private final PrimaryFifo[] receiveFifo;
    private final BufferPool sendPool;
    private final BufferPool receivePool;

    // send side, per peer: sequence numbers of the FIFO pointers (low, next, sent: the handler's; high: the library's)
    private final int[] lowSeq;
    private final int[] nextSeq;
    private final int[] sentSeq;
    private final int[] highSeq;
    private final int[] credit;
    private final int[] poolHeld;
    private final short[] nackHeard; // number of the last NACK from the peer acted on, echoed on every DATA frame
    private final long[] rtoDeadline;
    private final long[] packDeadline;
    private final boolean[] ackRequired;
    private final boolean[] flush;
    private final boolean[] probe;
    private final boolean[] requestNow;

    // receive side, per peer
    private final int[] expected;
    private final boolean[] ackPending;
    private final boolean[] ackNow;
    private final boolean[] ackByTimer; // the owed ACK is the timer's (not an answer to a request): for the counters
    private final boolean[] nackNow;
    private final short[] nackSent; // number of the last NACK sent to the peer
    private final boolean[] zeroed;
    private final boolean[] creditZero; // overflowed, and nothing delivered since: the grant is 0
    private final boolean[] creditDirty;

    // held link receive buffers (mbufs)
    private final int[] mbufHandle;
    private final int[] mbufRefs;
    private final int[] mbufFreeStack;
    private int mbufFree;
    // per peer, maxMessage bytes: the bodies of an incomplete message, moved out of their link buffers ({@link #spill})
    private final MemorySegment spillArea;
    private int frameSlot = NO_SLOT;

    // multicast: copies of a message sharing one send-pool chain, and the one multicast whose broadcast frames are
    // still to go: its destinations still held (their pump stops at the message) and per peer its first sequence number
    private final int[] chainRefs;
    private long multicastHeld;
    private final int[] multicastBase;
    private int multicastFragments;
    private int multicastNext;

    private final MemorySegment assembly;
    private final byte[] scratch;
    private final MemorySegment scratchSegment;
    private final CRC32C crc = new CRC32C();
    /** The link's doorbell batching, or null: each {@link #pump} is one burst. */
    private final TransmitBurst burst;
    private MemorySegment viewSegment;
    private long viewOffset;

    private long ackTimerDeadline = NO_DEADLINE;
    private boolean poolLow;
    private long ticks;
    private boolean linkBlocked;
    private int deliverCursor;
    private int buffered;
    private int lastTag;

    // host work, by the names of PupaOperations (one price each in the cost table)
    private final HostCpu.Operation opEnqueue;
    private final HostCpu.Operation opHeaderBuild;
    private final HostCpu.Operation opPoolAlloc;
    private final HostCpu.Operation opPoolFree;
    private final HostCpu.Operation opPack;
    private final HostCpu.Operation opHeaderOut;
    private final HostCpu.Operation opControl;
    private final HostCpu.Operation opFrameParse;
    private final HostCpu.Operation opAccept;
    private final HostCpu.Operation opHeaderIn;
    private final HostCpu.Operation opMbufHold;
    private final HostCpu.Operation opMbufRelease;
    private final HostCpu.Operation opDequeue;
    private final HostCpu.Operation opReassemble;
    private final HostCpu.Operation opAck;
    private final HostCpu.Operation opNack;
    private final HostCpu.Operation opCredit;
    private final HostCpu.Operation opRetransmit;
    private final HostCpu.Operation opAckTimer;
    private final HostCpu.Operation opMulticastPack;
    private final HostCpu.Operation opMulticastEntry;
    private final HostCpu.Operation opMulticastFind;

    // the frame and message header onFrame/receive last parsed (fields, so that parsing allocates nothing)
    private byte rxType;
    private int rxCount;
    private int rxAck;
    private int rxGrant;
    private short rxNack;
    private int mFragLength;
    private int mFlags;

    /**
     * @throws IllegalArgumentException when the link's frames cannot hold a frame header, a message header and a byte
     */
    public PupaCore(Link link, Clock clock, PupaConfig config, HostCpu cpu) {
        this.link = Objects.requireNonNull(link, "link");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.config = Objects.requireNonNull(config, "config");
        this.cpu = Objects.requireNonNull(cpu, "cpu");
        this.self = link.self();
        this.peers = link.peers();
        this.burst = link.capability(TransmitBurst.class);
        this.mtu = link.mtu();
        int room = mtu - FRAME_HEADER - MESSAGE_HEADER;
        if (room < 1) {
            throw new IllegalArgumentException("link " + link.name() + " carries " + link.mtu() + " bytes, too few for"
                    + " Pupa's " + FRAME_HEADER + "-byte frame and " + MESSAGE_HEADER + "-byte message headers");
        }
        this.fragment = Math.min(PupaWire.MAX_FRAGMENT, room);
        this.maxMessage = Math.min(config.maxMessage(), Math.min(
                (config.sendBuffers() - 1) * config.sendBufferSize(), (PrimaryFifo.ENTRIES - 1) * fragment));
        this.poolLowWater = Math.max(1, config.sendBuffers() / 8);
        this.poolHighWater = Math.max(poolLowWater + 1, config.sendBuffers() / 4);
        this.broadcastAck = link.canBroadcast() && FRAME_HEADER + 8L * peers <= link.mtu();
        int multicastRoom = link.mtu() - FRAME_HEADER - PupaWire.MC_HEADER - PupaWire.MC_ENTRY * (peers - 1)
                - MESSAGE_HEADER;
        this.multicastFragment = link.canBroadcast() && peers <= Long.SIZE && multicastRoom >= 1
                ? Math.min(PupaWire.MAX_FRAGMENT, multicastRoom) : 0;
        this.maxMulticast = multicastFragment == 0 ? maxMessage
                : Math.min(maxMessage, (PrimaryFifo.ENTRIES - 1) * multicastFragment);

        long fifoBytes = 2L * peers * PrimaryFifo.BYTES;
        long sendPoolBytes = BufferPool.bytes(config.sendBuffers(), config.sendBufferSize());
        long receivePoolBytes = BufferPool.bytes(config.receiveBuffers(), config.receiveBufferSize());
        MemorySegment memory = Arena.ofAuto().allocate(fifoBytes + align(sendPoolBytes) + receivePoolBytes, 64);
        sendFifo = new PrimaryFifo[peers];
        receiveFifo = new PrimaryFifo[peers];
        for (int p = 0; p < peers; p++) {
            sendFifo[p] = new PrimaryFifo(memory.asSlice((2L * p) * PrimaryFifo.BYTES, PrimaryFifo.BYTES));
            receiveFifo[p] = new PrimaryFifo(memory.asSlice((2L * p + 1) * PrimaryFifo.BYTES, PrimaryFifo.BYTES));
        }
        sendPool = new BufferPool(memory.asSlice(fifoBytes, sendPoolBytes), config.sendBuffers(),
                config.sendBufferSize());
        receivePool = new BufferPool(memory.asSlice(fifoBytes + align(sendPoolBytes), receivePoolBytes),
                config.receiveBuffers(), config.receiveBufferSize());

        lowSeq = new int[peers];
        nextSeq = new int[peers];
        sentSeq = new int[peers];
        highSeq = new int[peers];
        credit = new int[peers];
        Arrays.fill(credit, UNLIMITED);
        poolHeld = new int[peers];
        nackHeard = new short[peers];
        rtoDeadline = new long[peers];
        packDeadline = new long[peers];
        Arrays.fill(rtoDeadline, NO_DEADLINE);
        Arrays.fill(packDeadline, NO_DEADLINE);
        ackRequired = new boolean[peers];
        flush = new boolean[peers];
        probe = new boolean[peers];
        requestNow = new boolean[peers];
        expected = new int[peers];
        ackPending = new boolean[peers];
        ackNow = new boolean[peers];
        ackByTimer = new boolean[peers];
        nackNow = new boolean[peers];
        nackSent = new short[peers];
        zeroed = new boolean[peers];
        creditZero = new boolean[peers];
        creditDirty = new boolean[peers];
        mbufHandle = new int[config.mbufs()];
        mbufRefs = new int[config.mbufs()];
        mbufFreeStack = new int[config.mbufs()];
        for (int i = 0; i < config.mbufs(); i++) {
            mbufFreeStack[i] = i;
        }
        mbufFree = config.mbufs();
        spillArea = Arena.ofAuto().allocate(Math.max(1L, (long) peers * maxMessage), 64);
        chainRefs = new int[config.sendBuffers()];
        multicastBase = new int[peers];
        assembly = MemorySegment.ofArray(new byte[Math.max(1, maxMessage)]);
        scratch = new byte[link.mtu()];
        scratchSegment = MemorySegment.ofArray(scratch);

        opEnqueue = cpu.operation(PupaOperations.FIFO_ENQUEUE);
        opHeaderBuild = cpu.operation(PupaOperations.HEADER_BUILD);
        opPoolAlloc = cpu.operation(PupaOperations.POOL_ALLOC);
        opPoolFree = cpu.operation(PupaOperations.POOL_FREE);
        opPack = cpu.operation(PupaOperations.PACK);
        opHeaderOut = cpu.operation(PupaOperations.HEADER_OUT);
        opControl = cpu.operation(PupaOperations.CONTROL);
        opFrameParse = cpu.operation(PupaOperations.FRAME_PARSE);
        opAccept = cpu.operation(PupaOperations.ACCEPT);
        opHeaderIn = cpu.operation(PupaOperations.HEADER_IN);
        opMbufHold = cpu.operation(PupaOperations.MBUF_HOLD);
        opMbufRelease = cpu.operation(PupaOperations.MBUF_RELEASE);
        opDequeue = cpu.operation(PupaOperations.FIFO_DEQUEUE);
        opReassemble = cpu.operation(PupaOperations.REASSEMBLE);
        opAck = cpu.operation(PupaOperations.ACK_PROCESS);
        opNack = cpu.operation(PupaOperations.NACK_PROCESS);
        opCredit = cpu.operation(PupaOperations.CREDIT_PROCESS);
        opRetransmit = cpu.operation(PupaOperations.RETRANSMIT);
        opAckTimer = cpu.operation(PupaOperations.ACK_TIMER);
        opMulticastPack = cpu.operation(PupaOperations.MULTICAST_PACK);
        opMulticastEntry = cpu.operation(PupaOperations.MULTICAST_ENTRY);
        opMulticastFind = cpu.operation(PupaOperations.MULTICAST_FIND);
    }

    PrimaryFifo sendFifo(int peer) {
        return sendFifo[peer];
    }

    PrimaryFifo receiveFifo(int peer) {
        return receiveFifo[peer];
    }

    BufferPool sendPool() {
        return sendPool;
    }

    BufferPool receivePool() {
        return receivePool;
    }

    /** @return the sequence numbers of the send FIFO to {@code peer}: [low, next, sent, high] into {@code into} */
    void sendSequences(int peer, int[] into) {
        into[0] = lowSeq[peer];
        into[1] = nextSeq[peer];
        into[2] = sentSeq[peer];
        into[3] = highSeq[peer];
    }

    /** @return the sequence number this node expects next from {@code peer} */
    int expected(int peer) {
        return expected[peer];
    }

    private static long align(long bytes) {
        return (bytes + 63) & ~63L;
    }

    // ------------------------------------------------------------------ the user library

    /** {@link #send} with tag 0 and packing (no fast path). */
    @Override
    public int offer(int peer, MemorySegment src, long offset, int length) {
        return send(peer, src, offset, length, 0, false);
    }

    /**
     * Queues a message to {@code peer}: its header (and a body under 32 bytes) into the peer's send FIFO, a longer
     * body into send-pool buffers.
     *
     * @param tag      the application's word, delivered with the message ({@link #lastTag()})
     * @param fastPath send now rather than wait for more messages to pack with it
     * @return {@link #OK}, or {@link #BACK_PRESSURE} when the FIFO or the pool lacks room (nothing was taken)
     * @throws IllegalArgumentException for a bad peer or a length outside {@code [0, maxMessage()]}
     */
    public int send(int peer, MemorySegment src, long offset, int length, int tag, boolean fastPath) {
        checkPeer(peer);
        if (length < 0 || length > maxMessage) {
            throw new IllegalArgumentException("message length must be in [0, " + maxMessage + "], was " + length);
        }
        int k = PupaWire.fragments(length, fragment);
        opEnqueue.charge();
        if (!sendRoom(peer, k)) {
            return BACK_PRESSURE;
        }
        boolean inline = k == 1 && length < PupaWire.INLINE_LIMIT;
        int first = BufferPool.END;
        if (!inline) {
            first = takeChain(src, offset, length);
            if (first == NO_SLOT) {
                return BACK_PRESSURE;
            }
        }
        int pos = writeEntries(peer, src, offset, length, tag, fragment, k, first, 0);
        cpu.charge(CostItem.COPY, length);
        enqueued(peer, pos, k, inline);
        if (!inline && sendPool.available() < poolLowWater) {
            poolLow();
        }
        if (fastPath) {
            flush[peer] = true;
        }
        pump(peer, false);
        armAckTimer();
        return OK;
    }

    /**
     * Multicast by Ethernet broadcast (the paper's section 1: Pupa "exploits Ethernet's broadcast mechanism to support
     * multicast"): queues one message to every peer in {@code destinations} and sends it as one broadcast frame per
     * fragment, which every addressed peer accepts under its own sequence number and which the others ignore.
     *
     * <p>Reliability stays per peer, as for {@link #send}: the message takes an entry in each destination's send FIFO
     * under that pair's next sequence number (the body, when not inline, once in the send pool, shared by the copies
     * until the last destination acknowledges it); each MULTICAST frame carries, per destination, that sequence number,
     * the piggy-backed ACK and credit, the ACK-requested flag and the NACK echo, so acknowledgements, numbered NACKs,
     * timeouts and retransmissions (by unicast, to the one peer that lost it) work exactly as for a unicast message
     * ({@link #multicastFrame}). Messages sent
     * to a destination before the multicast go out before it. A destination whose credit is exhausted, or that is
     * behind because of a go-back it cannot finish now, gets its copy by unicast later. A multicast is not packed: its
     * frames go at once. Where the link cannot broadcast (or a frame cannot hold the destination entries) the copies
     * go by unicast.
     *
     * <p>Host work, as {@link #send}'s per destination: fifo-enqueue and a header-build per fragment for each copy,
     * pool-alloc per send-pool buffer (once: the copies share the chain), the body bytes copied once (inline bodies
     * once per copy); on the wire multicast-pack per broadcast frame and multicast-entry per destination in it.
     *
     * @param destinations a bit per peer ({@code 1L << peer}), at least one, not this node
     * @param tag          the application's word, delivered with the message ({@link #lastTag()})
     * @return {@link #OK}, or {@link #BACK_PRESSURE} when a destination's FIFO or the pool lacks room, or the previous
     *     multicast's broadcast frames are still waiting for the link (nothing was taken)
     * @throws IllegalArgumentException for a bad destination set or a length outside {@code [0, maxMulticast()]}
     */
    public int multicast(long destinations, MemorySegment src, long offset, int length, int tag) {
        if (destinations == 0 || (peers < Long.SIZE && destinations >>> peers != 0)
                || (self < Long.SIZE && (destinations & (1L << self)) != 0)) {
            throw new IllegalArgumentException("destinations must name at least one peer in [0, " + Math.min(peers,
                    Long.SIZE) + ") and not this node (" + self + "), was 0x" + Long.toHexString(destinations));
        }
        if (length < 0 || length > maxMulticast) {
            throw new IllegalArgumentException("multicast length must be in [0, " + maxMulticast + "], was "
                    + length);
        }
        if (multicastHeld != 0) {
            flushMulticast();
            if (multicastHeld != 0) {
                return BACK_PRESSURE;
            }
        }
        int fragSize = multicastFragment == 0 ? fragment : multicastFragment;
        int k = PupaWire.fragments(length, fragSize);
        int fanout = Long.bitCount(destinations);
        for (long m = destinations; m != 0; m &= m - 1) {
            opEnqueue.charge();
            if (!sendRoom(Long.numberOfTrailingZeros(m), k)) {
                return BACK_PRESSURE;
            }
        }
        boolean inline = k == 1 && length < PupaWire.INLINE_LIMIT;
        int first = BufferPool.END;
        if (!inline) {
            first = takeChain(src, offset, length);
            if (first == NO_SLOT) {
                return BACK_PRESSURE;
            }
            chainRefs[first] = fanout;
        }
        for (long m = destinations; m != 0; m &= m - 1) {
            int d = Long.numberOfTrailingZeros(m);
            multicastBase[d] = highSeq[d];
            enqueued(d, writeEntries(d, src, offset, length, tag, fragSize, k, first, K_MULTI), k, inline);
        }
        cpu.charge(CostItem.COPY, inline ? (long) fanout * length : length);
        counters.multicasts++;
        counters.messagesSent += k; // once, however many peers it reaches (the paper's Table 3 rows 7 and 9)
        if (!inline && sendPool.available() < poolLowWater) {
            poolLow();
        }
        if (multicastFragment == 0) {
            for (long m = destinations; m != 0; m &= m - 1) {
                int d = Long.numberOfTrailingZeros(m);
                flush[d] = true;
                pump(d, false);
            }
        } else {
            multicastHeld = destinations;
            multicastFragments = k;
            multicastNext = 0;
            flushMulticast();
        }
        armAckTimer();
        return OK;
    }

    /** @return the largest message {@link #multicast} takes (its fragments leave room for the destination entries) */
    public int maxMulticast() {
        return maxMulticast;
    }

    /**
     * Takes send-pool buffers for {@code length} bytes (a pool-alloc each) and copies the body in.
     *
     * @return the chain, or NO_SLOT (nothing taken, the pool now counts as low) when the pool lacks buffers
     */
    private int takeChain(MemorySegment src, long offset, int length) {
        int size = sendPool.size();
        int need = Math.max(1, (length + size - 1) / size);
        if (sendPool.available() < need) {
            poolLow();
            return NO_SLOT;
        }
        int first = BufferPool.END;
        int prev = BufferPool.END;
        for (int done = 0, i = 0; i < need; i++) {
            opPoolAlloc.charge();
            int b = takeSendBuffer(prev);
            if (prev == BufferPool.END) {
                first = b;
            }
            int n = Math.min(size, length - done);
            MemorySegment.copy(src, offset + done, sendPool.segment(), sendPool.offset(b), n);
            done += n;
            prev = b;
        }
        return first;
    }

    /**
     * Writes a message's {@code k} fragment entries (a header-build each) into {@code peer}'s send FIFO after its
     * high pointer: the body inline, or the pool chain {@code first}. @return the position after them, for
     * {@link #enqueued}
     */
    private int writeEntries(int peer, MemorySegment src, long offset, int length, int tag, int fragSize, int k,
                             int first, int extraFlags) {
        boolean inline = first == BufferPool.END;
        MemorySegment s = sendFifo[peer].segment();
        int pos = sendFifo[peer].high();
        int seq = highSeq[peer];
        for (int i = 0; i < k; i++) {
            opHeaderBuild.charge();
            long e = PrimaryFifo.entry(pos);
            int fragOffset = i * fragSize;
            int fragLength = Math.min(fragSize, length - fragOffset);
            int flags = (i == 0 ? PupaWire.F_FIRST : 0) | (i == k - 1 ? PupaWire.F_LAST : 0)
                    | (inline ? 0 : K_POOL) | extraFlags;
            buildHeader(s, e, seq + i, length, fragOffset, fragLength, flags, i, k, self, peer, tag);
            if (inline) {
                MemorySegment.copy(src, offset, s, e + PrimaryFifo.BODY, length);
            } else {
                s.set(U32, e + PrimaryFifo.BODY, first);
            }
            pos = PrimaryFifo.advance(pos, 1);
        }
        return pos;
    }

    /** fifo-enqueue, first half: room in the send FIFO for {@code k} entries (else ACKs are now required). */
    boolean sendRoom(int peer, int k) {
        int free = sendFifo[peer].free();
        if (free < k) {
            enterAckRequired(peer, free);
            return false;
        }
        return true;
    }

    /** fifo-enqueue, second half: publishes the entries up to {@code pos} (the library's high pointer). */
    void enqueued(int peer, int pos, int k, boolean inline) {
        int free = sendFifo[peer].publishHigh(pos); // (not f.free() again: two more pointer reads per message)
        highSeq[peer] += k;
        buffered++;
        if (!inline) {
            poolHeld[peer]++; // the caller checks the pool's low-water mark once the message is in every FIFO
        }
        enterAckRequired(peer, free);
    }

    /** pool-alloc: takes a send-pool buffer and chains it after {@code prev} (unless END). */
    int takeSendBuffer(int prev) {
        int b = sendPool.take();
        if (prev != BufferPool.END) {
            sendPool.link(prev, b);
        }
        return b;
    }

    /** header-build: the 28-byte message header of one fragment, in send-FIFO entry {@code e}. */
    static void buildHeader(MemorySegment s, long e, int seq, int length, int fragOffset, int fragLength, int flags,
                            int index, int count, int source, int dest, int tag) {
        // ten fields in four writes (PupaWire.U64): seq and length, fragment offset, length and flags, index,
        // count, source and destination, then the tag
        s.set(U64, e + PupaWire.M_SEQ, (long) seq << 32 | (length & 0xffffffffL));
        s.set(U64, e + PupaWire.M_FRAG_OFFSET, (long) fragOffset << 32 | (fragLength & 0xffffL) << 16
                | (flags & 0xffffL));
        s.set(U64, e + PupaWire.M_INDEX, (index & 0xffffL) << 48 | (count & 0xffffL) << 32
                | (source & 0xffffL) << 16 | (dest & 0xffffL));
        s.set(U32, e + PupaWire.M_TAG, tag);
    }

    @Override
    public int deliver(MessageHandler handler, int limit) {
        int done = 0;
        for (int scanned = 0; scanned < peers && done < limit; scanned++) {
            int p = deliverCursor;
            deliverCursor = p + 1 == peers ? 0 : p + 1;
            if (p == self) {
                continue;
            }
            PrimaryFifo f = receiveFifo[p];
            MemorySegment s = f.segment();
            while (done < limit) {
                int pos = f.low();
                int k = head(f, pos);
                if (k == 0) {
                    break; // empty, or the rest of the message's fragments have not arrived yet
                }
                opDequeue.charge();
                long e = PrimaryFifo.entry(pos);
                int length = front(s, e);
                if (k == 1) {
                    body(s, e);
                    handler.onMessage(p, viewSegment, viewOffset, length);
                } else {
                    for (int i = 0, q = pos; i < k; i++, q = PrimaryFifo.advance(q, 1)) {
                        opReassemble.charge();
                        cpu.charge(CostItem.COPY, reassemble(s, PrimaryFifo.entry(q)));
                    }
                    handler.onMessage(p, assembly, 0, length);
                }
                for (int i = 0, q = pos; i < k; i++, q = PrimaryFifo.advance(q, 1)) {
                    freeBody(s, PrimaryFifo.entry(q));
                }
                dequeued(f, pos, k);
                done++;
            }
            spill(p);
        }
        if (done > 0) {
            // the application freed receive space (FIFO entries, and pool buffers and mbufs that every peer shares):
            // every sender held at zero credit learns what fits now, or unlimited again above the high-water mark
            for (int p = 0; p < peers; p++) {
                if (p != self && zeroed[p]) {
                    creditZero[p] = false;
                    if (room(p) >= CREDIT_HIGH_WATER) {
                        zeroed[p] = false;
                    }
                    creditDirty[p] = true;
                    pump(p, false);
                }
            }
            armAckTimer();
        }
        return done;
    }

    /**
     * fifo-dequeue, first half: @return the fragments of the whole message at the head of {@code f}, or 0
     *
     * @param low the low pointer the caller just read (its consumer alone moves it: not read again here)
     */
    static int head(PrimaryFifo f, int low) {
        int size = f.size();
        if (size == 0) {
            return 0;
        }
        int k = PupaWire.u16(f.segment(), PrimaryFifo.entry(low) + PupaWire.M_COUNT);
        return size < k ? 0 : k;
    }

    /** fifo-dequeue, the message: its tag (as {@link #lastTag()}) and @return its length */
    int front(MemorySegment s, long e) {
        lastTag = s.get(U32, e + PupaWire.M_TAG);
        return s.get(U32, e + PupaWire.M_LENGTH);
    }

    /** fifo-dequeue, last part: the library's low pointer past the message's {@code k} entries. */
    void dequeued(PrimaryFifo f, int pos, int k) {
        f.publishLow(PrimaryFifo.advance(pos, k), k);
        buffered--;
        counters.delivered++;
    }

    /** reassemble: one fragment of entry {@code e} into the assembly buffer. @return bytes copied */
    int reassemble(MemorySegment s, long e) {
        int fragLength = PupaWire.u16(s, e + PupaWire.M_FRAG_LENGTH);
        body(s, e);
        MemorySegment.copy(viewSegment, viewOffset, assembly, s.get(U32, e + PupaWire.M_FRAG_OFFSET), fragLength);
        return fragLength;
    }

    /** @return the tag of the message last handed to a {@link MessageHandler} (valid during and after that call) */
    public int lastTag() {
        return lastTag;
    }

    @Override
    public int maxMessage() {
        return maxMessage;
    }

    // ------------------------------------------------------------------ the interrupt handler

    @Override
    public void onFrame(Link from, int rxHandle) {
        opFrameParse.charge();
        int length = from.rxLength(rxHandle);
        int peer = from.rxPeer(rxHandle);
        MemorySegment buf = from.rxBuffer(rxHandle);
        if (!parseFrame(buf, length, peer)) {
            from.release(rxHandle);
            return;
        }
        if (config.frameCheck() && !checkOk(buf, length)) {
            counters.corrupt++;
            from.release(rxHandle);
            return;
        }
        byte type = rxType;
        int count = rxCount;
        int ack = rxAck;
        int grant = rxGrant;
        frameSlot = NO_SLOT;
        if (type >= PupaWire.ACK && type <= PupaWire.BROADCAST_ACK) {
            counters.ackPacketsReceived++;
        }
        switch (type) {
            case PupaWire.DATA -> {
                acknowledged(peer, ack, grant);
                receive(peer, buf, length, count, rxHandle, FRAME_HEADER, 0, false, false, rxNack);
            }
            case PupaWire.ACK, PupaWire.CREDIT -> acknowledged(peer, ack, grant);
            case PupaWire.NACK -> {
                acknowledged(peer, ack, grant);
                nacked(peer, ack, rxNack);
            }
            case PupaWire.ACK_REQUEST -> {
                acknowledged(peer, ack, grant);
                ackNow[peer] = true;
                ackByTimer[peer] = false;
            }
            case PupaWire.MULTICAST -> multicastFrame(peer, buf, length, count, rxHandle);
            case PupaWire.BROADCAST_ACK -> {
                if (count * 8 != length - FRAME_HEADER || self >= count) {
                    counters.malformed++;
                } else {
                    long at = FRAME_HEADER + 8L * self;
                    acknowledged(peer, buf.get(U32, at), buf.get(U32, at + 4));
                }
            }
            default -> counters.malformed++;
        }
        if (frameSlot == NO_SLOT) {
            from.release(rxHandle);
        }
        endFrame();
        flushMulticast();
        pump(peer, false);
        armAckTimer();
    }

    /**
     * frame-parse: checks a frame's header (length, peer, magic, payload length) and reads its type, count,
     * acknowledgement, credit and NACK word into rxType, rxCount, rxAck, rxGrant, rxNack.
     *
     * @return false, counted as malformed, when the header is not a Pupa frame header from a peer
     */
    boolean parseFrame(MemorySegment buf, int length, int peer) {
        counters.framesReceived++;
        if (length < FRAME_HEADER || peer < 0 || peer >= peers || peer == self) {
            counters.malformed++;
            return false;
        }
        // bytes 0..7 (magic, type, count, ack) and 8..15 (credit, payload length, nack) in one read each
        long w0 = buf.get(U64, PupaWire.OFF_MAGIC);
        long w1 = buf.get(U64, PupaWire.OFF_CREDIT);
        if ((byte) (w0 >>> 56) != PupaWire.MAGIC || (int) (w1 >>> 16 & 0xffff) != length - FRAME_HEADER) {
            counters.malformed++;
            return false;
        }
        rxType = (byte) (w0 >>> 48);
        rxCount = (int) (w0 >>> 32 & 0xffff);
        rxAck = (int) w0;
        rxGrant = (int) (w1 >>> 32);
        rxNack = (short) w1;
        return true;
    }

    @Override
    public void onWritable(Link from) {
        linkBlocked = false;
        flushMulticast();
        for (int p = 0; p < peers && !linkBlocked; p++) {
            if (p != self) {
                pump(p, false);
            }
        }
        armAckTimer();
    }

    @Override
    public void onTimer() {
        flushMulticast();
        long now = clock.nanoTime();
        for (int p = 0; p < peers; p++) {
            if (p == self) {
                continue;
            }
            boolean packDue = packDeadline[p] <= now;
            if (packDue) {
                packDeadline[p] = NO_DEADLINE; // pump re-arms it, in the future, if it still waits
            }
            if (rtoDeadline[p] <= now) {
                opRetransmit.charge();
                timedOut(p, now);
                pump(p, true);
            } else if (packDue) {
                pump(p, true);
            }
        }
        if (ackTimerDeadline <= now) {
            ackTimerDeadline = NO_DEADLINE;
            opAckTimer.charge();
            boolean broadcast = ackTick();
            for (int p = 0; p < peers; p++) {
                if (p != self) {
                    pump(p, false);
                }
            }
            if (broadcast && broadcastAck) {
                sendBroadcastAck();
            }
        }
        armAckTimer();
    }

    /** retransmit: the oldest unacknowledged message to {@code p} timed out: resend from it (a probe at no credit). */
    void timedOut(int p, long now) {
        counters.timeouts++;
        nextSeq[p] = lowSeq[p];
        rtoDeadline[p] = now + config.rtoNanos();
        if (config.flowControl() && credit[p] == 0) {
            probe[p] = true;
        }
    }

    /**
     * ack-timer: one expiration: every peer owed an acknowledgement gets one (all that talked, every
     * {@code broadcastAckEvery} expirations, where the link cannot broadcast), every peer whose acknowledgement is
     * required an explicit request, every zeroed sender a credit update. @return true when this is a broadcast tick
     */
    boolean ackTick() {
        ticks++;
        counters.ackTimerExpirations++;
        boolean broadcast = ticks % config.broadcastAckEvery() == 0;
        for (int p = 0; p < peers; p++) {
            if (p == self) {
                continue;
            }
            if (ackPending[p] || (broadcast && !broadcastAck && talked(p))) {
                ackByTimer[p] |= !ackNow[p];
                ackNow[p] = true;
            }
            if (ackRequired[p] && sentSeq[p] != lowSeq[p]) {
                requestNow[p] = true;
            }
            if (zeroed[p]) {
                creditDirty[p] = true;
            }
        }
        return broadcast;
    }

    @Override
    public long nextDeadline() {
        long d = ackTimerDeadline;
        for (int p = 0; p < peers; p++) {
            d = Math.min(d, Math.min(rtoDeadline[p], packDeadline[p]));
        }
        return d;
    }

    @Override
    public Set<Guarantee> guarantees() {
        return GUARANTEES;
    }

    @Override
    public int bufferedMessages() {
        return buffered;
    }

    @Override
    public int bufferCapacity() {
        return (peers - 1) * 2 * PrimaryFifo.ENTRIES;
    }

    public PupaCounters counters() {
        return counters;
    }

    public PupaConfig config() {
        return config;
    }

    /** @return the largest fragment body a frame carries on this link */
    public int fragmentSize() {
        return fragment;
    }

    /** @return the credit this node holds for {@code peer}: messages it may still send, -1 = unlimited */
    public int credit(int peer) {
        checkPeer(peer);
        return credit[peer];
    }

    /** @return true while this node asks {@code peer} to acknowledge every message (sender-controlled ACKs) */
    public boolean ackRequired(int peer) {
        checkPeer(peer);
        return ackRequired[peer];
    }

    /** @return send-pool buffers that may be taken now (all free ones but the one always kept) */
    public int sendPoolAvailable() {
        return sendPool.available();
    }

    /** @return receive-pool buffers that may be taken now */
    public int receivePoolAvailable() {
        return receivePool.available();
    }

    /** @return free entries of the send FIFO to {@code peer} */
    public int sendFifoFree(int peer) {
        checkPeer(peer);
        return sendFifo[peer].free();
    }

    /** @return free entries of the receive FIFO from {@code peer} */
    public int receiveFifoFree(int peer) {
        checkPeer(peer);
        return receiveFifo[peer].free();
    }

    /** @return true when every FIFO is empty, both pools are whole and no link buffer is held */
    public boolean holdsNothing() {
        for (int p = 0; p < peers; p++) {
            if (p != self && (sendFifo[p].size() != 0 || lowSeq[p] != highSeq[p] || receiveFifo[p].size() != 0)) {
                return false;
            }
        }
        return sendPool.free() == sendPool.count() && receivePool.free() == receivePool.count()
                && mbufFree == mbufHandle.length && buffered == 0 && multicastHeld == 0;
    }

    /** {@inheritDoc} Here: what {@link #holdsNothing()} finds still held. */
    @Override
    public String leaks() {
        if (holdsNothing()) {
            return null;
        }
        StringBuilder sb = new StringBuilder();
        for (int p = 0; p < peers; p++) {
            if (p == self) {
                continue;
            }
            if (sendFifo[p].size() != 0 || lowSeq[p] != highSeq[p]) {
                sb.append("send FIFO to ").append(p).append(" holds ").append(sendFifo[p].size()).append("; ");
            }
            if (receiveFifo[p].size() != 0) {
                sb.append("receive FIFO from ").append(p).append(" holds ").append(receiveFifo[p].size())
                        .append("; ");
            }
        }
        if (sendPool.free() != sendPool.count()) {
            sb.append("send pool ").append(sendPool.count() - sendPool.free()).append(" buffers taken; ");
        }
        if (receivePool.free() != receivePool.count()) {
            sb.append("receive pool ").append(receivePool.count() - receivePool.free()).append(" buffers taken; ");
        }
        if (mbufFree != mbufHandle.length) {
            sb.append(mbufHandle.length - mbufFree).append(" link buffers held; ");
        }
        if (buffered != 0) {
            sb.append(buffered).append(" messages counted as held; ");
        }
        if (multicastHeld != 0) {
            sb.append("a multicast still to broadcast to 0x").append(Long.toHexString(multicastHeld)).append("; ");
        }
        return sb.isEmpty() ? null : sb.toString();
    }

    // ------------------------------------------------------------------ receive

    /**
     * Accepts the {@code count} messages from {@code start} of a DATA frame, or of a MULTICAST frame
     * ({@code multicast}: message i has sequence number {@code seqBase + i}, and {@code requestedAll} is this node's
     * ACK-requested flag from its destination entry).
     *
     * @param nackEcho the number of the last NACK from this node the frame's sender had acted on when it sent the
     *                 frame ({@link #rejected}): the DATA frame's header word, a MULTICAST frame's destination entry
     */
    private void receive(int peer, MemorySegment buf, int length, int count, int rxHandle, long start, int seqBase,
                         boolean multicast, boolean requestedAll, short nackEcho) {
        long off = start;
        for (int i = 0; i < count; i++) {
            opAccept.charge();
            int ahead = accept(peer, buf, off, length, multicast, seqBase + i);
            int fragLength = mFragLength;
            int flags = mFlags;
            long body = off + MESSAGE_HEADER;
            boolean requested = multicast ? requestedAll : (flags & PupaWire.F_ACK_REQUESTED) != 0;
            if (ahead == MALFORMED) {
                counters.malformed++;
                return;
            }
            if (ahead == OVERFLOW) {
                counters.overflows++;
                if (config.flowControl()) {
                    zeroed[peer] = true; // the NACK, and every frame until the application frees space, grants 0
                    creditZero[peer] = true;
                    creditDirty[peer] = true;
                }
                rejected(peer, nackEcho);
                return;
            }
            if (ahead < 0) {
                counters.duplicates++;
                if (requested) {
                    ackNow[peer] = true;
                    ackByTimer[peer] = false;
                } else {
                    ackPending[peer] = true;
                }
                off = body + fragLength;
                continue;
            }
            if (ahead > 0) {
                counters.outOfOrder++;
                rejected(peer, nackEcho);
                return; // the rest of the frame is later still
            }
            boolean inline = fragLength < PupaWire.INLINE_LIMIT;
            opHeaderIn.charge();
            long e = headerIn(peer, buf, off, multicast, inline ? fragLength : 0);
            MemorySegment s = receiveFifo[peer].segment();
            int kind;
            if (inline) {
                kind = 0; // the body came with the header

                counters.inPrimary++;
            } else if (fragLength <= receivePool.size()) {
                opPoolAlloc.charge();
                int b = receivePool.take();
                MemorySegment.copy(buf, body, receivePool.segment(), receivePool.offset(b), fragLength);
                s.set(U32, e + PrimaryFifo.BODY, b);
                kind = K_SECONDARY;
                counters.inSecondary++;
            } else {
                opMbufHold.charge();
                holdMbuf(s, e, rxHandle, body);
                kind = K_MBUF;
                fragLength = 0; // nothing copied: the body stays in the card's buffer
                counters.inMbuf++;
            }
            cpu.charge(CostItem.COPY, fragLength);
            received(peer, e, flags | kind, requested);
            off = body + mFragLength;
        }
    }

    /**
     * Moves the bodies of {@code peer}'s incomplete message out of their link buffers into the peer's spill area and
     * gives the buffers back. Called after the application took every complete message, so whatever the FIFO still
     * holds is one message waiting for fragments (acceptance is in order). A link's receive buffers are its card's
     * ring, which the card fills in order: the driver cannot hand out the frames behind one the core still holds, so a
     * fragment held while the rest of its message is lost would stop all reception once the ring came round to it -
     * including the resend that would complete the message. The paper's driver never meets this: it hands the mbuf up
     * and puts a fresh one in the ring. One incomplete message per peer, so one area of maxMessage bytes each: the
     * message that uses it is the FIFO's oldest until the application takes it, and nothing is spilled while a
     * complete message (left by the application's limit) is the oldest.
     */
    private void spill(int peer) {
        PrimaryFifo f = receiveFifo[peer];
        int size = f.size();
        if (size == 0) {
            return;
        }
        MemorySegment s = f.segment();
        int pos = f.low();
        if (size >= PupaWire.u16(s, PrimaryFifo.entry(pos) + PupaWire.M_COUNT)) {
            return; // complete: the application left it, and takes it (and its buffers) next
        }
        long base = (long) peer * maxMessage;
        for (int i = 0; i < size; i++, pos = PrimaryFifo.advance(pos, 1)) {
            long e = PrimaryFifo.entry(pos);
            int flags = PupaWire.u16(s, e + PupaWire.M_FLAGS);
            if ((flags & K_MBUF) != 0) {
                int fragLength = PupaWire.u16(s, e + PupaWire.M_FRAG_LENGTH);
                body(s, e);
                MemorySegment.copy(viewSegment, viewOffset, spillArea, base + s.get(U32, e + PupaWire.M_FRAG_OFFSET),
                        fragLength);
                cpu.charge(CostItem.COPY, fragLength);
                freeBody(s, e);
                s.set(U16, e + PupaWire.M_FLAGS, (short) ((flags & ~K_MBUF) | K_SPILL));
                counters.spilled++;
            }
        }
    }

    private static final int MALFORMED = Integer.MIN_VALUE;
    private static final int OVERFLOW = Integer.MAX_VALUE;

    /**
     * accept: checks the message header at {@code off} (lengths, addresses, fragment fields) and its sequence number
     * against the expected one, and for the expected one whether the receive FIFO (and the pool or a card buffer, as
     * its size needs) has room. Leaves the fragment's length and flags in mFragLength, mFlags. A message of a
     * MULTICAST frame ({@code multicast}) has {@code multicastSeq} as its sequence number and the multicast
     * destination.
     *
     * @return how far ahead of the expected number the message is (negative: a duplicate), {@link #MALFORMED} or
     *     {@link #OVERFLOW}
     */
    int accept(int peer, MemorySegment buf, long off, int length, boolean multicast, int multicastSeq) {
        long body = off + MESSAGE_HEADER;
        if (body > length) {
            mFragLength = 0;
            mFlags = 0;
            return MALFORMED;
        }
        // the header's first 24 bytes in three reads (PupaWire.U64): seq and length, fragment offset, length and
        // flags, index, count, source and destination
        long w0 = buf.get(U64, off + PupaWire.M_SEQ);
        long w1 = buf.get(U64, off + PupaWire.M_FRAG_OFFSET);
        long w2 = buf.get(U64, off + PupaWire.M_INDEX);
        int seq = multicast ? multicastSeq : (int) (w0 >>> 32);
        int fragLength = (int) (w1 >>> 16 & 0xffff);
        int flags = (int) (w1 & 0xffff);
        int index = (int) (w2 >>> 48);
        int frags = (int) (w2 >>> 32 & 0xffff);
        int msgLength = (int) w0;
        int fragOffset = (int) (w1 >>> 32);
        mFragLength = fragLength;
        mFlags = flags;
        if (body + fragLength > length || (int) (w2 >>> 16 & 0xffff) != peer
                || (int) (w2 & 0xffff) != (multicast ? PupaWire.MULTICAST_DEST : self)
                || frags < 1 || index >= frags
                || frags >= PrimaryFifo.ENTRIES || msgLength < 0 || msgLength > maxMessage || fragOffset < 0
                || fragOffset + fragLength > msgLength && !(msgLength == 0 && fragLength == 0)
                || (flags & ~PupaWire.WIRE_FLAGS) != 0) {
            return MALFORMED;
        }
        int ahead = seq - expected[peer];
        if (ahead != 0) {
            return ahead;
        }
        boolean inline = fragLength < PupaWire.INLINE_LIMIT;
        boolean secondary = !inline && fragLength <= receivePool.size();
        if (receiveFifo[peer].free() == 0 || (secondary && receivePool.available() < 1)
                || (!inline && !secondary && frameSlot == NO_SLOT && mbufFree == 0)) {
            return OVERFLOW;
        }
        return 0;
    }

    /**
     * header-in, first half: copies the message header at {@code off} into the next receive entry (one of a
     * {@code multicast} frame then reads as the unicast one would: this pair's sequence number, this node), and
     * {@code inlineBody} bytes of an inline body with it: the body follows its header in the frame and in the entry
     * alike, so one copy moves both.
     * @return the entry
     */
    long headerIn(int peer, MemorySegment buf, long off, boolean multicast, int inlineBody) {
        PrimaryFifo f = receiveFifo[peer];
        long e = PrimaryFifo.entry(f.high());
        MemorySegment s = f.segment();
        MemorySegment.copy(buf, off, s, e, MESSAGE_HEADER + inlineBody);
        if (multicast) {
            s.set(U32, e + PupaWire.M_SEQ, expected[peer]); // accepted: the expected one
            s.set(U16, e + PupaWire.M_DEST, (short) self);
        }
        return e;
    }

    /** header-in, second half: marks where the body is and publishes the entry (the handler's high pointer). */
    void received(int peer, long e, int flags, boolean requested) {
        PrimaryFifo f = receiveFifo[peer];
        f.segment().set(U16, e + PupaWire.M_FLAGS, (short) flags);
        f.publishHigh(PrimaryFifo.advance(PrimaryFifo.position(e), 1)); // e is the entry at high (headerIn)
        expected[peer]++;
        counters.messagesReceived++;
        if ((flags & PupaWire.F_LAST) != 0) {
            buffered++;
        }
        if (requested) {
            ackNow[peer] = true;
            ackByTimer[peer] = false;
        } else {
            ackPending[peer] = true;
        }
    }

    /** mbuf-hold: keeps the frame's link buffer (one slot per frame, counted per message) for entry {@code e}. */
    void holdMbuf(MemorySegment s, long e, int rxHandle, long body) {
        if (frameSlot == NO_SLOT) {
            frameSlot = mbufFreeStack[--mbufFree];
            mbufHandle[frameSlot] = rxHandle;
            mbufRefs[frameSlot] = 0;
        }
        mbufRefs[frameSlot]++;
        s.set(U32, e + PrimaryFifo.BODY, frameSlot);
        s.set(U32, e + PrimaryFifo.BODY + 4, (int) body);
    }

    /** fifo-dequeue (one fragment): points viewSegment/viewOffset at the body of receive entry {@code e}. */
    void body(MemorySegment s, long e) {
        int flags = PupaWire.u16(s, e + PupaWire.M_FLAGS);
        if ((flags & K_SECONDARY) != 0) {
            viewSegment = receivePool.segment();
            viewOffset = receivePool.offset(s.get(U32, e + PrimaryFifo.BODY));
        } else if ((flags & K_MBUF) != 0) {
            viewSegment = link.rxBuffer(mbufHandle[s.get(U32, e + PrimaryFifo.BODY)]);
            viewOffset = s.get(U32, e + PrimaryFifo.BODY + 4);
        } else if ((flags & K_SPILL) != 0) {
            viewSegment = spillArea;
            viewOffset = (long) PupaWire.u16(s, e + PupaWire.M_SOURCE) * maxMessage
                    + s.get(U32, e + PupaWire.M_FRAG_OFFSET);
        } else {
            viewSegment = s;
            viewOffset = e + PrimaryFifo.BODY;
        }
    }

    /** The frame being received is done with: the next one held as an mbuf takes a slot of its own. */
    void endFrame() {
        frameSlot = NO_SLOT;
    }

    /** pool-free or mbuf-release, by where the body of receive entry {@code e} is. */
    void freeBody(MemorySegment s, long e) {
        int flags = PupaWire.u16(s, e + PupaWire.M_FLAGS);
        if ((flags & K_SECONDARY) != 0) {
            opPoolFree.charge();
            receivePool.give(s.get(U32, e + PrimaryFifo.BODY));
        } else if ((flags & K_MBUF) != 0) {
            opMbufRelease.charge();
            int handle = releaseMbuf(s.get(U32, e + PrimaryFifo.BODY));
            if (handle != Link.NONE) {
                link.release(handle);
            }
        }
    }

    /** mbuf-release: one message less in the held link buffer {@code slot}. @return its handle when now unused */
    int releaseMbuf(int slot) {
        if (--mbufRefs[slot] == 0) {
            mbufFreeStack[mbufFree++] = slot;
            return mbufHandle[slot];
        }
        return Link.NONE;
    }

    // ------------------------------------------------------------------ acknowledgements

    /** An acknowledgement (and credit) from {@code peer}: {@code ack} is the next sequence number it expects. */
    void acknowledged(int peer, int ack, int grant) {
        if (config.flowControl()) {
            opCredit.charge();
            credit[peer] = grant;
        }
        int advance = ack - lowSeq[peer];
        if (advance < 0 || advance > sentSeq[peer] - lowSeq[peer]) {
            return; // old, or for messages never sent: not a valid acknowledgement
        }
        PrimaryFifo f = sendFifo[peer];
        if (advance > 0) {
            opAck.charge();
            counters.validAcks++;
            MemorySegment s = f.segment();
            int pos = f.low();
            for (int i = 0; i < advance; i++, pos = PrimaryFifo.advance(pos, 1)) {
                long e = PrimaryFifo.entry(pos);
                int flags = PupaWire.u16(s, e + PupaWire.M_FLAGS);
                if ((flags & PupaWire.F_LAST) != 0) {
                    buffered--;
                    if ((flags & K_POOL) != 0) {
                        int chain = s.get(U32, e + PrimaryFifo.BODY);
                        if ((flags & K_MULTI) == 0 || --chainRefs[chain] == 0) {
                            // a multicast's chain goes back when its last destination has acknowledged it
                            for (int n = sendPool.giveChain(chain); n > 0; n--) {
                                opPoolFree.charge();
                            }
                        }
                        poolHeld[peer]--;
                    }
                }
            }
            f.publishLow(pos, advance);
            lowSeq[peer] = ack;
            if (nextSeq[peer] - ack < 0) {
                nextSeq[peer] = ack; // acknowledged beyond where a resend had restarted
            }
            rtoDeadline[peer] = sentSeq[peer] == ack ? NO_DEADLINE : clock.nanoTime() + config.rtoNanos();
            if (poolLow && sendPool.available() >= poolHighWater) {
                poolLow = false;
            }
            if (ackRequired[peer] && f.free() >= SEND_HIGH_WATER && sendPool.available() >= poolHighWater) {
                ackRequired[peer] = false;
            }
        }
        writePointers(peer);
    }

    /**
     * A message from {@code peer} was dropped (out of order, or no room): NACK it at once with the expected sequence
     * number (paper 2.2.1) - unless the frame was sent before the peer acted on this node's last NACK. A go-back-N
     * sender's frames already in flight behind a loss all arrive out of order; NACKing each would send the sender
     * back again and again, and ignoring NACKs for a while (the other way to dedupe them) leaves a resent message
     * lost a second time to the retransmission timeout. So NACKs are numbered, every DATA frame echoes the number
     * of the last NACK its sender acted on (a MULTICAST frame in each destination's entry: {@link #multicastFrame}),
     * and a drop in a frame that echoes the current number is a new loss: the next NACK goes out at once, however
     * soon. A lost NACK is recovered by the timeout, like any lost frame.
     */
    private void rejected(int peer, short nackEcho) {
        if (nackEcho == nackSent[peer]) {
            nackSent[peer]++;
            nackNow[peer] = true;
        }
    }

    /** NACK number {@code number} from {@code peer}: resend from {@code ack}, once per NACK ({@link #rejected}). */
    void nacked(int peer, int ack, short number) {
        if ((short) (number - nackHeard[peer]) <= 0) {
            return; // a duplicate, or older than one acted on
        }
        nackHeard[peer] = number;
        int back = ack - lowSeq[peer];
        if (back < 0 || back >= sentSeq[peer] - lowSeq[peer]) {
            return; // nothing sent from there on is unacknowledged
        }
        opNack.charge();
        counters.validNacks++;
        nextSeq[peer] = ack;
        writePointers(peer);
    }

    /** @param free the free entries of the send FIFO to {@code peer} */
    private void enterAckRequired(int peer, int free) {
        if (free < SEND_LOW_WATER) {
            ackRequired[peer] = true;
        }
    }

    /**
     * The send pool runs low: on entering that state (not again until the pool has recovered above its high-water
     * mark, and the ACK timer repeats the requests meanwhile) ask every peer holding pool buffers unacknowledged for
     * an acknowledgement.
     */
    private void poolLow() {
        if (poolLow) {
            return;
        }
        poolLow = true;
        for (int p = 0; p < peers; p++) {
            if (p != self && poolHeld[p] > 0) {
                ackRequired[p] = true;
                if (sentSeq[p] != lowSeq[p]) {
                    requestNow[p] = true;
                }
            }
        }
    }

    private boolean talked(int p) {
        return expected[p] != 0 || sentSeq[p] != 0;
    }

    /**
     * The credit granted to {@code peer} (paper 2.2.2): unlimited, but 0 from an overflow until the application frees
     * space, then the messages (fragments) that surely fit - a FIFO entry each, and a receive-pool buffer or a held
     * mbuf each at most - until that room is above the high-water mark again.
     */
    private int grant(int peer) {
        if (!config.flowControl() || !zeroed[peer]) {
            return UNLIMITED;
        }
        return creditZero[peer] ? 0 : room(peer);
    }

    private int room(int peer) {
        return Math.min(receiveFifo[peer].free(), Math.min(mbufFree, receivePool.available()));
    }

    private void armAckTimer() {
        if (ackTimerDeadline != NO_DEADLINE) {
            return;
        }
        for (int p = 0; p < peers; p++) {
            if (p != self && (ackPending[p] || zeroed[p] || sentSeq[p] != lowSeq[p])) {
                ackTimerDeadline = clock.nanoTime() + config.ackTimerNanos();
                return;
            }
        }
    }

    // ------------------------------------------------------------------ send

    /**
     * Sends what is due to {@code peer}: a NACK first, then data frames, then an ACK, request or credit if owed - as
     * one {@link TransmitBurst} where the link has it: the fragments of a message (and what is packed behind them) go to
     * the card with one doorbell, as the 21140's transmit poll demand takes every descriptor the driver has posted.
     */
    void pump(int peer, boolean force) {
        if (burst == null) {
            pumpFrames(peer, force);
            return;
        }
        burst.begin();
        try {
            pumpFrames(peer, force);
        } finally {
            burst.end();
        }
    }

    private void pumpFrames(int peer, boolean force) {
        if (linkBlocked) {
            return;
        }
        if (nackNow[peer]) {
            if (!control(peer, PupaWire.NACK)) {
                return;
            }
            nackNow[peer] = false;
        }
        while (nextSeq[peer] != highSeq[peer] && !atHold(peer, nextSeq[peer])) {
            boolean resend = nextSeq[peer] - sentSeq[peer] < 0;
            if (config.flowControl() && credit[peer] == 0 && !probe[peer]) {
                counters.creditStalls++;
                break;
            }
            if (!resend && !force && !flush[peer] && config.packDelayNanos() > 0 && !frameFull(peer)) {
                if (packDeadline[peer] == NO_DEADLINE) {
                    packDeadline[peer] = clock.nanoTime() + config.packDelayNanos();
                }
                break;
            }
            if (!sendData(peer)) {
                break;
            }
        }
        if (linkBlocked) {
            return;
        }
        if (nextSeq[peer] == highSeq[peer]) {
            flush[peer] = false;
            packDeadline[peer] = NO_DEADLINE;
        }
        if (requestNow[peer] && sentSeq[peer] != lowSeq[peer]) {
            if (!control(peer, PupaWire.ACK_REQUEST)) {
                return;
            }
            counters.ackRequestsSent++;
        }
        requestNow[peer] = false;
        if (ackNow[peer] || creditDirty[peer]) {
            byte type = ackNow[peer] ? PupaWire.ACK : PupaWire.CREDIT;
            boolean byTimer = ackByTimer[peer];
            if (control(peer, type)) {
                if (type == PupaWire.CREDIT) {
                    counters.creditUpdatesSent++;
                } else if (byTimer) {
                    counters.timerAcks++;
                } else {
                    counters.requestedAcks++;
                }
            }
        }
    }

    /** @return true when the unsent messages to {@code peer} fill a frame */
    private boolean frameFull(int peer) {
        PrimaryFifo f = sendFifo[peer];
        MemorySegment s = f.segment();
        int bytes = FRAME_HEADER;
        int pos = PrimaryFifo.advance(f.low(), nextSeq[peer] - lowSeq[peer]);
        for (int seq = nextSeq[peer]; seq != highSeq[peer]; seq++, pos = PrimaryFifo.advance(pos, 1)) {
            bytes += MESSAGE_HEADER + PupaWire.u16(s, PrimaryFifo.entry(pos) + PupaWire.M_FRAG_LENGTH);
            if (bytes > mtu) {
                return true;
            }
        }
        return false;
    }

    /** Packs messages from {@code nextSeq} into one frame. @return false when nothing could be sent */
    private boolean sendData(int peer) {
        int h = link.claim(peer);
        if (h == Link.NONE) {
            linkBlocked = true;
            counters.linkBackPressure++;
            return false;
        }
        opPack.charge();
        MemorySegment buf = link.txBuffer(h);
        PrimaryFifo f = sendFifo[peer];
        MemorySegment s = f.segment();
        int seq = nextSeq[peer];
        int pos = PrimaryFifo.advance(f.low(), seq - lowSeq[peer]);
        long off = FRAME_HEADER;
        int count = 0;
        boolean requested = false;
        while (seq != highSeq[peer] && !atHold(peer, seq)) {
            long e = PrimaryFifo.entry(pos);
            int fragLength = PupaWire.u16(s, e + PupaWire.M_FRAG_LENGTH);
            if (off + MESSAGE_HEADER + fragLength > mtu) {
                break;
            }
            int flags = PupaWire.u16(s, e + PupaWire.M_FLAGS);
            boolean inline = (flags & K_POOL) == 0;
            opHeaderOut.charge();
            int ask = headerOut(peer, s, e, seq, buf, off, inline ? fragLength : 0);
            if (ask < 0) {
                break; // no credit
            }
            requested |= ask != 0;
            if (!inline) {
                copyBody(s, e, flags, fragLength, buf, off + MESSAGE_HEADER);
            }
            cpu.charge(CostItem.COPY, fragLength);
            off += MESSAGE_HEADER + fragLength;
            count++;
            seq++;
            pos = PrimaryFifo.advance(pos, 1);
        }
        if (count == 0) {
            link.abort(h);
            return false;
        }
        packFrame(peer, buf, count, (int) off);
        commit(h, buf, (int) off);
        framed(peer, seq, requested);
        return true;
    }

    /**
     * header-out: takes a credit for the message in send entry {@code e} (sequence {@code seq}), decides whether it
     * asks for an acknowledgement, and copies its header into the frame at {@code off} with the wire's flags, and
     * {@code inlineBody} bytes of an inline body with it (the body follows its header in the entry and in the frame
     * alike: one copy moves both).
     *
     * @return 1 when it asks for an acknowledgement, 0 when not, -1 when there is no credit (nothing written)
     */
    int headerOut(int peer, MemorySegment s, long e, int seq, MemorySegment buf, long off, int inlineBody) {
        boolean resend = seq - sentSeq[peer] < 0;
        if (config.flowControl() && credit[peer] != UNLIMITED) {
            if (credit[peer] == 0 && !probe[peer]) {
                return -1;
            }
            if (credit[peer] > 0) {
                credit[peer]--;
            }
            probe[peer] = false;
        }
        int flags = PupaWire.u16(s, e + PupaWire.M_FLAGS);
        boolean ask = resend || ackRequired[peer] || config.ackEveryMessage();
        MemorySegment.copy(s, e, buf, off, MESSAGE_HEADER + inlineBody);
        buf.set(U16, off + PupaWire.M_FLAGS,
                (short) ((flags & PupaWire.WIRE_FLAGS) | (ask ? PupaWire.F_ACK_REQUESTED : 0)));
        if (resend) {
            counters.messagesRetransmitted++;
        } else if ((flags & K_MULTI) == 0) {
            counters.messagesSent++;
        } else {
            counters.multicastUnicasts++; // a multicast copy was counted once, when it was queued
        }
        return ask ? 1 : 0;
    }

    /** pack, first half: the data frame's header (count, cumulative ACK, credit, payload length up to {@code end}). */
    void packFrame(int peer, MemorySegment buf, int count, int end) {
        // the last NACK acted on ({@link #rejected}), written with the rest of the header
        PupaWire.frameHeader(buf, PupaWire.DATA, count, expected[peer], grant(peer), end - FRAME_HEADER,
                nackHeard[peer]);
    }

    /** pack, second half: the messages up to {@code seq} are out; the handler's next and sent pointers follow. */
    void framed(int peer, int seq, boolean requested) {
        nextSeq[peer] = seq;
        if (seq - sentSeq[peer] > 0) {
            sentSeq[peer] = seq;
        }
        if (rtoDeadline[peer] == NO_DEADLINE) {
            rtoDeadline[peer] = clock.nanoTime() + config.rtoNanos();
        }
        if (requested) {
            requestNow[peer] = false;
        }
        carried(peer);
        writePointers(peer);
    }

    private void copyBody(MemorySegment s, long e, int flags, int fragLength, MemorySegment to, long at) {
        if ((flags & K_POOL) == 0) {
            MemorySegment.copy(s, e + PrimaryFifo.BODY, to, at, fragLength);
            return;
        }
        int size = sendPool.size();
        int b = s.get(U32, e + PrimaryFifo.BODY);
        int skip = s.get(U32, e + PupaWire.M_FRAG_OFFSET);
        while (skip >= size) {
            b = sendPool.next(b);
            skip -= size;
        }
        int done = 0;
        while (done < fragLength) {
            int n = Math.min(size - skip, fragLength - done);
            MemorySegment.copy(sendPool.segment(), sendPool.offset(b) + skip, to, at + done, n);
            done += n;
            skip = 0;
            b = sendPool.next(b);
        }
    }

    /** Sends a frame without messages. @return false when the link refused the claim */
    private boolean control(int peer, byte type) {
        int h = link.claim(peer);
        if (h == Link.NONE) {
            linkBlocked = true;
            counters.linkBackPressure++;
            return false;
        }
        opControl.charge();
        MemorySegment buf = link.txBuffer(h);
        controlFrame(peer, buf, type);
        commit(h, buf, FRAME_HEADER);
        return true;
    }

    /** control: a frame without messages: the cumulative ACK and the credit, which is all the peer is owed now. */
    void controlFrame(int peer, MemorySegment buf, byte type) {
        // a NACK carries its number ({@link #rejected}), the other control frames 0
        PupaWire.frameHeader(buf, type, 0, expected[peer], grant(peer), 0,
                type == PupaWire.NACK ? nackSent[peer] : 0);
        counters.ackPacketsSent++;
        carried(peer);
    }

    private void sendBroadcastAck() {
        int h = link.claim(Link.BROADCAST);
        if (h == Link.NONE) {
            counters.linkBackPressure++;
            return; // the next one comes 50 expirations later; the per-peer ACKs still flow
        }
        opControl.charge();
        MemorySegment buf = link.txBuffer(h);
        for (int p = 0; p < peers; p++) {
            long at = FRAME_HEADER + 8L * p;
            buf.set(U32, at, p == self ? 0 : expected[p]);
            buf.set(U32, at + 4, p == self ? UNLIMITED : grant(p));
        }
        PupaWire.frameHeader(buf, PupaWire.BROADCAST_ACK, peers, 0, UNLIMITED, 8 * peers);
        commit(h, buf, FRAME_HEADER + 8 * peers);
        counters.ackPacketsSent++;
        counters.broadcastAcks++;
        for (int p = 0; p < peers; p++) {
            if (p != self) {
                ackPending[p] = false;
            }
        }
    }

    // ------------------------------------------------------------------ multicast

    /** @return true when {@code seq} is where {@code peer}'s sending waits for the pending multicast's broadcast */
    private boolean atHold(int peer, int seq) {
        return multicastHeld != 0 && (multicastHeld & (1L << peer)) != 0
                && seq == multicastBase[peer] + multicastNext;
    }

    /**
     * Broadcasts the pending multicast's remaining fragments, one frame each, to the destinations ready for it: those
     * whose earlier messages have all gone (sent here first if they can) and whose credit allows. A destination not
     * ready is let go: its copy goes by unicast. Stops, holding the rest, when the link refuses a buffer
     * ({@link #onWritable} resumes).
     */
    private void flushMulticast() {
        if (multicastHeld == 0) {
            return;
        }
        while (multicastNext < multicastFragments && multicastHeld != 0) {
            if (linkBlocked) {
                return;
            }
            long ready = 0;
            for (long m = multicastHeld; m != 0; m &= m - 1) {
                int d = Long.numberOfTrailingZeros(m);
                int at = multicastBase[d] + multicastNext;
                if (nextSeq[d] - at < 0) {
                    pump(d, true); // what was queued to d before the multicast goes first; pump stops at it
                    if (linkBlocked) {
                        return;
                    }
                }
                if (nextSeq[d] == at && (!config.flowControl() || credit[d] != 0)) {
                    ready |= 1L << d;
                } else {
                    letGo(d);
                }
            }
            if (ready == 0) {
                break;
            }
            if (!broadcastFragment(ready)) {
                return;
            }
            multicastNext++;
        }
        long rest = multicastHeld;
        multicastHeld = 0;
        for (long m = rest; m != 0; m &= m - 1) {
            pump(Long.numberOfTrailingZeros(m), false);
        }
    }

    /** Releases {@code peer} from the pending multicast: its remaining copies go by unicast, at once. */
    private void letGo(int peer) {
        multicastHeld &= ~(1L << peer);
        counters.multicastLetGo++;
        flush[peer] = true;
        pump(peer, false);
    }

    /**
     * Sends fragment {@code multicastNext} of the pending multicast to {@code ready} in one broadcast frame: a
     * multicast-pack for the frame, a multicast-entry per destination, the body bytes copied once.
     */
    private boolean broadcastFragment(long ready) {
        int h = link.claim(Link.BROADCAST);
        if (h == Link.NONE) {
            linkBlocked = true;
            counters.linkBackPressure++;
            return false;
        }
        MemorySegment buf = link.txBuffer(h);
        long at = FRAME_HEADER + PupaWire.MC_HEADER;
        long asked = 0;
        for (long m = ready; m != 0; m &= m - 1, at += PupaWire.MC_ENTRY) {
            int d = Long.numberOfTrailingZeros(m);
            opMulticastEntry.charge();
            if (multicastEntry(d, buf, at)) {
                asked |= 1L << d;
            }
        }
        // every destination's copy of the fragment is alike but for seq and destination: take the first one's
        int d0 = Long.numberOfTrailingZeros(ready);
        PrimaryFifo f = sendFifo[d0];
        MemorySegment s = f.segment();
        long e = PrimaryFifo.entry(PrimaryFifo.advance(f.low(), nextSeq[d0] - lowSeq[d0]));
        opMulticastPack.charge();
        long body = multicastPack(buf, Long.bitCount(ready), s, e);
        int fragLength = PupaWire.u16(s, e + PupaWire.M_FRAG_LENGTH);
        copyBody(s, e, PupaWire.u16(s, e + PupaWire.M_FLAGS), fragLength, buf, body);
        cpu.charge(CostItem.COPY, fragLength);
        commit(h, buf, (int) body + fragLength);
        counters.multicastFrames++;
        for (long m = ready; m != 0; m &= m - 1) {
            int d = Long.numberOfTrailingZeros(m);
            framed(d, nextSeq[d] + 1, (asked & (1L << d)) != 0); // multicast-entry, second half
        }
        return true;
    }

    /**
     * multicast-entry, first half: takes a credit for {@code peer}'s copy (ready: not at zero) and writes its
     * destination entry at {@code at}: its sequence number, the piggy-backed ACK and credit, the NACK echo, whether it
     * asks for an acknowledgement (the second half is {@link #framed}, as for a unicast frame's peer).
     *
     * @return true when it asks for an acknowledgement
     */
    boolean multicastEntry(int peer, MemorySegment buf, long at) {
        if (config.flowControl() && credit[peer] != UNLIMITED) {
            if (credit[peer] > 0) {
                credit[peer]--;
            }
            probe[peer] = false;
        }
        boolean ask = ackRequired[peer] || config.ackEveryMessage();
        buf.set(ValueLayout.JAVA_BYTE, at + PupaWire.MC_NODE, (byte) peer);
        buf.set(ValueLayout.JAVA_BYTE, at + PupaWire.MC_FLAGS, (byte) (ask ? PupaWire.F_ACK_REQUESTED : 0));
        buf.set(U16, at + PupaWire.MC_NACK, nackHeard[peer]); // the peer's copy echoes like a DATA frame to it
        buf.set(U32, at + PupaWire.MC_SEQ, nextSeq[peer]);
        buf.set(U32, at + PupaWire.MC_ACK, expected[peer]);
        buf.set(U32, at + PupaWire.MC_CREDIT, grant(peer));
        return ask;
    }

    /**
     * multicast-pack: a MULTICAST frame's header, its destination count and the one message header (from send entry
     * {@code e}, with the frame-relative sequence number 0 and the multicast destination) after the {@code n} entries.
     *
     * @return where the message's body goes
     */
    long multicastPack(MemorySegment buf, int n, MemorySegment s, long e) {
        long off = FRAME_HEADER + PupaWire.MC_HEADER + (long) PupaWire.MC_ENTRY * n;
        int fragLength = PupaWire.u16(s, e + PupaWire.M_FRAG_LENGTH);
        buf.set(U16, FRAME_HEADER, (short) n);
        buf.set(U16, FRAME_HEADER + 2, (short) 0);
        MemorySegment.copy(s, e, buf, off, MESSAGE_HEADER);
        buf.set(U32, off + PupaWire.M_SEQ, 0);
        buf.set(U16, off + PupaWire.M_FLAGS,
                (short) (PupaWire.u16(s, e + PupaWire.M_FLAGS) & (PupaWire.F_FIRST | PupaWire.F_LAST)));
        buf.set(U16, off + PupaWire.M_DEST, (short) PupaWire.MULTICAST_DEST);
        long body = off + MESSAGE_HEADER;
        PupaWire.frameHeader(buf, PupaWire.MULTICAST, 1, 0, UNLIMITED, (int) (body + fragLength) - FRAME_HEADER);
        return body;
    }

    /**
     * A MULTICAST frame from {@code peer}: this node's entry, if it has one, is its ACK, credit, sequence number and
     * NACK echo, and the frame's message is then received exactly as if it had come in a DATA frame.
     *
     * <p>How multicast takes part in the numbered NACKs ({@link #rejected}): a copy's loss is one pair's loss. The
     * broadcast frame carries, in each destination's entry, the number of the last NACK from that destination the
     * sender acted on - the same word a DATA frame to it carries in its header - so a destination that sees a gap in
     * a MULTICAST frame (a lost copy, or a lost unicast before it) NACKs the sender at once, as behind a DATA frame,
     * and NACKs only once for the broadcast and unicast frames already in flight behind the loss. The sender goes
     * back for that destination alone ({@link #nacked}): its copies are entries of that pair's send FIFO like any
     * other, resent by unicast in DATA frames that echo the NACK's number, so a second loss of the repair is NACKed
     * at once too. A lost copy is repaired by the next frame the sender sends to that destination, broadcast or
     * unicast, not left to the retransmission timeout (which remains for a copy that nothing follows).
     */
    private void multicastFrame(int peer, MemorySegment buf, int length, int count, int rxHandle) {
        opMulticastFind.charge();
        long at = multicastFind(buf, length);
        if (at == MALFORMED) {
            counters.malformed++;
            return;
        }
        if (at == NOT_ADDRESSED) {
            counters.multicastIgnored++; // the broadcast reached a node it does not address
            return;
        }
        acknowledged(peer, buf.get(U32, at + PupaWire.MC_ACK), buf.get(U32, at + PupaWire.MC_CREDIT));
        boolean requested = (PupaWire.u8(buf, at + PupaWire.MC_FLAGS) & PupaWire.F_ACK_REQUESTED) != 0;
        long start = FRAME_HEADER + PupaWire.MC_HEADER + (long) PupaWire.MC_ENTRY * PupaWire.u16(buf, FRAME_HEADER);
        receive(peer, buf, length, count, rxHandle, start, buf.get(U32, at + PupaWire.MC_SEQ), true, requested,
                (short) PupaWire.u16(buf, at + PupaWire.MC_NACK));
    }

    private static final long NOT_ADDRESSED = -1;

    /**
     * multicast-find: checks a MULTICAST frame's destination entries fit and looks for this node's.
     *
     * @return the offset of this node's entry, {@link #NOT_ADDRESSED} or {@link #MALFORMED}
     */
    long multicastFind(MemorySegment buf, int length) {
        if (length < FRAME_HEADER + PupaWire.MC_HEADER) {
            return MALFORMED;
        }
        int n = PupaWire.u16(buf, FRAME_HEADER);
        long start = FRAME_HEADER + PupaWire.MC_HEADER + (long) PupaWire.MC_ENTRY * n;
        if (n < 1 || start > length) {
            return MALFORMED;
        }
        for (long at = FRAME_HEADER + PupaWire.MC_HEADER; at < start; at += PupaWire.MC_ENTRY) {
            if (PupaWire.u8(buf, at + PupaWire.MC_NODE) == self) {
                return at;
            }
        }
        return NOT_ADDRESSED;
    }

    private void commit(int h, MemorySegment buf, int length) {
        if (config.frameCheck()) {
            buf.set(U32, PupaWire.OFF_CRC, frameCrc(buf, length));
            cpu.charge(CostItem.CHECKSUM, length - 4);
        }
        link.commit(h, length);
        counters.packetsSent++;
    }

    /** Every frame carries the acknowledgement and the credit: nothing more is owed to the peer. */
    private void carried(int peer) {
        ackPending[peer] = false;
        ackNow[peer] = false;
        ackByTimer[peer] = false;
        creditDirty[peer] = false;
    }

    private boolean checkOk(MemorySegment buf, int length) {
        cpu.charge(CostItem.CHECKSUM, length - 4);
        return buf.get(U32, PupaWire.OFF_CRC) == frameCrc(buf, length);
    }

    private int frameCrc(MemorySegment buf, int length) {
        MemorySegment.copy(buf, 0, scratchSegment, 0, length);
        crc.reset();
        crc.update(scratch, 0, PupaWire.OFF_CRC);
        crc.update(scratch, FRAME_HEADER, length - FRAME_HEADER);
        return (int) crc.getValue();
    }

    /** Mirrors the handler's sequence numbers into the send FIFO's next and sent pointers. */
    private void writePointers(int peer) {
        PrimaryFifo f = sendFifo[peer];
        int low = f.low();
        f.next(PrimaryFifo.advance(low, nextSeq[peer] - lowSeq[peer]));
        f.sent(PrimaryFifo.advance(low, sentSeq[peer] - lowSeq[peer]));
    }

    private void checkPeer(int peer) {
        if (peer < 0 || peer >= peers || peer == self) {
            throw new IllegalArgumentException("peer must be in [0, " + peers + ") and not this node (" + self
                    + "), was " + peer);
        }
    }

    @Override
    public String toString() {
        return "Pupa core " + self + " on " + link.name() + ": " + counters;
    }
}
