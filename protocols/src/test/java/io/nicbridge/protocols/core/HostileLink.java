package io.nicbridge.protocols.core;

import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.bridge.port.PortCounters;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Node 0's end of a link whose other end is a fuzzer: {@link #inject} queues any bytes as a frame from peer 1, and
 * the frames the core under test sends vanish (counted). It keeps the books a real medium relies on: every receive
 * handle must come back exactly once through {@link #release}, only handles that were handed up may, and each
 * receive buffer is exactly the frame long, so a core that reads past the frame fails instead of reading stale bytes.
 */
public final class HostileLink implements Link {
    private static final int SLOTS = 64;

    private final int peers;
    private final int mtu;
    private final boolean broadcast;
    private final MemorySegment[] rx = new MemorySegment[SLOTS];
    private final int[] rxLength = new int[SLOTS];
    private final int[] rxFrom = new int[SLOTS];
    /** 0 free, 1 queued, 2 handed to the core and not yet released. */
    private final byte[] state = new byte[SLOTS];
    private final int[] queue = new int[SLOTS];
    private int head;
    private int tail;
    private final MemorySegment tx;
    private int claimed = NONE;
    private long sent;
    private final PortCounters counters = new PortCounters();

    /**
     * @param peers     nodes on the link (this is node 0; frames come from any other)
     * @param mtu       largest frame
     * @param broadcast whether {@link Link#BROADCAST} is a destination
     */
    public HostileLink(int peers, int mtu, boolean broadcast) {
        this.peers = peers;
        this.mtu = mtu;
        this.broadcast = broadcast;
        Arena arena = Arena.ofAuto();
        for (int i = 0; i < SLOTS; i++) {
            rx[i] = arena.allocate(mtu, 8);
        }
        tx = arena.allocate(mtu, 8);
    }

    /**
     * Queues {@code frame} (cut to the MTU) as arriving from {@code from}.
     *
     * @return false when every receive slot is queued or held by the core (the medium drops, as a full ring does)
     */
    public boolean inject(int from, byte[] frame) {
        int slot = -1;
        for (int i = 0; i < SLOTS; i++) {
            if (state[i] == 0) {
                slot = i;
                break;
            }
        }
        if (slot < 0) {
            counters.recordRxDrop();
            return false;
        }
        int length = Math.min(frame.length, mtu);
        MemorySegment.copy(MemorySegment.ofArray(frame), 0, rx[slot], 0, length);
        rxLength[slot] = length;
        rxFrom[slot] = from;
        state[slot] = 1;
        counters.recordRx(length);
        queue[tail++ % SLOTS] = slot;
        return true;
    }

    /** @return receive handles the core was given and has not released */
    public int held() {
        int n = 0;
        for (byte s : state) {
            n += s == 2 ? 1 : 0;
        }
        return n;
    }

    /** @return frames the core committed */
    public long sent() {
        return sent;
    }

    @Override
    public String name() {
        return "hostile";
    }

    @Override
    public int self() {
        return 0;
    }

    @Override
    public int peers() {
        return peers;
    }

    @Override
    public int mtu() {
        return mtu;
    }

    @Override
    public boolean canBroadcast() {
        return broadcast;
    }

    @Override
    public int claim(int peer) {
        if (peer == BROADCAST ? !broadcast : peer < 0 || peer >= peers || peer == 0) {
            throw new IllegalArgumentException("peer " + peer + " on a link of " + peers + " (this is node 0)");
        }
        if (claimed != NONE) {
            throw new IllegalStateException("claim " + claimed + " still open");
        }
        claimed = 0;
        return claimed;
    }

    @Override
    public MemorySegment txBuffer(int h) {
        checkClaimed(h);
        return tx;
    }

    @Override
    public void commit(int h, int length) {
        checkClaimed(h);
        if (length < 0 || length > mtu) {
            throw new IllegalArgumentException("commit of " + length + " bytes on an MTU of " + mtu);
        }
        claimed = NONE;
        sent++;
        counters.recordTx(length);
    }

    @Override
    public void abort(int h) {
        checkClaimed(h);
        claimed = NONE;
    }

    private void checkClaimed(int h) {
        if (h != claimed || h == NONE) {
            throw new IllegalStateException("tx handle " + h + " is not the claimed one (" + claimed + ")");
        }
    }

    @Override
    public int poll(LinkHandler handler, int limit) {
        int n = 0;
        while (head != tail && n < limit) {
            int slot = queue[head++ % SLOTS];
            state[slot] = 2;
            n++;
            handler.onFrame(this, slot);
        }
        return n;
    }

    private void checkHeld(int h) {
        if (h < 0 || h >= SLOTS || state[h] != 2) {
            throw new IllegalStateException("rx handle " + h + " is not held by the core");
        }
    }

    @Override
    public int rxPeer(int h) {
        checkHeld(h);
        return rxFrom[h];
    }

    @Override
    public MemorySegment rxBuffer(int h) {
        checkHeld(h);
        return rx[h].asSlice(0, rxLength[h]);
    }

    @Override
    public int rxLength(int h) {
        checkHeld(h);
        return rxLength[h];
    }

    @Override
    public void release(int h) {
        checkHeld(h);
        state[h] = 0;
    }

    @Override
    public void readinessListener(Runnable listener) {
    }

    @Override
    public <C> C capability(Class<C> type) {
        return null;
    }

    @Override
    public PortCounters counters() {
        return counters;
    }

    @Override
    public void close() {
    }
}
