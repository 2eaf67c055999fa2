package io.nicbridge.protocols.core;

import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.bridge.port.PortCounters;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One end of a two-node in-process link without a medium or a clock, for driving two cores by hand (the
 * protocols' per-operation benchmarks and allocation tests): a frame committed at one end is queued, in order, at the other end until its
 * {@link #poll}; {@link #drop()} discards what is queued; {@link #inject} queues a frame built by hand. 64 frame
 * buffers per end, allocated once; a claim when the peer's queue is full is back-pressure ({@link #NONE}). Receive
 * buffers are the sender's transmit buffers (handed over by index, never copied), so a frame must be polled or
 * dropped before its buffer is claimed again, which the 64-deep queue guarantees. A pair made to broadcast takes
 * {@link #BROADCAST} as a destination: with two nodes, that is the other one. Not thread-safe.
 */
public final class LoopbackLink implements Link {
    /** Frame buffers per end, and the deepest queue. */
    public static final int FRAMES = 64;

    private final int self;
    private final int mtu;
    private final boolean broadcast;
    private final MemorySegment[] buffers = new MemorySegment[FRAMES];
    private final int[] lengths = new int[FRAMES];
    private LoopbackLink other;
    private long head; // frames queued here: [head, tail), by buffer index tail % FRAMES
    private long tail;

    private LoopbackLink(int self, int mtu, boolean broadcast, Arena arena) {
        this.self = self;
        this.mtu = mtu;
        this.broadcast = broadcast;
        for (int i = 0; i < FRAMES; i++) {
            buffers[i] = arena.allocate(mtu, 8);
        }
    }

    /** @return the two ends, node 0 and node 1, of a link carrying frames of up to {@code mtu} bytes */
    public static LoopbackLink[] pair(int mtu) {
        return pair(mtu, false);
    }

    /** @return the two ends of a link carrying frames of up to {@code mtu} bytes, broadcasting if {@code broadcast} */
    public static LoopbackLink[] pair(int mtu, boolean broadcast) {
        if (mtu < 1) {
            throw new IllegalArgumentException("mtu must be at least 1, was " + mtu);
        }
        Arena arena = Arena.ofAuto();
        LoopbackLink a = new LoopbackLink(0, mtu, broadcast, arena);
        LoopbackLink b = new LoopbackLink(1, mtu, broadcast, arena);
        a.other = b;
        b.other = a;
        return new LoopbackLink[] {a, b};
    }

    /** @return frames queued here, not yet polled */
    public int queued() {
        return (int) (tail - head);
    }

    /** Discards every frame queued here. */
    public void drop() {
        head = tail;
    }

    /**
     * Queues at this end a frame of {@code length} bytes, to be written (before the next {@link #poll}) into the
     * buffer returned.
     *
     * @throws IllegalStateException when 64 frames are queued already
     */
    public MemorySegment inject(int length) {
        if (queued() == FRAMES) {
            throw new IllegalStateException(name() + ": 64 frames queued already");
        }
        if (length < 0 || length > mtu) {
            throw new IllegalArgumentException("length must be in [0, " + mtu + "], was " + length);
        }
        int i = (int) (tail % FRAMES);
        lengths[i] = length;
        tail++;
        return buffers[i];
    }

    @Override
    public String name() {
        return "loopback" + self;
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
        return broadcast;
    }

    @Override
    public int claim(int peer) {
        if (peer != 1 - self && !(broadcast && peer == BROADCAST)) {
            throw new IllegalArgumentException("peer must be " + (1 - self) + (broadcast ? " or BROADCAST" : "")
                    + ", was " + peer);
        }
        return other.queued() == FRAMES ? NONE : (int) (other.tail % FRAMES);
    }

    @Override
    public MemorySegment txBuffer(int txHandle) {
        return other.buffers[txHandle];
    }

    @Override
    public void commit(int txHandle, int length) {
        if (length < 0 || length > mtu) {
            throw new IllegalArgumentException("length must be in [0, " + mtu + "], was " + length);
        }
        other.lengths[txHandle] = length;
        other.tail++;
    }

    @Override
    public void abort(int txHandle) {
    }

    @Override
    public int poll(LinkHandler handler, int limit) {
        int n = 0;
        while (head != tail && n < limit) {
            int h = (int) (head % FRAMES);
            head++;
            n++;
            handler.onFrame(this, h);
        }
        return n;
    }

    @Override
    public int rxPeer(int rxHandle) {
        return 1 - self;
    }

    @Override
    public MemorySegment rxBuffer(int rxHandle) {
        return buffers[rxHandle];
    }

    @Override
    public int rxLength(int rxHandle) {
        return lengths[rxHandle];
    }

    @Override
    public void release(int rxHandle) {
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
