package io.nicbridge.protocols.dst;

import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.core.Guarantee;
import io.nicbridge.protocols.traditional.TraditionalCore;
import io.nicbridge.protocols.traditional.TraditionalWire;
import io.nicbridge.protocols.cstar.ForwardingCStarNetwork;
import java.lang.foreign.ValueLayout;
import java.util.Set;

/**
 * Negative control for the C* simulation tests: the traditional core with its retransmission requests thrown away
 * on arrival (a sender deaf to NAKs). Over a clean medium it works; one lost fragment is never sent again, which the
 * progress check must catch, and the shrinker must bring down to that one drop.
 *
 * <p>As a stand-in for the careful protocol ({@link #carefulLike}) it declares
 * {@link Guarantee#REPORTS_BROKEN_ASSUMPTIONS} instead of the traditional guarantees, and either reports what it
 * notices missing (its NAKs) as violations or stays silent: the harness must pass the first and catch the second.
 */
final class DeafTraditional extends ForwardingCStarNetwork<TraditionalCore> {
    private static final Set<Guarantee> CAREFUL_LIKE =
            java.util.EnumSet.of(Guarantee.REPORTS_BROKEN_ASSUMPTIONS, Guarantee.BOUNDED_MEMORY);

    private final boolean carefulLike;
    private final boolean reports;

    DeafTraditional(TraditionalCore inner) {
        this(inner, false, false);
    }

    /**
     * @param carefulLike declare {@link Guarantee#REPORTS_BROKEN_ASSUMPTIONS} (and bounded memory) only
     * @param reports     count every retransmission request it makes (a hole, a timeout) as a reported violation
     */
    DeafTraditional(TraditionalCore inner, boolean carefulLike, boolean reports) {
        super(inner);
        this.carefulLike = carefulLike;
        this.reports = reports;
    }

    @Override
    public void onFrame(Link link, int rxHandle) {
        if (link.rxLength(rxHandle) > 1 && link.rxBuffer(rxHandle).get(ValueLayout.JAVA_BYTE, 1) == TraditionalWire.NAK) {
            link.release(rxHandle);
            return;
        }
        inner.onFrame(link, rxHandle);
    }

    @Override
    public Set<Guarantee> guarantees() {
        return carefulLike ? CAREFUL_LIKE : inner.guarantees();
    }

    @Override
    public long violations() {
        return inner.violations()
                + (reports ? inner.counters().naksSent() + inner.counters().timeoutNaks() : 0);
    }
}
