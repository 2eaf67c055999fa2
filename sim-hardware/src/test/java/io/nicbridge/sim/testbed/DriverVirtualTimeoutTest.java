package io.nicbridge.sim.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.medusa.MedusaConfig;
import io.nicbridge.bridge.driver.medusa.MedusaDriver;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.contract.Medusa;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.fddi.FddiRing;
import io.nicbridge.sim.medusa.MedusaCard;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 16: the Tulip and Medusa drivers' waits run on the scheduler's clock in virtual time, as U-Net's do
 * ({@code UnetVirtualTimeoutTest}). An hour-long {@code await} on a virtual world costs milliseconds of wall time
 * and returns exactly at its virtual deadline; a frame that arrives first ends it at the frame's virtual arrival.
 * On the wall clock (before the fix) the first await would park for the hour: the preemptive timeout fails it.
 */
class DriverVirtualTimeoutTest {
    static final long HOUR = TimeUnit.HOURS.toNanos(1);
    /** Far below the hour each await is given: the waits must not be wall-clock waits. */
    static final Duration WALL_BUDGET = Duration.ofSeconds(30);

    @Test
    void tulipAwaitTimesOutAtItsVirtualDeadlineWithoutWallClockWaiting() {
        for (TulipConfig.InterruptMode mode : TulipConfig.InterruptMode.values()) {
            try (TulipTestbed bed = TulipTestbed.builder().nodes(2).mode(EngineMode.VIRTUAL).seed(16)
                    .config(TulipConfig.builder().interruptMode(mode).build()).build()) {
                bed.awaitFiltersLoaded(TimeUnit.MILLISECONDS.toNanos(10));
                VirtualTimeBase vt = bed.virtualTime();
                TulipDriver b = bed.driver(1);
                assertTrue(b.clock().isVirtual(), "the testbed puts the driver on the virtual clock");
                long start = vt.nanoTime();
                int h = assertTimeoutPreemptively(WALL_BUDGET, () -> b.await(1, TimeUnit.HOURS), mode.name());
                assertEquals(FramePort.NONE, h, mode + ": nothing was sent");
                assertEquals(start + HOUR, vt.nanoTime(), mode + ": the timeout expires at its virtual deadline");
            }
        }
    }

    @Test
    void tulipAwaitReturnsAtTheFramesVirtualArrival() {
        try (TulipTestbed bed = TulipTestbed.builder().nodes(2).mode(EngineMode.VIRTUAL).seed(17).build()) {
            bed.awaitFiltersLoaded(TimeUnit.MILLISECONDS.toNanos(10));
            VirtualTimeBase vt = bed.virtualTime();
            TulipDriver a = bed.driver(0);
            TulipDriver b = bed.driver(1);
            long start = vt.nanoTime();
            int t = a.claim();
            MemorySegment frame = a.txBuffer(t);
            MemorySegment.copy(MemorySegment.ofArray(TulipTestbed.mac(1).toBytes()), 0, frame, 0, 6);
            MemorySegment.copy(MemorySegment.ofArray(TulipTestbed.mac(0).toBytes()), 0, frame, 6, 6);
            frame.set(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, 12, (short) 0xB588);
            a.commit(t, 64);
            int h = assertTimeoutPreemptively(WALL_BUDGET, () -> b.await(1, TimeUnit.HOURS));
            assertNotEquals(FramePort.NONE, h, "the frame arrived");
            long waited = vt.nanoTime() - start;
            // 64 B + preamble/IFG at 100 Mb/s is about 7 us on the wire; the card's delays add microseconds, not more
            assertTrue(waited > 5_000 && waited < 1_000_000, "returned at the frame's virtual arrival, " + waited
                    + " ns after the send");
            b.release(h);
        }
    }

    @Test
    void medusaAwaitTimesOutAtItsVirtualDeadlineWithoutWallClockWaiting() {
        try (EmulatedTestbed bed = EmulatedTestbed.create(EngineMode.VIRTUAL, 5)) {
            FddiRing ring = bed.fddiRing("ring");
            MedusaCard ca = bed.medusa("a", ring, new byte[] {2, 0, 0, 0, 0, 1});
            MedusaCard cb = bed.medusa("b", ring, new byte[] {2, 0, 0, 0, 0, 2});
            VirtualTimeBase vt = bed.virtualEngine().timeBase();
            MedusaDriver a = open(ca, 0x0200_0000_0001L);
            MedusaDriver b = open(cb, 0x0200_0000_0002L);
            a.timeOn(vt, bed.virtualEngine()::step);
            b.timeOn(vt, bed.virtualEngine()::step);
            vt.runUntilIdle();
            long start = vt.nanoTime();
            int h = assertTimeoutPreemptively(WALL_BUDGET, () -> b.await(1, TimeUnit.HOURS));
            assertEquals(FramePort.NONE, h, "nothing was sent");
            assertEquals(start + HOUR, vt.nanoTime(), "the timeout expires at its virtual deadline");

            MemorySegment payload = MemorySegment.ofArray(new byte[64]);
            long sent = vt.nanoTime();
            assertNotEquals(FramePort.NONE, a.send(0x0200_0000_0002L, Medusa.FC_LLC_ASYNC_DEFAULT, payload, 0, 0,
                    payload, 0, 64));
            h = assertTimeoutPreemptively(WALL_BUDGET, () -> b.await(1, TimeUnit.HOURS));
            assertNotEquals(FramePort.NONE, h, "the frame arrived");
            long waited = vt.nanoTime() - sent;
            assertTrue(waited > 0 && waited < TimeUnit.MILLISECONDS.toNanos(10),
                    "returned at the frame's virtual arrival (a token rotation at most), " + waited + " ns");
            b.release(h);
        }
    }

    private static MedusaDriver open(MedusaCard card, long station) {
        return MedusaDriver.open(card, MedusaConfig.builder().stationAddress(station)
                .interruptMode(MedusaConfig.InterruptMode.POLLING).build());
    }
}
