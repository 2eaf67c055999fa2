package io.nicbridge.protocols.runner;

import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import io.nicbridge.bridge.port.PortCounters;
import java.lang.foreign.MemorySegment;

/**
 * Test fixture: a two-peer {@link Link} over one end of a {@link FramePort} (no header: the only peer is the other
 * end), so that a runner can be tried across threads on bridge's {@code LoopbackFramePort}. Not a medium framing
 * (those come with the cards); it has no readiness signal, so the runner finds frames by polling.
 */
final class PointToPointLink implements Link {
    private final FramePort port;
    private final int self;
    private final int[] rxLengths = new int[1 << 16];
    private boolean wantWritable;

    PointToPointLink(FramePort port, int self) {
        this.port = port;
        this.self = self;
    }

    @Override
    public String name() {
        return port.name();
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
        return port.maxFrameLength();
    }

    @Override
    public boolean canBroadcast() {
        return false;
    }

    @Override
    public int claim(int peer) {
        if (peer != 1 - self) {
            throw new IllegalArgumentException("peer must be " + (1 - self) + ", was " + peer);
        }
        int h = port.claim();
        if (h == FramePort.NONE) {
            wantWritable = true;
        }
        return h;
    }

    @Override
    public MemorySegment txBuffer(int h) {
        return port.txBuffer(h);
    }

    @Override
    public void commit(int h, int length) {
        port.commit(h, length);
    }

    @Override
    public void abort(int h) {
        port.abort(h);
    }

    @Override
    public int poll(LinkHandler handler, int limit) {
        int n = 0;
        while (n < limit) {
            int h = port.poll();
            if (h == FramePort.NONE) {
                break;
            }
            if (!FrameStatus.isOk(port.rxStatus(h))) {
                port.release(h);
                continue;
            }
            rxLengths[h] = port.rxLength(h);
            n++;
            handler.onFrame(this, h);
        }
        if (wantWritable) {
            int probe = port.claim();
            if (probe != FramePort.NONE) {
                port.abort(probe);
                wantWritable = false;
                handler.onWritable(this);
            }
        }
        return n;
    }

    @Override
    public int rxPeer(int h) {
        return 1 - self;
    }

    @Override
    public MemorySegment rxBuffer(int h) {
        return port.rxBuffer(h);
    }

    @Override
    public int rxLength(int h) {
        return rxLengths[h];
    }

    @Override
    public void release(int h) {
        port.release(h);
    }

    @Override
    public void readinessListener(Runnable listener) {
        // no readiness signal: the runner polls
    }

    @Override
    public <C> C capability(Class<C> type) {
        return null;
    }

    @Override
    public PortCounters counters() {
        return port.counters();
    }

    @Override
    public void close() {
        port.close();
    }
}
