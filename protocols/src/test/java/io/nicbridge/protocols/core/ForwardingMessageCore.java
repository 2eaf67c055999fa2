package io.nicbridge.protocols.core;

import io.nicbridge.bridge.link.Link;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * Test-only base of a message core that wraps a real one and changes one thing (the negative controls: a core that
 * forgets its timer, one that hoards a buffer): every call it does not override goes to {@link #inner}.
 */
public abstract class ForwardingMessageCore<C extends MessageCore> implements MessageCore {
    /** The wrapped core. */
    protected final C inner;

    protected ForwardingMessageCore(C inner) {
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
    public int offer(int peer, MemorySegment src, long offset, int length) {
        return inner.offer(peer, src, offset, length);
    }

    @Override
    public int deliver(MessageHandler handler, int limit) {
        return inner.deliver(handler, limit);
    }

    @Override
    public int maxMessage() {
        return inner.maxMessage();
    }
}
