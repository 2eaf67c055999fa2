package io.nicbridge.sim.fabric;

import java.util.Arrays;

/**
 * A bank of round-robin arbiters of the same width, as struct-of-arrays (one pointer per arbiter). Each arbiter
 * grants the requester at or after its pointer in cyclic order; {@link #granted} moves the pointer one past the
 * winner, so a requester that keeps asking is served within {@code width} grants of that arbiter (the iSLIP update:
 * only an accepted grant moves the pointer, so a grant the other stage of a separable allocator throws away leaves
 * the priority where it was).
 *
 * <p>Usage per allocation round: {@link #beginRound}, {@link #request} for every requester of an arbiter (each
 * request is compared with the arbiter's best so far as it arrives, so there is no separate arbitration pass),
 * {@link #winner}, and {@link #granted} if the grant was accepted. An arbiter belongs to the current round once
 * asked, recognised by a round stamp, so a round costs nothing for the arbiters nobody asked. No allocation.
 */
final class RoundRobinArbiters {
    private final int width;
    private final int[] pointer;
    private final int[] best;
    /** The round in which each arbiter was last asked; {@link #best} is this round's winner only if it matches. */
    private final int[] askedIn;
    private int round = 1;

    RoundRobinArbiters(int count, int width) {
        if (count < 0 || width < 1) {
            throw new IllegalArgumentException("arbiters need count >= 0 and width >= 1, got " + count + " x " + width);
        }
        this.width = width;
        this.pointer = new int[count];
        this.best = new int[count];
        this.askedIn = new int[count];
    }

    int width() {
        return width;
    }

    /** Starts a new allocation round: every arbiter is unasked (pointers stay). */
    void beginRound() {
        if (++round == Integer.MAX_VALUE) {
            Arrays.fill(askedIn, 0); // stamps restart; no stale stamp may equal a future round
            round = 1;
        }
    }

    /**
     * Adds {@code requester} (in [0, width)) to arbiter {@code arb}'s current round; true if it is the round's
     * first request (it leads until a requester nearer the pointer asks).
     */
    boolean request(int arb, int requester) {
        assert requester >= 0 && requester < width : requester;
        if (askedIn[arb] != round) {
            askedIn[arb] = round;
            best[arb] = requester;
            return true;
        }
        int ptr = pointer[arb];
        int b = best[arb];
        int d = requester - ptr;
        int db = b - ptr;
        if ((d < 0 ? d + width : d) < (db < 0 ? db + width : db)) {
            best[arb] = requester;
        }
        return false;
    }

    /** The requester arbiter {@code arb} grants this round, or -1 if nobody asked. */
    int winner(int arb) {
        return askedIn[arb] == round ? best[arb] : -1;
    }

    /** The grant to {@code requester} was used: it gets the lowest priority next time. */
    void granted(int arb, int requester) {
        pointer[arb] = requester + 1 == width ? 0 : requester + 1;
    }

    /** The requester arbiter {@code arb} currently favours (a caller may scan requesters from here instead). */
    int pointer(int arb) {
        return pointer[arb];
    }
}
