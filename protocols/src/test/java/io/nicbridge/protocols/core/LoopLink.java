package io.nicbridge.protocols.core;

import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.bridge.port.PortCounters;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One end of a minimal two-node link for allocation tests: 64 preallocated frames each way, handed over by index,
 * polled by hand. {@link #pair} builds the two ends.
 */
public final class LoopLink implements Link {
    final int self;
    final int mtu;
    LoopLink other;
    final MemorySegment[] tx = new MemorySegment[64];
    final int[] length = new int[64];
    final int[] queue = new int[64];
    int head;
    int tail;
    int claimed = NONE;
    boolean broadcast;

    private LoopLink(int self, int mtu) {
        this.self = self;
        this.mtu = mtu;
        for (int i = 0; i < tx.length; i++) {
            tx[i] = Arena.ofAuto().allocate(mtu, 8);
        }
    }

    /** @return the two ends, nodes 0 and 1, each frame up to {@code mtu} bytes */
    public static LoopLink[] pair(int mtu) {
        LoopLink a = new LoopLink(0, mtu);
        LoopLink b = new LoopLink(1, mtu);
        a.other = b;
        b.other = a;
        return new LoopLink[] {a, b};
    }

    @Override
    public String name() {
        return "loop" + self;
    }

    @Override
    public int self() {
        return self;
    }

    @Override
    public int peers() {
        return 2;
    }

    @Override
    public int mtu() {
        return mtu;
    }

    @Override
    public boolean canBroadcast() {
        return broadcast; // with two nodes, BROADCAST is the other one
    }

    /** Lets both ends of this pair broadcast (with two nodes a broadcast frame reaches the other one). */
    public static void broadcasting(LoopLink[] pair, boolean on) {
        pair[0].broadcast = on;
        pair[1].broadcast = on;
    }

    @Override
    public int claim(int peer) {
        if (other.tail - other.head == 64) {
            return NONE;
        }
        claimed = other.tail & 63;
        return claimed;
    }

    @Override
    public MemorySegment txBuffer(int h) {
        return other.tx[h];
    }

    @Override
    public void commit(int h, int len) {
        other.length[h] = len;
        other.queue[other.tail & 63] = h;
        other.tail++;
    }

    @Override
    public void abort(int h) {
    }

    @Override
    public int poll(LinkHandler handler, int limit) {
        int n = 0;
        while (head != tail && n < limit) {
            int h = queue[head & 63];
            head++;
            n++;
            handler.onFrame(this, h);
        }
        return n;
    }

    @Override
    public int rxPeer(int h) {
        return 1 - self;
    }

    @Override
    public MemorySegment rxBuffer(int h) {
        return tx[h];
    }

    @Override
    public int rxLength(int h) {
        return length[h];
    }

    @Override
    public void release(int h) {
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
        return null;
    }

    @Override
    public void close() {
    }
}

