package io.nicbridge.sim.traffic;

/**
 * The knobs of the BookSim measurement method ({@link LoadTest}).
 *
 * @param samplePeriod cycles per sample period (BookSim: 1000)
 * @param warmupThreshold relative period-to-period change of average latency and accepted rate
 *                        below which a period counts as converged (BookSim: 0.05)
 * @param maxWarmupPeriods warm-up periods allowed before the run is declared unstable
 * @param convergedPeriods consecutive converged periods that end the measurement (BookSim: 3)
 * @param maxMeasurePeriods measurement periods allowed before the run is declared unstable
 * @param latencyThreshold average packet latency (cycles) above which the run is unstable (BookSim: 500)
 * @param maxDrainCycles cycles the drain phase may take before the run is declared unstable
 * @param stopWhenUnstable end the run as soon as it is known to be unstable (saturation searches);
 *                         {@code false} measures accepted throughput past saturation as well
 */
public record MeasurementSettings(int samplePeriod, double warmupThreshold, int maxWarmupPeriods,
                                  int convergedPeriods, int maxMeasurePeriods, double latencyThreshold,
                                  int maxDrainCycles, boolean stopWhenUnstable) {

    public MeasurementSettings {
        if (samplePeriod < 1 || maxWarmupPeriods < 1 || convergedPeriods < 1 || maxMeasurePeriods < convergedPeriods
                || maxDrainCycles < 0) {
            throw new IllegalArgumentException("measurement needs sample_period >= 1, warmup periods >= 1, "
                    + "converged periods >= 1 <= max measure periods, drain >= 0; got " + samplePeriod + ", "
                    + maxWarmupPeriods + ", " + convergedPeriods + ", " + maxMeasurePeriods + ", " + maxDrainCycles);
        }
        if (!(warmupThreshold > 0.0) || !(latencyThreshold > 0.0)) {
            throw new IllegalArgumentException("warmup_threshold and latency_threshold must be > 0, got "
                    + warmupThreshold + " and " + latencyThreshold);
        }
    }

    /** @return BookSim's defaults: 1000-cycle periods, 5 %, up to 10 warm-up periods, 3 converged, 500 cycles */
    public static MeasurementSettings defaults() {
        return new MeasurementSettings(1000, 0.05, 10, 3, 10, 500.0, 20_000, true);
    }

    public MeasurementSettings withStopWhenUnstable(boolean stop) {
        return new MeasurementSettings(samplePeriod, warmupThreshold, maxWarmupPeriods, convergedPeriods,
                maxMeasurePeriods, latencyThreshold, maxDrainCycles, stop);
    }
}
