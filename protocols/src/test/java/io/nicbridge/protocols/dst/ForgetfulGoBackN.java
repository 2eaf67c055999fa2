package io.nicbridge.protocols.dst;

import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.core.ForwardingMessageCore;

/**
 * Negative control, test-only: the go-back-N core with its retransmission timer forgotten (it never asks for a
 * deadline and ignores timeouts), so a lost frame stays lost. The simulation tester must catch it.
 */
public final class ForgetfulGoBackN extends ForwardingMessageCore<GoBackNCore> {
    public ForgetfulGoBackN(GoBackNCore inner) {
        super(inner);
    }

    @Override
    public void onTimer() {
        // forgot to retransmit
    }

    @Override
    public long nextDeadline() {
        return NO_DEADLINE;
    }

}
