package io.nicbridge.sim.traffic;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** The measurement loop allocates nothing per cycle: a long run costs no more than a short one. */
class SteadyStateTrafficAllocationTest {
    private static long allocatedDuring(int samplePeriod) {
        com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        SimConfig c = SimConfig.parse("topology = mesh; k = 4; n = 2;", "t");
        NetworkFabricPorts ports = new NetworkFabricPorts(FabricSetup.network(c));
        MeasurementSettings s = new MeasurementSettings(samplePeriod, 0.05, 10, 3, 3, 500, 20_000, true);
        LoadTest test = new LoadTest(ports, Patterns.uniform(16), new BernoulliInjection(0.05), 4,
                FabricPorts.REQUEST, 1, s);
        long tid = Thread.currentThread().threadId();
        long before = bean.getThreadAllocatedBytes(tid);
        test.run();
        return bean.getThreadAllocatedBytes(tid) - before;
    }

    @Test
    void tenTimesMoreCyclesAllocateAboutTheSame() {
        allocatedDuring(500);   // JIT and class loading out of the way
        long shortRun = allocatedDuring(1_000);
        long longRun = allocatedDuring(10_000);
        // Only the result record and its strings; 10x the cycles must not add per-cycle garbage.
        assertTrue(longRun < shortRun + 16_384, "short run " + shortRun + " B, long run " + longRun + " B");
    }
}
