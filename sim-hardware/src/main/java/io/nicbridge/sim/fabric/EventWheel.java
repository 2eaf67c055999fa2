package io.nicbridge.sim.fabric;

import java.util.Arrays;

/**
 * Flits and credits on links: a timing wheel of primitive arrays, one bucket per cycle modulo the wheel size.
 * Events are at most {@code horizon} cycles ahead, so a wheel of more than {@code horizon} buckets never wraps
 * onto a live bucket. A bucket's arrays double when full and are reused afterwards: no allocation in steady
 * state.
 *
 * <p>A flit event carries the downstream input VC, the packet handle and the flit's sequence number, interleaved
 * in one array per bucket ({@code flit[b][3 * i + FLIT_VC | FLIT_PKT | FLIT_SEQ]}: one bounds check and one cache
 * line per event); a credit event carries the upstream output VC it returns to.
 */
final class EventWheel {
    static final int FLIT_VC = 0;
    static final int FLIT_PKT = 1;
    static final int FLIT_SEQ = 2;
    static final int FLIT_INTS = 3;

    final int mask;
    final int[][] flit;
    /** Flit events per bucket (the bucket's array holds {@code FLIT_INTS} ints per event). */
    final int[] flitN;
    final int[][] credit;
    final int[] creditN;
    private long flitsPending;
    private long creditsPending;

    EventWheel(int horizon) {
        int buckets = Integer.highestOneBit(horizon + 1) << 1;
        mask = buckets - 1;
        flit = new int[buckets][64 * FLIT_INTS];
        flitN = new int[buckets];
        credit = new int[buckets][64];
        creditN = new int[buckets];
    }

    void scheduleFlit(long at, int ivc, int pkt, int seq) {
        int b = (int) (at & mask);
        int n = flitN[b];
        int[] f = flit[b];
        int at3 = n * FLIT_INTS;
        if (at3 + FLIT_INTS > f.length) {
            f = Arrays.copyOf(f, f.length * 2);
            flit[b] = f;
        }
        f[at3 + FLIT_VC] = ivc;
        f[at3 + FLIT_PKT] = pkt;
        f[at3 + FLIT_SEQ] = seq;
        flitN[b] = n + 1;
        flitsPending++;
    }

    void scheduleCredit(long at, int ovc) {
        int b = (int) (at & mask);
        int n = creditN[b];
        if (n == credit[b].length) {
            credit[b] = Arrays.copyOf(credit[b], n * 2);
        }
        credit[b][n] = ovc;
        creditN[b] = n + 1;
        creditsPending++;
    }

    /** Empties bucket {@code b}'s flit events after the caller has delivered them. */
    void clearFlits(int b) {
        flitsPending -= flitN[b];
        flitN[b] = 0;
    }

    /** Empties bucket {@code b}'s credit events after the caller has delivered them. */
    void clearCredits(int b) {
        creditsPending -= creditN[b];
        creditN[b] = 0;
    }

    long flitsPending() {
        return flitsPending;
    }

    long creditsPending() {
        return creditsPending;
    }
}
