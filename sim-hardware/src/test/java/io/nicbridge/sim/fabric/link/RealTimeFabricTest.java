package io.nicbridge.sim.fabric.link;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.sim.fabric.FabricConfig;
import io.nicbridge.sim.fabric.Network;
import io.nicbridge.sim.fabric.Topologies;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The fabric on its own thread: paced to the wall clock when it can keep up, frames handed across threads intact. */
class RealTimeFabricTest {
    private static final int MTU = 128;

    /** Sends one frame 0 -> 15 across a 4x4 mesh and waits on this thread until node 15's link hands it up. */
    private static long[] oneFrame(long cycleNanos, byte[] payload, AtomicReference<Thread> signalledOn)
            throws InterruptedException {
        Network network = new Network(Topologies.mesh(4, 4), FabricConfig.defaults(), 3);
        try (RealTimeFabric fabric = new RealTimeFabric(network, 16, CostTable.zero(),
                new FabricLinks.Config(MTU, 4, 4, cycleNanos), new BackoffIdle())) {
            Link from = fabric.link(0);
            Link to = fabric.link(15);
            Thread me = Thread.currentThread();
            to.readinessListener(() -> {
                signalledOn.compareAndSet(null, Thread.currentThread());
                java.util.concurrent.locks.LockSupport.unpark(me);
            });
            fabric.start();
            long t0 = System.nanoTime();
            int h = from.claim(15);
            MemorySegment.copy(MemorySegment.ofArray(payload), 0, from.txBuffer(h), 0, payload.length);
            from.commit(h, payload.length);
            byte[][] got = new byte[1][];
            LinkHandler handler = new LinkHandler() {
                @Override
                public void onFrame(Link link, int rxHandle) {
                    assertSame(to, link, "the handler sees the guarded link");
                    assertEquals(0, link.rxPeer(rxHandle));
                    got[0] = link.rxBuffer(rxHandle).asSlice(0, link.rxLength(rxHandle))
                            .toArray(ValueLayout.JAVA_BYTE);
                    link.release(rxHandle);
                }

                @Override
                public void onWritable(Link link) {
                }
            };
            long deadline = t0 + TimeUnit.SECONDS.toNanos(30);
            while (to.poll(handler, 1) == 0) {
                assertTrue(System.nanoTime() < deadline, "no frame within 30 s");
                java.util.concurrent.locks.LockSupport.parkNanos(100_000); // woken by the readiness listener
            }
            long elapsed = System.nanoTime() - t0;
            assertNull(fabric.failure());
            assertArrayEquals(payload, got[0]);
            fabric.close();
            return new long[] {elapsed, fabric.cyclesStepped()};
        }
    }

    private static byte[] payload(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 13 + 5);
        }
        return b;
    }

    @Test
    void aFabricThatKeepsUpStepsNoFasterThanItsCycleTime() throws Exception {
        long cycle = 200_000; // 0.2 ms: far slower than a 4x4 mesh can step, so the wall clock sets the pace
        AtomicReference<Thread> signalled = new AtomicReference<>();
        long[] r = oneFrame(cycle, payload(MTU), signalled);
        long elapsed = r[0];
        long cycles = r[1];
        System.out.printf("paced fabric: %d cycles of %d ns in %d ns%n", cycles, cycle, elapsed);
        assertTrue(cycles >= 10, "a full frame crosses six hops in many cycles: " + cycles);
        assertTrue(elapsed >= (cycles - 2) * cycle,
                "cycles " + cycles + " in " + elapsed + " ns: faster than the clock");
        assertNotSame(Thread.currentThread(), signalled.get(), "the fabric's own thread delivered the frame");
    }

    @Test
    void aFabricThatCannotKeepUpRunsAsFastAsItCanAndDeliversTheSame() throws Exception {
        AtomicReference<Thread> signalled = new AtomicReference<>();
        long[] r = oneFrame(1, payload(77), signalled); // 1 ns cycles: no machine keeps up
        System.out.printf("unpaced fabric: %d cycles in %d ns%n", r[1], r[0]);
        assertTrue(r[1] >= 10 && r[0] > r[1], "cycles took longer than 1 ns each: " + r[1] + " in " + r[0]);
    }

    @Test
    void startsOnceAndRefusesBadNodeCounts() {
        Network network = new Network(Topologies.mesh(2, 2), FabricConfig.defaults(), 1);
        assertThrows(IllegalArgumentException.class, () -> new RealTimeFabric(network, 1, CostTable.zero(),
                FabricLinks.Config.defaults(), new BackoffIdle()));
        try (RealTimeFabric f = new RealTimeFabric(network, 4, CostTable.zero(), FabricLinks.Config.defaults(),
                new BackoffIdle())) {
            f.start();
            assertThrows(IllegalStateException.class, f::start);
        }
    }
}
