package io.nicbridge.protocols.cstar;

import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.core.Guarantee;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * Test-only base of a C* core that wraps a real one and changes one thing (the negative controls: a sender deaf to
 * NAKs, a careful core that hides its reports): every call it does not override goes to {@link #inner}.
 */
public abstract class ForwardingCStarNetwork<C extends CStarNetwork> implements CStarNetwork {
    /** The wrapped core. */
    protected final C inner;

    protected ForwardingCStarNetwork(C inner) {
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
        return inner.violations();
    }
}
