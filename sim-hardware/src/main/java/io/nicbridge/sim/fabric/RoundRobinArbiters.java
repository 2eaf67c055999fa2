package io.nicbridge.sim.fabric;

import java.util.Arrays;

/**
 * A bank of round-robin arbiters of the same width, as struct-of-arrays (one pointer per arbiter). Each arbiter
 * grants the requester at or after its pointer in cyclic order; {@link #granted} moves the pointer one past the
 * winner, so a requester that keeps asking is served within {@code width} grants of that arbiter (the iSLIP update:
 * only an accepted grant moves the pointer, so a grant the other stage of a separable allocator throws away leaves
 * the priority where it was).
 *
 * <p>Usage per allocation round: {@link #request} for every requester of an arbiter, {@link #winner}, then
 * {@link #clear}, and {@link #granted} if the grant was accepted. No allocation.
 */
final class RoundRobinArbiters {
    private final int width;
    private final int[] pointer;
    private final int[] best;
    private final int[] bestDistance;

    RoundRobinArbiters(int count, int width) {
        if (count < 0 || width < 1) {
            throw new IllegalArgumentException("arbiters need count >= 0 and width >= 1, got " + count + " x " + width);
        }
        this.width = width;
        this.pointer = new int[count];
        this.best = new int[count];
        this.bestDistance = new int[count];
        Arrays.fill(best, -1);
    }

    int width() {
        return width;
    }

    /**
     * Adds {@code requester} (in [0, width)) to arbiter {@code arb}'s current round; true if it is the round's
     * first request (so callers can list the arbiters they must resolve and clear).
     */
    boolean request(int arb, int requester) {
        assert requester >= 0 && requester < width : requester;
        int d = requester - pointer[arb];
        if (d < 0) {
            d += width;
        }
        int b = best[arb];
        if (b < 0 || d < bestDistance[arb]) {
            best[arb] = requester;
            bestDistance[arb] = d;
        }
        return b < 0;
    }

    /** The requester arbiter {@code arb} grants this round, or -1 if nobody asked. */
    int winner(int arb) {
        return best[arb];
    }

    /** Ends arbiter {@code arb}'s round (the pointer stays). */
    void clear(int arb) {
        best[arb] = -1;
    }

    /** The grant to {@code requester} was used: it gets the lowest priority next time. */
    void granted(int arb, int requester) {
        pointer[arb] = requester + 1 == width ? 0 : requester + 1;
    }

    /** The requester arbiter {@code arb} currently favours (a caller may scan requesters from here instead). */
    int pointer(int arb) {
        return pointer[arb];
    }

    /**
     * True if two of the first {@code count} entries of {@code arbiter} name the same arbiter, i.e. some arbiter has
     * more than one request this round; otherwise every request is granted without an arbitration round. Pairwise:
     * an allocator round has at most one request per input port or input VC of one router, a handful, and most
     * rounds have no arbiter in common.
     */
    static boolean shareAny(int[] arbiter, int count) {
        if (count > 8) {
            return true; // a big round (many VCs asking at once) is arbitrated rather than compared pairwise
        }
        for (int i = 1; i < count; i++) {
            int o = arbiter[i];
            for (int j = 0; j < i; j++) {
                if (arbiter[j] == o) {
                    return true;
                }
            }
        }
        return false;
    }
}
