package io.nicbridge.protocols.cards;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.bridge.port.PortCounters;
import io.nicbridge.bridge.time.Clock;
import java.lang.foreign.MemorySegment;

/**
 * Test wrapper: a card's link as the runner sees it, recording when the card first signalled readiness after
 * {@link #watchFrom(long)} (the frame's arrival at the host, where the receiver's host work starts), and - when built
 * {@code uncharged} - keeping the node's CPU from the framing (the link as it was before framings charged anything:
 * the reference the zero table must reproduce exactly).
 */
final class ObservedLink implements Link {
    private final Link inner;
    private final Clock clock;
    private final boolean uncharged;
    private long watchFrom = Long.MAX_VALUE;
    private long firstSignal = -1;
    private HostCpu cpu;
    private long firstDoorbell = -1;

    ObservedLink(Link inner, Clock clock, boolean uncharged) {
        this.inner = inner;
        this.clock = clock;
        this.uncharged = uncharged;
    }

    void watchFrom(long time) {
        watchFrom = time;
        firstSignal = -1;
    }

    /** @return the time of the first readiness signal at or after {@link #watchFrom}, or -1 */
    long firstSignal() {
        return firstSignal;
    }

    /** @return when the first commit's doorbell rings: the time node's CPU had reached at that commit, or -1 */
    long firstDoorbell() {
        return firstDoorbell;
    }

    Link inner() {
        return inner;
    }

    @Override
    public void hostCpu(HostCpu cpu) {
        this.cpu = cpu;
        if (!uncharged) {
            inner.hostCpu(cpu);
        }
    }

    @Override
    public void readinessListener(Runnable listener) {
        inner.readinessListener(listener == null ? null : () -> {
            long now = clock.nanoTime();
            if (firstSignal < 0 && now >= watchFrom) {
                firstSignal = now;
            }
            listener.run();
        });
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
        if (firstDoorbell < 0) {
            firstDoorbell = uncharged ? clock.nanoTime() : cpu.now();
        }
    }

    @Override
    public void abort(int txHandle) {
        inner.abort(txHandle);
    }

    @Override
    public int poll(LinkHandler handler, int limit) {
        // the core sees the inner link (its handles), so pass the handler through unchanged
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
