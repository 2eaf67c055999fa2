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
 * arbiter prefers it. Each request goes to its output's arbiter as it is made, so {@link #allocate} only reads the
 * winners (unless an offer replaced a choice, which re-arbitrates the round). Per round: {@link #begin}, requests,
 * offers, {@link #allocate}, then {@link #grant} for each of the {@link #requests}. No allocation.
 */
final class SeparableSwitchAllocator {
    private final int vcs;
    private final RoundRobinArbiters inputArbiters;
    private final RoundRobinArbiters outputArbiters;
    private final int[] inPort;
    private final int[] input;
    private final int[] vc;
    private final int[] output;
    private int count;
    /** An offer replaced a port's choice after its request reached the output arbiters: arbitrate afresh. */
    private boolean replaced;

    /**
     * @param inputs  router input ports of the whole fabric (global input index {@code gi} below this)
     * @param outputs router output ports of the whole fabric (global output index {@code go} below this)
     * @param ports   ports per router (the output arbiters' requesters are router-local input ports)
     * @param vcs     VCs per port (the input arbiters' requesters)
     */
    SeparableSwitchAllocator(int inputs, int outputs, int ports, int vcs) {
        this.vcs = vcs;
        inputArbiters = new RoundRobinArbiters(inputs, vcs);
        outputArbiters = new RoundRobinArbiters(outputs, ports);
        inPort = new int[ports];
        input = new int[ports];
        vc = new int[ports];
        output = new int[ports];
    }

    void begin() {
        count = 0;
        replaced = false;
        outputArbiters.beginRound();
    }

    /** The VC input {@code gi}'s arbiter favours: scan the port's VCs cyclically from here. */
    int firstVc(int gi) {
        return inputArbiters.pointer(gi);
    }

    /**
     * Input stage, during the port scan: VC {@code v} of input port {@code p} (global {@code gi}), the first ready VC
     * of the port from its arbiter's pointer, asks for output {@code go} (at most once per port per round).
     */
    void request(int p, int gi, int v, int go) {
        int s = count++;
        inPort[s] = p;
        input[s] = gi;
        vc[s] = v;
        output[s] = go;
        outputArbiters.request(go, p); // the output stage weighs it against the requests before it at once
    }

    /**
     * Input stage, after the scan: VC {@code v} of input port {@code p} (global {@code gi}), which has just won an
     * output VC, can cross to output {@code go}. Kept if the port has no choice yet or its arbiter prefers
     * {@code v} to the current one. (A linear search: a round has at most one request per port of one router.)
     */
    void offer(int p, int gi, int v, int go) {
        int s = 0;
        while (s < count && inPort[s] != p) {
            s++;
        }
        if (s == count) {
            request(p, gi, v, go);
            return;
        }
        int ptr = inputArbiters.pointer(gi);
        int dNew = v - ptr < 0 ? v - ptr + vcs : v - ptr;
        int old = vc[s];
        int dOld = old - ptr < 0 ? old - ptr + vcs : old - ptr;
        if (dNew < dOld) {
            vc[s] = v;
            output[s] = go;
            replaced = true; // rare: its old output's arbiter still counts the old request
        }
    }

    /** Closes the round's requests: re-arbitrates if an offer replaced a choice after its request was weighed. */
    void allocate() {
        if (replaced) {
            RoundRobinArbiters out = outputArbiters;
            out.beginRound();
            for (int i = 0; i < count; i++) {
                out.request(output[i], inPort[i]);
            }
            replaced = false;
        }
    }

    /**
     * Output stage for request {@code i} (after {@link #allocate}): true if its output's arbiter grants it; the
     * grant is used, so both stages' pointers move past it.
     */
    boolean grant(int i) {
        int go = output[i];
        int p = inPort[i];
        if (outputArbiters.winner(go) != p) {
            return false;
        }
        outputArbiters.granted(go, p);
        inputArbiters.granted(input[i], vc[i]);
        return true;
    }

    /** Output-stage requests of this round (one per input port that had a ready VC). */
    int requests() {
        return count;
    }

    int input(int i) {
        return input[i];
    }

    int vc(int i) {
        return vc[i];
    }
}
