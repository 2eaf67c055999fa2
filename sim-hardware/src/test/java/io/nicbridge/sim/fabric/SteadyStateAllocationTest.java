package io.nicbridge.sim.fabric;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** The cycle loop allocates nothing once pools and event buckets have reached their working size. */
class SteadyStateAllocationTest {

    @Test
    void stepAllocatesNothingInSteadyState() {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long me = Thread.currentThread().threadId();
        for (Discipline d : Discipline.values()) {
            FabricConfig cfg = FabricConfig.defaults().withVcsPerClass(2).withDiscipline(d);
            Network net = new Network(Topologies.fatTree(4, 3), cfg, 1);
            // a load the fabric sustains, so the test sources' backlogs stop growing
            TestLoad.attachAll(net, 0.2, 4, null, 2);
            net.run(30_000);
            long before = threads.getThreadAllocatedBytes(me);
            net.run(20_000);
            long allocated = threads.getThreadAllocatedBytes(me) - before;
            assertTrue(allocated < 4096, d + ": 20000 cycles allocated " + allocated + " bytes");
        }
    }
}
