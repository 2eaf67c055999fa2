package io.nicbridge.protocols.cstar;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * The receive side of the C* network layer, shared by the traditional and the careful protocol (TR 94-14,
 * Appendix A: "the receive operations are identical in both protocols"): arrived fragments held per event and
 * source until the application takes them with {@link CStarNetwork#receive}.
 *
 * <h2>Event slots</h2>
 * Events are kept in a cyclic buffer of {@code eventSlots} slots (a power of two), as the paper's implementation
 * does: event e lives in slot {@code e & (eventSlots - 1)} from its first fragment until the application has taken
 * its last one ({@link CStarNetwork#EVENT_DONE}), so fragments of later events may arrive before the application
 * gets to them, as long as no two live events share a slot ({@link #SLOT_BUSY} otherwise).
 * <pre>
 *   slot s:  event | crowd? | expected source (non-crowd) | sources done
 *   slot s, source p:  arrived | taken | total (-1 until LAST_FRAG) | FIFO list of held fragments
 * </pre>
 * Who sends to this node in an event is fixed by {@link CStarNetwork}: with {@link CStarNetwork#BCAST_EVENT} every
 * other node, without it only the one that sent the first fragment. A source is done when its
 * {@link CStarNetwork#LAST_FRAG} fragment (fragment index n - 1) has arrived and all n of its fragments have been
 * taken; the event is done when every expected source is. Fragment indices make this independent of arrival order
 * within an event (the traditional protocol's retransmissions reorder; the careful protocol's ring does not).
 *
 * <h2>Where the bytes are</h2>
 * A fragment stays in place in the link's receive buffer (the Medusa's on-board memory) until it is taken, then the
 * buffer goes back to the link. When the protocol runs low on receive buffers it asks {@link #copyOutOldest} to copy
 * the oldest fragment still in place into one of {@code hostBuffers} preallocated host buffers and give its receive
 * buffer back (both protocols do this, section 5.3 and Appendix A); the copy is charged to the node's CPU as
 * {@link CostItem#COPY} per byte.
 *
 * <h2>What the inbox does not do</h2>
 * It does not de-duplicate or order frames: exactly-once below it is the protocol's (sequence numbers,
 * retransmission or detection). It refuses only what it cannot file ({@link #add}'s codes); the caller still holds
 * the receive buffer then and decides (release, count, report).
 *
 * <p>Single-threaded (the node's thread). Nothing allocates after construction.
 */
public final class EventInbox {
    /** {@link #add}: filed. */
    public static final int ADDED = 0;
    /** {@link #add}: the event's slot holds another event the application has not finished. */
    public static final int SLOT_BUSY = 1;
    /**
     * {@link #add}: the fragment contradicts the event's senders: a crowd flag unlike the event's first fragment's,
     * or a second source in a non-crowd event.
     */
    public static final int CROSSED = 2;
    /** {@link #add}: the source's fragment index lies at or beyond its LAST_FRAG, or LAST_FRAG came too late. */
    public static final int AFTER_LAST = 3;
    /** {@link #add}: no fragment record left (more fragments held than the inbox was built for). */
    public static final int FULL = 4;

    private static final int NIL = -1;
    private static final int FREE = -1;

    private final Link link;
    private final HostCpu cpu;
    private final int nodes;
    private final int self;
    private final int slotMask;

    // per slot
    private final int[] slotEvent;
    private final boolean[] slotCrowd;
    private final int[] slotSource;
    private final int[] slotSourcesDone;
    private final int[] slotHeld;
    private final int[] slotCursor;

    // per slot x source (index slot * nodes + source)
    private final int[] arrived;
    private final int[] taken;
    private final int[] total;
    private final int[] head;
    private final int[] tail;

    // fragment records
    private final int[] recNext;
    private final int[] recHandle;
    private final int[] recHost;
    private final int[] recOffset;
    private final int[] recLength;
    private final int[] recSlot;
    private final int[] recSource;
    private final int[] recPrevInPlace;
    private final int[] recNextInPlace;
    private final int[] freeRecords;
    private int freeRecordTop;
    private int inPlaceHead = NIL;
    private int inPlaceTail = NIL;
    private int inPlace;
    private int copied;

    // host buffers for copy-out
    private final MemorySegment[] host;
    private final int[] freeHost;
    private int freeHostTop;

    private boolean taking;
    private int lastSource = NIL;
    private boolean lastInPlace;

    /**
     * @param link            the link whose receive buffers hold the fragments (released here when taken or copied)
     * @param cpu             the node's CPU, charged for copy-out
     * @param nodes           nodes in the cluster (the sources are {@code [0, nodes)}), 2 .. 64
     * @param eventSlots      slots of the cyclic event buffer, a power of two >= 2
     * @param inPlaceCapacity the most fragments held in receive buffers at once (the protocol's receive buffers)
     * @param hostBuffers     host buffers for copy-out (>= 0)
     * @param hostBufferBytes bytes of each host buffer: the largest fragment payload (>= 1)
     */
    public EventInbox(Link link, HostCpu cpu, int nodes, int eventSlots, int inPlaceCapacity, int hostBuffers,
                      int hostBufferBytes) {
        this.link = Objects.requireNonNull(link, "link");
        this.cpu = Objects.requireNonNull(cpu, "cpu");
        if (nodes < 2 || nodes > 64) {
            throw new IllegalArgumentException("nodes must be in [2, 64], was " + nodes);
        }
        if (eventSlots < 2 || Integer.bitCount(eventSlots) != 1) {
            throw new IllegalArgumentException("eventSlots must be a power of two >= 2, was " + eventSlots);
        }
        if (inPlaceCapacity < 1 || hostBuffers < 0 || hostBufferBytes < 1) {
            throw new IllegalArgumentException("inPlaceCapacity must be >= 1, hostBuffers >= 0, hostBufferBytes >= 1;"
                    + " were " + inPlaceCapacity + ", " + hostBuffers + ", " + hostBufferBytes);
        }
        this.nodes = nodes;
        this.self = link.self();
        this.slotMask = eventSlots - 1;
        slotEvent = new int[eventSlots];
        Arrays.fill(slotEvent, FREE);
        slotCrowd = new boolean[eventSlots];
        slotSource = new int[eventSlots];
        slotSourcesDone = new int[eventSlots];
        slotHeld = new int[eventSlots];
        slotCursor = new int[eventSlots];
        int cells = eventSlots * nodes;
        arrived = new int[cells];
        taken = new int[cells];
        total = new int[cells];
        Arrays.fill(total, -1);
        head = new int[cells];
        tail = new int[cells];
        Arrays.fill(head, NIL);
        Arrays.fill(tail, NIL);
        int records = inPlaceCapacity + hostBuffers;
        recNext = new int[records];
        recHandle = new int[records];
        recHost = new int[records];
        recOffset = new int[records];
        recLength = new int[records];
        recSlot = new int[records];
        recSource = new int[records];
        recPrevInPlace = new int[records];
        recNextInPlace = new int[records];
        freeRecords = new int[records];
        for (int r = 0; r < records; r++) {
            freeRecords[freeRecordTop++] = records - 1 - r;
        }
        host = new MemorySegment[hostBuffers];
        freeHost = new int[hostBuffers];
        MemorySegment all = MemorySegment.ofArray(new byte[Math.max(1, hostBuffers * hostBufferBytes)]);
        for (int b = 0; b < hostBuffers; b++) {
            host[b] = all.asSlice((long) b * hostBufferBytes, hostBufferBytes);
            freeHost[freeHostTop++] = hostBuffers - 1 - b;
        }
    }

    // ------------------------------------------------------------------ arrival

    /**
     * Files a fragment that arrived in the link's receive buffer {@code rxHandle}, payload at
     * {@code [offset, offset + length)} of {@code link.rxBuffer(rxHandle)}. On {@link #ADDED} the inbox holds the
     * buffer (it releases it when the fragment is taken); on any other code the caller still does.
     *
     * @param index the fragment's number among its source's fragments to this node in the event (0, 1, ...)
     * @param flags the fragment's {@link CStarNetwork} flags
     * @return {@link #ADDED}, {@link #SLOT_BUSY}, {@link #CROSSED}, {@link #AFTER_LAST} or {@link #FULL}
     */
    public int add(int src, int event, int index, int flags, int rxHandle, int offset, int length) {
        if (src < 0 || src >= nodes || src == self) {
            throw new IllegalArgumentException("src must be another node in [0, " + nodes + "), was " + src);
        }
        if (event < 0 || index < 0) {
            throw new IllegalArgumentException("event and index must be >= 0, were " + event + ", " + index);
        }
        int slot = event & slotMask;
        boolean crowd = (flags & CStarNetwork.BCAST_EVENT) != 0;
        boolean fresh = slotEvent[slot] == FREE;
        if (!fresh) {
            if (slotEvent[slot] != event) {
                return SLOT_BUSY;
            }
            if (slotCrowd[slot] != crowd || (!crowd && slotSource[slot] != src)) {
                return CROSSED;
            }
        }
        int cell = slot * nodes + src;
        boolean last = (flags & CStarNetwork.LAST_FRAG) != 0;
        int known = fresh ? -1 : total[cell];
        if ((known >= 0 && (index >= known || last)) || (last && arrived(fresh, cell) > index)) {
            return AFTER_LAST;
        }
        if (freeRecordTop == 0) {
            return FULL;
        }
        if (fresh) {
            slotEvent[slot] = event;
            slotCrowd[slot] = crowd;
            slotSource[slot] = src;
        }
        if (last) {
            total[cell] = index + 1;
        }
        arrived[cell]++;
        slotHeld[slot]++;
        int r = freeRecords[--freeRecordTop];
        recHandle[r] = rxHandle;
        recHost[r] = NIL;
        recOffset[r] = offset;
        recLength[r] = length;
        recSlot[r] = slot;
        recSource[r] = src;
        recNext[r] = NIL;
        if (tail[cell] == NIL) {
            head[cell] = r;
        } else {
            recNext[tail[cell]] = r;
        }
        tail[cell] = r;
        linkInPlace(r);
        return ADDED;
    }

    private int arrived(boolean fresh, int cell) {
        return fresh ? 0 : arrived[cell];
    }

    // ------------------------------------------------------------------ the application takes

    /**
     * Hands the oldest held fragment of {@code event} from {@code src} ({@link CStarNetwork#ANY}: from any source,
     * taking sources in turn) to {@code handler}, then frees its buffer.
     *
     * @return {@link CStarNetwork#MORE}, {@link CStarNetwork#NODE_DONE}, {@link CStarNetwork#EVENT_DONE}, or
     *     {@link CStarNetwork#NOTHING} when no such fragment is held
     * @throws IllegalStateException when called from inside a handler of this inbox
     */
    public int take(int src, int event, FragmentHandler handler) {
        Objects.requireNonNull(handler, "handler");
        if (src != CStarNetwork.ANY && (src < 0 || src >= nodes || src == self)) {
            throw new IllegalArgumentException("src must be another node in [0, " + nodes + ") or ANY, was " + src);
        }
        if (event < 0) {
            throw new IllegalArgumentException("event must be >= 0, was " + event);
        }
        if (taking) {
            throw new IllegalStateException("receive called from inside a fragment handler");
        }
        int slot = event & slotMask;
        if (slotEvent[slot] != event || slotHeld[slot] == 0) {
            return CStarNetwork.NOTHING;
        }
        int from = src;
        if (src == CStarNetwork.ANY) {
            from = NIL;
            for (int i = 0, p = slotCursor[slot]; i < nodes; i++, p = p + 1 == nodes ? 0 : p + 1) {
                if (head[slot * nodes + p] != NIL) {
                    from = p;
                    slotCursor[slot] = p + 1 == nodes ? 0 : p + 1;
                    break;
                }
            }
        }
        int cell = slot * nodes + from;
        int r = head[cell];
        if (r == NIL) {
            return CStarNetwork.NOTHING;
        }
        head[cell] = recNext[r];
        if (head[cell] == NIL) {
            tail[cell] = NIL;
        }
        slotHeld[slot]--;
        taken[cell]++;
        int status = CStarNetwork.MORE;
        if (total[cell] >= 0 && taken[cell] == total[cell]) {
            slotSourcesDone[slot]++;
            status = !slotCrowd[slot] || slotSourcesDone[slot] == nodes - 1 ? CStarNetwork.EVENT_DONE
                    : CStarNetwork.NODE_DONE;
        }
        lastSource = from;
        lastInPlace = recHandle[r] != NIL;
        taking = true;
        try {
            if (lastInPlace) {
                handler.onFragment(from, event, status, link.rxBuffer(recHandle[r]), recOffset[r], recLength[r]);
            } else {
                handler.onFragment(from, event, status, host[recHost[r]], 0, recLength[r]);
            }
        } finally {
            taking = false;
            freeStorage(r);
            if (status == CStarNetwork.EVENT_DONE) {
                clearSlot(slot);
            }
        }
        return status;
    }

    private void freeStorage(int r) {
        if (recHandle[r] != NIL) {
            unlinkInPlace(r);
            link.release(recHandle[r]);
        } else {
            freeHost[freeHostTop++] = recHost[r];
            copied--;
        }
        freeRecords[freeRecordTop++] = r;
    }

    private void clearSlot(int slot) {
        for (int p = 0, cell = slot * nodes; p < nodes; p++, cell++) {
            arrived[cell] = 0;
            taken[cell] = 0;
            total[cell] = -1;
        }
        slotEvent[slot] = FREE;
        slotSourcesDone[slot] = 0;
        slotCursor[slot] = 0;
    }

    // ------------------------------------------------------------------ copy-out

    /**
     * Copies the oldest fragment still in a receive buffer into a host buffer and gives the receive buffer back to
     * the link.
     *
     * @return the fragment's source (whose receive buffer is now free), or -1 when no fragment is in place or no
     *     host buffer is free
     */
    public int copyOutOldest() {
        return copyOut(inPlaceHead);
    }

    /**
     * Copies the oldest fragment of {@code src} still in a receive buffer into a host buffer and gives the receive
     * buffer back to the link: frees a buffer of that sender's in particular (e.g. one whose window is exhausted).
     *
     * @return {@code src}, or -1 when none of its fragments is in place or no host buffer is free
     */
    public int copyOutOldestFrom(int src) {
        int r = inPlaceHead;
        while (r != NIL && recSource[r] != src) {
            r = recNextInPlace[r];
        }
        return copyOut(r);
    }

    /** @return fragments of {@code src} held in receive buffers (a walk over them: not for every frame) */
    public int inPlaceFrom(int src) {
        int n = 0;
        for (int r = inPlaceHead; r != NIL; r = recNextInPlace[r]) {
            n += recSource[r] == src ? 1 : 0;
        }
        return n;
    }

    private int copyOut(int r) {
        if (r == NIL || freeHostTop == 0) {
            return NIL;
        }
        int b = freeHost[--freeHostTop];
        int length = recLength[r];
        MemorySegment.copy(link.rxBuffer(recHandle[r]), recOffset[r], host[b], 0, length);
        cpu.charge(CostItem.COPY, length);
        unlinkInPlace(r);
        link.release(recHandle[r]);
        recHandle[r] = NIL;
        recHost[r] = b;
        recOffset[r] = 0;
        copied++;
        return recSource[r];
    }

    private void linkInPlace(int r) {
        recPrevInPlace[r] = inPlaceTail;
        recNextInPlace[r] = NIL;
        if (inPlaceTail == NIL) {
            inPlaceHead = r;
        } else {
            recNextInPlace[inPlaceTail] = r;
        }
        inPlaceTail = r;
        inPlace++;
    }

    private void unlinkInPlace(int r) {
        int prev = recPrevInPlace[r];
        int next = recNextInPlace[r];
        if (prev == NIL) {
            inPlaceHead = next;
        } else {
            recNextInPlace[prev] = next;
        }
        if (next == NIL) {
            inPlaceTail = prev;
        } else {
            recPrevInPlace[next] = prev;
        }
        inPlace--;
    }

    // ------------------------------------------------------------------ state

    /** @return the source of the fragment the last successful {@link #take} handed over */
    public int lastSource() {
        return lastSource;
    }

    /** @return true when that fragment was in a receive buffer (now released), false when in a host buffer */
    public boolean lastWasInPlace() {
        return lastInPlace;
    }

    /** @return fragments held in the link's receive buffers */
    public int inPlace() {
        return inPlace;
    }

    /** @return fragments held in host buffers after copy-out */
    public int copiedOut() {
        return copied;
    }

    /** @return fragments held, in place or copied out */
    public int held() {
        return inPlace + copied;
    }

    /** @return host buffers still free for copy-out */
    public int freeHostBuffers() {
        return freeHostTop;
    }

    /** @return true when {@code event} has a live slot (some fragment arrived, the application has not finished) */
    public boolean isLive(int event) {
        return event >= 0 && slotEvent[event & slotMask] == event;
    }

    /** @return fragments of {@code event} from {@code src} held now (0 when the event is not live) */
    public int held(int src, int event) {
        if (!isLive(event)) {
            return 0;
        }
        int cell = (event & slotMask) * nodes + src;
        return arrived[cell] - taken[cell];
    }

    /**
     * Gives every held receive buffer back to the link and forgets every fragment (the protocol is closing).
     */
    public void releaseAll() {
        while (inPlaceHead != NIL) {
            int r = inPlaceHead;
            unlinkInPlace(r);
            link.release(recHandle[r]);
            recHandle[r] = NIL;
        }
    }
}
