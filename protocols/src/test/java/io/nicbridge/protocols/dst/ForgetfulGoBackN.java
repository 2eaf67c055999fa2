package io.nicbridge.protocols.dst;

import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.core.Guarantee;
import io.nicbridge.protocols.core.MessageCore;
import io.nicbridge.protocols.core.MessageHandler;
import io.nicbridge.protocols.gbn.GoBackNCore;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * Negative control, test-only: the go-back-N core with its retransmission timer forgotten (it never asks for a
 * deadline and ignores timeouts), so a lost frame stays lost. The simulation tester must catch it.
 */
public final class ForgetfulGoBackN implements MessageCore {
    private final GoBackNCore inner;

    public ForgetfulGoBackN(GoBackNCore inner) {
        this.inner = inner;
    }

    @Override
    public void onTimer() {
        // forgot to retransmit
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
