package io.nicbridge.protocols.ip.tcp;

import static io.nicbridge.protocols.ip.tcp.TcpHeader.ACK;
import static io.nicbridge.protocols.ip.tcp.TcpHeader.FIN;
import static io.nicbridge.protocols.ip.tcp.TcpHeader.PSH;
import static io.nicbridge.protocols.ip.tcp.TcpHeader.RST;
import static io.nicbridge.protocols.ip.tcp.TcpHeader.SYN;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.ip.tcp.TcpCounters.Counter;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * One TCP connection (its transmission control block) as a sans-I/O state machine: segments in
 * ({@link #onSegment}, from {@link Tcp}), the application's calls ({@link #write}, {@link #read}, {@link #close},
 * {@link #abort}) and the clock ({@link #onTick}) move it; segments go out through the {@link Tcp}'s
 * {@link SegmentSink}, and events to the {@link TcpHandler}. No thread, no socket, no allocation after setup: the
 * connection object and its two off-heap rings are made once per slot and reused.
 *
 * <h2>What it implements</h2>
 * RFC 9293's state machine (three-way handshake, simultaneous open and close, TIME-WAIT, the segment acceptability
 * test and trimming, RST generation), RFC 5961's blind-attack checks (exact-RCV.NXT RST, challenge ACKs for in-window
 * RSTs and SYNs, the ACK acceptability range), RFC 6298 RTT estimation with Karn's rule and exponential backoff at a
 * 1 ms granularity, RFC 5681 slow start and congestion avoidance with fast retransmit on the third duplicate ACK and
 * RFC 6582 NewReno recovery, receiver and sender silly-window avoidance (RFC 9293 3.8.6.2), the persist timer for a
 * zero window, out-of-order data kept in the receive ring ahead of its gap, and an immediate ACK for every segment
 * with data unless {@link TcpConfig#delayedAckNanos} asks otherwise.
 *
 * <h2>Sequence space and the rings</h2>
 * <pre>
 *   send:    ISS  SYN | data byte 0 at ISS+1 ...                                   FIN at ISS+1+written
 *            ring positions   [sndAcked ............. sndWritten)     stream position k = seq - (ISS + 1)
 *            sequence         SND.UNA ...... SND.NXT ...... SND.MAX (highest sent)
 *   receive: ring positions   [rcvRead ..... rcvIn)  gap  [ooo ranges ...)    rcvIn &lt;-&gt; RCV.NXT
 *            window = ring free space (capacity - (rcvIn - rcvRead)), at most 65535 &lt;&lt; our window shift
 * </pre>
 * The receive window is exactly the application's free buffer space, so every acceptable byte has a place in the
 * ring; the window's right edge never moves left (it is {@code rcvRead + capacity} or {@code RCV.NXT + 65535}, both
 * non-decreasing, and a scaled field rounds up rather than pull it back).
 *
 * <h2>Window scaling and SACK</h2>
 * Offered in our SYN as the config says, and in use when the peer's SYN carries them too: RFC 7323 2's window scale
 * (every window but a SYN's shifted, the peer's left by its shift, ours right by the shift that lets 16 bits cover
 * the receive ring) and RFC 2018's SACK, receive side: every ACK sent while out-of-order data waits in the ring
 * carries up to 4 SACK blocks, the most recently extended first. The sender side ignores the peer's SACK blocks (it
 * recovers with NewReno, as without SACK).
 *
 * <h2>Zero-window probes</h2>
 * The persist timer sends Linux's probe, a bare ACK with SEQ = SND.UNA - 1 (docs: tcpip-gam-facts B8): it lies outside
 * the receiver's window, so RFC 9293's acceptability test makes every receiver answer it with an ACK carrying its
 * current window, and it consumes no sequence space. Probing backs off exponentially and never gives up (MUST-37).
 */
public final class TcpConnection {
    /**
     * Gap-tracking ranges of out-of-order data, most recently extended first (the order RFC 2018 4 wants their SACK
     * blocks in); a segment needing one more is dropped (and retransmitted later).
     */
    static final int OUT_OF_ORDER_RANGES = 8;
    /**
     * The tail loss probe's floor (RFC 8985 7.2 leaves it to the sender): 40 ms, Linux's shortest delayed ACK
     * (TCP_ATO_MIN), so that a Linux receiver that holds its ACK back briefly does not draw a probe every time.
     */
    static final long PROBE_MIN_NANOS = 40_000_000L;
    /** RFC 8985 7.2's WCDelAckT: the longest a receiver may delay an ACK (RFC 9293 3.8.6.3: under 0.5 s; Linux 200 ms). */
    static final long WORST_CASE_DELAYED_ACK_NANOS = 200_000_000L;
    /** The MSS assumed when the peer's SYN has none (RFC 9293 MUST-15). */
    static final int DEFAULT_PEER_MSS = 536;
    private static final int MAX_PERSIST_SHIFT = 12;

    private final Tcp tcp;
    private final TcpConfig config;
    private final TcpCounters counters;
    private final ByteRing sendRing;
    private final ByteRing receiveRing;
    private final int slot;

    // ------------------------------------------------------------------ identity and life
    private TcpState state = TcpState.CLOSED;
    private boolean released = true;
    private boolean passive;
    /** The handshake completed: a passive connection the application never saw frees itself when it fails. */
    private boolean wasEstablished;
    private TcpHandler handler;
    private int localPort;
    private int remoteAddress;
    private int remotePort;
    private TcpCloseReason closeReason;

    // ------------------------------------------------------------------ send sequence space (RFC 9293 3.3.1)
    private int iss;
    private int sndUna;
    private int sndNxt;
    private int sndMax;
    private int sndWnd;
    private int sndWl1;
    private int sndWl2;
    private int maxSndWnd;
    private long sndAcked;
    private long sndWritten;
    private boolean finQueued;
    private int mss;

    // ------------------------------------------------------------------ receive sequence space
    private int irs;
    private int rcvNxt;
    /** The right edge of the window last advertised (RCV.NXT + RCV.WND as sent): it never moves left. */
    private int rcvAdv;
    /** The window our SYN offered, before RCV.NXT was known: the edge it set once the peer's SYN comes. */
    private int synWindow;
    /** RFC 7323 window scaling, when both SYNs offered it: the peer's windows are shifted left by sndShift, ours
     * right by rcvShift; both 0 otherwise. */
    private int sndShift;
    private int rcvShift;
    private boolean windowScaled;
    /** Both SYNs carried SACK-permitted (RFC 2018): our ACKs report the out-of-order blocks. */
    private boolean sackOk;
    /** The highest right edge the peer's SACK blocks reported (meaningful while within [SND.UNA, SND.MAX]). */
    private int highSacked;
    /** The SACK blocks of the segment being built (sequence numbers, most recent first). */
    private final int[] sackLeft = new int[TcpOptions.MAX_SACK_BLOCKS];
    private final int[] sackRight = new int[TcpOptions.MAX_SACK_BLOCKS];
    private long rcvRead;
    private long rcvIn;
    private final long[] oooStart = new long[OUT_OF_ORDER_RANGES];
    private final long[] oooEnd = new long[OUT_OF_ORDER_RANGES];
    private int oooCount;
    private boolean finReceived;
    private boolean finPending;
    private long finPosition;

    // ------------------------------------------------------------------ congestion control (RFC 5681, RFC 6582)
    private int cwnd;
    private int ssthresh;
    private int dupAcks;
    private boolean inRecovery;
    private int recover;

    // ------------------------------------------------------------------ RTT (RFC 6298), in nanoseconds
    private boolean hasRttSample;
    private long srtt;
    private long rttvar;
    private long rto;
    private boolean rttTiming;
    private int rttSeq;
    private long rttStart;
    private int retries;

    // ------------------------------------------------------------------ timers (deadlines on the caller's clock)
    private boolean rexmtArmed;
    private long rexmtAt;
    private boolean persistArmed;
    private long persistAt;
    private int persistShift;
    private boolean delackArmed;
    private long delackAt;
    private long timeWaitAt;
    /**
     * An orphan in FIN-WAIT-2 (released by its application, its FIN acknowledged, the peer's FIN not come) is given
     * up at this time, one TIME-WAIT length after it became one: Linux's tcp_fin_timeout. RFC 9293 lets FIN-WAIT-2
     * last for ever, but then a peer that vanished without a RST reaching us (its own RST lost, or it was reset by a
     * third party) would hold the slot for ever although nobody will use it again (found by TcpHostilePeerFuzzTest).
     */
    private long orphanAt;
    private boolean orphanArmed;
    /** RFC 8985 7 tail loss probe: its timer, and whether a probe is out (one per tail, until SND.UNA moves). */
    private boolean probeArmed;
    private long probeAt;
    private boolean probeOut;

    // ------------------------------------------------------------------ output and events
    private boolean ackNow;
    /**
     * An in-order data segment's ACK left for the end of the runner's step ({@link TcpConfig#ackAtPoll}): the next
     * segment we send carries it, else the next {@link #onTick} sends it. Not a delayed ACK - no timer, no waiting for
     * a second segment: the runner polls within the step that took the segment, so the ACK leaves as promptly as one
     * sent from inside onSegment, and a request the application answers in that step costs one segment, not two
     * (a pure ACK, then the reply) - the round trip of the paper's TCP ping-pong with no delayed ACK.
     */
    private boolean ackOwed;
    /**
     * The least time between two ACKs answering out-of-window pure ACKs or SYNs on one connection: Linux's
     * {@code net.ipv4.tcp_invalid_ratelimit} default, 500 ms.
     */
    static final long OUT_OF_WINDOW_ACK_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** Whether an ACK answering an out-of-window pure ACK or SYN went out, and when (for the rate limit). */
    private boolean outOfWindowAckSent;
    private long lastOutOfWindowAckAt;
    /** The persist timer expired on a small window: the next output may send a runt (the SWS override). */
    private boolean swsOverride;
    private boolean outputPending;
    private int unackedSegments;
    private boolean evEstablished;
    private boolean evReadable;
    private boolean evWritable;
    private boolean evClosed;
    private boolean dispatching;

    TcpConnection(Tcp tcp, int slot, TcpConfig config, MemorySegment sendMemory, MemorySegment receiveMemory) {
        this.tcp = tcp;
        this.slot = slot;
        this.config = config;
        this.counters = tcp.counters();
        this.sendRing = new ByteRing(sendMemory);
        this.receiveRing = new ByteRing(receiveMemory);
    }

    // =================================================================================================== queries

    public TcpState state() {
        return state;
    }

    public int localPort() {
        return localPort;
    }

    public int remoteAddress() {
        return remoteAddress;
    }

    public int remotePort() {
        return remotePort;
    }

    /** @return why the connection closed, or null while it is not CLOSED */
    public TcpCloseReason closeReason() {
        return state == TcpState.CLOSED ? closeReason : null;
    }

    /** @return in-order bytes waiting for {@link #read} */
    public int readable() {
        return (int) (rcvIn - rcvRead);
    }

    /** @return bytes {@link #write} accepts now (free send-ring space), 0 once the application closed */
    public int writable() {
        return finQueued || state == TcpState.CLOSED ? 0 : (int) (sendRing.capacity() - (sndWritten - sndAcked));
    }

    /** @return true when the peer sent its FIN and every byte before it has been read */
    public boolean endOfStream() {
        return finReceived && rcvIn == rcvRead;
    }

    /** @return bytes written and not yet acknowledged by the peer */
    public long unacknowledged() {
        return sndWritten - sndAcked;
    }

    /** @return the MSS this connection sends with: the smaller of ours and the peer's */
    public int mss() {
        return mss;
    }

    /** @return the congestion window in bytes */
    public int congestionWindow() {
        return cwnd;
    }

    /** @return the slow-start threshold in bytes */
    public int slowStartThreshold() {
        return ssthresh;
    }

    /** @return the peer's last advertised window */
    public int sendWindow() {
        return sndWnd;
    }

    /** @return the current retransmission timeout in nanoseconds */
    public long rtoNanos() {
        return rto;
    }

    /** @return the smoothed RTT in nanoseconds, 0 before the first sample */
    public long smoothedRttNanos() {
        return srtt;
    }

    boolean free() {
        return state == TcpState.CLOSED && released;
    }

    boolean matches(int port, int address, int peerPort) {
        return state != TcpState.CLOSED && localPort == port && remoteAddress == address && remotePort == peerPort;
    }

    boolean usesLocalPort(int port) {
        return !free() && localPort == port;
    }

    // =================================================================================================== application

    /**
     * Copies up to {@code length} bytes into the send ring; they go out as the windows allow.
     *
     * @return the bytes accepted (0 when the ring is full: back-pressure; {@link TcpHandler#onWritable} tells when
     *     space came free), or -1 when the connection is CLOSED (reset, timed out, aborted)
     * @throws IllegalArgumentException when the range lies outside {@code src}
     * @throws IllegalStateException    after the application's own {@link #close}, or on a released connection
     */
    public int write(MemorySegment src, long offset, int length, long nowNanos) {
        Objects.requireNonNull(src, "src");
        Objects.checkFromIndexSize(offset, length, src.byteSize());
        checkHeld();
        if (finQueued) {
            throw new IllegalStateException("write after close() on " + this);
        }
        if (state == TcpState.CLOSED) {
            return -1;
        }
        int n = Math.min(length, writable());
        if (n > 0) {
            tcp.cpu().charge(CostItem.COPY, n);
            sendRing.write(sndWritten, src, offset, n);
            sndWritten += n;
            output(nowNanos);
        }
        dispatchEvents(nowNanos);
        return n;
    }

    /**
     * Copies up to {@code length} in-order received bytes out of the receive ring, opening the window by as much.
     *
     * @return the bytes read, 0 when none are waiting, or -1 at the end of the stream (the peer's FIN, after every
     *     byte before it) or when the connection was reset with nothing left to read
     * @throws IllegalArgumentException when the range lies outside {@code dst}
     * @throws IllegalStateException    on a released connection
     */
    public int read(MemorySegment dst, long offset, int length, long nowNanos) {
        Objects.requireNonNull(dst, "dst");
        Objects.checkFromIndexSize(offset, length, dst.byteSize());
        checkHeld();
        int n = (int) Math.min(length, rcvIn - rcvRead);
        if (n == 0) {
            return finReceived || (state == TcpState.CLOSED && closeReason != TcpCloseReason.ORDERLY) ? -1 : 0;
        }
        int before = receiveWindow();
        tcp.cpu().charge(CostItem.COPY, n);
        receiveRing.read(rcvRead, dst, offset, n);
        rcvRead += n;
        if (state.receivesData() && windowUpdateDue(before)) {
            ackNow = true;
            output(nowNanos);
        }
        dispatchEvents(nowNanos);
        return n;
    }

    /**
     * Closes the sending direction: a FIN follows the data already written (RFC 9293 CLOSE). Reading continues until
     * the peer's FIN. In SYN-SENT the connection just ends. Idempotent.
     */
    public void close(long nowNanos) {
        checkHeld();
        switch (state) {
            case SYN_SENT -> closeWith(TcpCloseReason.ORDERLY);
            case SYN_RECEIVED -> finQueued = true; // the FIN follows once ESTABLISHED
            case ESTABLISHED -> {
                finQueued = true;
                state = TcpState.FIN_WAIT_1;
            }
            case CLOSE_WAIT -> {
                finQueued = true;
                state = TcpState.LAST_ACK;
            }
            default -> {
                // closing already, or closed
            }
        }
        output(nowNanos);
        dispatchEvents(nowNanos);
    }

    /** Resets the connection (RFC 9293 ABORT): a RST at SND.NXT goes out, unsent and unread data is discarded. */
    public void abort(long nowNanos) {
        checkHeld();
        if (state == TcpState.CLOSED) {
            return;
        }
        if (state != TcpState.SYN_SENT && state != TcpState.TIME_WAIT) {
            tcp.sendReset(remoteAddress, localPort, remotePort, sndMax, 0, RST, nowNanos);
        }
        closeWith(TcpCloseReason.ABORTED);
        dispatchEvents(nowNanos);
    }

    /**
     * Gives the connection back: the application will not touch it again. A connection still open is closed first
     * ({@link #close}); the slot is reused once the connection reaches CLOSED (after TIME-WAIT for the side that
     * closed first). An orphan left in FIN-WAIT-2 (its FIN acknowledged, the peer's not come) is given up one
     * TIME-WAIT length later, as Linux's tcp_fin_timeout does.
     */
    public void release(long nowNanos) {
        if (released) {
            return;
        }
        if (state == TcpState.ESTABLISHED || state == TcpState.CLOSE_WAIT || state == TcpState.SYN_SENT
            || state == TcpState.SYN_RECEIVED) {
            close(nowNanos);
        }
        released = true;
        handler = null;
        if (state == TcpState.FIN_WAIT_2) {
            armOrphan(nowNanos);
        }
    }

    private void armOrphan(long now) {
        orphanArmed = true;
        orphanAt = now + config.timeWaitNanos();
    }

    private void checkHeld() {
        if (released) {
            throw new IllegalStateException("connection slot " + slot + " was released");
        }
    }

    // =================================================================================================== open

    void openActive(int port, int address, int peerPort, TcpHandler h, int initialSequence, long now) {
        reset(port, address, peerPort, h, initialSequence, false);
        released = false;
        state = TcpState.SYN_SENT;
        mss = Math.min(tcp.mss(), DEFAULT_PEER_MSS);
        output(now);
    }

    void openPassive(int port, int address, int peerPort, TcpHandler h, int initialSequence, int seq, int window,
                     TcpOptions options, long now) {
        reset(port, address, peerPort, h, initialSequence, true);
        released = false; // the application holds it from onEstablished on; until then the TCP does
        state = TcpState.SYN_RECEIVED;
        irs = seq;
        rcvNxt = seq + 1;
        rcvAdv = rcvNxt;
        setPeerMss(options.mss);
        negotiate(options);
        sndWnd = window; // a SYN's window is never scaled (RFC 7323 2.2)
        maxSndWnd = window;
        sndWl1 = seq;
        sndWl2 = initialSequence;
        output(now);
    }

    private void reset(int port, int address, int peerPort, TcpHandler h, int initialSequence, boolean isPassive) {
        passive = isPassive;
        wasEstablished = false;
        handler = h;
        localPort = port;
        remoteAddress = address;
        remotePort = peerPort;
        closeReason = null;
        iss = initialSequence;
        sndUna = iss;
        sndNxt = iss;
        sndMax = iss;
        sndWnd = 0;
        sndWl1 = 0;
        sndWl2 = 0;
        maxSndWnd = 0;
        sndAcked = 0;
        sndWritten = 0;
        finQueued = false;
        irs = 0;
        rcvNxt = 0;
        rcvAdv = 0;
        synWindow = 0;
        sndShift = 0;
        rcvShift = 0;
        windowScaled = false;
        sackOk = false;
        highSacked = 0;
        rcvRead = 0;
        rcvIn = 0;
        oooCount = 0;
        finReceived = false;
        finPending = false;
        finPosition = 0;
        orphanArmed = false;
        dupAcks = 0;
        inRecovery = false;
        recover = iss;
        hasRttSample = false;
        srtt = 0;
        rttvar = 0;
        rto = config.initialRtoNanos();
        rttTiming = false;
        retries = 0;
        rexmtArmed = false;
        probeArmed = false;
        probeOut = false;
        persistArmed = false;
        persistShift = 0;
        delackArmed = false;
        ackNow = false;
        ackOwed = false;
        outOfWindowAckSent = false;
        swsOverride = false;
        outputPending = false;
        unackedSegments = 0;
        evEstablished = false;
        evReadable = false;
        evWritable = false;
        evClosed = false;
    }

    /**
     * The options of the peer's SYN decide what is used (our own SYN offers what the config enables; a SYN-ACK
     * offers only what the SYN it answers did): window scaling when both SYNs carry the option (RFC 7323 2.2), SACK
     * when both carry SACK-permitted (RFC 2018 2).
     */
    private void negotiate(TcpOptions options) {
        boolean scaled = config.windowScaling() && options.windowShift != TcpOptions.NO_WINDOW_SCALE;
        sndShift = scaled ? options.windowShift : 0;
        rcvShift = scaled ? config.windowShift() : 0;
        windowScaled = scaled;
        sackOk = config.sack() && options.sackPermitted;
    }

    private void setPeerMss(int peerMss) {
        mss = Math.min(tcp.mss(), peerMss == TcpHeader.NO_MSS ? DEFAULT_PEER_MSS : peerMss);
        // RFC 5681 3.1's initial window: 2, 3 or 4 segments by the SMSS.
        cwnd = mss > 2190 ? 2 * mss : mss > 1095 ? 3 * mss : 4 * mss;
        ssthresh = Integer.MAX_VALUE;
    }

    // =================================================================================================== input

    /**
     * One segment for this connection; {@link Tcp} has checked its length, offset, options and checksum.
     *
     * @param dataAt  where its data starts in {@code f}
     * @param window  its window field as sent (unscaled)
     * @param options its options (read during the call only)
     */
    void onSegment(MemorySegment f, int dataAt, int dataLength, int seq, int ack, int flags, int window,
                   TcpOptions options, long now) {
        if (state == TcpState.SYN_SENT) {
            synSent(seq, ack, flags, window, options, now);
        } else if (state != TcpState.CLOSED) {
            synchronizedInput(f, dataAt, dataLength, seq, ack, flags, window, options, now);
        }
        // The application hears first, so its reads open the window and its writes ride on the ACK owed.
        dispatchEvents(now);
        output(now);
        dispatchEvents(now);
    }

    /** RFC 9293 3.10.7.3, SYN-SENT. */
    private void synSent(int seq, int ack, int flags, int window, TcpOptions options, long now) {
        boolean hasAck = (flags & ACK) != 0;
        if (hasAck && (ack - iss <= 0 || ack - sndMax > 0)) {
            if ((flags & RST) == 0) {
                tcp.sendReset(remoteAddress, localPort, remotePort, ack, 0, RST, now);
            }
            return;
        }
        if ((flags & RST) != 0) {
            if (hasAck) { // the connection was refused
                counters.increment(Counter.RESETS_RECEIVED);
                closeWith(TcpCloseReason.RESET);
            }
            return;
        }
        if ((flags & SYN) == 0) {
            return;
        }
        irs = seq;
        rcvNxt = seq + 1;
        rcvAdv = rcvNxt + synWindow; // the window our SYN offered, now that it has a left edge
        setPeerMss(options.mss);
        negotiate(options);
        sndWnd = window; // a SYN's window is never scaled (RFC 7323 2.2)
        maxSndWnd = window;
        sndWl1 = seq;
        sndWl2 = ack;
        if (hasAck) {
            acknowledge(ack, now);
            establish();
        } else { // simultaneous open: our SYN goes again, now with the ACK of theirs
            state = TcpState.SYN_RECEIVED;
            sndNxt = iss;
        }
        ackNow = true;
    }

    private void establish() {
        wasEstablished = true;
        state = finQueued ? TcpState.FIN_WAIT_1 : TcpState.ESTABLISHED;
        evEstablished = true;
        if (passive) {
            counters.increment(Counter.CONNECTIONS_ACCEPTED);
        }
    }

    /** RFC 9293 3.10.7.4: every state from SYN-RECEIVED on. */
    private void synchronizedInput(MemorySegment f, int dataAt, int dataLength, int seq, int ack, int flags,
                                   int windowField, TcpOptions options, long now) {
        boolean syn = (flags & SYN) != 0;
        boolean fin = (flags & FIN) != 0;
        boolean rst = (flags & RST) != 0;
        int segLength = dataLength + (syn ? 1 : 0) + (fin ? 1 : 0);
        int window = syn ? windowField : windowField << sndShift; // RFC 7323 2.3: every window but a SYN's is scaled
        int rcvWnd = receiveWindow();

        // First, the sequence number: the acceptability test (Table 6).
        boolean acceptable;
        if (segLength == 0) {
            acceptable = rcvWnd == 0 ? seq == rcvNxt : inWindow(seq, rcvWnd);
        } else {
            acceptable = rcvWnd != 0 && (inWindow(seq, rcvWnd) || inWindow(seq + segLength - 1, rcvWnd));
        }
        // MUST-66: with a zero window still take a segment's ACK and RST when it sits at RCV.NXT.
        boolean zeroWindowAtEdge = !acceptable && rcvWnd == 0 && seq == rcvNxt;
        if (!acceptable && !zeroWindowAtEdge) {
            if (!rst) {
                if (dataLength > 0 && seq + dataLength - rcvNxt <= 0) {
                    counters.increment(Counter.DUPLICATE_SEGMENTS);
                } else {
                    counters.increment(Counter.OUT_OF_WINDOW);
                }
                // Data or a FIN outside the window always gets its ACK: the sender needs it, and an ACK draws no data
                // back. A pure ACK or a SYN gets one at most every OUT_OF_WINDOW_ACK_INTERVAL_NANOS: two ends that
                // each find the other's ACKs out of window (a TIME-WAIT meeting a SYN-RECEIVED that an old duplicate
                // SYN opened: nic simtest --protocol tcp-ack-at-poll, seed 264425) would answer each other's ACKs
                // forever and fill the link (Linux's tcp_oow_rate_limited, RFC 5961 10).
                if (segLength > 0 && !syn || outOfWindowAckAllowed(now)) {
                    ackNow = true;
                }
                if (state == TcpState.TIME_WAIT && fin) { // a retransmitted FIN: ACK it and restart 2 MSL
                    timeWaitAt = now + config.timeWaitNanos();
                }
            }
            return;
        }

        // Second, RST (RFC 5961 3.2): only one at exactly RCV.NXT resets; others in the window draw a challenge.
        if (rst) {
            counters.increment(Counter.RESETS_RECEIVED);
            if (state == TcpState.TIME_WAIT) {
                // RFC 1337 ("TIME-WAIT assassination"): ignored. Both FINs are through; a RST here comes from an old
                // duplicate (the peer, already CLOSED, answering a duplicated last ACK) and must not cut TIME-WAIT.
                return;
            }
            if (seq == rcvNxt) {
                if (state == TcpState.SYN_RECEIVED && passive) { // back to LISTEN: the application never saw it
                    state = TcpState.CLOSED;
                    released = true;
                    handler = null;
                } else {
                    closeWith(TcpCloseReason.RESET);
                }
            } else {
                challengeAck();
            }
            return;
        }

        // Trim to the window: old bytes off the front (an old SYN with them), bytes past the window off the end.
        int dataStart = dataAt;
        int length = dataLength;
        int s = seq;
        if (syn && s - rcvNxt < 0) {
            syn = false;
            s++;
        }
        int front = rcvNxt - s;
        if (front > 0) {
            if (front >= length) {
                if (fin && s + length - rcvNxt < 0) {
                    fin = false; // a FIN we already have
                }
                if (length > 0) {
                    counters.increment(Counter.DUPLICATE_SEGMENTS);
                }
                length = 0;
            } else {
                dataStart += front;
                length -= front;
            }
            s = rcvNxt;
        }
        int over = s + length - (rcvNxt + rcvWnd);
        if (over > 0) {
            length = Math.max(0, length - over);
            fin = false;
        }
        if (zeroWindowAtEdge) {
            length = 0;
            fin = false;
            ackNow = true;
        }

        // Third, SYN in a synchronized state (RFC 5961 4.2): a challenge ACK, never a reset.
        if (syn) {
            challengeAck();
            return;
        }

        // Fourth, ACK.
        if ((flags & ACK) == 0) {
            return;
        }
        if (state == TcpState.SYN_RECEIVED) {
            if (ack - sndUna > 0 && ack - sndMax <= 0) {
                sndWnd = window;
                sndWl1 = seq;
                sndWl2 = ack;
                maxSndWnd = Math.max(maxSndWnd, window);
                establish();
            } else {
                tcp.sendReset(remoteAddress, localPort, remotePort, ack, 0, RST, now);
                return;
            }
        }
        if (ack - sndMax > 0) { // acknowledges something never sent
            ackNow = true;
            return;
        }
        if (ack - (sndUna - maxSndWnd) < 0) { // RFC 5961 5.2: too old to be acceptable
            ackNow = true;
            return;
        }
        if (ack - sndUna > 0) {
            acknowledge(ack, now);
        } else if (ack == sndUna && length == 0 && dataLength == 0 && !fin && sndMax != sndUna) {
            int sacked = sackedSegments(options);
            if (window == sndWnd || sacked > 0) {
                duplicateAck(Math.max(sacked, 1), now);
            }
        }
        if (sndWl1 - seq < 0 || (sndWl1 == seq && sndWl2 - ack <= 0)) { // the window update (3.10.7.4)
            sndWnd = window;
            sndWl1 = seq;
            sndWl2 = ack;
            maxSndWnd = Math.max(maxSndWnd, window);
            if (window > 0 && persistArmed) {
                persistArmed = false;
                persistShift = 0;
            }
        }
        boolean finAcked = finQueued && sndUna == finSequence() + 1;
        switch (state) {
            case FIN_WAIT_1 -> {
                if (finAcked) {
                    state = TcpState.FIN_WAIT_2;
                    if (released) {
                        armOrphan(now);
                    }
                }
            }
            case CLOSING -> {
                if (finAcked) {
                    enterTimeWait(now);
                }
            }
            case LAST_ACK -> {
                if (finAcked) {
                    closeWith(TcpCloseReason.ORDERLY);
                    return;
                }
            }
            default -> {
            }
        }

        // Sixth (no URG: urgent data is ordinary inline data, facts B12), the text.
        if (length > 0 && state.receivesData()) {
            receiveText(f, dataStart, length, s, fin, now);
        }

        // Eighth, FIN: processed when every byte before it has arrived; an early one waits for the gap to fill.
        if (fin) {
            int finSeq = s + length;
            if (finSeq == rcvNxt) {
                receiveFin(now);
            } else if (state.receivesData()) {
                finPending = true;
                finPosition = rcvIn + (finSeq - rcvNxt);
            }
        }
    }

    /**
     * How many segments' worth of data the segment's SACK blocks report held above SND.UNA: the segments newly SACKed
     * beyond the highest SACKed before (at least one when a block reports held data at all - an arrival that filled a
     * gap between blocks). Each is a segment that has left the network, the event a duplicate ACK stands for: after
     * RFC 6675 2 an ACK that SACKs data is a duplicate ACK whatever its window, and as its IsLost counts SACKed
     * segments, not ACKs, the count covers a receiver that compresses its SACKs (Linux sends one ACK for up to 44
     * out-of-order segments) - counted by ACKs, fast retransmit and the window's inflation in recovery lagged, and a
     * scaled window, following the receiver's free space, made most duplicate ACKs look like window updates (42
     * timeouts in a 20 MB download through 0.5 % drops to the kernel's SACKing receiver, against 1 without SACK).
     *
     * @return 0 when SACK is not in use or the blocks report nothing held above SND.UNA
     */
    private int sackedSegments(TcpOptions options) {
        if (!sackOk) {
            return 0;
        }
        if (highSacked - sndUna < 0 || highSacked - sndMax > 0) {
            highSacked = sndUna;
        }
        boolean held = false;
        int newBytes = 0;
        int high = highSacked;
        for (int b = 0; b < options.sackBlocks; b++) {
            int left = options.sackLeft[b];
            int right = options.sackRight[b];
            if (left - sndUna > 0 && right - sndMax <= 0 && right - left > 0) {
                held = true;
                if (right - high > 0) {
                    newBytes += right - (left - high > 0 ? left : high);
                    high = right;
                }
            }
        }
        highSacked = high;
        return !held ? 0 : Math.max(1, (newBytes + mss - 1) / mss);
    }

    private boolean inWindow(int seq, int window) {
        return seq - rcvNxt >= 0 && seq - (rcvNxt + window) < 0;
    }

    private void challengeAck() {
        counters.increment(Counter.CHALLENGE_ACKS);
        ackNow = true;
    }

    /**
     * @return whether an ACK answering an out-of-window pure ACK or SYN may go now: the first one does, then one per
     *     {@link #OUT_OF_WINDOW_ACK_INTERVAL_NANOS}; one refused is counted
     */
    private boolean outOfWindowAckAllowed(long now) {
        if (outOfWindowAckSent && now - lastOutOfWindowAckAt < OUT_OF_WINDOW_ACK_INTERVAL_NANOS) {
            counters.increment(Counter.OUT_OF_WINDOW_ACKS_SKIPPED);
            return false;
        }
        outOfWindowAckSent = true;
        lastOutOfWindowAckAt = now;
        return true;
    }

    /** New data acknowledged (SND.UNA < SEG.ACK <= SND.MAX). */
    private void acknowledge(int ack, long now) {
        long position = sndAcked + (ack - (iss + 1 + (int) sndAcked));
        long newAcked = Math.min(Math.max(position, 0), sndWritten);
        int bytes = (int) (newAcked - sndAcked);
        sndAcked = newAcked;
        sndUna = ack;
        if (sndNxt - sndUna < 0) {
            sndNxt = sndUna;
        }
        if (rttTiming && ack - rttSeq >= 0) {
            rttSample(now - rttStart);
            rttTiming = false;
        }
        retries = 0;
        if (state.synchronized_()) {
            if (inRecovery) {
                if (ack - recover >= 0) { // a full ACK ends recovery (RFC 6582 3.2 step 3)
                    inRecovery = false;
                    dupAcks = 0;
                    // min(ssthresh, max(FlightSize, SMSS) + SMSS): at least two segments. With FlightSize alone, a
                    // full ACK of everything sent left one segment, which a Linux receiver holds for its delayed
                    // ACK: 40 ms idle after each recovery (31 such gaps in a 10 MB download through 0.5 % drops).
                    cwnd = Math.min(ssthresh, Math.max(sndMax - sndUna, mss) + mss);
                } else { // a partial ACK: the next hole goes at once, the window deflates by what was acked
                    retransmitFirst(now);
                    counters.increment(Counter.FAST_RETRANSMISSIONS);
                    cwnd = Math.max(cwnd - bytes + mss, mss);
                }
            } else {
                dupAcks = 0;
                if (cwnd < ssthresh) {
                    cwnd = saturatedAdd(cwnd, Math.min(bytes, mss));
                } else {
                    cwnd = saturatedAdd(cwnd, Math.max(1, (int) ((long) mss * mss / cwnd)));
                }
            }
        }
        if (sndUna == sndMax) {
            rexmtArmed = false;
        } else {
            armRetransmit(now);
        }
        if (bytes > 0) {
            evWritable = true;
            probeOut = false; // the tail moved: a new probe may go
        }
        armProbe(now);
    }

    /** A duplicate ACK standing for {@code segments} segments that left the network (more than one: SACKed ones). */
    private void duplicateAck(int segments, long now) {
        counters.increment(Counter.DUPLICATE_ACKS_RECEIVED);
        for (int i = 0; i < segments; i++) {
            duplicateSegment(now);
        }
    }

    private void duplicateSegment(long now) {
        dupAcks++;
        if (inRecovery) {
            cwnd = saturatedAdd(cwnd, mss); // each further duplicate: a segment has left the network
        } else if (dupAcks == 3 && sndUna - 1 - recover >= 0) {
            // RFC 5681 3.2 / RFC 6582 3.2: fast retransmit and enter fast recovery.
            int flight = sndMax - sndUna;
            ssthresh = Math.max(flight / 2, 2 * mss);
            recover = sndMax;
            inRecovery = true;
            rttTiming = false;
            retransmitFirst(now);
            counters.increment(Counter.FAST_RETRANSMISSIONS);
            cwnd = ssthresh + 3 * mss;
            armRetransmit(now);
            probeArmed = false; // recovery repairs the loss now
        }
    }

    /** Sends the segment at SND.UNA again (data, or the FIN when only it is outstanding), without moving SND.NXT. */
    private void retransmitFirst(long now) {
        long outstanding = sndWritten - sndAcked;
        // Only bytes sent before (up to SND.MAX, less the FIN's sequence number when it was sent): a byte written but
        // never sent must go out through output(), which moves SND.MAX. Sent from here it would reach the peer
        // beyond SND.MAX, and every ACK of it would then be refused as acknowledging something never sent - a
        // deadlock (nic simtest, seed 301741).
        long sent = Math.min(outstanding, Integer.toUnsignedLong(sndMax - sndUna));
        int length = (int) Math.min(sent, room());
        int flags = ACK;
        if (length == outstanding && finQueued && sndMax - (finSequence() + 1) >= 0) {
            flags |= FIN;
        }
        if (length > 0 || (flags & FIN) != 0) {
            emit(sndUna, sndAcked, length, flags, now);
        }
    }

    private void receiveText(MemorySegment f, int dataStart, int length, int s, boolean fin, long now) {
        long at = rcvIn + (s - rcvNxt);
        tcp.cpu().charge(CostItem.COPY, length);
        receiveRing.write(at, f, dataStart, length);
        if (s == rcvNxt) {
            long before = rcvIn;
            rcvIn += length;
            mergeOutOfOrder();
            rcvNxt += (int) (rcvIn - before);
            counters.add(Counter.DATA_BYTES_RECEIVED, rcvIn - before);
            evReadable = true;
            if (finPending && rcvIn == finPosition) {
                finPending = false;
                receiveFin(now);
            }
            if (config.delayedAckNanos() > 0 && oooCount == 0 && !fin && !finReceived) {
                if (++unackedSegments >= 2) {
                    ackNow = true;
                } else if (!delackArmed) {
                    delackArmed = true;
                    delackAt = now + config.delayedAckNanos();
                }
            } else if (config.ackAtPoll() && oooCount == 0 && !fin && !finReceived && ++unackedSegments < 2) {
                // Owed, not sent yet: a reply written before the next poll carries it (ackOwed). A second segment
                // unacknowledged is acknowledged at once (RFC 5681 4.2's "at least every second full-sized
                // segment", so a stream's sender still sees its ACK clock), as are a FIN and data behind a gap.
                ackOwed = true;
            } else {
                ackNow = true;
            }
        } else {
            if (addOutOfOrder(at, at + length)) {
                counters.increment(Counter.OUT_OF_ORDER_SEGMENTS);
            } else {
                counters.increment(Counter.OUT_OF_ORDER_DROPPED);
            }
            ackNow = true; // an immediate duplicate ACK tells the sender about the gap (RFC 5681 4.2)
        }
    }

    /**
     * Records {@code [start, end)} ahead of the gap, merged with the ranges it overlaps or touches, as the most
     * recent range (first); false when it needs a range and none is free.
     */
    private boolean addOutOfOrder(long start, long end) {
        long s = start;
        long e = end;
        int i = 0;
        while (i < oooCount) {
            if (oooStart[i] <= e && s <= oooEnd[i]) { // overlaps or touches: absorb it
                s = Math.min(s, oooStart[i]);
                e = Math.max(e, oooEnd[i]);
                removeOutOfOrder(i);
            } else {
                i++;
            }
        }
        if (oooCount == OUT_OF_ORDER_RANGES) {
            return false;
        }
        System.arraycopy(oooStart, 0, oooStart, 1, oooCount);
        System.arraycopy(oooEnd, 0, oooEnd, 1, oooCount);
        oooStart[0] = s;
        oooEnd[0] = e;
        oooCount++;
        return true;
    }

    /** Drops range {@code i}, keeping the others in their order. */
    private void removeOutOfOrder(int i) {
        System.arraycopy(oooStart, i + 1, oooStart, i, oooCount - i - 1);
        System.arraycopy(oooEnd, i + 1, oooEnd, i, oooCount - i - 1);
        oooCount--;
    }

    /** Moves rcvIn over every range the arrival made contiguous. */
    private void mergeOutOfOrder() {
        boolean moved = true;
        while (moved && oooCount > 0) {
            moved = false;
            for (int i = 0; i < oooCount; i++) {
                if (oooStart[i] <= rcvIn) {
                    rcvIn = Math.max(rcvIn, oooEnd[i]);
                    removeOutOfOrder(i);
                    moved = true;
                    break;
                }
            }
        }
    }

    private void receiveFin(long now) {
        if (finReceived) {
            ackNow = true;
            return;
        }
        finReceived = true;
        rcvNxt++;
        ackNow = true;
        evReadable = true;
        switch (state) {
            case SYN_RECEIVED, ESTABLISHED -> state = TcpState.CLOSE_WAIT;
            case FIN_WAIT_1 -> {
                if (finQueued && sndUna == finSequence() + 1) {
                    enterTimeWait(now);
                } else {
                    state = TcpState.CLOSING;
                }
            }
            case FIN_WAIT_2 -> enterTimeWait(now);
            case TIME_WAIT -> timeWaitAt = now + config.timeWaitNanos();
            default -> {
            }
        }
    }

    private void enterTimeWait(long now) {
        state = TcpState.TIME_WAIT;
        timeWaitAt = now + config.timeWaitNanos();
        rexmtArmed = false;
        persistArmed = false;
        delackArmed = false;
    }

    private void closeWith(TcpCloseReason reason) {
        if (reason == TcpCloseReason.TIMED_OUT) {
            counters.increment(Counter.CONNECTIONS_TIMED_OUT);
        }
        state = TcpState.CLOSED;
        closeReason = reason;
        orphanArmed = false;
        if (passive && !wasEstablished) { // back to LISTEN: no event for a connection the application never had
            released = true;
            handler = null;
        }
        rexmtArmed = false;
        persistArmed = false;
        delackArmed = false;
        ackNow = false;
        ackOwed = false;
        outputPending = false;
        evClosed = true;
    }

    // =================================================================================================== timers

    /** Runs the timers that are due and any output the sink refused before. */
    void onTick(long now) {
        if (ackOwed) { // the end of the step that took the segment: nothing carried its ACK, so a pure one goes
            ackOwed = false; // in every state: a FIN behind the data may have moved us to TIME-WAIT meanwhile
            ackNow = true;
        }
        if (state == TcpState.TIME_WAIT) {
            if (now - timeWaitAt >= 0) {
                closeWith(TcpCloseReason.ORDERLY);
            } else if (ackNow || outputPending) {
                output(now); // the ACK of the peer's FIN, when the sink refused it: else the FIN comes again
            }
        } else if (orphanArmed && state == TcpState.FIN_WAIT_2 && now - orphanAt >= 0) {
            closeWith(TcpCloseReason.TIMED_OUT);
        } else if (state != TcpState.CLOSED) {
            if (rexmtArmed && now - rexmtAt >= 0) {
                retransmitTimeout(now);
            }
            if (probeArmed && now - probeAt >= 0) {
                probeTimeout(now);
            }
            if (persistArmed && now - persistAt >= 0) {
                persistTimeout(now);
            }
            if (delackArmed && now - delackAt >= 0) {
                delackArmed = false;
                ackNow = true;
            }
            if (ackNow || outputPending) {
                output(now);
            }
        }
        dispatchEvents(now);
    }

    /** @return the earliest armed deadline, or {@code Long.MAX_VALUE} when none is */
    long nextDeadline() {
        long d = Long.MAX_VALUE;
        if (state == TcpState.TIME_WAIT) {
            return timeWaitAt;
        }
        if (rexmtArmed) {
            d = Math.min(d, rexmtAt);
        }
        if (probeArmed) {
            d = Math.min(d, probeAt);
        }
        if (persistArmed) {
            d = Math.min(d, persistAt);
        }
        if (delackArmed) {
            d = Math.min(d, delackAt);
        }
        if (orphanArmed && state == TcpState.FIN_WAIT_2) {
            d = Math.min(d, orphanAt);
        }
        return d;
    }

    boolean outputPending() {
        return outputPending;
    }

    /** @return whether an ACK waits for the next {@link #onTick} ({@link TcpConfig#ackAtPoll}) */
    boolean ackOwed() {
        return ackOwed;
    }

    private void retransmitTimeout(long now) {
        rexmtArmed = false;
        probeArmed = false;
        if (sndMax == sndUna) {
            return;
        }
        if (++retries > config.maxRetransmissions()) {
            if (state != TcpState.SYN_SENT) {
                tcp.sendReset(remoteAddress, localPort, remotePort, sndMax, 0, RST, now);
            }
            closeWith(TcpCloseReason.TIMED_OUT);
            return;
        }
        rto = Math.min(rto * 2, config.maxRtoNanos()); // RFC 6298 5.5: back off
        if (state.synchronized_()) { // RFC 5681 3.1 (4): the loss window
            ssthresh = Math.max((sndMax - sndUna) / 2, 2 * mss);
            cwnd = mss;
        }
        inRecovery = false;
        dupAcks = 0;
        recover = sndMax;
        rttTiming = false; // Karn: no sample from a retransmitted segment
        sndNxt = state == TcpState.SYN_SENT || state == TcpState.SYN_RECEIVED ? iss : sndUna;
        output(now);
        if (!rexmtArmed && !persistArmed && state != TcpState.CLOSED) {
            armRetransmit(now); // RFC 6298 5.6: the timer restarts even when the window let nothing go now
        }
    }

    private void persistTimeout(long now) {
        persistArmed = false;
        if (sndWritten - streamPosition(sndNxt) <= 0) {
            persistShift = 0;
            return;
        }
        if (sndWnd != 0) { // a window too small for a full segment: send what fits now
            swsOverride = true;
            output(now);
            return;
        }
        if (emit(sndUna - 1, 0, 0, ACK, now)) {
            counters.increment(Counter.WINDOW_PROBES);
        }
        persistShift = Math.min(persistShift + 1, MAX_PERSIST_SHIFT);
        // The next probe, backed off: the answer to this one (the window update) may be lost as well. Without it
        // nothing but a segment from the peer would ever call output() again, and the connection stalled with data
        // waiting behind a zero window that had opened long ago (nic simtest, seed 145546).
        persistArmed = true;
        persistAt = now + Math.min(rto << persistShift, config.maxRtoNanos());
    }

    private void armRetransmit(long now) {
        rexmtArmed = true;
        rexmtAt = now + rto;
    }

    /**
     * Arms the tail loss probe (RFC 8985 7.2) while data is outstanding outside recovery and no probe is out: PTO =
     * 2 SRTT, at least {@link #PROBE_MIN_NANOS}, plus the peer's worst-case delayed ACK when one segment is in flight
     * (a receiver may hold the ACK of a lone segment that long); not when the RTO would fire first anyway. Why: with no more
     * data to send (or the congestion window full), a lost last segment or a lost final ACK - a Linux receiver often
     * acknowledges a whole flight with one stretch ACK - leaves nothing to make duplicate ACKs, and only the RTO, with
     * its 200 ms floor against delayed ACKs, would recover; the probe does after 40 ms.
     */
    private void armProbe(long now) {
        probeArmed = false;
        if (!hasRttSample || inRecovery || probeOut || !state.synchronized_() || sndMax == sndUna || !rexmtArmed) {
            return;
        }
        long pto = Math.max(2 * srtt, PROBE_MIN_NANOS);
        if (sndMax - sndUna <= mss) {
            pto += WORST_CASE_DELAYED_ACK_NANOS;
        }
        if (now + pto - rexmtAt < 0) {
            probeArmed = true;
            probeAt = now + pto;
        }
    }

    /**
     * The probe (RFC 8985 7.3): the last segment sent, again (with the FIN if it carried one). A receiver answers a
     * duplicate at once, so the sender learns of a lost final ACK from that answer and of a lost tail from the
     * duplicate ACKs that follow its repair. One probe per tail; the RTO stays armed behind it.
     */
    private void probeTimeout(long now) {
        probeArmed = false;
        if (sndMax == sndUna || inRecovery) {
            return;
        }
        boolean finSent = finQueued && sndMax - (finSequence() + 1) == 0;
        int dataEnd = finSent ? sndMax - 1 : sndMax;
        int length = (int) Math.min(Math.max(dataEnd - sndUna, 0), room());
        int seq = dataEnd - length;
        if ((length > 0 || finSent) && emit(seq, streamPosition(seq), length, ACK | (finSent ? FIN : 0), now)) {
            counters.increment(Counter.TAIL_LOSS_PROBES);
            probeOut = true;
            rttTiming = false; // Karn: the answer may be to either copy
        }
    }

    private void rttSample(long r) {
        long sample = Math.max(r, 0);
        if (!hasRttSample) {
            hasRttSample = true;
            srtt = sample;
            rttvar = sample / 2;
        } else {
            rttvar = (3 * rttvar + Math.abs(srtt - sample)) / 4;
            srtt = (7 * srtt + sample) / 8;
        }
        long g = TcpConfig.GRANULARITY_NANOS;
        long v = srtt + Math.max(g, 4 * rttvar);
        v = (v + g - 1) / g * g; // whole ticks of the 1 ms clock
        rto = Math.clamp(v, config.minRtoNanos(), config.maxRtoNanos());
    }

    // =================================================================================================== output

    /** The stream position of sequence number {@code s} (-1 for the SYN). */
    private long streamPosition(int s) {
        return sndAcked + (s - (iss + 1 + (int) sndAcked));
    }

    private int finSequence() {
        return iss + 1 + (int) sndWritten;
    }

    /**
     * Sends what the state, the windows and the data allow: the SYN, data segments, the FIN, or else a pure ACK when
     * one is owed. Stops at the sink's back-pressure and leaves the rest for the next {@link #onTick}.
     */
    private void output(long now) {
        if (state == TcpState.CLOSED) {
            return;
        }
        outputPending = false;
        while (true) {
            if ((state == TcpState.SYN_SENT || state == TcpState.SYN_RECEIVED) && sndNxt == iss) {
                int flags = state == TcpState.SYN_SENT ? SYN : SYN | ACK;
                if (sndMax != iss) {
                    counters.increment(Counter.TIMEOUT_RETRANSMISSIONS);
                }
                if (!emit(iss, 0, 0, flags, now)) {
                    return;
                }
                sndNxt = iss + 1;
                if (sndMax == iss) {
                    sndMax = sndNxt;
                    rttTiming = true;
                    rttSeq = sndNxt;
                    rttStart = now;
                }
                if (!rexmtArmed) {
                    armRetransmit(now);
                }
                continue;
            }
            if (state == TcpState.SYN_SENT) {
                return;
            }
            long next = streamPosition(sndNxt);
            long available = Math.max(0, sndWritten - next);
            int flight = sndNxt - sndUna;
            long usable = Math.min((long) sndWnd, cwnd) - flight;
            int room = room();
            int length = state == TcpState.SYN_RECEIVED ? 0 : (int) Math.max(0, Math.min(Math.min(available, usable),
                room));
            // Sender SWS avoidance (RFC 9293 3.8.6.2.1): no runt while more data waits and the window is the limit,
            // unless the persist timer ran out (the override timeout) with nothing in flight. Never for data sent
            // before (SND.NXT behind SND.MAX after a timeout, as BSD's tcp_output): withheld, that retransmission
            // would leave nothing armed - no persist timer while data is in flight - and the connection stalled
            // (nic simtest, seed 312).
            boolean withheld = false;
            if (length > 0 && length < room && length < available && usable < maxSndWnd / 2 && !swsOverride
                && sndNxt - sndMax >= 0) {
                length = 0;
                withheld = true;
            }
            swsOverride = false;
            boolean fin = finQueued && state != TcpState.SYN_RECEIVED && next <= sndWritten
                && next + length == sndWritten;
            if (length > 0 || fin) {
                int flags = ACK | (fin ? FIN : 0) | (length > 0 && next + length == sndWritten ? PSH : 0);
                boolean again = sndNxt - sndMax < 0;
                if (!emit(sndNxt, next, length, flags, now)) {
                    return;
                }
                if (again) {
                    counters.increment(Counter.TIMEOUT_RETRANSMISSIONS);
                }
                sndNxt += length + (fin ? 1 : 0);
                if (sndNxt - sndMax > 0) {
                    sndMax = sndNxt;
                    if (!rttTiming) {
                        rttTiming = true;
                        rttSeq = sndNxt;
                        rttStart = now;
                    }
                }
                if (!rexmtArmed) {
                    armRetransmit(now);
                }
                if (!again) {
                    armProbe(now); // RFC 8985 7.2: new data (re)starts the probe timer
                }
                continue;
            }
            // A pure ACK carries the highest sequence number sent (as Linux's tcp_acceptable_seq), not SND.NXT:
            // after a timeout sets SND.NXT back to SND.UNA the peer may hold everything up to SND.MAX, and an ACK
            // below its RCV.NXT fails its acceptability test, which drops it unread; two peers in that state answer
            // each other's ACKs forever and neither learns of the other's acknowledgments (nic simtest, seed 162).
            if (ackNow && !emit(sndMax, 0, 0, ACK, now)) {
                return;
            }
            if ((sndWnd == 0 || withheld) && available > 0 && sndMax == sndUna && !persistArmed && !rexmtArmed) {
                persistArmed = true;
                persistAt = now + Math.min(rto << persistShift, config.maxRtoNanos());
            }
            return;
        }
    }

    /** Builds and sends one segment; false (and output left pending) when the sink has no buffer. */
    private boolean emit(int seq, long position, int length, int flags, long now) {
        SegmentSink sink = tcp.sink();
        int h = sink.claim(remoteAddress, now);
        if (h < 0) {
            counters.increment(Counter.SEND_BACKPRESSURE);
            outputPending = true;
            return false;
        }
        MemorySegment b = sink.buffer(h);
        int at = sink.offset();
        int window;
        if ((flags & SYN) != 0) {
            // The window a SYN offers is an advertisement like any other: recorded, so that the first read after
            // the handshake does not take the whole window for an opening and send an ACK that says nothing new.
            // It is never scaled (RFC 7323 2.2).
            window = (int) Math.min(receiveSpace(), TcpConfig.MAX_WINDOW);
            synWindow = window;
            rcvAdv = rcvNxt + window;
        } else {
            window = advertise();
        }
        int header = TcpHeader.write(b, at, localPort, remotePort, seq, (flags & ACK) != 0 ? rcvNxt : 0, flags,
            window, 0);
        if ((flags & SYN) != 0) { // SYN-SENT offers what the config enables, a SYN-ACK what the SYN it answers did
            boolean offerScaling = state == TcpState.SYN_SENT ? config.windowScaling() : windowScaled;
            boolean offerSack = state == TcpState.SYN_SENT ? config.sack() : sackOk;
            header = TcpOptions.writeSyn(b, at, tcp.mss(), offerScaling ? config.windowShift()
                : TcpOptions.NO_WINDOW_SCALE, offerSack);
        } else if ((flags & ACK) != 0 && sackBlocks() > 0) {
            header = TcpOptions.writeSack(b, at, sackLeft, sackRight, sackBlocks());
        }
        HostCpu cpu = tcp.cpu();
        if (length > 0) {
            cpu.charge(CostItem.COPY, length);
            sendRing.read(position, b, at + header, length);
        }
        cpu.charge(CostItem.CHECKSUM, header + length);
        TcpHeader.checksum(b, at, header + length, tcp.localAddress(), remoteAddress);
        sink.send(h, remoteAddress, header + length);
        counters.increment(Counter.SEGMENTS_SENT);
        counters.add(Counter.DATA_BYTES_SENT, length);
        if ((flags & ACK) != 0) {
            ackNow = false;
            ackOwed = false;
            delackArmed = false;
            unackedSegments = 0;
        }
        return true;
    }

    /** @return the receive ring's free space */
    private long receiveSpace() {
        return receiveRing.capacity() - (rcvIn - rcvRead);
    }

    /** @return the receive window: the ring's free space, at most what a window field can say at our shift */
    private int receiveWindow() {
        return (int) Math.min(receiveSpace(), (long) TcpConfig.MAX_WINDOW << rcvShift);
    }

    /**
     * The window field to put in a segment, with receiver SWS avoidance (RFC 9293 3.8.6.2.2): the right edge moves
     * only by at least min(half the buffer, one MSS). Scaled, the field is the window shifted right by our shift,
     * which rounds it down; the right edge still never moves left (RFC 7323 2.4): when rounding would pull it back,
     * the field is rounded up instead, offering at most 2^shift - 1 bytes beyond the free space (a segment reaching
     * into them is trimmed to the window on arrival).
     */
    private int advertise() {
        int actual = receiveWindow();
        int current = Math.max(rcvAdv - rcvNxt, 0);
        int w = actual - current >= Math.min(receiveRing.capacity() / 2, mss) ? actual : Math.min(current, actual);
        int field = w >>> rcvShift;
        if (field << rcvShift < current) {
            field = (int) Math.min(((long) current + (1L << rcvShift) - 1) >>> rcvShift, TcpConfig.MAX_WINDOW);
        }
        rcvAdv = rcvNxt + (field << rcvShift);
        return field;
    }

    /**
     * After a read: is the opening worth an ACK of its own? It must reach the SWS threshold and at least 2 MSS, and
     * change the window field: an update whose field, scaled down, equals the last one tells the peer nothing and
     * would be a duplicate ACK.
     */
    private boolean windowUpdateDue(int windowBefore) {
        int current = Math.max(rcvAdv - rcvNxt, 0);
        int actual = receiveWindow();
        return actual > windowBefore && actual - current >= Math.min(receiveRing.capacity() / 2, 2 * mss)
            && actual >>> rcvShift > current >>> rcvShift;
    }

    /** @return the data one segment may carry now: the MSS less the SACK option it will carry (RFC 9293 3.7.1) */
    private int room() {
        return mss - TcpOptions.sackLength(sackBlocks());
    }

    /**
     * Fills {@link #sackLeft} / {@link #sackRight} with the out-of-order ranges as sequence numbers, most recent
     * first (RFC 2018 4), when SACK is in use.
     *
     * @return the number of blocks, 0 when there are none to report
     */
    private int sackBlocks() {
        if (!sackOk || oooCount == 0) {
            return 0;
        }
        int n = Math.min(oooCount, TcpOptions.MAX_SACK_BLOCKS);
        for (int i = 0; i < n; i++) {
            sackLeft[i] = rcvNxt + (int) (oooStart[i] - rcvIn);
            sackRight[i] = rcvNxt + (int) (oooEnd[i] - rcvIn);
        }
        return n;
    }

    private static int saturatedAdd(int a, int b) {
        long v = (long) a + b;
        return v > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) v;
    }

    // =================================================================================================== events

    private void dispatchEvents(long now) {
        if (dispatching) {
            return;
        }
        dispatching = true;
        try {
            while (evEstablished || evReadable || evWritable || evClosed) {
                TcpHandler h = handler;
                if (h != null) {
                    tcp.cpu().charge(CostItem.HANDLER_DISPATCH);
                }
                if (evEstablished) {
                    evEstablished = false;
                    if (h != null) {
                        h.onEstablished(this, now);
                    }
                } else if (evReadable) {
                    evReadable = false;
                    if (h != null) {
                        h.onReadable(this, now);
                    }
                } else if (evWritable) {
                    evWritable = false;
                    if (h != null) {
                        h.onWritable(this, now);
                    }
                } else {
                    evClosed = false;
                    if (h != null) {
                        h.onClosed(this, closeReason, now);
                    }
                    if (passive && h != null && released) {
                        handler = null;
                    }
                }
            }
        } finally {
            dispatching = false;
        }
    }

    @Override
    public String toString() {
        return "TcpConnection[" + slot + " " + state + " :" + localPort + " -> "
            + io.nicbridge.protocols.ip.Ipv4Address.toString(remoteAddress) + ":" + remotePort + "]";
    }
}
