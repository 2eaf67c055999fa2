package io.nicbridge.protocols.traditional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.cstar.FragmentHandler;
import io.nicbridge.protocols.sim.FrameFaults;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** The traditional core's steady state allocates nothing: send, implicit acks, receive, in place. */
class TraditionalHotPathTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private int taken;
    private final FragmentHandler handler = (src, event, status, data, offset, length) -> taken++;

    @Test
    void anExchangeOfEventsAllocatesNothingInTheCoreOrTheMedium() {
        // every 7th frame lost, so the retransmission path (eager NAK, resend) is part of the steady state
        Cluster c = new Cluster(2, (index, src, dst, now, fate) -> fate.drop = index % 7 == 3);
        MemorySegment data = MemorySegment.ofArray(new byte[64]);
        int event = 0;
        for (; event < 3000; event++) {
            exchange(c, data, event);
        }
        long least = Long.MAX_VALUE;
        long most = 0;
        for (int w = 0; w < 4; w++) {
            long before = THREADS.getCurrentThreadAllocatedBytes();
            for (int end = event + 1000; event < end; event++) {
                exchange(c, data, event);
            }
            long a = THREADS.getCurrentThreadAllocatedBytes() - before;
            least = Math.min(least, a);
            most = Math.max(most, a);
        }
        assertEquals(2 * event, taken, "every fragment taken once");
        assertTrue(c.core(0).counters().retransmitted() > 0, "the loss path ran");
        // Windows of 1000 events allocate nothing; now and then one shows a few dozen bytes the JVM's own
        // bookkeeping (not attributed to the core) accounts to the thread, so the bound allows those.
        assertEquals(0, least, "some window of 1000 events allocated nothing");
        assertTrue(most < 1024, "no window allocated per event: at most " + most + " bytes in 1000 events");
    }

    private void exchange(Cluster c, MemorySegment data, int event) {
        assertEquals(CStarNetwork.OK, c.core(0).send(1, event, data, 0, 64, CStarNetwork.LAST_FRAG));
        c.runner.node(0).applicationActed();
        assertEquals(CStarNetwork.OK, c.core(1).send(0, event, data, 0, 64, CStarNetwork.LAST_FRAG));
        c.runner.node(1).applicationActed();
        int want = taken + 2;
        for (int i = 0; i < 400 && taken < want; i++) {
            if (c.core(0).receive(1, event, handler) == CStarNetwork.NOTHING) {
                c.runner.node(0).applicationActed();
            }
            if (c.core(1).receive(0, event, handler) == CStarNetwork.NOTHING) {
                c.runner.node(1).applicationActed();
            }
            c.time.runUntil(c.time.nanoTime() + 20_000);
        }
    }
}
