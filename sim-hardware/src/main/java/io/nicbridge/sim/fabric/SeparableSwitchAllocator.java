package io.nicbridge.sim.fabric;

/**
 * Separable input-first switch allocation for one router at a time (BookSim's {@code separable_input_first}
 * switch allocator with round-robin arbiters). Input stage: each input port's round-robin arbiter picks one of its
 * VCs that hold an output VC and have a flit ready, a credit and a free output port. Output stage: each output
 * port's round-robin arbiter grants one of the input ports that picked it. Both pointers move past the winner only
 * when the grant is used (iSLIP), so an input VC that keeps asking reaches the switch within {@code vcs * ports}
 * of its output's grants.
 *
 * <p>The router scans each input port's VCs in its arbiter's priority order ({@link #firstVc}), so the first ready
 * VC of a port is the input arbiter's choice and the scan {@link #request}s it directly; a VC that becomes ready
 * later in the same round (it just won VC allocation) is {@link #offer}ed and replaces its port's choice if the
 * arbiter prefers it. Per round: {@link #begin}, requests, offers, then {@link #grant} for each of the
 * {@link #requests} in request order. No allocation.
 *
 * <h2>Why the output stage is a running leader per output</h2>
 * A round-robin arbiter grants the requester nearest its pointer in cyclic order. Which requester that is does not
 * depend on the order the requests arrive in, so each output keeps the round's nearest requester so far (its
 * leader) and a new request only compares itself with that leader ({@link RoundRobinArbiters#prefers}): the usual
 * case, one requester per output, costs a bit test and one store and never reads the pointer. The round's state is
 * router-local (indexed by local port, a few cache lines); which entries are valid this round is one bit per input
 * port and one per output port (a router has at most 64), so {@link #begin} clears two words, not the entries. A replaced choice (rare) re-elects its old output's leader from the remaining requests, which gives
 * the grants a fresh arbitration of the final requests would give ({@code SeparableAllocatorsTest} checks both
 * allocators against such a reference). The arbiters' pointers are the fabric's persistent state: one per input
 * port (over its VCs) and one per output port (over the router's input ports).
 */
final class SeparableSwitchAllocator {
    /** Per global input port {@code gi}, over its VCs. */
    private final RoundRobinArbiters inputArbiters;
    /** Per global output port {@code go}, over the router-local input ports. */
    private final RoundRobinArbiters outputArbiters;

    // ---- this round, router-local
    /** Input ports that requested, in request order (the order {@link #grant} is asked in). */
    private final int[] order;
    /** Per local input port with its bit set in {@link #choosing}: its chosen VC. */
    private final int[] chosenVc;
    /** Per local input port with a choice: the local output port it asks for. */
    private final int[] chosenOut;
    /** Per local output port with its bit set in {@link #contested}: the requesting input port nearest its arbiter's
     * pointer so far. */
    private final int[] leader;
    /** Bit p: local input port p has a choice this round ({@link #chosenVc}, {@link #chosenOut} are valid). */
    private long choosing;
    /** Bit o: local output port o has a request this round ({@link #leader} is valid). */
    private long contested;
    private int count;
    /** Global index of the round's router's port 0 (input and output indices share it). */
    private int base;

    /**
     * @param inputs  router input ports of the whole fabric (global input index {@code gi} below this)
     * @param outputs router output ports of the whole fabric (global output index {@code go} below this)
     * @param ports   ports per router (the output arbiters' requesters are router-local input ports)
     * @param vcs     VCs per port (the input arbiters' requesters)
     */
    SeparableSwitchAllocator(int inputs, int outputs, int ports, int vcs) {
        if (ports < 1 || vcs < 1) {
            throw new IllegalArgumentException("switch allocation needs ports >= 1 and vcs >= 1, got " + ports
                + " x " + vcs);
        }
        inputArbiters = new RoundRobinArbiters(inputs, vcs);
        outputArbiters = new RoundRobinArbiters(outputs, ports);
        if (ports > Long.SIZE) {
            throw new IllegalArgumentException("switch allocation keeps a router's ports in one word: at most 64, got "
                + ports);
        }
        order = new int[ports];
        chosenVc = new int[ports];
        chosenOut = new int[ports];
        leader = new int[ports];
    }

    /**
     * Starts the round of the router whose ports have global indices {@code base .. base + ports - 1}, clearing what
     * the previous round set.
     */
    void begin(int base) {
        choosing = 0;
        contested = 0;
        count = 0;
        this.base = base;
    }

    /** The VC input {@code gi}'s arbiter favours: scan the port's VCs cyclically from here. */
    int firstVc(int gi) {
        return inputArbiters.pointer(gi);
    }

    /**
     * Input stage, during the port scan: VC {@code v} of input port {@code p}, the first ready VC of the port from
     * its arbiter's pointer, asks for output {@code go} (global; at most once per port per round).
     */
    void request(int p, int v, int go) {
        order[count++] = p;
        choosing |= 1L << p;
        chosenVc[p] = v;
        int out = go - base;
        chosenOut[p] = out;
        contend(out, p);
    }

    /**
     * Input stage, after the scan: VC {@code v} of input port {@code p}, which has just won an output VC, can cross
     * to output {@code go}. Kept if the port has no choice yet or its arbiter prefers {@code v} to the current one.
     */
    void offer(int p, int v, int go) {
        if ((choosing & 1L << p) == 0) {
            request(p, v, go);
            return;
        }
        if (inputArbiters.prefers(base + p, v, chosenVc[p])) {
            int oldOut = chosenOut[p];
            int out = go - base;
            chosenVc[p] = v;
            chosenOut[p] = out;
            if (leader[oldOut] == p) {
                reelect(oldOut);
            }
            contend(out, p);
        }
    }

    /** Output stage: input port {@code p}'s request joins output {@code out}'s round. */
    private void contend(int out, int p) {
        long bit = 1L << out;
        if ((contested & bit) == 0) {
            contested |= bit;
            leader[out] = p; // the first request leads; the pointer matters only once a second one arrives
        } else if (outputArbiters.prefers(base + out, p, leader[out])) {
            leader[out] = p;
        }
    }

    /** Output {@code out} lost its leader to a replaced choice: its leader among the requests that remain. */
    private void reelect(int out) {
        contested &= ~(1L << out);
        for (int i = 0; i < count; i++) {
            int p = order[i];
            if (chosenOut[p] == out) {
                contend(out, p);
            }
        }
    }

    /**
     * Output stage for request {@code i}: true if its output's arbiter grants it; the grant is used, so both stages'
     * pointers move past it.
     */
    boolean grant(int i) {
        int p = order[i];
        int out = chosenOut[p];
        if (leader[out] != p) {
            return false;
        }
        outputArbiters.granted(base + out, p);
        inputArbiters.granted(base + p, chosenVc[p]);
        return true;
    }

    /** Output-stage requests of this round (one per input port that had a ready VC). */
    int requests() {
        return count;
    }

    /** The global input port of request {@code i}. */
    int input(int i) {
        return base + order[i];
    }

    /** The VC of request {@code i}. */
    int vc(int i) {
        return chosenVc[order[i]];
    }
}
