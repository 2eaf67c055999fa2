package io.nicbridge.protocols.cards;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.ForwardingLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.bridge.time.Clock;

/**
 * Test wrapper: a card's link as the runner sees it, recording when the card first signalled readiness after
 * {@link #watchFrom(long)} (the frame's arrival at the host, where the receiver's host work starts), and - when built
 * {@code uncharged} - keeping the node's CPU from the framing (the link as it was before framings charged anything:
 * the reference the zero table must reproduce exactly).
 */
final class ObservedLink extends ForwardingLink {
    private final Clock clock;
    private final boolean uncharged;
    private long watchFrom = Long.MAX_VALUE;
    private long firstSignal = -1;
    private HostCpu cpu;
    private long firstDoorbell = -1;

    ObservedLink(Link inner, Clock clock, boolean uncharged) {
        super(inner);
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
    public void commit(int txHandle, int length) {
        inner.commit(txHandle, length);
        if (firstDoorbell < 0) {
            firstDoorbell = uncharged ? clock.nanoTime() : cpu.now();
        }
    }

    @Override
    public int poll(LinkHandler handler, int limit) {
        // the core sees the inner link (its handles), so pass the handler through unchanged
        return inner.poll(handler, limit);
    }
}
