package io.nicbridge.protocols.careful;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.medusa.MedusaReceiveChecksum;
import io.nicbridge.bridge.driver.medusa.MedusaSingleCopy;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.core.Guarantee;
import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.cstar.EventInbox;
import io.nicbridge.protocols.cstar.FragmentHandler;
import io.nicbridge.protocols.cstar.FrameCounts;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The careful protocol of Mosberger, Turner and Peterson (TR 94-14, section 5.3) as a sans-I/O
 * {@link CStarNetwork}: it trusts the ring completely - no retransmission, no acknowledgements, no timers
 * ({@link #nextDeadline()} is always {@link #NO_DEADLINE}) - and only makes sure every frame finds a receive buffer.
 * Frames: {@link CarefulWire}.
 *
 * <h2>Flow control: static windows</h2>
 * Each node has R receive buffers ({@link CarefulConfig#receiveBuffers()}) and gives each of the other nodes a
 * window of W = floor(R/P) frames. Per peer the core keeps
 * <pre>
 *   window[p]      data frames it may still send to p
 *   pending[p]     receive buffers it freed of p's data frames and has not yet told p about
 *   peerCredit[p]  its estimate of window[p] at p: W + buffers it returned to p - data frames it received from p
 * </pre>
 * <ul>
 *   <li><b>Two-frame rule</b> (Theorem 1): data goes to p only while window[p] &gt;= 2, or &gt;= 1 when the frame
 *       carries a window update; otherwise {@link #send} answers {@link #BACK_PRESSURE}. So the last frame that
 *       closes a window always carries an update, and of any two nodes one can always send.</li>
 *   <li><b>Updates</b> ride on every data frame to p ({@code pending[p]}); a broadcast carries the minimum of
 *       pending over all peers. An explicit update frame goes to p once the buffers freed of p's frames reach half
 *       the window (the paper: "exceeds half of the maximum advertised window"), or as soon as p may be blocked
 *       (peerCredit[p] &lt; 2) and any of its frames was freed. An update frame needs an open window (it borrows a
 *       buffer at p) but uses none: p's interrupt handler reads and frees it at once. So the frame that closes a
 *       window is always a data frame carrying an update (Theorem 1), and update frames are only ever caused by
 *       freed data, so two nodes never ping-pong updates (no livelock). Charging update frames to the window as
 *       data would either ping-pong single returned buffers forever or, suppressing that, strand the one buffer a
 *       blocked peer needs (the no-deadlock property test found the latter).</li>
 *   <li><b>Receive buffers</b>: the windows hold (P-1) floor(R/P) &lt;= R buffers, and at most one update frame
 *       per peer borrows one more at a time, so the link needs R + P - 1 receive buffers (the Medusa test runs
 *       R = 56 of the card's 64 for P up to 8). An update frame that finds none is dropped by the card and
 *       reported as a gap at the sender's next frame.</li>
 *   <li><b>Copy-out</b>: while fewer than {@link CarefulConfig#copyOutBelow()} receive buffers are free, the oldest
 *       frames still in them are copied into host buffers, and their buffers are advertised again; so a node
 *       whose application does not consume (the flooding test) does not stop its senders. On a link that
 *       {@linkplain Link#receivesInOrder() receives in order} (the 21140's descriptor ring) a frame left on board
 *       would stop the chip when it came round the ring to it, so there every data frame is copied out at once
 *       while host buffers last (the windows then hold the senders only once they run out; counting the windows
 *       in host buffers freed only when the application takes them instead deadlocks a fault-free four-node
 *       schedule, {@code 1577/4/12/} on the Ethernet: the copy-out that reopens a blocked sender's window is the
 *       paper's deadlock avoidance).</li>
 * </ul>
 *
 * <h2>Broadcast without a broadcast medium</h2>
 * The MPP fabric has no broadcast: there a broadcast fragment is P-1 unicast frames, claimed all or none, filled
 * once and copied into the others (each copy charged as {@link CostItem#COPY}), every one carrying the same
 * broadcast sequence number and window update, so each receiver sees exactly what the ring's broadcast would give
 * it. It costs P-1 frames on the network where the ring carries one.
 *
 * <h2>Send without a backup copy</h2>
 * Where the link has {@link MedusaSingleCopy} (the Medusa) the fragment goes from the application's memory to the
 * card in one PIO copy whose checksum the card computes on the way; elsewhere it is copied into the claimed buffer
 * and checksummed by the host. Either way the core keeps nothing: once {@link #send} returns, the fragment is the
 * link's.
 *
 * <h2>Detection</h2>
 * The protocol relies on the ring, so it checks that the ring kept its promise: per sender a unicast sequence and a
 * broadcast sequence (a gap or a duplicate), the checksum over header and payload, the sender's membership, its
 * window and its event order. A frame that fails is counted ({@link #violations()}, {@link #violations(CarefulViolation)}),
 * logged at ERROR, and never delivered wrongly: damaged and duplicate frames are dropped; an intact frame after a
 * gap is delivered, but the lost fragments are reported and their events never complete.
 *
 * <h2>Host work (Appendix A)</h2>
 * Each operation the careful protocol does and the traditional one does not is a named {@link HostCpu.Operation}
 * ({@code careful.shrink-window}, {@code careful.fill-in-window-update} on send; {@code careful.process-window-update},
 * {@code careful.track-last-event}, {@code careful.decrement-sender-window}, {@code careful.skip-copy-out} on
 * arrival). The core charges {@link CostItem#COPY} and {@link CostItem#CHECKSUM} per byte for what it copies and
 * sums itself (the plain send, the header sum, the receive check, copy-out through {@link EventInbox}); the
 * single-copy PIO transfer is the framing's to charge (package {@code io.nicbridge.bridge.cost}). On the Medusa the
 * card sums in both directions: the single copy's sum on send ({@link MedusaSingleCopy}), and RXCK on receive
 * ({@link MedusaReceiveChecksum}: the card sums each frame from RXCK_START as it stores it), so the host sums only
 * the careful header's bytes before RXCK_START ({@code CHECKSUM} per byte) and the link charges the RXCK read (one
 * PIO word); the payload's bytes cross the bus once, when the framing hands the frame up. Nothing is summed twice.
 *
 * <h2>Card resets</h2>
 * A card reset breaks the assumption wholesale: the card forgets the frames it was receiving, and its driver re-posts
 * the frames it had not reported sent (some may go twice). The frames lost may have no successor, so the core does
 * not wait for a gap: it reads the link's {@code PortCounters.cardResets()} whenever it runs (a frame, a send, a
 * receive, the link writable again) and reports each new reset as {@link CarefulViolation#CARD_RESET}.
 *
 * <h2>What detection cannot see: the trailing loss</h2>
 * A lost frame is exposed by the next frame from the same sender to the same receiver: sequence numbers run per
 * sender across events, so a frame of the next event (or a window update) reports the gap. The last frame a sender
 * ever sends to a receiver - or the last before the program waits on that very frame (its LAST_FRAG, or the update
 * that would reopen a closed window) - has no successor, and without a timer nothing else ever runs: the event waits
 * forever and nothing is reported. An end-of-event marker does not close this (the marker is a frame and can be the
 * one lost); only a timer does, or the sender's own view of the ring (FDDI's stripped frame comes back with its C,
 * frame copied, indicator: {@code docs/hardware-facts.md} D.3, C.2 STAT), which the {@code Link} API does not carry.
 * The paper accepts exactly this: careful protocols need no timers (section 3), the ultimate guarantee is an
 * end-to-end one (check-pointing, section 3 "disaster"), and its one packet loss in the flooding test left a missing
 * number, not a report (section 6). So the core keeps its promise as "every broken assumption that a later frame can
 * expose is reported"; the simulation tester tells a trailing loss from a silent failure with {@link FrameCounts}
 * (frames the sender numbered that the receiver never accounted for) and counts such schedules separately.
 *
 * <p>Declared guarantees: {@link Guarantee#BOUNDED_MEMORY} (R in-place frames plus the host buffers) and
 * {@link Guarantee#REPORTS_BROKEN_ASSUMPTIONS}. Exactly-once holds only while the ring is reliable; the core
 * detects, and does not repair, what breaks it, within the limit above.
 *
 * <p>Single-threaded (the node's thread). Nothing allocates after construction, except the ERROR log line of a
 * violation.
 */
public final class CarefulCore implements CStarNetwork, FrameCounts {
    private static final Logger LOG = LoggerFactory.getLogger(CarefulCore.class);
    private static final Set<Guarantee> GUARANTEES = EnumSet.of(Guarantee.BOUNDED_MEMORY,
            Guarantee.REPORTS_BROKEN_ASSUMPTIONS);

    private final Link link;
    private final HostCpu cpu;
    private final CarefulConfig config;
    private final MedusaSingleCopy singleCopy;
    /** The card's receive checksum (the Medusa's RXCK), or null: the host sums the whole frame. */
    private final MedusaReceiveChecksum cardSum;
    private final EventInbox inbox;
    private final int nodes;
    private final int self;
    private final int receiveBuffers;
    private final int window0;
    private final int updateThreshold;
    private final int copyOutBelow;
    private final int maxFragment;
    private final boolean twoFrameRule;
    /**
     * The medium has no broadcast (the MPP fabric): a broadcast fragment goes as P-1 unicast frames, identical but
     * for the destination (the same broadcast sequence number, the same window update), claimed all or none.
     */
    private final boolean unicastBroadcast;
    /** The handles of a broadcast's unicast frames, claimed before any is filled. */
    private final int[] copyHandles;
    /**
     * The link receives in order ({@link Link#receivesInOrder()}): a frame kept in its receive buffer would stop
     * reception once the card came round to it, so every data frame is copied out into a host buffer at once, as a
     * copy-out (its receive buffer advertised again), while host buffers last.
     */
    private final boolean copyAtOnce;
    /** The link's card resets seen so far: a new one is reported ({@link CarefulViolation#CARD_RESET}). */
    private long cardResetsSeen;

    // sender side, per peer
    private final int[] window;
    private final int[] useqOut;
    private final int[] sentEvent;
    private final int[] sentIndex;
    private final boolean[] sentLast;
    private int bseqOut;
    private int lastEventSent = -1;

    // receiver side, per peer
    private final int[] rcvUseq;
    private final int[] rcvBseq;
    private final int[] pending;
    private final int[] peerCredit;
    private final int[] lastEvent;
    /** An explicit update frame went to p and nothing has come from p since: p may not have its buffer back yet. */
    private final boolean[] updateInFlight;
    private long dirty;
    private boolean updatesWaitForLink;

    private final long[] violationCounts = new long[CarefulViolation.all().length];
    private long violations;
    private long dataFramesSent;
    private long updateFramesSent;
    private long updatesPiggybacked;
    private long blockedSends;
    private long copyOuts;

    private final HostCpu.Operation shrinkWindow;
    private final HostCpu.Operation fillInWindowUpdate;
    private final HostCpu.Operation processWindowUpdate;
    private final HostCpu.Operation trackLastEvent;
    private final HostCpu.Operation decrementSenderWindow;
    private final HostCpu.Operation skipCopyOut;

    /**
     * @param link  the node's link; the cluster is its peers {@code [0, P)} ({@link CarefulConfig#clusterNodes()})
     * @param cpu   the node's CPU
     * @throws IllegalArgumentException for R &lt; 2P under {@link CarefulConfig.Safety#CHECKED}, a link that cannot
     *                                  carry the header, an in-order link without host buffers, or a cluster outside
     *                                  2 .. 64 nodes
     */
    public CarefulCore(Link link, CarefulConfig config, HostCpu cpu) {
        this.link = Objects.requireNonNull(link, "link");
        this.config = Objects.requireNonNull(config, "config");
        this.cpu = Objects.requireNonNull(cpu, "cpu");
        this.nodes = config.clusterNodes() == 0 ? link.peers() : config.clusterNodes();
        this.self = link.self();
        if (nodes < 2 || nodes > 64 || nodes > link.peers() || self >= nodes) {
            throw new IllegalArgumentException("the careful core needs a cluster of 2 .. 64 of the link's peers"
                    + " including itself; link " + link.name() + " has " + link.peers() + " peers, this node is "
                    + self + ", the cluster " + nodes);
        }
        if (link.mtu() <= CarefulWire.HEADER) {
            throw new IllegalArgumentException("link " + link.name() + " carries " + link.mtu()
                    + " bytes, no room after the " + CarefulWire.HEADER + "-byte header");
        }
        this.receiveBuffers = config.receiveBuffers();
        this.window0 = receiveBuffers / nodes;
        if (config.safety() != CarefulConfig.Safety.UNDERSIZED_WINDOWS && receiveBuffers < 2 * nodes) {
            throw new IllegalArgumentException("receiveBuffers R = " + receiveBuffers + " must be >= 2P = "
                    + 2 * nodes + " (Theorem 1: windows of at least two frames)");
        }
        this.twoFrameRule = config.safety() != CarefulConfig.Safety.IGNORE_TWO_FRAME_RULE;
        this.updateThreshold = Math.max(1, (window0 + 1) / 2);
        this.copyOutBelow = config.copyOutBelow() >= 0 ? config.copyOutBelow()
                : receiveBuffers - (nodes - 1) * window0 / 2;
        this.maxFragment = link.mtu() - CarefulWire.HEADER;
        this.singleCopy = link.capability(MedusaSingleCopy.class);
        this.cardSum = link.capability(MedusaReceiveChecksum.class);
        this.unicastBroadcast = !link.canBroadcast();
        this.copyHandles = new int[nodes];
        this.copyAtOnce = link.receivesInOrder();
        if (copyAtOnce && config.hostBuffers() == 0) {
            throw new IllegalArgumentException("link " + link.name() + " receives in order, so every frame is copied"
                    + " out at once: the config needs hostBuffers > 0");
        }
        this.inbox = new EventInbox(link, cpu, nodes, config.eventSlots(), receiveBuffers, config.hostBuffers(),
                maxFragment);
        this.cardResetsSeen = link.counters().cardResets();
        window = new int[nodes];
        useqOut = new int[nodes];
        sentEvent = new int[nodes];
        sentIndex = new int[nodes];
        sentLast = new boolean[nodes];
        rcvUseq = new int[nodes];
        rcvBseq = new int[nodes];
        pending = new int[nodes];
        peerCredit = new int[nodes];
        lastEvent = new int[nodes];
        updateInFlight = new boolean[nodes];
        for (int p = 0; p < nodes; p++) {
            window[p] = p == self ? 0 : window0;
            peerCredit[p] = p == self ? 0 : window0;
            sentEvent[p] = -1;
            lastEvent[p] = -1;
        }
        shrinkWindow = cpu.operation("careful.shrink-window");
        fillInWindowUpdate = cpu.operation("careful.fill-in-window-update");
        processWindowUpdate = cpu.operation("careful.process-window-update");
        trackLastEvent = cpu.operation("careful.track-last-event");
        decrementSenderWindow = cpu.operation("careful.decrement-sender-window");
        skipCopyOut = cpu.operation("careful.skip-copy-out");
    }

    // ================================================================================================ send
    // The Appendix A operations (shrinkWindow ... skipCopyOut) are package-private so that CarefulAppendixA can
    // benchmark exactly this code; their callers charge them.

    @Override
    public int send(int dst, int event, MemorySegment frag, long offset, int length, int flags) {
        Objects.requireNonNull(frag, "frag");
        checkSend(dst, event, length, flags);
        checkCard();
        int index;
        int update;
        if (dst == BROADCAST) {
            index = broadcastIndex(event);
            update = Integer.MAX_VALUE;
            for (int p = 0; p < nodes; p++) {
                if (p != self) {
                    update = Math.min(update, pending[p]);
                }
            }
            for (int p = 0; p < nodes; p++) {
                if (p != self && !mayCarryData(p, update)) {
                    blockedSends++;
                    return BACK_PRESSURE;
                }
            }
        } else {
            index = sentEvent[dst] == event ? sentIndex[dst] : 0;
            update = pending[dst];
            if (!mayCarryData(dst, update)) {
                blockedSends++;
                return BACK_PRESSURE;
            }
        }
        int h = dst == BROADCAST && unicastBroadcast ? claimEveryPeer() : link.claim(dst);
        if (h == Link.NONE) {
            return BACK_PRESSURE;
        }
        MemorySegment f = link.txBuffer(h);
        int useq = dst == BROADCAST ? 0 : useqOut[dst];
        int bseq = bseqOut; // a broadcast's own number, or the broadcasts sent before a unicast
        int wireFlags = (flags & CarefulWire.FLAG_MASK) | (dst == BROADCAST ? CarefulWire.BROADCAST_FRAME : 0);
        long payloadSum;
        if (singleCopy != null && length > 0) {
            // the one copy: application memory -> card, summed by the card on the way
            payloadSum = singleCopy.copyPayload(h, CarefulWire.HEADER, frag, offset, length);
        } else {
            MemorySegment.copy(frag, offset, f, CarefulWire.HEADER, length);
            cpu.charge(CostItem.COPY, length);
            payloadSum = CarefulWire.sum(f, CarefulWire.HEADER, length);
            cpu.charge(CostItem.CHECKSUM, length);
        }
        shrinkWindow.charge();
        shrinkWindow(dst);
        fillInWindowUpdate.charge();
        fillInWindowUpdate(dst, update);
        if (update > 0) {
            updatesPiggybacked++;
        }
        CarefulWire.writeHeader(f, CarefulWire.DATA, wireFlags, update, useq, bseq, event, index);
        f.set(CarefulWire.U16, CarefulWire.OFF_CHECKSUM,
                (short) CarefulWire.fold(payloadSum + CarefulWire.sum(f, 0, CarefulWire.HEADER)));
        cpu.charge(CostItem.CHECKSUM, CarefulWire.HEADER);
        if (dst == BROADCAST && unicastBroadcast) {
            commitCopies(f, CarefulWire.HEADER + length);
        }
        link.commit(h, CarefulWire.HEADER + length);
        if (dst == BROADCAST) {
            bseqOut++;
            for (int p = 0; p < nodes; p++) {
                if (p != self) {
                    noteSent(p, event, index, flags);
                }
            }
        } else {
            useqOut[dst]++;
            noteSent(dst, event, index, flags);
        }
        lastEventSent = event;
        dataFramesSent++;
        return OK;
    }

    /**
     * Claims one frame to every other node for a broadcast on a medium without one, all or none.
     *
     * @return the handle of the first (the one the caller fills), or {@link Link#NONE} with nothing claimed
     */
    private int claimEveryPeer() {
        int claimed = 0;
        for (int p = 0; p < nodes; p++) {
            if (p == self) {
                continue;
            }
            int h = link.claim(p);
            if (h == Link.NONE) {
                for (int k = 0; k < claimed; k++) {
                    link.abort(copyHandles[k]);
                }
                return Link.NONE;
            }
            copyHandles[claimed++] = h;
        }
        return copyHandles[0];
    }

    /** Copies the filled first frame of a unicast broadcast into the others and commits them (host copies). */
    private void commitCopies(MemorySegment first, int length) {
        for (int k = 1; k < nodes - 1; k++) {
            MemorySegment f = link.txBuffer(copyHandles[k]);
            MemorySegment.copy(first, 0, f, 0, length);
            cpu.charge(CostItem.COPY, length);
            link.commit(copyHandles[k], length);
        }
    }

    private void checkSend(int dst, int event, int length, int flags) {
        if (dst != BROADCAST && (dst < 0 || dst >= nodes || dst == self)) {
            throw new IllegalArgumentException("dst must be another node in [0, " + nodes + ") or BROADCAST; node "
                    + self + " was given " + dst);
        }
        if (length < 0 || length > maxFragment) {
            throw new IllegalArgumentException("length must be in [0, " + maxFragment + "], was " + length);
        }
        if ((flags & ~CarefulWire.FLAG_MASK) != 0) {
            throw new IllegalArgumentException("unknown flag bits 0x" + Integer.toHexString(flags & ~CarefulWire.FLAG_MASK));
        }
        if (event < 0 || event < lastEventSent) {
            throw new IllegalArgumentException("event must be >= 0 and never below one already sent ("
                    + lastEventSent + "), was " + event);
        }
        if (dst != BROADCAST) {
            checkOpen(dst, event);
        }
    }

    private void checkOpen(int dst, int event) {
        if (sentEvent[dst] == event && sentLast[dst]) {
            throw new IllegalArgumentException("node " + self + " already sent its LAST_FRAG to node " + dst
                    + " for event " + event);
        }
        if (sentEvent[dst] == event && sentIndex[dst] > 0xFFFF) {
            throw new IllegalArgumentException("more than 65536 fragments to node " + dst + " in event " + event);
        }
    }

    /** A broadcast fragment has one index for every receiver: they must all stand at the same one. */
    private int broadcastIndex(int event) {
        int index = -1;
        for (int p = 0; p < nodes; p++) {
            if (p == self) {
                continue;
            }
            checkOpen(p, event);
            int i = sentEvent[p] == event ? sentIndex[p] : 0;
            if (index >= 0 && i != index) {
                throw new IllegalArgumentException("node " + self + " sent node " + p + " " + i + " fragments of event "
                        + event + " but others " + index + ": a broadcast fragment needs every receiver at the same"
                        + " fragment index (do not mix unicast and broadcast to the same nodes in one event)");
            }
            index = i;
        }
        return index;
    }

    private void noteSent(int p, int event, int index, int flags) {
        sentEvent[p] = event;
        sentIndex[p] = index + 1;
        sentLast[p] = (flags & LAST_FRAG) != 0;
    }

    /** The two-frame rule (Theorem 1): a frame may close the window only if it carries a window update. */
    private boolean mayCarryData(int p, int update) {
        if (!twoFrameRule) {
            return window[p] >= 1;
        }
        return window[p] >= 2 || (window[p] >= 1 && update > 0);
    }

    /** Appendix A "shrink window": the frame uses one buffer of the receiver's (each receiver's, for a broadcast). */
    void shrinkWindow(int dst) {
        if (dst == BROADCAST) {
            for (int p = 0; p < nodes; p++) {
                if (p != self) {
                    window[p]--;
                }
            }
        } else {
            window[dst]--;
        }
    }

    /** Appendix A "fill in window update": hand back {@code update} freed buffers to the receiver(s). */
    void fillInWindowUpdate(int dst, int update) {
        if (update == 0) {
            return;
        }
        if (dst == BROADCAST) {
            for (int p = 0; p < nodes; p++) {
                if (p != self) {
                    returned(p, update);
                }
            }
        } else {
            returned(dst, update);
        }
    }

    private void returned(int p, int update) {
        pending[p] -= update;
        peerCredit[p] += update;
    }

    // ================================================================================================ updates

    /** Sends the explicit updates that are due (see the class comment), as far as the link takes them. */
    private void flushUpdates() {
        long d = dirty;
        while (d != 0) {
            int p = Long.numberOfTrailingZeros(d);
            d &= d - 1;
            if (!updateDue(p)) {
                dirty &= ~(1L << p);
            } else if (window[p] >= 1) { // an update borrows a buffer at p: it needs an open window
                if (!sendUpdate(p)) {
                    updatesWaitForLink = true;
                    return; // the link is full: onWritable tries again
                }
                dirty &= ~(1L << p);
            }
            // else: window[p] == 0; p's last frame from here closed it with an update (the two-frame rule), so
            // p's own update is on its way and marks p dirty again
        }
    }

    /**
     * Half a window's worth freed, or p may be blocked (fewer than two frames left, as this node sees it) and the
     * update unblocks it; and no earlier update frame to p is still unanswered (at most one update frame per peer
     * borrows a buffer at p: after an update p has two frames of window or more until it sends again, and what it
     * sends answers the update).
     */
    private boolean updateDue(int p) {
        int n = pending[p];
        return n > 0 && !updateInFlight[p] && (n >= updateThreshold || (peerCredit[p] < 2 && peerCredit[p] + n >= 2));
    }

    private boolean sendUpdate(int p) {
        int h = link.claim(p);
        if (h == Link.NONE) {
            return false;
        }
        MemorySegment f = link.txBuffer(h);
        int update = pending[p];
        fillInWindowUpdate.charge();
        fillInWindowUpdate(p, update); // no shrink: the receiver frees an update frame's buffer at once
        CarefulWire.writeHeader(f, CarefulWire.UPDATE, 0, update, useqOut[p], bseqOut, 0, 0);
        f.set(CarefulWire.U16, CarefulWire.OFF_CHECKSUM, (short) CarefulWire.fold(CarefulWire.sum(f, 0,
                CarefulWire.HEADER)));
        cpu.charge(CostItem.CHECKSUM, CarefulWire.HEADER);
        link.commit(h, CarefulWire.HEADER);
        useqOut[p]++;
        updateInFlight[p] = true;
        updateFramesSent++;
        return true;
    }

    // ================================================================================================ arrival

    @Override
    public void onFrame(Link l, int h) {
        checkCard();
        int src = l.rxPeer(h);
        if (src >= nodes || src == self) {
            reject(CarefulViolation.UNKNOWN_PEER, h, src, "frame from node " + src + ", not a member of the "
                    + nodes + "-node cluster");
            return;
        }
        int length = l.rxLength(h);
        MemorySegment f = l.rxBuffer(h);
        byte kind = length >= CarefulWire.HEADER ? f.get(ValueLayout.JAVA_BYTE, CarefulWire.OFF_KIND) : 0;
        if (kind != CarefulWire.DATA && kind != CarefulWire.UPDATE) {
            reject(CarefulViolation.MALFORMED, h, src, length + "-byte frame that is not a careful-protocol frame");
            return;
        }
        int carried = CarefulWire.u16(f, CarefulWire.OFF_CHECKSUM);
        int sum = CarefulWire.fold(frameSumWithoutChecksum(f, h, length, carried));
        if (sum != carried) {
            reject(CarefulViolation.BAD_CHECKSUM, h, src, "checksum 0x" + Integer.toHexString(carried)
                    + " but the frame sums to 0x" + Integer.toHexString(sum));
            return;
        }
        int flags = f.get(ValueLayout.JAVA_BYTE, CarefulWire.OFF_FLAGS) & 0xFF;
        if (!inSequence(src, h, flags, CarefulWire.u32(f, CarefulWire.OFF_USEQ),
                CarefulWire.u32(f, CarefulWire.OFF_BSEQ))) {
            return;
        }
        if (updateInFlight[src]) {
            updateInFlight[src] = false; // src has sent again since: it had our update's buffer back
            markDirty(src);
        }
        processWindowUpdate.charge();
        processWindowUpdate(src, CarefulWire.u16(f, CarefulWire.OFF_UPDATE));
        if (kind == CarefulWire.UPDATE) {
            l.release(h); // read in the interrupt handler: its buffer is free at once, it used no window
            flushUpdates();
            return;
        }
        decrementSenderWindow.charge();
        decrementSenderWindow(src);
        int event = CarefulWire.u32(f, CarefulWire.OFF_EVENT);
        trackLastEvent.charge();
        if (!trackLastEvent(src, event, h)) {
            return;
        }
        int code = inbox.add(src, event, CarefulWire.u16(f, CarefulWire.OFF_INDEX), flags & CarefulWire.FLAG_MASK, h,
                CarefulWire.HEADER, length - CarefulWire.HEADER);
        if (code != EventInbox.ADDED) {
            reject(CarefulViolation.UNFILED, h, src, "fragment of event " + event + " could not be filed (inbox code "
                    + code + ")");
            freed(src);
        }
        skipCopyOut.charge();
        skipCopyOut(src);
        markDirty(src);
        flushUpdates();
    }

    /**
     * The frame's ones'-complement sum with its checksum field taken out. Where the card summed the frame as it
     * stored it (the Medusa's RXCK, from {@link MedusaReceiveChecksum#coveredFrom()}), the host sums only the bytes
     * before that and reads the card's sum (a PIO word, the link's charge); otherwise it sums every byte. Both sums
     * are positive and congruent mod 0xFFFF to the true one, so they fold to the same value.
     */
    private long frameSumWithoutChecksum(MemorySegment f, int h, int length, int carried) {
        if (cardSum != null && length > cardSum.coveredFrom()) {
            int host = cardSum.coveredFrom();
            cpu.charge(CostItem.CHECKSUM, host);
            return CarefulWire.sum(f, 0, host) + cardSum.payloadSum(h) + (0xFFFF - carried);
        }
        cpu.charge(CostItem.CHECKSUM, length);
        return CarefulWire.sum(f, 0, length) - carried;
    }

    /** Checks the sender's unicast and broadcast sequences: true to go on (in sequence, or intact after a gap). */
    private boolean inSequence(int src, int h, int flags, int useq, int bseq) {
        boolean broadcast = (flags & CarefulWire.BROADCAST_FRAME) != 0;
        int du = broadcast ? 0 : useq - rcvUseq[src];
        int db = bseq - rcvBseq[src];
        if (du < 0 || (broadcast && db < 0)) {
            reject(CarefulViolation.DUPLICATE, h, src, (broadcast ? "broadcast " + bseq : "unicast " + useq)
                    + " seen already (next expected " + (broadcast ? rcvBseq[src] : rcvUseq[src]) + ")");
            return false;
        }
        if (du > 0 || db > 0 || (!broadcast && db < 0)) {
            count(CarefulViolation.GAP, src, (du > 0 ? du + " unicast frame(s) " : "")
                    + (db != 0 ? Math.abs(db) + " broadcast frame(s) " : "") + "lost before "
                    + (broadcast ? "broadcast " + bseq : "unicast " + useq) + "; their fragments will never arrive");
        }
        if (broadcast) {
            rcvBseq[src] = bseq + 1;
        } else {
            rcvUseq[src] = useq + 1;
            rcvBseq[src] = bseq;
        }
        return true;
    }

    /** Appendix A "decrement sender's window": the frame used one of the buffers this node gave its sender. */
    void decrementSenderWindow(int src) {
        if (--peerCredit[src] < 0) {
            count(CarefulViolation.WINDOW_OVERRUN, src, "sent beyond its window of " + window0 + " frames");
            peerCredit[src] = 0;
        }
    }

    /** Appendix A "process window update": the sender freed {@code update} of this node's frames. */
    void processWindowUpdate(int src, int update) {
        if (update > 0) {
            window[src] += update;
            markDirty(src); // an update held back for lack of window may go now
        }
    }

    /** Appendix A "track last event number": a sender's events never go back. */
    boolean trackLastEvent(int src, int event, int h) {
        if (event < lastEvent[src]) {
            reject(CarefulViolation.EVENT_WENT_BACK, h, src, "event " + event + " after event " + lastEvent[src]);
            freed(src);
            return false;
        }
        lastEvent[src] = event;
        return true;
    }

    /**
     * Appendix A "skip copy-out": copy frames out of the receive buffers only while they run low, or while the
     * sender of this frame has (as far as this node knows) fewer than two frames of window left: then this node
     * holds its window, and an application that does not take them yet would stop it (the paper's deadlock
     * avoidance by copy-out, applied where the buffers are short: per window as well as overall).
     */
    void skipCopyOut(int sender) {
        if (copyAtOnce) {
            // nothing stays on board while host buffers last: each copy-out frees a window buffer, as below
            for (int src = inbox.copyOutOldest(); src >= 0; src = inbox.copyOutOldest()) {
                copiedOut(src);
            }
            return;
        }
        while (receiveBuffers - inbox.inPlace() < copyOutBelow) {
            int src = inbox.copyOutOldest();
            if (src < 0) {
                return; // no host buffer left: the windows still hold every sender within R
            }
            copiedOut(src);
        }
        if (peerCredit[sender] + pending[sender] < 2) {
            int src = inbox.copyOutOldestFrom(sender);
            if (src >= 0) {
                copiedOut(src);
            }
        }
    }

    private void copiedOut(int src) {
        copyOuts++;
        freed(src);
    }

    private void freed(int src) {
        pending[src]++;
        markDirty(src);
    }

    private void markDirty(int p) {
        dirty |= 1L << p;
    }

    private void reject(CarefulViolation v, int h, int src, String what) {
        link.release(h);
        count(v, src, what + " - dropped");
    }

    /**
     * Reports a card reset the driver has recovered from since the last look: the card may have lost frames that no
     * later frame will expose (those it was receiving when it was reset), so the reset itself is the evidence.
     */
    private void checkCard() {
        long resets = link.counters().cardResets();
        if (resets != cardResetsSeen) {
            cardResetsSeen = resets;
            count(CarefulViolation.CARD_RESET, self, "the card was reset and re-initialised (" + resets
                    + " so far): frames it was receiving or had not reported sent may be lost or go twice");
        }
    }

    private void count(CarefulViolation v, int src, String what) {
        violationCounts[v.ordinal()]++;
        violations++;
        LOG.error("careful protocol, node {}: {} from node {}: {} (the ring broke the protocol's assumption; this"
                + " is violation {})", self, v, src, what, violations);
    }

    @Override
    public void onWritable(Link l) {
        checkCard();
        if (updatesWaitForLink) {
            updatesWaitForLink = false;
            flushUpdates();
        }
    }

    // ================================================================================================ receive

    @Override
    public int receive(int src, int event, FragmentHandler handler) {
        checkCard();
        int status = inbox.take(src, event, handler);
        if (status != NOTHING && inbox.lastWasInPlace()) {
            freed(inbox.lastSource());
            flushUpdates();
        }
        return status;
    }

    // ================================================================================================ state

    @Override
    public void onTimer() {
        // no timers: nextDeadline() is always NO_DEADLINE, so a runner never calls this
    }

    @Override
    public long nextDeadline() {
        return NO_DEADLINE;
    }

    @Override
    public Set<Guarantee> guarantees() {
        return GUARANTEES;
    }

    @Override
    public int bufferedMessages() {
        return inbox.held();
    }

    @Override
    public int bufferCapacity() {
        return receiveBuffers + config.hostBuffers();
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

    @Override
    public long violations() {
        return violations;
    }

    /** @return the violations of one kind detected so far */
    public long violations(CarefulViolation kind) {
        return violationCounts[kind.ordinal()];
    }

    /** Unicast frames numbered for {@code peer} (data and update frames) plus every broadcast. */
    @Override
    public long framesNumberedFor(int peer) {
        return peer == self ? 0 : Integer.toUnsignedLong(useqOut[peer]) + Integer.toUnsignedLong(bseqOut);
    }

    /** The next unicast and broadcast numbers expected from {@code peer}: what arrived or was reported missing. */
    @Override
    public long framesAccountedFrom(int peer) {
        return peer == self ? 0 : Integer.toUnsignedLong(rcvUseq[peer]) + Integer.toUnsignedLong(rcvBseq[peer]);
    }

    /** @return W = floor(R/P), the static window every peer gets */
    public int staticWindow() {
        return window0;
    }

    /** @return the frames this node may still send to {@code peer} */
    public int window(int peer) {
        return window[peer];
    }

    /** @return freed receive buffers of {@code peer}'s not yet advertised back to it */
    public int pendingUpdate(int peer) {
        return pending[peer];
    }

    /** @return this node's estimate of {@code peer}'s window towards it */
    public int peerCredit(int peer) {
        return peerCredit[peer];
    }

    /** @return true when the Medusa's single-copy PIO send is in use */
    public boolean singleCopy() {
        return singleCopy != null;
    }

    /** @return fragments held in the link's receive buffers now */
    public int heldInPlace() {
        return inbox.inPlace();
    }

    /** @return fragments held in host buffers after copy-out now */
    public int heldCopiedOut() {
        return inbox.copiedOut();
    }

    public long dataFramesSent() {
        return dataFramesSent;
    }

    public long updateFramesSent() {
        return updateFramesSent;
    }

    public long updatesPiggybacked() {
        return updatesPiggybacked;
    }

    /** @return sends refused by the windows (back-pressure from flow control, not from the link) */
    public long blockedSends() {
        return blockedSends;
    }

    /** @return frames copied out of receive buffers into host buffers */
    public long copyOuts() {
        return copyOuts;
    }

    @Override
    public String toString() {
        return "CarefulCore[node " + self + " of " + nodes + ", R=" + receiveBuffers + ", W=" + window0
                + (singleCopy != null ? ", single-copy" : "") + ", violations=" + violations + "]";
    }
}
