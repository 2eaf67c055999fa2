package io.nicbridge.protocols.pupa;

import static io.nicbridge.protocols.pupa.PupaWire.FRAME_HEADER;
import static io.nicbridge.protocols.pupa.PupaWire.MESSAGE_HEADER;
import static io.nicbridge.protocols.pupa.PupaWire.U16;
import static io.nicbridge.protocols.pupa.PupaWire.U32;
import static io.nicbridge.protocols.pupa.PupaWire.UNLIMITED;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
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
 * Named operations on the node's {@link HostCpu} ({@code pupa.send}, {@code pupa.pack}, {@code pupa.receive},
 * {@code pupa.accept}, {@code pupa.deliver}, {@code pupa.ack-process}, {@code pupa.nack-process},
 * {@code pupa.retransmit}, {@code pupa.ack-timer}, {@code pupa.control}), and {@link CostItem#COPY} per byte copied:
 * the body into the FIFO or pool, header and body into the frame, the header (and a short or middle-sized body) out
 * of the frame, fragments into one message on delivery; {@link CostItem#CHECKSUM} only with the frame check on.
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
    private MemorySegment viewSegment;
    private long viewOffset;

    private long ackTimerDeadline = NO_DEADLINE;
    private boolean poolLow;
    private long ticks;
    private boolean linkBlocked;
    private int deliverCursor;
    private int buffered;
    private int lastTag;

    private final HostCpu.Operation opSend;
    private final HostCpu.Operation opPack;
    private final HostCpu.Operation opReceive;
    private final HostCpu.Operation opAccept;
    private final HostCpu.Operation opDeliver;
    private final HostCpu.Operation opAck;
    private final HostCpu.Operation opNack;
    private final HostCpu.Operation opRetransmit;
    private final HostCpu.Operation opAckTimer;
    private final HostCpu.Operation opControl;

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
        int room = link.mtu() - FRAME_HEADER - MESSAGE_HEADER;
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

        opSend = cpu.operation("pupa.send");
        opPack = cpu.operation("pupa.pack");
        opReceive = cpu.operation("pupa.receive");
        opAccept = cpu.operation("pupa.accept");
        opDeliver = cpu.operation("pupa.deliver");
        opAck = cpu.operation("pupa.ack-process");
        opNack = cpu.operation("pupa.nack-process");
        opRetransmit = cpu.operation("pupa.retransmit");
        opAckTimer = cpu.operation("pupa.ack-timer");
        opControl = cpu.operation("pupa.control");
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
        opSend.charge();
        PrimaryFifo f = sendFifo[peer];
        int k = PupaWire.fragments(length, fragment);
        if (f.free() < k) {
            enterAckRequired(peer, f);
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
        enqueue(peer, src, offset, length, tag, fragment, k, first, 0);
        cpu.charge(CostItem.COPY, length);
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
        opSend.charge();
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
            int d = Long.numberOfTrailingZeros(m);
            if (sendFifo[d].free() < k) {
                enterAckRequired(d, sendFifo[d]);
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
            enqueue(d, src, offset, length, tag, fragSize, k, first, K_MULTI);
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

    /** Takes send-pool buffers for {@code length} bytes and copies the body in. @return the chain, or NO_SLOT */
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
            int b = sendPool.take();
            if (prev == BufferPool.END) {
                first = b;
            } else {
                sendPool.link(prev, b);
            }
            int n = Math.min(size, length - done);
            MemorySegment.copy(src, offset + done, sendPool.segment(), sendPool.offset(b), n);
            done += n;
            prev = b;
        }
        return first;
    }

    /**
     * Writes a message's {@code k} fragment entries into {@code peer}'s send FIFO (the body inline, or the pool chain
     * {@code first}) and publishes them to the handler side.
     */
    private void enqueue(int peer, MemorySegment src, long offset, int length, int tag, int fragSize, int k,
                         int first, int extraFlags) {
        PrimaryFifo f = sendFifo[peer];
        boolean inline = first == BufferPool.END;
        MemorySegment s = f.segment();
        int pos = f.high();
        int seq = highSeq[peer];
        for (int i = 0; i < k; i++) {
            long e = PrimaryFifo.entry(pos);
            int fragOffset = i * fragSize;
            int fragLength = Math.min(fragSize, length - fragOffset);
            int flags = (i == 0 ? PupaWire.F_FIRST : 0) | (i == k - 1 ? PupaWire.F_LAST : 0)
                    | (inline ? 0 : K_POOL) | extraFlags;
            s.set(U32, e + PupaWire.M_SEQ, seq + i);
            s.set(U32, e + PupaWire.M_LENGTH, length);
            s.set(U32, e + PupaWire.M_FRAG_OFFSET, fragOffset);
            s.set(U16, e + PupaWire.M_FRAG_LENGTH, (short) fragLength);
            s.set(U16, e + PupaWire.M_FLAGS, (short) flags);
            s.set(U16, e + PupaWire.M_INDEX, (short) i);
            s.set(U16, e + PupaWire.M_COUNT, (short) k);
            s.set(U16, e + PupaWire.M_SOURCE, (short) self);
            s.set(U16, e + PupaWire.M_DEST, (short) peer);
            s.set(U32, e + PupaWire.M_TAG, tag);
            if (inline) {
                MemorySegment.copy(src, offset, s, e + PrimaryFifo.BODY, length);
            } else {
                s.set(U32, e + PrimaryFifo.BODY, first);
            }
            pos = PrimaryFifo.advance(pos, 1);
        }
        f.publishHigh(pos);
        highSeq[peer] = seq + k;
        buffered++;
        if (!inline) {
            poolHeld[peer]++;
        }
        enterAckRequired(peer, f);
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
                int size = f.size();
                if (size == 0) {
                    break;
                }
                int pos = f.low();
                long e = PrimaryFifo.entry(pos);
                int k = PupaWire.u16(s, e + PupaWire.M_COUNT);
                if (size < k) {
                    break; // the rest of the message's fragments have not arrived yet
                }
                opDeliver.charge();
                int length = s.get(U32, e + PupaWire.M_LENGTH);
                lastTag = s.get(U32, e + PupaWire.M_TAG);
                if (k == 1) {
                    body(s, e);
                    handler.onMessage(p, viewSegment, viewOffset, length);
                } else {
                    for (int i = 0, q = pos; i < k; i++, q = PrimaryFifo.advance(q, 1)) {
                        long ei = PrimaryFifo.entry(q);
                        int fragLength = PupaWire.u16(s, ei + PupaWire.M_FRAG_LENGTH);
                        body(s, ei);
                        MemorySegment.copy(viewSegment, viewOffset, assembly,
                                s.get(U32, ei + PupaWire.M_FRAG_OFFSET), fragLength);
                        cpu.charge(CostItem.COPY, fragLength);
                    }
                    handler.onMessage(p, assembly, 0, length);
                }
                for (int i = 0, q = pos; i < k; i++, q = PrimaryFifo.advance(q, 1)) {
                    freeBody(s, PrimaryFifo.entry(q));
                }
                f.publishLow(PrimaryFifo.advance(pos, k), k);
                buffered--;
                counters.delivered++;
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
        counters.framesReceived++;
        opReceive.charge();
        int length = from.rxLength(rxHandle);
        int peer = from.rxPeer(rxHandle);
        MemorySegment buf = from.rxBuffer(rxHandle);
        if (length < FRAME_HEADER || peer < 0 || peer >= peers || peer == self
                || buf.get(ValueLayout.JAVA_BYTE, PupaWire.OFF_MAGIC) != PupaWire.MAGIC
                || PupaWire.u16(buf, PupaWire.OFF_PAYLOAD) != length - FRAME_HEADER) {
            counters.malformed++;
            from.release(rxHandle);
            return;
        }
        if (config.frameCheck() && !checkOk(buf, length)) {
            counters.corrupt++;
            from.release(rxHandle);
            return;
        }
        byte type = buf.get(ValueLayout.JAVA_BYTE, PupaWire.OFF_TYPE);
        int count = PupaWire.u16(buf, PupaWire.OFF_COUNT);
        int ack = buf.get(U32, PupaWire.OFF_ACK);
        int grant = buf.get(U32, PupaWire.OFF_CREDIT);
        frameSlot = NO_SLOT;
        if (type >= PupaWire.ACK && type <= PupaWire.BROADCAST_ACK) {
            counters.ackPacketsReceived++;
        }
        switch (type) {
            case PupaWire.DATA -> {
                acknowledged(peer, ack, grant);
                receive(peer, buf, length, count, rxHandle, FRAME_HEADER, 0, false, false,
                        (short) PupaWire.u16(buf, PupaWire.OFF_NACK));
            }
            case PupaWire.ACK, PupaWire.CREDIT -> acknowledged(peer, ack, grant);
            case PupaWire.NACK -> {
                acknowledged(peer, ack, grant);
                nacked(peer, ack, (short) PupaWire.u16(buf, PupaWire.OFF_NACK));
            }
            case PupaWire.ACK_REQUEST -> {
                acknowledged(peer, ack, grant);
                ackNow[peer] = true;
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
        frameSlot = NO_SLOT;
        flushMulticast();
        pump(peer, false);
        armAckTimer();
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
                counters.timeouts++;
                opRetransmit.charge();
                nextSeq[p] = lowSeq[p]; // resend from the oldest unacknowledged message
                rtoDeadline[p] = now + config.rtoNanos();
                if (config.flowControl() && credit[p] == 0) {
                    probe[p] = true;
                }
                pump(p, true);
            } else if (packDue) {
                pump(p, true);
            }
        }
        if (ackTimerDeadline <= now) {
            ackTimerDeadline = NO_DEADLINE;
            ticks++;
            counters.ackTimerExpirations++;
            opAckTimer.charge();
            boolean broadcast = ticks % config.broadcastAckEvery() == 0;
            for (int p = 0; p < peers; p++) {
                if (p == self) {
                    continue;
                }
                if (ackPending[p] || (broadcast && !broadcastAck && talked(p))) {
                    ackNow[p] = true;
                }
                if (ackRequired[p] && sentSeq[p] != lowSeq[p]) {
                    requestNow[p] = true;
                }
                if (zeroed[p]) {
                    creditDirty[p] = true;
                }
                pump(p, false);
            }
            if (broadcast && broadcastAck) {
                sendBroadcastAck();
            }
        }
        armAckTimer();
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
            long body = off + MESSAGE_HEADER;
            if (body > length) {
                counters.malformed++;
                return;
            }
            int seq = multicast ? seqBase + i : buf.get(U32, off + PupaWire.M_SEQ);
            int fragLength = PupaWire.u16(buf, off + PupaWire.M_FRAG_LENGTH);
            int flags = PupaWire.u16(buf, off + PupaWire.M_FLAGS);
            int index = PupaWire.u16(buf, off + PupaWire.M_INDEX);
            int frags = PupaWire.u16(buf, off + PupaWire.M_COUNT);
            int msgLength = buf.get(U32, off + PupaWire.M_LENGTH);
            int fragOffset = buf.get(U32, off + PupaWire.M_FRAG_OFFSET);
            if (body + fragLength > length || PupaWire.u16(buf, off + PupaWire.M_SOURCE) != peer
                    || PupaWire.u16(buf, off + PupaWire.M_DEST) != (multicast ? PupaWire.MULTICAST_DEST : self)
                    || frags < 1 || index >= frags
                    || frags >= PrimaryFifo.ENTRIES || msgLength < 0 || msgLength > maxMessage || fragOffset < 0
                    || fragOffset + fragLength > msgLength && !(msgLength == 0 && fragLength == 0)
                    || (flags & ~PupaWire.WIRE_FLAGS) != 0) {
                counters.malformed++;
                return;
            }
            boolean requested = multicast ? requestedAll : (flags & PupaWire.F_ACK_REQUESTED) != 0;
            int ahead = seq - expected[peer];
            if (ahead < 0) {
                counters.duplicates++;
                if (requested) {
                    ackNow[peer] = true;
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
            PrimaryFifo f = receiveFifo[peer];
            boolean inline = fragLength < PupaWire.INLINE_LIMIT;
            boolean secondary = !inline && fragLength <= receivePool.size();
            if (f.free() == 0 || (secondary && receivePool.available() < 1)
                    || (!inline && !secondary && frameSlot == NO_SLOT && mbufFree == 0)) {
                counters.overflows++;
                if (config.flowControl()) {
                    zeroed[peer] = true; // the NACK, and every frame until the application frees space, grants 0
                    creditZero[peer] = true;
                    creditDirty[peer] = true;
                }
                rejected(peer, nackEcho);
                return;
            }
            opAccept.charge();
            MemorySegment s = f.segment();
            int pos = f.high();
            long e = PrimaryFifo.entry(pos);
            MemorySegment.copy(buf, off, s, e, MESSAGE_HEADER);
            if (multicast) { // the entry reads as the unicast one would: this pair's number, this node
                s.set(U32, e + PupaWire.M_SEQ, seq);
                s.set(U16, e + PupaWire.M_DEST, (short) self);
            }
            int kind;
            if (inline) {
                MemorySegment.copy(buf, body, s, e + PrimaryFifo.BODY, fragLength);
                cpu.charge(CostItem.COPY, MESSAGE_HEADER + fragLength);
                kind = 0;
                counters.inPrimary++;
            } else if (secondary) {
                int b = receivePool.take();
                MemorySegment.copy(buf, body, receivePool.segment(), receivePool.offset(b), fragLength);
                cpu.charge(CostItem.COPY, MESSAGE_HEADER + fragLength);
                s.set(U32, e + PrimaryFifo.BODY, b);
                kind = K_SECONDARY;
                counters.inSecondary++;
            } else {
                if (frameSlot == NO_SLOT) {
                    frameSlot = mbufFreeStack[--mbufFree];
                    mbufHandle[frameSlot] = rxHandle;
                    mbufRefs[frameSlot] = 0;
                }
                mbufRefs[frameSlot]++;
                cpu.charge(CostItem.COPY, MESSAGE_HEADER);
                s.set(U32, e + PrimaryFifo.BODY, frameSlot);
                s.set(U32, e + PrimaryFifo.BODY + 4, (int) body);
                kind = K_MBUF;
                counters.inMbuf++;
            }
            s.set(U16, e + PupaWire.M_FLAGS, (short) (flags | kind));
            f.publishHigh(PrimaryFifo.advance(pos, 1));
            expected[peer] = seq + 1;
            counters.messagesReceived++;
            if ((flags & PupaWire.F_LAST) != 0) {
                buffered++;
            }
            if (requested) {
                ackNow[peer] = true;
            } else {
                ackPending[peer] = true;
            }
            off = body + fragLength;
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

    /** Points viewSegment/viewOffset at the body of receive entry {@code e}. */
    private void body(MemorySegment s, long e) {
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

    private void freeBody(MemorySegment s, long e) {
        int flags = PupaWire.u16(s, e + PupaWire.M_FLAGS);
        if ((flags & K_SECONDARY) != 0) {
            receivePool.give(s.get(U32, e + PrimaryFifo.BODY));
        } else if ((flags & K_MBUF) != 0) {
            int slot = s.get(U32, e + PrimaryFifo.BODY);
            if (--mbufRefs[slot] == 0) {
                link.release(mbufHandle[slot]);
                mbufFreeStack[mbufFree++] = slot;
            }
        }
    }

    // ------------------------------------------------------------------ acknowledgements

    /** An acknowledgement (and credit) from {@code peer}: {@code ack} is the next sequence number it expects. */
    private void acknowledged(int peer, int ack, int grant) {
        if (config.flowControl()) {
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
                            sendPool.giveChain(chain); // a multicast's chain when its last destination has it
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
    private void nacked(int peer, int ack, short number) {
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

    private void enterAckRequired(int peer, PrimaryFifo f) {
        if (f.free() < SEND_LOW_WATER) {
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

    /** Sends what is due to {@code peer}: a NACK first, then data frames, then an ACK, request or credit if owed. */
    private void pump(int peer, boolean force) {
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
            if (control(peer, type) && type == PupaWire.CREDIT) {
                counters.creditUpdatesSent++;
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
            if (bytes > link.mtu()) {
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
            if (off + MESSAGE_HEADER + fragLength > link.mtu()) {
                break;
            }
            boolean resend = seq - sentSeq[peer] < 0;
            if (config.flowControl() && credit[peer] != UNLIMITED) {
                if (credit[peer] == 0 && !probe[peer]) {
                    break;
                }
                if (credit[peer] > 0) {
                    credit[peer]--;
                }
                probe[peer] = false;
            }
            int flags = PupaWire.u16(s, e + PupaWire.M_FLAGS);
            boolean ask = resend || ackRequired[peer] || config.ackEveryMessage();
            requested |= ask;
            MemorySegment.copy(s, e, buf, off, MESSAGE_HEADER);
            buf.set(U16, off + PupaWire.M_FLAGS,
                    (short) ((flags & PupaWire.WIRE_FLAGS) | (ask ? PupaWire.F_ACK_REQUESTED : 0)));
            copyBody(s, e, flags, fragLength, buf, off + MESSAGE_HEADER);
            cpu.charge(CostItem.COPY, MESSAGE_HEADER + fragLength);
            if (resend) {
                counters.messagesRetransmitted++;
            } else if ((flags & K_MULTI) == 0) {
                counters.messagesSent++; // a multicast copy was counted once, when it was queued
            } else {
                counters.multicastUnicasts++;
            }
            off += MESSAGE_HEADER + fragLength;
            count++;
            seq++;
            pos = PrimaryFifo.advance(pos, 1);
        }
        if (count == 0) {
            link.abort(h);
            return false;
        }
        PupaWire.frameHeader(buf, PupaWire.DATA, count, expected[peer], grant(peer), (int) off - FRAME_HEADER);
        buf.set(U16, PupaWire.OFF_NACK, nackHeard[peer]);
        commit(h, buf, (int) off);
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
        return true;
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
        PupaWire.frameHeader(buf, type, 0, expected[peer], grant(peer), 0);
        if (type == PupaWire.NACK) {
            buf.set(U16, PupaWire.OFF_NACK, nackSent[peer]);
        }
        commit(h, buf, FRAME_HEADER);
        counters.ackPacketsSent++;
        carried(peer);
        return true;
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

    /** Sends fragment {@code multicastNext} of the pending multicast to {@code ready} in one broadcast frame. */
    private boolean broadcastFragment(long ready) {
        int h = link.claim(Link.BROADCAST);
        if (h == Link.NONE) {
            linkBlocked = true;
            counters.linkBackPressure++;
            return false;
        }
        opPack.charge();
        MemorySegment buf = link.txBuffer(h);
        long off = FRAME_HEADER;
        buf.set(U16, off, (short) Long.bitCount(ready));
        buf.set(U16, off + 2, (short) 0);
        off += PupaWire.MC_HEADER;
        for (long m = ready; m != 0; m &= m - 1, off += PupaWire.MC_ENTRY) {
            int d = Long.numberOfTrailingZeros(m);
            boolean ask = ackRequired[d] || config.ackEveryMessage();
            buf.set(ValueLayout.JAVA_BYTE, off + PupaWire.MC_NODE, (byte) d);
            buf.set(ValueLayout.JAVA_BYTE, off + PupaWire.MC_FLAGS, (byte) (ask ? PupaWire.F_ACK_REQUESTED : 0));
            buf.set(U16, off + PupaWire.MC_NACK, nackHeard[d]); // d's copy echoes like a DATA frame to d (receive)
            buf.set(U32, off + PupaWire.MC_SEQ, nextSeq[d]);
            buf.set(U32, off + PupaWire.MC_ACK, expected[d]);
            buf.set(U32, off + PupaWire.MC_CREDIT, grant(d));
        }
        // every destination's copy of the fragment is alike but for seq and destination: take the first one's
        int d0 = Long.numberOfTrailingZeros(ready);
        PrimaryFifo f = sendFifo[d0];
        MemorySegment s = f.segment();
        long e = PrimaryFifo.entry(PrimaryFifo.advance(f.low(), nextSeq[d0] - lowSeq[d0]));
        int flags = PupaWire.u16(s, e + PupaWire.M_FLAGS);
        int fragLength = PupaWire.u16(s, e + PupaWire.M_FRAG_LENGTH);
        MemorySegment.copy(s, e, buf, off, MESSAGE_HEADER);
        buf.set(U32, off + PupaWire.M_SEQ, 0);
        buf.set(U16, off + PupaWire.M_FLAGS, (short) (flags & (PupaWire.F_FIRST | PupaWire.F_LAST)));
        buf.set(U16, off + PupaWire.M_DEST, (short) PupaWire.MULTICAST_DEST);
        copyBody(s, e, flags, fragLength, buf, off + MESSAGE_HEADER);
        cpu.charge(CostItem.COPY, MESSAGE_HEADER + fragLength);
        off += MESSAGE_HEADER + fragLength;
        PupaWire.frameHeader(buf, PupaWire.MULTICAST, 1, 0, UNLIMITED, (int) off - FRAME_HEADER);
        commit(h, buf, (int) off);
        counters.multicastFrames++;
        long now = clock.nanoTime();
        for (long m = ready; m != 0; m &= m - 1) {
            int d = Long.numberOfTrailingZeros(m);
            if (config.flowControl() && credit[d] != UNLIMITED) {
                credit[d]--; // ready means not 0
                probe[d] = false;
            }
            if (ackRequired[d] || config.ackEveryMessage()) {
                requestNow[d] = false;
            }
            nextSeq[d]++;
            if (nextSeq[d] - sentSeq[d] > 0) {
                sentSeq[d] = nextSeq[d];
            }
            if (rtoDeadline[d] == NO_DEADLINE) {
                rtoDeadline[d] = now + config.rtoNanos();
            }
            carried(d);
            writePointers(d);
        }
        return true;
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
        if (length < FRAME_HEADER + PupaWire.MC_HEADER) {
            counters.malformed++;
            return;
        }
        int n = PupaWire.u16(buf, FRAME_HEADER);
        long start = FRAME_HEADER + PupaWire.MC_HEADER + (long) PupaWire.MC_ENTRY * n;
        if (n < 1 || start > length) {
            counters.malformed++;
            return;
        }
        for (int i = 0; i < n; i++) {
            long at = FRAME_HEADER + PupaWire.MC_HEADER + (long) PupaWire.MC_ENTRY * i;
            if (PupaWire.u8(buf, at + PupaWire.MC_NODE) == self) {
                acknowledged(peer, buf.get(U32, at + PupaWire.MC_ACK), buf.get(U32, at + PupaWire.MC_CREDIT));
                boolean requested = (PupaWire.u8(buf, at + PupaWire.MC_FLAGS) & PupaWire.F_ACK_REQUESTED) != 0;
                receive(peer, buf, length, count, rxHandle, start, buf.get(U32, at + PupaWire.MC_SEQ), true,
                        requested, (short) PupaWire.u16(buf, at + PupaWire.MC_NACK));
                return;
            }
        }
        counters.multicastIgnored++; // the broadcast reached a node it does not address
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
