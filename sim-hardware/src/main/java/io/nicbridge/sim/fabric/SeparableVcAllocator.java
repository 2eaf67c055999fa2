package io.nicbridge.sim.fabric;

/**
 * Separable input-first VC allocation for one router at a time (BookSim's {@code separable_input_first} VC
 * allocator). The input stage is the router's: each input VC holding a routed head asks for one output VC, the
 * first free one in its route's order of preference (a fixed-priority input arbiter, so minimal, dateline and
 * adaptive preferences are kept). The output stage is here: every output VC grants one of the input VCs that asked
 * for it with a round-robin arbiter over the router's input VCs, whose pointer moves past the winner.
 *
 * <p>Requesters are router-local input VC numbers {@code (inPort << vcShift) | vc}; output VCs are the fabric's
 * global output VC indices. Per round: {@link #begin}, {@link #request} per input VC, then {@link #grant} for each of the
 * {@link #requests}. No allocation.
 */
final class SeparableVcAllocator {
    private final RoundRobinArbiters outputVcArbiters;
    private final int[] requester;
    private final int[] outputVc;
    private int count;

    /**
     * @param outputVcs     number of output VCs that can be requested (global indices below this)
     * @param localInputVcs input VCs per router ({@code ports << vcShift}), the requesters of one round
     */
    SeparableVcAllocator(int outputVcs, int localInputVcs) {
        outputVcArbiters = new RoundRobinArbiters(outputVcs, localInputVcs);
        requester = new int[localInputVcs];
        outputVc = new int[localInputVcs];
    }

    void begin() {
        count = 0;
        outputVcArbiters.beginRound();
    }

    /**
     * Input VC {@code localIvc} asks for output VC {@code ovc} (at most one request per input VC per round); the
     * output VC's arbiter weighs it against the requests before it at once.
     */
    void request(int localIvc, int ovc) {
        requester[count] = localIvc;
        outputVc[count] = ovc;
        count++;
        outputVcArbiters.request(ovc, localIvc);
    }

    /**
     * Output stage for request {@code i}: true if its output VC's arbiter grants it (one grant per requested output
     * VC); the grant is used, so the arbiter's pointer moves past it.
     */
    boolean grant(int i) {
        int o = outputVc[i];
        int req = requester[i];
        if (outputVcArbiters.winner(o) != req) {
            return false;
        }
        outputVcArbiters.granted(o, req);
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
