package io.nicbridge.sim.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.medusa.MedusaConfig;
import io.nicbridge.bridge.driver.medusa.MedusaDriver;
import io.nicbridge.bridge.driver.medusa.MedusaStatistics;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.PortReadiness;
import io.nicbridge.contract.Medusa;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import io.nicbridge.sim.fddi.FddiRing;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link FramePort#readinessListener}: the Tulip and Medusa drivers tell a listener that a frame arrived and that
 * transmit space came free, in every engine mode (inline: on the sending thread; threaded: on the card's engine
 * thread; virtual: on the scheduler), without taking the frames: the receiving thread still polls them, and what
 * the handler acknowledged is counted by that thread.
 */
class PortReadinessTest {
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(10);
    private static final ThreadLocal<BackoffIdle> IDLE = ThreadLocal.withInitial(BackoffIdle::new);

    /** Records events; runs on the card's thread, so only atomics. */
    static final class Recorder implements PortReadiness {
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger rx = new AtomicInteger();
        final AtomicInteger tx = new AtomicInteger();

        @Override
        public void onReady(int events) {
            calls.incrementAndGet();
            if ((events & FRAME_ARRIVED) != 0) {
                rx.incrementAndGet();
            }
            if ((events & TX_SPACE) != 0) {
                tx.incrementAndGet();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(EngineMode.class)
    void tulipSignalsArrivalsAndTransmitSpaceWithoutTakingTheFrames(EngineMode mode) {
        try (TulipTestbed bed = TulipTestbed.builder().mode(mode).build()) {
            bed.awaitFiltersLoaded(TIMEOUT);
            TulipDriver a = bed.driver(0);
            TulipDriver b = bed.driver(1);
            Recorder atA = new Recorder();
            Recorder atB = new Recorder();
            assertTrue(a.readinessListener(atA));
            assertTrue(b.readinessListener(atB));
            assertThrows(IllegalStateException.class, () -> b.onInterrupt((d, csr5) -> { }),
                    "the readiness listener owns the line");

            // A burst of frames: once a's chip has sent them it finds its ring empty (TU; TI where Linux's IC rule
            // marked a descriptor), which says TX_SPACE; b's RI says FRAME_ARRIVED.
            int sent = 0;
            int h;
            while (sent < 8 && (h = a.claim()) != FramePort.NONE) {
                fill(a.txBuffer(h), b, a, sent++);
                a.commit(h, 64);
            }
            settle(bed, () -> atB.rx.get() > 0 && atA.tx.get() > 0);
            int polled = 0;
            long deadline = System.nanoTime() + TIMEOUT;
            while (polled < sent && System.nanoTime() < deadline) {
                run(bed);
                int r = b.poll();
                if (r != FramePort.NONE) {
                    assertEquals(polled, b.rxBuffer(r).get(ValueLayout.JAVA_INT_UNALIGNED, 14), "frames stay in order");
                    b.release(r);
                    polled++;
                } else {
                    IDLE.get().idle(0);
                }
            }
            assertEquals(sent, polled, "every frame is still the receiving thread's to poll");
            assertTrue(atB.rx.get() >= 1 && atA.tx.get() >= 1, "rx " + atB.rx + ", tx " + atA.tx);
            assertTrue(a.claim() != FramePort.NONE, "the signalled space is there");

            assertTrue(b.readinessListener(null));
            int before = atB.calls.get();
            long edges = bed.card(1).interrupt().assertions();
            int h2 = a.claim();
            fill(a.txBuffer(h2), b, a, 0);
            a.commit(h2, 64);
            settle(bed, () -> bed.card(1).interrupt().assertions() > edges);
            assertEquals(before, atB.calls.get(), "a removed listener is not called");
        }
    }

    @ParameterizedTest
    @EnumSource(EngineMode.class)
    void aPollingTulipHasNoReadinessSignal(EngineMode mode) {
        try (TulipTestbed bed = TulipTestbed.builder().mode(mode)
                .config(TulipConfig.builder().interruptMode(TulipConfig.InterruptMode.POLLING).build()).build()) {
            assertFalse(bed.driver(0).readinessListener(new Recorder()));
            bed.driver(0).close();
            assertThrows(IllegalStateException.class, () -> bed.driver(0).readinessListener(new Recorder()));
        }
    }

    @ParameterizedTest
    @EnumSource(EngineMode.class)
    void medusaSignalsArrivalsAndTransmitDoneWithoutTakingTheFrames(EngineMode mode) {
        try (EmulatedTestbed bed = EmulatedTestbed.create(mode, 3)) {
            FddiRing ring = bed.fddiRing("ring");
            List<MedusaDriver> d = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                d.add(MedusaDriver.open(bed.medusa("m" + i, ring, new byte[] {2, 0, 0, 0, 0, (byte) (i + 1)}),
                        MedusaConfig.builder().stationAddress(0x0200_0000_0000L | (i + 1))
                                .interruptMode(MedusaConfig.InterruptMode.INTERRUPT).build()));
            }
            settleWorld(bed, () -> ring.memberCount() == 2 && ring.state() == FddiRing.STATE_OPERATIONAL);
            MedusaDriver a = d.get(0);
            MedusaDriver b = d.get(1);
            Recorder atA = new Recorder();
            Recorder atB = new Recorder();
            assertTrue(a.readinessListener(atA));
            assertTrue(b.readinessListener(atB));
            MemorySegment payload = MemorySegment.ofArray(new byte[100]);
            for (int k = 0; k < 5; k++) {
                payload.set(ValueLayout.JAVA_INT_UNALIGNED, 0, k);
                assertNotEquals(FramePort.NONE, a.send(b.stationAddress(), Medusa.FC_LLC_ASYNC_DEFAULT,
                        MemorySegment.NULL, 0, 0, payload, 0, 100));
            }
            settleWorld(bed, () -> atB.rx.get() > 0 && atA.tx.get() > 0);
            int polled = 0;
            long deadline = System.nanoTime() + TIMEOUT;
            while (polled < 5 && System.nanoTime() < deadline) {
                runWorld(bed);
                int r = b.poll();
                if (r != FramePort.NONE) {
                    assertEquals(polled, b.rxBuffer(r).get(ValueLayout.JAVA_INT_UNALIGNED, MedusaDriver.MAC_HEADER));
                    b.release(r);
                    polled++;
                } else {
                    IDLE.get().idle(0);
                }
            }
            assertEquals(5, polled);
            assertTrue(b.statistics().get(MedusaStatistics.Counter.INTERRUPTS) > 0,
                    "the interrupts the handler acknowledged are counted by the receiving thread");
            d.forEach(MedusaDriver::close);
        }
    }

    private static void fill(MemorySegment frame, TulipDriver to, TulipDriver from, int seq) {
        to.stationAddress().writeTo(frame, 0);
        from.stationAddress().writeTo(frame, 6);
        frame.set(ValueLayout.JAVA_SHORT_UNALIGNED, 12, (short) 0xB588);
        frame.set(ValueLayout.JAVA_INT_UNALIGNED, 14, seq);
    }

    private static void run(TulipTestbed bed) {
        runWorld(bed.world());
    }

    private static void runWorld(EmulatedTestbed bed) {
        if (bed.engine() instanceof VirtualTimeEngine v) {
            v.runUntilIdle();
        } else {
            bed.engine().poll();
        }
    }

    private static void settle(TulipTestbed bed, BooleanSupplier done) {
        settleWorld(bed.world(), done);
    }

    private static void settleWorld(EmulatedTestbed bed, BooleanSupplier done) {
        long deadline = System.nanoTime() + TIMEOUT;
        BackoffIdle idle = new BackoffIdle();
        while (!done.getAsBoolean()) {
            if (bed.engine() instanceof VirtualTimeEngine v) {
                v.runFor(1_000_000);
            } else {
                bed.engine().poll();
                idle.idle(0);
            }
            assertTrue(System.nanoTime() < deadline, "timed out");
        }
    }
}
