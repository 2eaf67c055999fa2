package io.nicbridge.sim.fabric;

/**
 * A bank of round-robin arbiters of the same width, as struct-of-arrays (one pointer per arbiter). Each arbiter
 * grants the requester at or after its pointer in cyclic order; {@link #granted} moves the pointer one past the
 * winner, so a requester that keeps asking is served within {@code width} grants of that arbiter (the iSLIP update:
 * only an accepted grant moves the pointer, so a grant the other stage of a separable allocator throws away leaves
 * the priority where it was).
 *
 * <p>The bank holds the priorities only. Who asked in a round is the allocator's: since the winner is the requester
 * nearest the pointer whatever the order the requests arrive in, an allocator keeps a running leader per arbiter
 * and asks {@link #prefers} when a second requester arrives. No allocation.
 */
final class RoundRobinArbiters {
    private final int width;
    private final int[] pointer;

    RoundRobinArbiters(int count, int width) {
        if (count < 0 || width < 1) {
            throw new IllegalArgumentException("arbiters need count >= 0 and width >= 1, got " + count + " x " + width);
        }
        this.width = width;
        this.pointer = new int[count];
    }

    int width() {
        return width;
    }

    /** True if arbiter {@code arb} would grant requester {@code a} rather than {@code b} (both in [0, width)). */
    boolean prefers(int arb, int a, int b) {
        int ptr = pointer[arb];
        int da = a - ptr;
        int db = b - ptr;
        return (da < 0 ? da + width : da) < (db < 0 ? db + width : db);
    }

    /** The grant to {@code requester} was used: it gets the lowest priority next time. */
    void granted(int arb, int requester) {
        pointer[arb] = CyclicIndex.next(requester, width);
    }

    /** The requester arbiter {@code arb} currently favours (a caller may scan requesters from here instead). */
    int pointer(int arb) {
        return pointer[arb];
    }
}
