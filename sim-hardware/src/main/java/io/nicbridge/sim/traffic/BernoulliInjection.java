package io.nicbridge.sim.traffic;

import java.util.SplittableRandom;

/** Each node creates a packet each cycle with a fixed probability, independently of the past. */
public final class BernoulliInjection implements InjectionProcess {
    private final double rate;

    /** @param packetRate packets per node per cycle, in [0, 1] */
    public BernoulliInjection(double packetRate) {
        if (!(packetRate >= 0.0 && packetRate <= 1.0)) {
            throw new IllegalArgumentException("Bernoulli packet rate must be in [0, 1], got " + packetRate);
        }
        this.rate = packetRate;
    }

    @Override
    public boolean inject(int node, SplittableRandom random) {
        return random.nextDouble() < rate;
    }

    @Override
    public double packetRate() {
        return rate;
    }
}
