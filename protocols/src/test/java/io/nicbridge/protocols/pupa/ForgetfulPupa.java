package io.nicbridge.protocols.pupa;

import io.nicbridge.protocols.core.BufferAudit;
import io.nicbridge.protocols.core.ForwardingMessageCore;
import java.lang.foreign.MemorySegment;

/**
 * Negative control, test-only: Pupa with its timers forgotten (no retransmission timeout, no ACK timer, no packing
 * timer), so a lost frame stays lost unless a later NACK happens to repair it. The simulation tester must catch it.
 */
public final class ForgetfulPupa extends ForwardingMessageCore<PupaCore> implements BufferAudit {
    public ForgetfulPupa(PupaCore inner) {
        super(inner);
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
    public int offer(int peer, MemorySegment src, long offset, int length) {
        return inner.send(peer, src, offset, length, 0, true);
    }

    @Override
    public String leaks() {
        return inner.leaks();
    }
}
