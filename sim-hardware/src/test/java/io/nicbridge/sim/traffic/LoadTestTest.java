package io.nicbridge.sim.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LoadTestTest {
    private static final MeasurementSettings FAST = new MeasurementSettings(500, 0.05, 10, 3, 10, 300.0, 5_000, true);

    private static LoadResult point(double load, int ejectCyclesPerFlit, int dropAbove, MeasurementSettings s) {
        IdealFabric f = new IdealFabric(16, 5, ejectCyclesPerFlit, 4, dropAbove);
        return new LoadTest(f, Patterns.uniform(16), new BernoulliInjection(load / 4), 4, FabricPorts.REQUEST, 42, s)
                .run();
    }

    @Test
    void belowSaturationAcceptedEqualsOfferedAndLatencyIsTheZeroLoadLatency() {
        LoadResult r = point(0.1, 1, -1, FAST);
        assertTrue(r.stable(), r.verdict());
        assertEquals(0.1, r.offeredLoad(), 1e-12);
        assertEquals(r.offeredMeasured(), r.acceptedAverage(), 0.01);
        assertEquals(0.1, r.acceptedAverage(), 0.01);
        assertTrue(r.acceptedMinimum() <= r.acceptedAverage());
        // 4 flits serialised + 5 cycles of flight + a little queueing.
        assertTrue(r.packetLatency() >= 9 && r.packetLatency() < 14, "latency " + r.packetLatency());
        assertTrue(r.packetLatency() >= r.networkLatency());
        assertEquals(1.0, r.hops(), 0);
        assertTrue(r.measuredPackets() > 500);
    }

    @Test
    void pastSaturationTheRunIsUnstableAndAcceptedStaysAtCapacity() {
        LoadResult r = point(0.8, 2, -1, FAST.withStopWhenUnstable(false));
        assertFalse(r.stable());
        assertTrue(r.acceptedAverage() < 0.52 && r.acceptedAverage() > 0.4, "accepted " + r.acceptedAverage());
    }

    @Test
    void sameSeedSameResult() {
        LoadResult a = point(0.3, 1, -1, FAST);
        LoadResult b = point(0.3, 1, -1, FAST);
        assertEquals(a.packetLatency(), b.packetLatency(), 0);
        assertEquals(a.measuredPackets(), b.measuredPackets());
        assertEquals(a.acceptedMinimum(), b.acceptedMinimum(), 0);
    }

    @Test
    void sweepFindsTheSaturationOfTheEjectionBottleneck() {
        LoadSweep.Saturation s = LoadSweep.saturation(load -> point(load, 2, -1, FAST), 0.1, 0.0125, 1.0,
                LoadSweep.Progress.NONE);
        assertTrue(s.saturationLoad() >= 0.4 && s.saturationLoad() <= 0.55, "saturation " + s.saturationLoad());
        assertTrue(s.saturationResult().stable());
        // The search halved its step after the first unstable point.
        assertTrue(s.points().stream().anyMatch(p -> !p.stable()));
    }

    @Test
    void dropRateGrowsWithLoadInDropMode() {
        MeasurementSettings s = FAST.withStopWhenUnstable(false);
        LoadResult low = point(0.1, 2, 1, s);
        LoadResult high = point(0.9, 2, 1, s);
        assertTrue(high.dropRate() > low.dropRate(), low.dropRate() + " vs " + high.dropRate());
        assertTrue(high.dropRate() > 0.2, "drop rate at 0.9: " + high.dropRate());
    }

    @Test
    void gridIncludesBothEnds() {
        double[] g = LoadSweep.grid(0.1, 0.5, 0.1);
        assertEquals(5, g.length);
        assertEquals(0.5, g[4], 1e-12);
    }
}
