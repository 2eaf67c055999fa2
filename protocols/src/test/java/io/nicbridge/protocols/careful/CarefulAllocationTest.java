package io.nicbridge.protocols.careful;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.cstar.FragmentHandler;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** The hot paths - send, arrival, receive, window updates, copy-out - allocate nothing in steady state. */
class CarefulAllocationTest {
    long taken;
    final FragmentHandler handler = (src, event, status, data, offset, length) -> taken++;

    @Test
    void steadyStateSendReceiveUpdatesAndCopyOutAllocateNothing() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long me = Thread.currentThread().threadId();
        VirtualTimeBase vt = new VirtualTimeBase(1);
        HostCpu[] cpus = HostCpu.forNodes(3, CostTable.zero(), vt);
        InMemoryMedium m = new InMemoryMedium(vt, new InMemoryMedium.Config(3, 200, 8, 16, 1_000, 0),
                FrameFaults.NONE, cpus);
        // R = 14 of the medium's 16 (R + P - 1), P = 3: windows of 4; copy out while fewer than 12 buffers are free,
        // so it happens every round
        CarefulConfig cfg = CarefulConfig.defaults().withReceiveBuffers(14).withEventSlots(8).withHostBuffers(16)
                .withCopyOutBelow(12);
        CarefulCore[] c = new CarefulCore[3];
        Link[] l = new Link[3];
        for (int i = 0; i < 3; i++) {
            l[i] = m.link(i);
            c[i] = new CarefulCore(l[i], cfg, cpus[i]);
        }
        MemorySegment frag = MemorySegment.ofArray(new byte[100]);
        int event = 0;
        for (int round = 0; round < 2; round++) {
            long before = threads.getThreadAllocatedBytes(me);
            for (int i = 0; i < 2_000; i++, event++) {
                // a crowd event: everyone broadcasts two fragments, then everyone takes all four
                for (int n = 0; n < 3; n++) {
                    assertEquals(CStarNetwork.OK, c[n].send(CStarNetwork.BROADCAST, event, frag, 0, 100,
                            CStarNetwork.BCAST_EVENT));
                    assertEquals(CStarNetwork.OK, c[n].send(CStarNetwork.BROADCAST, event, frag, 0, 100,
                            CStarNetwork.BCAST_EVENT | CStarNetwork.LAST_FRAG));
                }
                vt.runUntilIdle();
                for (int n = 0; n < 3; n++) {
                    l[n].poll(c[n], 16);
                }
                for (int n = 0; n < 3; n++) {
                    while (c[n].receive(CStarNetwork.ANY, event, handler) != CStarNetwork.EVENT_DONE) {
                        assertTrue(taken >= 0);
                    }
                }
                vt.runUntilIdle(); // explicit updates
                for (int n = 0; n < 3; n++) {
                    l[n].poll(c[n], 16);
                }
            }
            long allocated = threads.getThreadAllocatedBytes(me) - before;
            if (round == 1) {
                assertTrue(allocated < 4096, "2000 crowd events allocated " + allocated + " bytes");
            }
        }
        long copyOuts = 0;
        for (CarefulCore core : c) {
            assertEquals(0, core.violations());
            copyOuts += core.copyOuts();
        }
        assertTrue(copyOuts > 0, "copy-out ran");
        assertEquals(4000L * 3 * 4, taken);
    }
}
