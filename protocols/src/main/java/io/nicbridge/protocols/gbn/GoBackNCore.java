package io.nicbridge.protocols.gbn;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Clock;
import io.nicbridge.bridge.time.TimerHeap;
import io.nicbridge.protocols.core.Guarantee;
import io.nicbridge.protocols.core.MessageCore;
import io.nicbridge.protocols.core.MessageHandler;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * A reliable, ordered message channel to every peer of a {@link Link}: a sliding window of w messages per peer,
 * go-back-N retransmission, explicit acknowledgements, and 4w preallocated buffers per peer, the flow control of
 * U-Net Active Messages (U-Net paper, von Eicken et al., SOSP 1995, section 5.1.1). Frames:
 * {@link GoBackNWire}.
 *
 * <h2>Per peer</h2>
 * <pre>
 *   send ring, 2w slots (seq &amp; (2w-1)):   base ........ next ........ tail
 *                                           |  in flight  |   queued    |
 *                                           next - base &lt;= w          tail - base &lt;= 2w
 *   receive ring, 2w slots: in-order messages arrived and not yet taken by {@link #deliver}
 * </pre>
 * <ul>
 *   <li>{@link #offer} copies the message into the send ring (UAM also copies into a preallocated buffer) or
 *       answers {@link #BACK_PRESSURE} when 2w are unacknowledged or queued;</li>
 *   <li>a message is sent when the window has room; the oldest unacknowledged one starts the retransmission
 *       timeout; when it expires the sender goes back to {@code base} and resends everything from there;</li>
 *   <li>the receiver accepts only the next expected sequence number, and only when it has a free receive slot (a
 *       slow application thus back-pressures the sender through retransmission, as UAM's 2w receive buffers);
 *       anything else is dropped and the cumulative ack re-sent; every DATA frame carries the ack too, and an
 *       explicit ACK frame goes out when no DATA does.</li>
 * </ul>
 * A claim the link refuses stops sending until {@link #onWritable}. Hot paths allocate nothing.
 *
 * <p><b>Delayed acknowledgements</b> ({@link GoBackNConfig#ackDelayNanos()} &gt; 0, what U-Net Active Messages
 * uses): an owed ack waits for a DATA frame to the same peer to carry it - the application's reply, sent from its
 * handler when it takes the message with {@link #deliver} - for up to the delay; it goes out as an explicit ACK when
 * the delay expires (one deadline for all peers: the oldest owed ack's) or at once when w/2 arrivals to a peer are
 * unacknowledged, so a one-way stream still opens the sender's window in time.
 *
 * <p><b>Timeouts.</b> Each peer's retransmission deadline is one entry of a {@link TimerHeap} (removed while
 * nothing is in flight to it), so {@link #nextDeadline()}, which the runner asks after every event, is O(1) and a
 * deadline change O(log peers) however many peers the node has. {@link #onTimer()} takes the expired entries off
 * the heap into a bit set and handles them in peer order, as a scan over all peers would.
 *
 * <p><b>Host work</b> charged to the node's {@link HostCpu}, per byte as it happens: {@link CostItem#COPY} for the
 * message copied in by {@code offer}, the payload copied from the send ring into the frame, the frame copied into the
 * link's buffer, the arrived frame copied out of the link's buffer and the payload copied into the receive ring;
 * {@link CostItem#CHECKSUM} for the CRC-32C over header and payload on every send and every well-formed arrival.
 * {@code deliver} hands the application a view in place (no copy).
 *
 * <p>Declared guarantees: {@link Guarantee#EXACTLY_ONCE}, {@link Guarantee#PER_PEER_ORDER},
 * {@link Guarantee#PROGRESS} (every accepted message arrives once frames stop being lost: each timeout resends
 * from the oldest, without limit) and {@link Guarantee#BOUNDED_MEMORY} (4w messages per peer). Not promised:
 * surviving a peer's restart (sequence numbers are not re-synchronised).
 */
public final class GoBackNCore implements MessageCore {
    private static final Set<Guarantee> GUARANTEES = EnumSet.of(Guarantee.EXACTLY_ONCE, Guarantee.PER_PEER_ORDER,
            Guarantee.PROGRESS, Guarantee.BOUNDED_MEMORY);

    private final Link link;
    private final Clock clock;
    private final HostCpu cpu;
    private final int self;
    private final int peers;
    private final int window;
    private final int ringMask;
    private final int maxMessage;
    private final long rto;
    private final long ackDelay;
    private final int ackEvery;
    private final GoBackNCounters counters = new GoBackNCounters();

    private final int[] sndBase;
    private final int[] sndNext;
    private final int[] sndMax; // one past the highest seq ever sent: acks up to it are valid after a go-back
    private final int[] sndTail;
    private final long[] rtoDeadline; // NO_DEADLINE, or the time its entry is queued at in timeouts
    private final TimerHeap<PeerTimeout> timeouts;
    private final PeerTimeout[] timeoutOf;
    private final long[] expired; // bit p: peer p's timeout expired in the current onTimer
    private final boolean[] ackPending;
    private final int[] unackedArrivals; // DATA frames from the peer since our last frame to it
    private final int[] ackQueue; // peers whose owed ack the delay deadline flushes (delayed mode)
    private final boolean[] ackQueued;
    private int ackQueueLength;
    private long ackDeadline = NO_DEADLINE;
    private boolean flushingAcks;
    private final MemorySegment[] txRing;
    private final int[][] txLength;

    private final int[] rcvExpected;
    private final int[] rxHead;
    private final int[] rxCount;
    private final MemorySegment[] rxRing;
    private final int[][] rxLength;

    private final byte[] scratch;
    private final MemorySegment scratchSegment;
    private final CRC32C crc = new CRC32C();
    private boolean linkBlocked;
    private int deliverCursor;
    private int buffered;

    /**
     * @param link  the link to write to (its peers name the channel's peers)
     * @param clock the only time the core reads
     * @param cpu   the node's CPU, charged with the core's copies and checksums
     */
    public GoBackNCore(Link link, Clock clock, GoBackNConfig config, HostCpu cpu) {
        this.link = Objects.requireNonNull(link, "link");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.cpu = Objects.requireNonNull(cpu, "cpu");
        Objects.requireNonNull(config, "config");
        if (link.mtu() < GoBackNWire.HEADER + config.maxMessage()) {
            throw new IllegalArgumentException("link " + link.name() + " carries " + link.mtu()
                    + " bytes, less than a " + config.maxMessage() + "-byte message plus the "
                    + GoBackNWire.HEADER + "-byte header");
        }
        this.self = link.self();
        this.peers = link.peers();
        this.window = config.window();
        this.ringMask = 2 * window - 1;
        this.maxMessage = config.maxMessage();
        this.rto = config.rtoNanos();
        this.ackDelay = config.ackDelayNanos();
        this.ackEvery = Math.max(1, window / 2);
        sndBase = new int[peers];
        sndNext = new int[peers];
        sndMax = new int[peers];
        sndTail = new int[peers];
        rtoDeadline = new long[peers];
        java.util.Arrays.fill(rtoDeadline, NO_DEADLINE);
        timeouts = new TimerHeap<>(Math.max(1, peers));
        timeoutOf = new PeerTimeout[peers];
        for (int p = 0; p < peers; p++) {
            timeoutOf[p] = new PeerTimeout(p);
            timeouts.reserve();
        }
        expired = new long[(peers + 63) >>> 6];
        ackPending = new boolean[peers];
        unackedArrivals = new int[peers];
        ackQueue = new int[peers];
        ackQueued = new boolean[peers];
        txRing = new MemorySegment[peers];
        txLength = new int[peers][2 * window];
        rcvExpected = new int[peers];
        rxHead = new int[peers];
        rxCount = new int[peers];
        rxRing = new MemorySegment[peers];
        rxLength = new int[peers][2 * window];
        for (int p = 0; p < peers; p++) {
            if (p != self) {
                txRing[p] = MemorySegment.ofArray(new byte[2 * window * Math.max(1, maxMessage)]);
                rxRing[p] = MemorySegment.ofArray(new byte[2 * window * Math.max(1, maxMessage)]);
            }
        }
        scratch = new byte[GoBackNWire.HEADER + maxMessage];
        scratchSegment = MemorySegment.ofArray(scratch);
    }

    // ------------------------------------------------------------------ application API

    @Override
    public int offer(int peer, MemorySegment src, long offset, int length) {
        return offer(peer, src, offset, length, src, offset + length, 0);
    }

    /**
     * {@link #offer(int, MemorySegment, long, int)} of one message gathered from two pieces, {@code headLength}
     * bytes of {@code head} then {@code bodyLength} bytes of {@code body} (a layer's header and its data, copied
     * once into the send ring instead of being staged first).
     *
     * @throws IllegalArgumentException as the single-piece offer, for a negative piece or a total over
     *                                  {@link #maxMessage()}
     */
    public int offer(int peer, MemorySegment head, long headOffset, int headLength, MemorySegment body,
                     long bodyOffset, int bodyLength) {
        checkPeer(peer);
        int length = headLength + bodyLength;
        if (headLength < 0 || bodyLength < 0 || length > maxMessage) {
            throw new IllegalArgumentException("message length must be in [0, " + maxMessage + "], was " + headLength
                    + " + " + bodyLength);
        }
        int tail = sndTail[peer];
        if (tail - sndBase[peer] >= 2 * window) {
            return BACK_PRESSURE;
        }
        int slot = tail & ringMask;
        long at = (long) slot * maxMessage;
        MemorySegment.copy(head, headOffset, txRing[peer], at, headLength);
        if (bodyLength > 0) {
            MemorySegment.copy(body, bodyOffset, txRing[peer], at + headLength, bodyLength);
        }
        cpu.charge(CostItem.COPY, length);
        txLength[peer][slot] = length;
        sndTail[peer] = tail + 1;
        buffered++;
        pump(peer);
        return OK;
    }

    @Override
    public int deliver(MessageHandler handler, int limit) {
        int done = 0;
        for (int scanned = 0; scanned < peers && done < limit; scanned++) {
            int p = deliverCursor;
            deliverCursor = p + 1 == peers ? 0 : p + 1;
            while (rxCount[p] > 0 && done < limit) {
                int slot = rxHead[p];
                rxHead[p] = (slot + 1) & ringMask;
                rxCount[p]--;
                buffered--;
                counters.delivered++;
                done++;
                handler.onMessage(p, rxRing[p], (long) slot * maxMessage, rxLength[p][slot]);
            }
        }
        return done;
    }

    @Override
    public int maxMessage() {
        return maxMessage;
    }

    // ------------------------------------------------------------------ events

    @Override
    public void onFrame(Link from, int rxHandle) {
        counters.framesReceived++;
        int length = from.rxLength(rxHandle);
        int peer = from.rxPeer(rxHandle);
        if (length < GoBackNWire.HEADER || length > scratch.length || peer < 0 || peer >= peers || peer == self) {
            counters.malformed++;
            from.release(rxHandle);
            return;
        }
        MemorySegment.copy(from.rxBuffer(rxHandle), 0, scratchSegment, 0, length);
        cpu.charge(CostItem.COPY, length);
        from.release(rxHandle); // copied: the medium gets its buffer back at once
        byte type = scratch[GoBackNWire.OFF_TYPE];
        int payload = Short.toUnsignedInt(scratchSegment.get(GoBackNWire.U16, GoBackNWire.OFF_LENGTH));
        if (scratch[GoBackNWire.OFF_MAGIC] != GoBackNWire.MAGIC || payload != length - GoBackNWire.HEADER
                || (type != GoBackNWire.DATA && type != GoBackNWire.ACK)
                || (type == GoBackNWire.ACK && payload != 0)) {
            counters.malformed++;
            return;
        }
        cpu.charge(CostItem.CHECKSUM, GoBackNWire.OFF_CRC + payload);
        if (scratchSegment.get(GoBackNWire.U32, GoBackNWire.OFF_CRC) != GoBackNWire.crc(crc, scratch, payload)) {
            counters.corrupt++;
            return;
        }
        acknowledged(peer, scratchSegment.get(GoBackNWire.U32, GoBackNWire.OFF_ACK));
        if (type == GoBackNWire.DATA) {
            received(peer, scratchSegment.get(GoBackNWire.U32, GoBackNWire.OFF_SEQ), payload);
        }
        pump(peer);
    }

    @Override
    public void onWritable(Link from) {
        linkBlocked = false;
        for (int p = 0; p < peers && !linkBlocked; p++) {
            if (p != self) {
                pump(p);
            }
        }
    }

    @Override
    public void onTimer() {
        long now = clock.nanoTime();
        // The expired set is fixed before any is handled: handling one peer touches no other peer's deadline.
        int firstWord = expired.length;
        int lastWord = -1;
        PeerTimeout t;
        while ((t = timeouts.peek()) != null && rtoDeadline[t.peer] <= now) {
            timeouts.remove(t);
            int w = t.peer >>> 6;
            expired[w] |= 1L << t.peer;
            firstWord = Math.min(firstWord, w);
            lastWord = Math.max(lastWord, w);
        }
        for (int w = firstWord; w <= lastWord; w++) {
            long bits = expired[w];
            expired[w] = 0;
            while (bits != 0) {
                int p = (w << 6) + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                // Go back N: everything from the oldest unacknowledged message is sent again.
                counters.timeouts++;
                sndNext[p] = sndBase[p];
                rtoDeadline(p, now + rto);
                pump(p);
            }
        }
        if (ackDeadline <= now) {
            flushAcks(now);
        }
    }

    /** Sends every owed ack the delay held back; one the link refuses now is retried a delay later. */
    private void flushAcks(long now) {
        ackDeadline = NO_DEADLINE;
        int n = ackQueueLength;
        ackQueueLength = 0;
        flushingAcks = true;
        for (int i = 0; i < n; i++) {
            int p = ackQueue[i];
            ackQueued[p] = false;
            if (ackPending[p]) {
                pump(p);
                if (ackPending[p]) { // the link refused the claim
                    queueAck(p, now);
                }
            }
        }
        flushingAcks = false;
    }

    /** Delayed mode: {@code peer} owes an ack; the flush deadline is set by the first owed ack. */
    private void queueAck(int peer, long now) {
        if (!ackQueued[peer]) {
            ackQueued[peer] = true;
            ackQueue[ackQueueLength++] = peer;
        }
        if (ackDeadline == NO_DEADLINE) {
            ackDeadline = now + ackDelay;
        }
    }

    @Override
    public long nextDeadline() {
        // Long.MAX_VALUE, i.e. NO_DEADLINE, when nothing is in flight and no ack is held back
        return Math.min(timeouts.nextDeadline(), ackDeadline);
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
        return (peers - 1) * 4 * window;
    }

    public GoBackNCounters counters() {
        return counters;
    }

    /** @return messages offered to {@code peer} and not yet acknowledged, sent or queued (at most 2w) */
    public int unacknowledged(int peer) {
        return sndTail[peer] - sndBase[peer];
    }

    /** @return messages sent to {@code peer} and not yet acknowledged (at most w) */
    public int inFlight(int peer) {
        return sndMax[peer] - sndBase[peer];
    }

    // ------------------------------------------------------------------ internals

    private void acknowledged(int peer, int ack) {
        int advance = ack - sndBase[peer];
        if (advance <= 0 || advance > sndMax[peer] - sndBase[peer]) {
            return; // old or impossible: nothing new acknowledged
        }
        sndBase[peer] = ack;
        buffered -= advance;
        if (sndNext[peer] - ack < 0) {
            sndNext[peer] = ack; // acked beyond where a go-back restarted: skip what the peer already has
        }
        rtoDeadline(peer, sndMax[peer] == ack ? NO_DEADLINE : clock.nanoTime() + rto);
    }

    /** Sets {@code peer}'s retransmission deadline ({@link #NO_DEADLINE}: none) and moves its heap entry. */
    private void rtoDeadline(int peer, long deadline) {
        rtoDeadline[peer] = deadline;
        if (deadline == NO_DEADLINE) {
            timeouts.remove(timeoutOf[peer]);
        } else {
            timeouts.schedule(timeoutOf[peer], deadline);
        }
    }

    private void received(int peer, int seq, int payload) {
        int ahead = seq - rcvExpected[peer];
        ackPending[peer] = true; // every DATA is answered, so a lost ack is repaired by the next duplicate
        unackedArrivals[peer]++;
        if (ackDelay > 0) {
            queueAck(peer, clock.nanoTime());
        }
        if (ahead < 0) {
            counters.duplicates++;
        } else if (ahead > 0) {
            counters.outOfOrder++;
        } else if (rxCount[peer] == 2 * window) {
            counters.receiveOverflow++;
        } else {
            int slot = (rxHead[peer] + rxCount[peer]) & ringMask;
            MemorySegment.copy(scratchSegment, GoBackNWire.HEADER, rxRing[peer], (long) slot * maxMessage, payload);
            cpu.charge(CostItem.COPY, payload);
            rxLength[peer][slot] = payload;
            rxCount[peer]++;
            buffered++;
            rcvExpected[peer] = seq + 1;
        }
    }

    /** Sends what the window allows to {@code peer}, then an explicit ACK if one is owed and none went out. */
    private void pump(int peer) {
        while (!linkBlocked && sndNext[peer] != sndTail[peer] && sndNext[peer] - sndBase[peer] < window) {
            int seq = sndNext[peer];
            if (!sendFrame(peer, GoBackNWire.DATA, seq)) {
                return;
            }
            if (seq == sndMax[peer]) {
                sndMax[peer] = seq + 1;
                counters.dataSent++;
            } else {
                counters.retransmitted++;
            }
            sndNext[peer] = seq + 1;
            if (rtoDeadline[peer] == NO_DEADLINE) {
                rtoDeadline(peer, clock.nanoTime() + rto);
            }
        }
        if (ackPending[peer] && !linkBlocked && ackNow(peer) && sendFrame(peer, GoBackNWire.ACK, 0)) {
            counters.acksSent++;
        }
    }

    /** @return true when an owed ack to {@code peer} must go out now rather than wait for a DATA frame to carry it */
    private boolean ackNow(int peer) {
        return ackDelay == 0 || flushingAcks || unackedArrivals[peer] >= ackEvery;
    }

    /** @return false when the link refused the claim (the core waits for onWritable) */
    private boolean sendFrame(int peer, byte type, int seq) {
        int h = link.claim(peer);
        if (h == Link.NONE) {
            linkBlocked = true;
            counters.linkBackPressure++;
            return false;
        }
        int payload = 0;
        if (type == GoBackNWire.DATA) {
            int slot = seq & ringMask;
            payload = txLength[peer][slot];
            MemorySegment.copy(txRing[peer], (long) slot * maxMessage, scratchSegment, GoBackNWire.HEADER, payload);
            cpu.charge(CostItem.COPY, payload);
        }
        GoBackNWire.writeHeader(scratchSegment, type, payload, seq, rcvExpected[peer]);
        scratchSegment.set(GoBackNWire.U32, GoBackNWire.OFF_CRC, GoBackNWire.crc(crc, scratch, payload));
        cpu.charge(CostItem.CHECKSUM, GoBackNWire.OFF_CRC + payload);
        MemorySegment.copy(scratchSegment, 0, link.txBuffer(h), 0, GoBackNWire.HEADER + payload);
        cpu.charge(CostItem.COPY, GoBackNWire.HEADER + payload);
        link.commit(h, GoBackNWire.HEADER + payload);
        ackPending[peer] = false; // DATA and ACK both carry the cumulative ack
        unackedArrivals[peer] = 0;
        return true;
    }

    private void checkPeer(int peer) {
        if (peer < 0 || peer >= peers || peer == self) {
            throw new IllegalArgumentException("peer must be in [0, " + peers + ") and not this node (" + self
                    + "), was " + peer);
        }
    }

    /** A peer's retransmission timeout as an entry of the core's heap. */
    private static final class PeerTimeout extends TimerHeap.Entry {
        final int peer;

        PeerTimeout(int peer) {
            this.peer = peer;
        }
    }

    @Override
    public String toString() {
        return "go-back-N core " + self + " on " + link.name() + " (w=" + window + "): " + counters;
    }
}
