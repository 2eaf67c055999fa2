package io.nicbridge.protocols.pupa;

import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.core.BufferAudit;
import io.nicbridge.protocols.core.Guarantee;
import io.nicbridge.protocols.core.MessageCore;
import io.nicbridge.protocols.core.MessageHandler;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * Negative control, test-only: Pupa with its timers forgotten (no retransmission timeout, no ACK timer, no packing
 * timer), so a lost frame stays lost unless a later NACK happens to repair it. The simulation tester must catch it.
 */
public final class ForgetfulPupa implements MessageCore, BufferAudit {
    private final PupaCore inner;

    public ForgetfulPupa(PupaCore inner) {
        this.inner = inner;
    }

    @Override
    public void onTimer() {
        // forgot
    }

    @Override
    public long nextDeadline() {
        return NO_DEADLINE;
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
        return inner.send(peer, src, offset, length, 0, true);
    }

    @Override
    public int deliver(MessageHandler handler, int limit) {
        return inner.deliver(handler, limit);
    }

    @Override
    public int maxMessage() {
        return inner.maxMessage();
    }

    @Override
    public String leaks() {
        return inner.leaks();
    }
}
