package io.nicbridge.sim.fabric;

import java.util.Arrays;

/**
 * Separable input-first VC allocation for one router at a time (BookSim's {@code separable_input_first} VC
 * allocator). The input stage is the router's: each input VC holding a routed head asks for one output VC, the
 * first free one in its route's order of preference (a fixed-priority input arbiter, so minimal, dateline and
 * adaptive preferences are kept). The output stage is here: every output VC grants one of the input VCs that asked
 * for it with a round-robin arbiter over the router's input VCs, whose pointer moves past the winner.
 *
 * <p>Requesters are router-local input VC numbers {@code (inPort << vcShift) | vc}; output VCs are the fabric's
 * global output VC indices. Per round: {@link #begin}, {@link #request} per input VC, then {@link #grant} for each
 * of the {@link #requests}. No allocation.
 *
 * <p>As in {@link SeparableSwitchAllocator}, each requested output VC keeps the round's requester nearest its
 * arbiter's pointer so far (the grant does not depend on the order requests arrive in), in router-local state that
 * the winner's {@link #grant} clears: a round with one request per output VC, the usual case, never reads a
 * pointer, and a round without requests touches nothing.
 */
final class SeparableVcAllocator {
    private static final int NONE = -1;

    /** Per global output VC, over the router-local input VCs. */
    private final RoundRobinArbiters outputVcArbiters;

    // ---- this round, router-local
    private final int[] requester;
    private final int[] outputVc;
    /** Per router-local output VC: the requester nearest its arbiter's pointer so far, or NONE. */
    private final int[] leader;
    private int count;
    /** Global index of the round's router's output VC 0. */
    private int base;

    /**
     * @param outputVcs     number of output VCs that can be requested (global indices below this)
     * @param localInputVcs input VCs per router ({@code ports << vcShift}), the requesters of one round; also the
     *                      number of a router's output VCs (same port count and VC stride)
     */
    SeparableVcAllocator(int outputVcs, int localInputVcs) {
        if (localInputVcs < 1) {
            throw new IllegalArgumentException("VC allocation needs >= 1 input VC per router, got " + localInputVcs);
        }
        outputVcArbiters = new RoundRobinArbiters(outputVcs, localInputVcs);
        requester = new int[localInputVcs];
        outputVc = new int[localInputVcs];
        leader = new int[localInputVcs];
        Arrays.fill(leader, NONE);
    }

    /**
     * Starts the round of the router whose output VCs have global indices from {@code base} on (the previous
     * round's grants left every entry clear).
     */
    void begin(int base) {
        count = 0;
        this.base = base;
    }

    /**
     * Input VC {@code localIvc} asks for output VC {@code ovc} of this router (at most one request per input VC per
     * round); the output VC's arbiter weighs it against the requests before it at once.
     */
    void request(int localIvc, int ovc) {
        requester[count] = localIvc;
        outputVc[count] = ovc;
        count++;
        int o = ovc - base;
        int l = leader[o];
        if (l == NONE) {
            leader[o] = localIvc;
        } else if (outputVcArbiters.prefers(ovc, localIvc, l)) {
            leader[o] = localIvc;
        }
    }

    /**
     * Output stage for request {@code i}: true if its output VC's arbiter grants it (one grant per requested output
     * VC); the grant is used, so the arbiter's pointer moves past it. The router asks for every request of the round
     * (it must, to learn the winners), so the winner's call is where its output VC's entry is cleared: requests of
     * the same output VC asked later compare with NONE and lose, and the next round starts with every entry clear.
     */
    boolean grant(int i) {
        int o = outputVc[i] - base;
        int req = requester[i];
        if (leader[o] != req) {
            return false;
        }
        leader[o] = NONE;
        outputVcArbiters.granted(outputVc[i], req);
        return true;
    }

    int requests() {
        return count;
    }

    int requester(int i) {
        return requester[i];
    }

    int outputVc(int i) {
        return outputVc[i];
    }
}
