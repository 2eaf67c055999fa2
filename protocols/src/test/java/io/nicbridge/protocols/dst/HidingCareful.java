package io.nicbridge.protocols.dst;

import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.careful.CarefulCore;
import io.nicbridge.protocols.core.Guarantee;
import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.cstar.FragmentHandler;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * Negative control: the careful core with its violation count hidden (always 0) and no frame counts, so it promises
 * to report broken assumptions and never does. The harness must catch it on the first schedule that breaks one.
 */
final class HidingCareful implements CStarNetwork {
    private final CarefulCore inner;

    HidingCareful(CarefulCore inner) {
        this.inner = inner;
    }

    @Override
    public void onFrame(Link link, int rxHandle) {
        inner.onFrame(link, rxHandle);
    }

    @Override
    public void onWritable(Link link) {
        inner.onWritable(link);
    }

    @Override
    public void onTimer() {
        inner.onTimer();
    }

    @Override
    public long nextDeadline() {
        return inner.nextDeadline();
    }

    @Override
    public Set<Guarantee> guarantees() {
        return inner.guarantees();
    }

    @Override
    public int bufferedMessages() {
        return inner.bufferedMessages();
    }

    @Override
    public int bufferCapacity() {
        return inner.bufferCapacity();
    }

    @Override
    public int send(int dst, int event, MemorySegment frag, long offset, int length, int flags) {
        return inner.send(dst, event, frag, offset, length, flags);
    }

    @Override
    public int receive(int src, int event, FragmentHandler handler) {
        return inner.receive(src, event, handler);
    }

    @Override
    public int maxFragment() {
        return inner.maxFragment();
    }

    @Override
    public int nodes() {
        return inner.nodes();
    }

    @Override
    public int self() {
        return inner.self();
    }

    @Override
    public long violations() {
        return 0;
    }
}
