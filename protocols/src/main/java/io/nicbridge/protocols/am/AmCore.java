package io.nicbridge.protocols.am;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Clock;
import io.nicbridge.protocols.core.Guarantee;
import io.nicbridge.protocols.core.MessageHandler;
import io.nicbridge.protocols.core.ProtocolCore;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;
import java.util.Set;

/**
 * U-Net Active Messages (U-Net paper, von Eicken et al., SOSP 1995, section 5): the Generic Active Messages 1.1
 * interface as a sans-I/O core - requests and replies naming a handler and carrying four 32-bit arguments, block
 * store and block get, dispatch by explicit polling ({@link #poll}), reliable delivery.
 *
 * <h2>Layers</h2>
 * Every Active Message is one message of a {@link GoBackNCore} on the same link ({@link AmWire} inside a go-back-N
 * frame): the channel gives reliability, per-peer order, a window of w messages in flight, go-back-N retransmission
 * and 4w preallocated buffers per peer (2w to send, 2w received), exactly UAM's section 5.1.1. This core adds what
 * is Active Messages' own:
 * <ul>
 *   <li><b>Request credits.</b> At most w request-side messages (requests, store chunks, get chunks) are
 *       outstanding to a peer; each is answered by exactly one reply-side message - the handler's reply, an
 *       explicit {@code ACK} when the handler did not reply, or the data of a get - which returns its credit. So a
 *       node never owes a peer more than w replies, its 2w send buffers always hold w requests and w replies, and a
 *       reply never waits for buffer space (GAM: a handler must not block).</li>
 *   <li><b>Explicit acknowledgements only for requests without a reply.</b> The channel runs with delayed acks
 *       ({@link GoBackNConfig#ackDelayNanos()}): the reply a handler sends during {@link #poll} carries the
 *       channel's acknowledgement of the request, and the {@code ACK} of a request without a reply does too.</li>
 *   <li><b>Buffers of {@link AmConfig#bufferBytes()} data</b> (4160 in the paper): a store or get of n bytes moves
 *       in ceil(n / 4160) chunks, one buffer each; a request with no data is 36 bytes with the channel's header,
 *       one inline cell on U-Net.</li>
 * </ul>
 *
 * <h2>Memory</h2>
 * Each node has {@link AmConfig#memoryBytes()} of memory ({@link #memory()}), its part of the global address
 * space: a store writes into the destination's, a get reads the source's into the asker's. Addresses are byte
 * offsets; every node has the same size, so the sender checks them; a receiver checks again and refuses (counts,
 * acknowledges, copies nothing) a chunk outside its memory.
 *
 * <h2>Threads and allocation</h2>
 * One thread (the node's) calls everything; handlers run inside {@link #poll} on it. Nothing allocates after
 * construction: the handler token and the header scratch are reused.
 *
 * <p>Host work charged to the node's CPU beyond the channel's: the copy of store and get data into memory
 * ({@link CostItem#COPY}) and one {@link CostItem#TABLE_LOOKUP} per handler dispatched (the handler table).
 *
 * <h2>Misuse</h2>
 * {@link IllegalArgumentException} for a peer outside the link's or this node, a handler index not registered, a
 * length or address outside the memory; {@link IllegalStateException} for a reply from a reply handler, a second
 * reply, a reply outside a handler, and {@link #poll} from inside a handler. Back-pressure (no credit) is the
 * return value {@link #BACK_PRESSURE}: poll, then try again.
 */
public final class AmCore implements ProtocolCore {
    public static final int OK = 0;
    public static final int BACK_PRESSURE = -1;
    /** Handler indices are 0 .. HANDLERS - 1 (one byte on the wire). */
    public static final int HANDLERS = 256;

    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;

    private final GoBackNCore channel;
    private final HostCpu cpu;
    private final int self;
    private final int peers;
    private final int window;
    private final int bufferBytes;
    private final MemorySegment memory;
    private final long memoryBytes;
    private final AmHandler[] handlers = new AmHandler[HANDLERS];
    private final int[] outstanding;
    private final MemorySegment header = MemorySegment.ofArray(new byte[AmWire.HEADER + AmWire.GET_DATA_BYTES]);
    private final AmToken token = new AmToken();
    private final AmCounters counters = new AmCounters();
    private final Dispatcher dispatcher = new Dispatcher();
    private boolean dispatching;

    /**
     * @param link  the link (its peers are the Active Messages nodes); its mtu must hold {@link AmConfig#linkMtu()}
     * @param clock the only time the core reads
     * @param cpu   the node's CPU
     */
    public AmCore(Link link, Clock clock, AmConfig config, HostCpu cpu) {
        Objects.requireNonNull(config, "config");
        this.cpu = Objects.requireNonNull(cpu, "cpu");
        this.channel = new GoBackNCore(link, clock, new GoBackNConfig(config.window(), config.maxMessage(),
                config.rtoNanos(), config.ackDelayNanos()), cpu);
        this.self = link.self();
        this.peers = link.peers();
        this.window = config.window();
        this.bufferBytes = config.bufferBytes();
        this.memoryBytes = config.memoryBytes();
        this.memory = MemorySegment.ofArray(new byte[config.memoryBytes()]);
        this.outstanding = new int[peers];
    }

    /** Registers {@code handler} under {@code index} (setup: every node registers the same table). */
    public void register(int index, AmHandler handler) {
        if (index < 0 || index >= HANDLERS) {
            throw new IllegalArgumentException("handler index must be in [0, " + HANDLERS + "), was " + index);
        }
        handlers[index] = Objects.requireNonNull(handler, "handler");
    }

    // ------------------------------------------------------------------ GAM 1.1

    /**
     * am_request_4: sends a request naming {@code handler} with four arguments.
     *
     * @return {@link #OK}, or {@link #BACK_PRESSURE} when w requests to {@code peer} await their replies
     */
    public int request(int peer, int handler, int a0, int a1, int a2, int a3) {
        checkPeer(peer);
        checkHandler(handler);
        if (!hasCredits(peer, 1)) {
            return BACK_PRESSURE;
        }
        AmWire.write(header, AmWire.REQUEST, handler, 0, a0, a1, a2, a3);
        channel.offer(peer, header, 0, AmWire.HEADER);
        outstanding[peer]++;
        counters.requestsSent++;
        return OK;
    }

    /**
     * am_reply_4: answers the request {@code token} is running for, from inside its handler, once.
     *
     * @throws IllegalStateException outside a handler, from a reply (or get) handler, or for a second reply
     */
    public void reply(AmToken token, int handler, int a0, int a1, int a2, int a3) {
        if (token != this.token || !token.active) {
            throw new IllegalStateException("reply outside a handler: a token is valid only while its handler runs");
        }
        if (!token.request) {
            throw new IllegalStateException("a reply handler may not reply (GAM 1.1: prevents live-lock)");
        }
        if (token.replied) {
            throw new IllegalStateException("a request handler replies at most once");
        }
        checkHandler(handler);
        token.replied = true;
        if (sendReplySide(token.source, AmWire.REPLY, handler, 0, a0, a1, a2, a3, header, 0)) {
            counters.repliesSent++;
        }
    }

    /**
     * am_store: copies {@code nbytes} of {@code src} from {@code srcOffset} to {@code remoteAddress} in
     * {@code peer}'s memory, then runs {@code handler(token, remoteAddress, nbytes, arg, 0)} there. The source is
     * copied before this returns (it can be reused at once).
     *
     * @return {@link #OK}, or {@link #BACK_PRESSURE} when the store's ceil(nbytes / bufferBytes) chunks do not fit
     *     in the credits left to {@code peer}
     * @throws IllegalArgumentException for {@code nbytes} outside [0, {@link #maxTransfer()}], a remote range
     *                                  outside the memory, or a source range outside {@code src}
     */
    public int store(int peer, MemorySegment src, long srcOffset, int remoteAddress, int nbytes, int handler,
                     int arg) {
        checkPeer(peer);
        checkHandler(handler);
        checkTransfer("remote", remoteAddress, nbytes);
        Objects.requireNonNull(src, "src");
        if (srcOffset < 0 || srcOffset > src.byteSize() - nbytes) {
            throw new IllegalArgumentException("source range [" + srcOffset + ", " + (srcOffset + nbytes)
                    + ") is outside the " + src.byteSize() + "-byte source");
        }
        int chunks = chunks(nbytes);
        if (!hasCredits(peer, chunks)) {
            return BACK_PRESSURE;
        }
        for (int c = 0, off = 0; c < chunks; c++, off += bufferBytes) {
            int len = Math.min(bufferBytes, nbytes - off);
            AmWire.write(header, AmWire.STORE, handler, c == chunks - 1 ? AmWire.LAST : 0, remoteAddress + off,
                    nbytes, arg, remoteAddress);
            channel.offer(peer, header, 0, AmWire.HEADER, src, srcOffset + off, len);
        }
        outstanding[peer] += chunks;
        counters.storeChunksSent += chunks;
        return OK;
    }

    /**
     * am_get: fetches {@code nbytes} from {@code remoteAddress} in {@code peer}'s memory into
     * {@code localAddress} of this node's, then runs {@code handler(token, localAddress, nbytes, arg, 0)} here (a
     * reply handler).
     *
     * @return {@link #OK}, or {@link #BACK_PRESSURE} when its chunks do not fit in the credits left to {@code peer}
     * @throws IllegalArgumentException for {@code nbytes} outside [0, {@link #maxTransfer()}] or a range outside
     *                                  the memory
     */
    public int get(int peer, int remoteAddress, int localAddress, int nbytes, int handler, int arg) {
        checkPeer(peer);
        checkHandler(handler);
        checkTransfer("remote", remoteAddress, nbytes);
        checkTransfer("local", localAddress, nbytes);
        int chunks = chunks(nbytes);
        if (!hasCredits(peer, chunks)) {
            return BACK_PRESSURE;
        }
        for (int c = 0, off = 0; c < chunks; c++, off += bufferBytes) {
            int len = Math.min(bufferBytes, nbytes - off);
            AmWire.write(header, AmWire.GET, handler, c == chunks - 1 ? AmWire.LAST : 0, remoteAddress + off, len,
                    localAddress + off, arg);
            header.set(AmWire.U32, AmWire.HEADER, localAddress);
            header.set(AmWire.U32, AmWire.HEADER + 4, nbytes);
            channel.offer(peer, header, 0, AmWire.HEADER + AmWire.GET_DATA_BYTES);
        }
        outstanding[peer] += chunks;
        counters.getChunksAsked += chunks;
        return OK;
    }

    /**
     * am_poll: dispatches up to {@code limit} arrived messages to their handlers (and answers requests whose handler
     * did not reply). @return messages dispatched
     *
     * @throws IllegalStateException from inside a handler
     */
    public int poll(int limit) {
        if (dispatching) {
            throw new IllegalStateException("poll from inside a handler: handlers run to completion");
        }
        dispatching = true;
        try {
            return channel.deliver(dispatcher, limit);
        } finally {
            dispatching = false;
        }
    }

    /** {@link #poll(int)} of everything arrived. */
    public int poll() {
        return poll(Integer.MAX_VALUE);
    }

    /** @return this node's memory, which peers' stores write and their gets read */
    public MemorySegment memory() {
        return memory;
    }

    /** @return request-side messages to {@code peer} awaiting their reply (0 .. w) */
    public int outstanding(int peer) {
        return outstanding[peer];
    }

    /** @return true when nothing is outstanding to any peer */
    public boolean quiescent() {
        for (int p = 0; p < peers; p++) {
            if (outstanding[p] != 0) {
                return false;
            }
        }
        return true;
    }

    /** @return the most bytes one store or get moves (GAM's am_max_size()) */
    public int maxTransfer() {
        return window * bufferBytes;
    }

    public int self() {
        return self;
    }

    public AmCounters counters() {
        return counters;
    }

    /** @return the reliable channel below (its counters: retransmissions, acks, ...) */
    public GoBackNCore channel() {
        return channel;
    }

    // ------------------------------------------------------------------ ProtocolCore: the channel's events

    @Override
    public void onFrame(Link from, int rxHandle) {
        channel.onFrame(from, rxHandle);
    }

    @Override
    public void onWritable(Link from) {
        channel.onWritable(from);
    }

    @Override
    public void onTimer() {
        channel.onTimer();
    }

    @Override
    public long nextDeadline() {
        return channel.nextDeadline();
    }

    @Override
    public Set<Guarantee> guarantees() {
        return channel.guarantees();
    }

    @Override
    public int bufferedMessages() {
        return channel.bufferedMessages();
    }

    @Override
    public int bufferCapacity() {
        return channel.bufferCapacity();
    }

    // ------------------------------------------------------------------ internals

    private int chunks(int nbytes) {
        return nbytes == 0 ? 1 : (nbytes + bufferBytes - 1) / bufferBytes;
    }

    /**
     * Credits and send buffers: at most w request-side messages outstanding; and the channel's 2w send buffers must
     * hold them (they always do unless a peer sent more than its window of requests and our replies to it pile up).
     */
    private boolean hasCredits(int peer, int messages) {
        return outstanding[peer] + messages <= window && channel.unacknowledged(peer) + messages <= 2 * window;
    }

    private boolean sendReplySide(int peer, byte kind, int handler, int flags, int a0, int a1, int a2, int a3,
                                  MemorySegment body, long bodyOffset) {
        return sendReplySide(peer, kind, handler, flags, a0, a1, a2, a3, body, bodyOffset, 0);
    }

    private boolean sendReplySide(int peer, byte kind, int handler, int flags, int a0, int a1, int a2, int a3,
                                  MemorySegment body, long bodyOffset, int bodyLength) {
        AmWire.write(header, kind, handler, flags, a0, a1, a2, a3);
        if (channel.offer(peer, header, 0, AmWire.HEADER, body, bodyOffset, bodyLength) != OK) {
            counters.replyRefused++;
            return false;
        }
        return true;
    }

    private void ack(int peer) {
        if (sendReplySide(peer, AmWire.ACK, 0, 0, 0, 0, 0, 0, header, 0)) {
            counters.acksSent++;
        }
    }

    private boolean inMemory(long address, long length) {
        return address >= 0 && length >= 0 && address <= memoryBytes - length;
    }

    private void checkTransfer(String which, int address, int nbytes) {
        if (nbytes < 0 || nbytes > maxTransfer()) {
            throw new IllegalArgumentException("nbytes must be in [0, " + maxTransfer() + "] (w buffers), was "
                    + nbytes);
        }
        if (!inMemory(address, nbytes)) {
            throw new IllegalArgumentException(which + " range [" + address + ", " + ((long) address + nbytes)
                    + ") is outside the " + memoryBytes + "-byte memory");
        }
    }

    private void checkPeer(int peer) {
        if (peer < 0 || peer >= peers || peer == self) {
            throw new IllegalArgumentException("peer must be in [0, " + peers + ") and not this node (" + self
                    + "), was " + peer);
        }
    }

    private void checkHandler(int handler) {
        if (handler < 0 || handler >= HANDLERS || handlers[handler] == null) {
            throw new IllegalArgumentException("handler " + handler + " is not registered");
        }
    }

    /** A request, store or get of {@code peer} answered: true unless it was never asked (a broken peer). */
    private boolean answered(int peer) {
        if (outstanding[peer] == 0) {
            counters.malformed++;
            return false;
        }
        outstanding[peer]--;
        return true;
    }

    private void runRequest(int peer, int index, int a0, int a1, int a2, int a3) {
        cpu.charge(CostItem.TABLE_LOOKUP);
        AmHandler h = handlers[index];
        if (h == null) {
            counters.unknownHandler++;
            ack(peer);
            return;
        }
        token.begin(peer, true);
        try {
            h.handle(token, a0, a1, a2, a3);
        } finally {
            token.active = false;
            if (!token.replied) {
                ack(peer); // every request is answered exactly once: its reply or this explicit ack
            }
        }
    }

    private void runReply(int peer, int index, int a0, int a1, int a2, int a3) {
        cpu.charge(CostItem.TABLE_LOOKUP);
        AmHandler h = handlers[index];
        if (h == null) {
            counters.unknownHandler++;
            return;
        }
        token.begin(peer, false);
        try {
            h.handle(token, a0, a1, a2, a3);
        } finally {
            token.active = false;
        }
    }

    /** Takes each message the channel delivers, in order per peer. */
    private final class Dispatcher implements MessageHandler {
        @Override
        public void onMessage(int peer, MemorySegment data, long offset, int length) {
            if (length < AmWire.HEADER) {
                counters.malformed++;
                return;
            }
            byte kind = data.get(BYTE, offset + AmWire.OFF_KIND);
            int handler = Byte.toUnsignedInt(data.get(BYTE, offset + AmWire.OFF_HANDLER));
            int flags = Byte.toUnsignedInt(data.get(BYTE, offset + AmWire.OFF_FLAGS));
            int a0 = AmWire.arg(data, offset, 0);
            int a1 = AmWire.arg(data, offset, 1);
            int a2 = AmWire.arg(data, offset, 2);
            int a3 = AmWire.arg(data, offset, 3);
            int dataLength = length - AmWire.HEADER;
            switch (kind) {
                case AmWire.REQUEST -> {
                    counters.requestsHandled++;
                    runRequest(peer, handler, a0, a1, a2, a3);
                }
                case AmWire.STORE -> stored(peer, data, offset, dataLength, handler, flags, a0, a1, a2, a3);
                case AmWire.GET -> {
                    if (dataLength != AmWire.GET_DATA_BYTES) {
                        counters.malformed++;
                        return;
                    }
                    served(peer, handler, flags, a0, a1, a2, a3, data.get(AmWire.U32, offset + AmWire.HEADER),
                            data.get(AmWire.U32, offset + AmWire.HEADER + 4));
                }
                case AmWire.REPLY -> {
                    if (answered(peer)) {
                        counters.repliesHandled++;
                        runReply(peer, handler, a0, a1, a2, a3);
                    }
                }
                case AmWire.ACK -> {
                    if (answered(peer)) {
                        counters.acksReceived++;
                    }
                }
                case AmWire.GET_DATA -> {
                    if (answered(peer)) {
                        fetched(peer, data, offset, dataLength, handler, flags, a0, a1, a2, a3);
                    }
                }
                default -> counters.malformed++;
            }
        }

        /** A store chunk: into memory; the last one runs the store's handler (a request handler). */
        private void stored(int peer, MemorySegment data, long offset, int len, int handler, int flags,
                            int chunkAddress, int total, int arg, int start) {
            if (!inMemory(chunkAddress, len) || !inMemory(start, total)) {
                counters.badAddress++;
                ack(peer);
                return;
            }
            MemorySegment.copy(data, offset + AmWire.HEADER, memory, chunkAddress, len);
            cpu.charge(CostItem.COPY, len);
            if ((flags & AmWire.LAST) == 0) {
                ack(peer);
                return;
            }
            counters.storesCompleted++;
            runRequest(peer, handler, start, total, arg, 0);
        }

        /** A get chunk asked of this node: its data goes back as the answer (no handler runs here). */
        private void served(int peer, int handler, int flags, int chunkAddress, int len, int localChunk, int arg,
                            int localStart, int total) {
            if (len < 0 || len > bufferBytes || !inMemory(chunkAddress, len)) {
                counters.badAddress++;
                sendReplySide(peer, AmWire.GET_DATA, handler, flags | AmWire.BAD_ADDRESS, localChunk, total, arg,
                        localStart, header, 0);
                return;
            }
            sendReplySide(peer, AmWire.GET_DATA, handler, flags, localChunk, total, arg, localStart, memory,
                    chunkAddress, len);
        }

        /** A chunk of this node's get arrived: into memory; the last one runs the get's handler (a reply handler). */
        private void fetched(int peer, MemorySegment data, long offset, int len, int handler, int flags,
                             int chunkAddress, int total, int arg, int start) {
            if ((flags & AmWire.BAD_ADDRESS) != 0 || !inMemory(chunkAddress, len)) {
                counters.badAddress++;
                return;
            }
            MemorySegment.copy(data, offset + AmWire.HEADER, memory, chunkAddress, len);
            cpu.charge(CostItem.COPY, len);
            if ((flags & AmWire.LAST) != 0) {
                counters.getsCompleted++;
                runReply(peer, handler, start, total, arg, 0);
            }
        }
    }

    @Override
    public String toString() {
        return "active messages core " + self + " (w=" + window + ", " + bufferBytes + "-byte buffers): " + counters
                + "; " + channel;
    }
}
