package io.nicbridge.sim.traffic;

import java.util.SplittableRandom;

/**
 * Bursty injection: a two-state Markov chain per node (BookSim's on/off process). An OFF node
 * turns ON with probability {@code alpha} per cycle, an ON node turns OFF with probability
 * {@code beta}; while ON it creates a packet with probability {@code r1}, chosen so that the
 * long-run rate is the requested one:
 * <pre>
 *   P(on) = alpha / (alpha + beta)      rate = P(on) * r1   =>   r1 = rate * (alpha + beta) / alpha
 * </pre>
 * The mean burst (ON period) lasts {@code 1 / beta} cycles. Every node starts OFF.
 */
public final class OnOffInjection implements InjectionProcess {
    private final double rate;
    private final double alpha;
    private final double beta;
    private final double onRate;
    private final boolean[] on;

    /**
     * @param nodes number of nodes
     * @param packetRate long-run packets per node per cycle
     * @param alpha OFF to ON probability per cycle, in (0, 1]
     * @param beta ON to OFF probability per cycle, in [0, 1]
     */
    public OnOffInjection(int nodes, double packetRate, double alpha, double beta) {
        if (!(alpha > 0.0 && alpha <= 1.0) || !(beta >= 0.0 && beta <= 1.0)) {
            throw new IllegalArgumentException("burst_alpha must be in (0, 1] and burst_beta in [0, 1], got alpha="
                    + alpha + " beta=" + beta);
        }
        if (!(packetRate >= 0.0)) {
            throw new IllegalArgumentException("packet rate must be >= 0, got " + packetRate);
        }
        double r1 = packetRate * (alpha + beta) / alpha;
        if (r1 > 1.0 + 1e-12) {
            throw new IllegalArgumentException("on/off injection cannot reach packet rate " + packetRate
                    + " with burst_alpha=" + alpha + " burst_beta=" + beta + ": the ON-state rate would be " + r1
                    + " > 1 (raise alpha or lower beta)");
        }
        this.rate = packetRate;
        this.alpha = alpha;
        this.beta = beta;
        this.onRate = Math.min(1.0, r1);
        this.on = new boolean[nodes];
    }

    @Override
    public boolean inject(int node, SplittableRandom random) {
        // State transition first, then the draw in the new state (BookSim's order).
        if (on[node]) {
            if (random.nextDouble() < beta) {
                on[node] = false;
            }
        } else if (random.nextDouble() < alpha) {
            on[node] = true;
        }
        return on[node] && random.nextDouble() < onRate;
    }

    @Override
    public double packetRate() {
        return rate;
    }

    /** @return the packet probability per cycle while a node is ON */
    public double onStateRate() {
        return onRate;
    }
}
