package io.nicbridge.sim.testbed;

import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.bridge.queue.QueueCode;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 16: {@link UnetEndpoint#await} on emulated SBA-200s in virtual time times out in virtual time - exactly
 * its timeout of simulated nanoseconds, whatever the wall clock does - and returns a message at the simulated time it
 * arrives. (Before: the deadline was wall-clock time, so the simulated time that passed was whatever the engine
 * happened to step through meanwhile: none at all on an idle network.)
 */
class UnetVirtualTimeoutTest {
    @Test
    void awaitTimesOutAfterItsTimeoutInSimulatedTime() throws InterruptedException {
        try (UnetApiTestbed t = UnetApiTestbed.builder(EngineMode.VIRTUAL).build()) {
            VirtualTimeEngine v = t.virtualEngine();
            UnetEndpoint b = t.b();
            v.runUntilIdle();
            long start = v.timeBase().nanoTime();
            assertEquals(QueueCode.EMPTY, b.await(50, TimeUnit.MICROSECONDS));
            assertEquals(start + 50_000, v.timeBase().nanoTime(), "50 simulated microseconds, not wall-clock ones");

            start = v.timeBase().nanoTime();
            assertEquals(QueueCode.EMPTY, b.await(2, TimeUnit.SECONDS), "a long simulated wait costs no wall time");
            assertEquals(start + 2_000_000_000L, v.timeBase().nanoTime());
        }
    }

    @Test
    void awaitReturnsTheMessageWhenItArrivesInSimulatedTime() throws InterruptedException {
        try (UnetApiTestbed t = UnetApiTestbed.builder(EngineMode.VIRTUAL).build()) {
            VirtualTimeEngine v = t.virtualEngine();
            UnetEndpoint a = t.a();
            UnetEndpoint b = t.b();
            v.runUntilIdle();
            long start = v.timeBase().nanoTime();
            assertTrue(a.sendInline(UnetApiTestbed.CHANNEL, a.segment(), 0, 8));
            long d = b.await(1, TimeUnit.SECONDS);
            assertTrue(d >= 0);
            assertEquals(8, b.length(d));
            long waited = v.timeBase().nanoTime() - start;
            assertTrue(waited > 0 && waited < 100_000, "arrived after a one-way trip, not at the deadline: " + waited);
            b.release(d);
        }
    }
}
