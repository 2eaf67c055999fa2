package io.nicbridge.protocols.ip.tcp;

import static io.nicbridge.protocols.ip.tcp.TcpHeader.ACK;
import static io.nicbridge.protocols.ip.tcp.TcpHeader.FIN;
import static io.nicbridge.protocols.ip.tcp.TcpHeader.RST;
import static io.nicbridge.protocols.ip.tcp.TcpHeader.SYN;
import static io.nicbridge.protocols.ip.tcp.TcpHeader.U16;
import static io.nicbridge.protocols.ip.tcp.TcpHeader.U32;
import static io.nicbridge.protocols.ip.tcp.TcpHeader.U8;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.ip.Ipv4Stack;
import io.nicbridge.protocols.ip.tcp.TcpCounters.Counter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A user-level TCP endpoint (RFC 9293) for one IPv4 address, as a sans-I/O core: segments come in through
 * {@link #onSegment} (registered with an {@link Ipv4Stack} for protocol 6 by {@link #over}, or fed by a test pipe),
 * go out through a {@link SegmentSink}, and the caller's thread drives the clock with {@link #poll}. It checks each
 * segment (length, data offset, options, checksum), demultiplexes it to a {@link TcpConnection} by its 4-tuple or to
 * a listening port, and answers segments for nobody with a RST (RFC 9293 3.10.7.1).
 *
 * <p>Everything is allocated at setup: a fixed table of {@link TcpConfig#connections} connection slots, each with its
 * send and receive ring carved from the caller's arena (one allocation, like a comm segment), and a direct table of
 * listeners by port. Demultiplexing is a scan of the slots (a user-level host runs a handful of connections). Nothing
 * allocates per segment; malformed segments are counted in {@link #counters()}, never thrown.
 *
 * <h2>Host cost</h2>
 * Given its node's CPU ({@link #hostCpu}; {@link #over} takes the IP stack's), the TCP charges its own work per
 * {@link io.nicbridge.bridge.cost}'s rules, from the items of the node's cost table (no TCP-specific prices): every
 * segment summed over its header and data ({@code CHECKSUM}) on either side, the connection lookup of each arriving
 * segment ({@code TABLE_LOOKUP}), every data byte copied - into the send ring by {@link TcpConnection#write}, from it
 * into a segment, from a segment into the receive ring, out of it by {@link TcpConnection#read} ({@code COPY}) - and
 * each event handed to the application ({@code HANDLER_DISPATCH}). The retransmission timer is the runner's to price
 * ({@code TIMER_ARM}, through {@link #nextDeadline}).
 *
 * <h2>Threads</h2>
 * One thread calls everything, the same one that drives the sink (the IP stack's poller).
 */
public final class Tcp {
    /** The first ephemeral port (IANA's dynamic range 49152..65535). */
    static final int EPHEMERAL_FIRST = 49152;
    private static final int PORTS = 65536;

    private final SegmentSink sink;
    private final int localAddress;
    private final TcpConfig config;
    private final int mss;
    private final TcpCounters counters = new TcpCounters();
    private final TcpConnection[] connections;
    private final TcpHandler[] listeners = new TcpHandler[PORTS];
    /** The options of the segment being handled: one holder, parsed into for every segment. */
    private final TcpOptions options = new TcpOptions();
    private int nextEphemeral = EPHEMERAL_FIRST;
    private long issCounter;
    private HostCpu cpu = HostCpu.uncharged("tcp");

    /**
     * A TCP on an IPv4 stack: registers itself for protocol 6 and sends through the stack ({@link Ipv4Stack#claim}
     * back-pressure included), charging the CPU the stack has now ({@link Ipv4Stack#hostCpu}: give the stack its CPU
     * first). The MSS comes from the stack's MTU unless {@code config} sets one.
     */
    public static Tcp over(Ipv4Stack ip, TcpConfig config, Arena arena) {
        Objects.requireNonNull(ip, "ip");
        Tcp tcp = new Tcp(new Ipv4SegmentSink(ip), ip.address(), config, arena);
        tcp.hostCpu(ip.cpu());
        ip.register(Ipv4Stack.PROTOCOL_TCP, tcp::onSegment);
        return tcp;
    }

    /**
     * @param sink         where segments go
     * @param localAddress this host's IPv4 address (the pseudo-header's, and what arriving segments must be sent to)
     * @param config       the settings; its MSS, when set, must fit the sink's largest segment
     * @param arena        where the connections' rings are allocated (stays the caller's; outlives this TCP)
     * @throws IllegalArgumentException naming the bad argument
     */
    public Tcp(SegmentSink sink, int localAddress, TcpConfig config, Arena arena) {
        this.sink = Objects.requireNonNull(sink, "sink");
        this.config = Objects.requireNonNull(config, "config");
        Objects.requireNonNull(arena, "arena");
        this.localAddress = localAddress;
        int fromMtu = sink.maxSegment() - TcpHeader.LENGTH;
        if (fromMtu < 64) {
            throw new IllegalArgumentException("sink.maxSegment() must leave at least 64 data bytes after a 20-byte"
                + " header, was " + sink.maxSegment());
        }
        if (config.mss() > fromMtu) {
            throw new IllegalArgumentException("config.mss() " + config.mss() + " exceeds what the sink carries ("
                + fromMtu + " = maxSegment " + sink.maxSegment() + " less the TCP header)");
        }
        this.mss = config.mss() == 0 ? fromMtu : config.mss();
        int perConnection = config.sendBuffer() + config.receiveBuffer();
        MemorySegment rings = arena.allocate((long) perConnection * config.connections(), 64);
        connections = new TcpConnection[config.connections()];
        for (int i = 0; i < connections.length; i++) {
            MemorySegment mine = rings.asSlice((long) i * perConnection, perConnection);
            connections[i] = new TcpConnection(this, i, config,
                mine.asSlice(0, config.sendBuffer()), mine.asSlice(config.sendBuffer(), config.receiveBuffer()));
        }
    }

    public TcpCounters counters() {
        return counters;
    }

    public int localAddress() {
        return localAddress;
    }

    /** @return the MSS this TCP offers in its SYNs (from the MTU, or the configured one) */
    public int mss() {
        return mss;
    }

    public TcpConfig config() {
        return config;
    }

    /**
     * Gives the TCP its node's CPU: from now on it charges its work there (see the class comment). Setup-time; a TCP
     * never given one charges nothing.
     */
    public void hostCpu(HostCpu cpu) {
        this.cpu = Objects.requireNonNull(cpu, "cpu");
    }

    /** @return the CPU the TCP charges */
    public HostCpu cpu() {
        return cpu;
    }

    SegmentSink sink() {
        return sink;
    }

    // =================================================================================================== setup

    /**
     * Listens on a port: each SYN to it opens a connection whose events go to {@code handler}; the application gets
     * it in {@link TcpHandler#onEstablished} and {@link TcpConnection#release}s it when done.
     *
     * @throws IllegalArgumentException for a port outside 1..65535 or one already listened on
     */
    public void listen(int port, TcpHandler handler) {
        Objects.requireNonNull(handler, "handler");
        checkPort("port", port);
        if (listeners[port] != null) {
            throw new IllegalArgumentException("TCP port " + port + " is already listening");
        }
        listeners[port] = handler;
    }

    /** Stops listening on a port; connections already accepted go on. */
    public void unlisten(int port) {
        checkPort("port", port);
        listeners[port] = null;
    }

    /**
     * Opens a connection from an ephemeral port (RFC 9293 active OPEN): the SYN goes out now, or on the next
     * {@link #poll} when the sink pushes back (an ARP resolution, say).
     *
     * @return the connection in SYN-SENT, or null when every slot is in use (back-pressure: release one)
     * @throws IllegalArgumentException for a port outside 1..65535
     */
    public TcpConnection connect(int remoteAddress, int remotePort, TcpHandler handler, long nowNanos) {
        return connect(0, remoteAddress, remotePort, handler, nowNanos);
    }

    /**
     * As {@link #connect(int, int, TcpHandler, long)} from a given local port (0 = ephemeral).
     *
     * @throws IllegalArgumentException for ports outside range, or a 4-tuple already in use
     */
    public TcpConnection connect(int localPort, int remoteAddress, int remotePort, TcpHandler handler,
                                 long nowNanos) {
        Objects.requireNonNull(handler, "handler");
        checkPort("remotePort", remotePort);
        if (localPort != 0) {
            checkPort("localPort", localPort);
            if (find(localPort, remoteAddress, remotePort) != null) {
                throw new IllegalArgumentException("connection :" + localPort + " -> " + remotePort
                    + " already exists");
            }
        }
        TcpConnection c = freeSlot();
        if (c == null) {
            return null;
        }
        int port = localPort != 0 ? localPort : ephemeralPort();
        if (port == 0) {
            return null;
        }
        counters.increment(Counter.CONNECTIONS_OPENED);
        c.openActive(port, remoteAddress, remotePort, handler, nextIss(), nowNanos);
        return c;
    }

    private static void checkPort(String name, int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(name + " must be in [1, 65535], was " + port);
        }
    }

    private int ephemeralPort() {
        for (int tries = 0; tries < PORTS - EPHEMERAL_FIRST; tries++) {
            int p = nextEphemeral;
            nextEphemeral = p == 65535 ? EPHEMERAL_FIRST : p + 1;
            if (listeners[p] == null && !portInUse(p)) {
                return p;
            }
        }
        return 0;
    }

    private boolean portInUse(int port) {
        for (TcpConnection c : connections) {
            if (c.usesLocalPort(port)) {
                return true;
            }
        }
        return false;
    }

    private TcpConnection freeSlot() {
        for (TcpConnection c : connections) {
            if (c.free()) {
                return c;
            }
        }
        return null;
    }

    private TcpConnection find(int localPort, int remoteAddress, int remotePort) {
        for (TcpConnection c : connections) {
            if (c.matches(localPort, remoteAddress, remotePort)) {
                return c;
            }
        }
        return null;
    }

    /** A well-spread initial sequence number (SplitMix64 over a counter: deterministic from the config's seed). */
    int nextIss() {
        long z = config.issSeed() + (++issCounter) * 0x9E37_79B9_7F4A_7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return (int) (z ^ (z >>> 31));
    }

    // =================================================================================================== the clock

    /**
     * Runs every connection's due timers (retransmission, persist, delayed ACK, TIME-WAIT) and the output the sink
     * pushed back before. Call it often (every poll of the IP stack): the timers have a 1 ms granularity.
     *
     * @return the number of connections not CLOSED
     */
    public int poll(long nowNanos) {
        int open = 0;
        for (TcpConnection c : connections) {
            if (c.state() != TcpState.CLOSED) {
                open++;
                c.onTick(nowNanos);
            }
        }
        return open;
    }

    /**
     * @return the earliest timer deadline of any connection, {@code Long.MIN_VALUE} when output waits (refused by the
     *     sink, or an ACK owed at the end of the step: {@link TcpConfig#ackAtPoll}), or {@code Long.MAX_VALUE} when
     *     none is armed
     */
    public long nextDeadline() {
        long d = Long.MAX_VALUE;
        for (TcpConnection c : connections) {
            if (c.state() != TcpState.CLOSED) {
                d = Math.min(d, c.outputPending() || c.ackOwed() ? Long.MIN_VALUE : c.nextDeadline());
            }
        }
        return d;
    }

    /**
     * @return whether an open connection owes an ACK for the end of the step ({@link TcpConfig#ackAtPoll}): the
     *     runner's next {@link #poll} sends it, and should come at once, not a timer granularity later
     */
    public boolean ackOwed() {
        for (TcpConnection c : connections) {
            if (c.state() != TcpState.CLOSED && c.ackOwed()) {
                return true;
            }
        }
        return false;
    }

    /** @return connection slots in use: open, closing, or closed and not yet released by the application */
    public int slotsInUse() {
        int n = 0;
        for (TcpConnection c : connections) {
            n += c.free() ? 0 : 1;
        }
        return n;
    }

    /** @return the connections of {@link #slotsInUse()}, for reports (allocates) */
    public String describeSlotsInUse() {
        StringBuilder b = new StringBuilder();
        for (TcpConnection c : connections) {
            if (!c.free()) {
                b.append(b.isEmpty() ? "" : ", ").append(c);
            }
        }
        return b.toString();
    }

    /** @return bytes the slots in use hold: written and not yet acknowledged, received and not yet read */
    public long heldBytes() {
        long held = 0;
        for (TcpConnection c : connections) {
            if (!c.free()) {
                held += c.unacknowledged() + c.readable();
            }
        }
        return held;
    }

    // =================================================================================================== input

    /**
     * One TCP segment, in place (the {@link io.nicbridge.protocols.ip.IpProtocol} entry): {@code length} bytes of
     * header and data at {@code offset}. Never throws for any content.
     */
    public void onSegment(MemorySegment frame, int offset, int length, int source, int destination, long nowNanos) {
        counters.increment(Counter.SEGMENTS_RECEIVED);
        if (length < TcpHeader.LENGTH || offset < 0 || (long) offset + length > frame.byteSize()) {
            counters.increment(Counter.BAD_LENGTH);
            return;
        }
        int header = TcpHeader.headerLength(frame, offset);
        if (header < TcpHeader.LENGTH || header > length) {
            counters.increment(Counter.BAD_OFFSET);
            return;
        }
        cpu.charge(CostItem.CHECKSUM, length);
        if (!TcpHeader.checksumVerifies(frame, offset, length, source, destination)) {
            counters.increment(Counter.BAD_CHECKSUM);
            return;
        }
        if (!options.parse(frame, offset, header)) {
            counters.increment(Counter.BAD_OPTIONS);
            return;
        }
        int sourcePort = Short.toUnsignedInt(frame.get(U16, offset + TcpHeader.SOURCE_PORT));
        int destinationPort = Short.toUnsignedInt(frame.get(U16, offset + TcpHeader.DESTINATION_PORT));
        if (destination != localAddress || sourcePort == 0 || destinationPort == 0) {
            counters.increment(Counter.BAD_ADDRESS); // TCP is unicast only (RFC 1122 4.2.3.10)
            return;
        }
        int seq = frame.get(U32, offset + TcpHeader.SEQUENCE);
        int ack = frame.get(U32, offset + TcpHeader.ACKNOWLEDGMENT);
        int flags = frame.get(U8, offset + TcpHeader.FLAGS) & 0x3F;
        int window = Short.toUnsignedInt(frame.get(U16, offset + TcpHeader.WINDOW));
        int dataLength = length - header;

        cpu.charge(CostItem.TABLE_LOOKUP);
        TcpConnection c = find(destinationPort, source, sourcePort);
        if (c != null) {
            counters.increment(Counter.ACCEPTED);
            c.onSegment(frame, offset + header, dataLength, seq, ack, flags, window, options, nowNanos);
            return;
        }
        TcpHandler listener = listeners[destinationPort];
        if (listener != null) {
            // RFC 9293 3.10.7.2, LISTEN: RST ignored, ACK answered with a RST, SYN opens a connection.
            if ((flags & RST) != 0) {
                counters.increment(Counter.ACCEPTED);
            } else if ((flags & ACK) != 0) {
                counters.increment(Counter.ACCEPTED);
                sendReset(source, destinationPort, sourcePort, ack, 0, RST, nowNanos);
            } else if ((flags & SYN) != 0) {
                TcpConnection fresh = freeSlot();
                if (fresh == null) {
                    counters.increment(Counter.LISTEN_OVERFLOW);
                    return;
                }
                counters.increment(Counter.ACCEPTED);
                fresh.openPassive(destinationPort, source, sourcePort, listener, nextIss(), seq, window, options,
                    nowNanos);
            } else {
                counters.increment(Counter.ACCEPTED);
            }
            return;
        }
        counters.increment(Counter.NO_CONNECTION);
        if ((flags & RST) == 0) { // RFC 9293 3.10.7.1: never answer a RST
            if ((flags & ACK) != 0) {
                sendReset(source, destinationPort, sourcePort, ack, 0, RST, nowNanos);
            } else {
                int segLength = dataLength + ((flags & SYN) != 0 ? 1 : 0) + ((flags & FIN) != 0 ? 1 : 0);
                sendReset(source, destinationPort, sourcePort, 0, seq + segLength, RST | ACK, nowNanos);
            }
        }
    }

    /** Sends a bare RST (or RST+ACK); when the sink has no buffer it is not sent (the peer's retry draws another). */
    void sendReset(int remoteAddress, int localPort, int remotePort, int seq, int ack, int flags, long now) {
        int h = sink.claim(remoteAddress, now);
        if (h < 0) {
            counters.increment(Counter.SEND_BACKPRESSURE);
            return;
        }
        MemorySegment b = sink.buffer(h);
        int at = sink.offset();
        int header = TcpHeader.write(b, at, localPort, remotePort, seq, ack, flags, 0, 0);
        cpu.charge(CostItem.CHECKSUM, header);
        TcpHeader.checksum(b, at, header, localAddress, remoteAddress);
        sink.send(h, remoteAddress, header);
        counters.increment(Counter.SEGMENTS_SENT);
        counters.increment(Counter.RESETS_SENT);
    }
}
