package io.nicbridge.bridge.link;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.port.PortCounters;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A {@link Link} that passes every call to the link it wraps: the base of links that change one thing about another
 * (a schedule's partitions cutting arrivals, a capture recording them, a test observing them). A subclass overrides
 * only what it changes, typically {@link #poll} with a handler of its own in front of the caller's; everything it
 * does not override stays exactly the wrapped link's, including calls added to {@link Link} later.
 */
public abstract class ForwardingLink implements Link {
    /** The wrapped link. */
    protected final Link inner;

    protected ForwardingLink(Link inner) {
        this.inner = Objects.requireNonNull(inner, "inner");
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public int self() {
        return inner.self();
    }

    @Override
    public int peers() {
        return inner.peers();
    }

    @Override
    public int mtu() {
        return inner.mtu();
    }

    @Override
    public boolean canBroadcast() {
        return inner.canBroadcast();
    }

    @Override
    public int claim(int peer) {
        return inner.claim(peer);
    }

    @Override
    public MemorySegment txBuffer(int txHandle) {
        return inner.txBuffer(txHandle);
    }

    @Override
    public void commit(int txHandle, int length) {
        inner.commit(txHandle, length);
    }

    @Override
    public void abort(int txHandle) {
        inner.abort(txHandle);
    }

    @Override
    public int poll(LinkHandler handler, int limit) {
        return inner.poll(handler, limit);
    }

    @Override
    public int rxPeer(int rxHandle) {
        return inner.rxPeer(rxHandle);
    }

    @Override
    public MemorySegment rxBuffer(int rxHandle) {
        return inner.rxBuffer(rxHandle);
    }

    @Override
    public int rxLength(int rxHandle) {
        return inner.rxLength(rxHandle);
    }

    @Override
    public void release(int rxHandle) {
        inner.release(rxHandle);
    }

    @Override
    public void readinessListener(Runnable listener) {
        inner.readinessListener(listener);
    }

    @Override
    public void hostCpu(HostCpu cpu) {
        inner.hostCpu(cpu);
    }

    @Override
    public boolean receivesInOrder() {
        return inner.receivesInOrder();
    }

    @Override
    public <C> C capability(Class<C> type) {
        return inner.capability(type);
    }

    @Override
    public PortCounters counters() {
        return inner.counters();
    }

    @Override
    public void close() {
        inner.close();
    }
}
