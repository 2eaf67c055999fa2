package io.nicbridge.sim.medusa;

import static io.nicbridge.contract.Medusa.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.medusa.MedusaConfig;
import io.nicbridge.bridge.driver.medusa.MedusaDriver;
import io.nicbridge.bridge.driver.medusa.MedusaStatistics.Counter;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.fddi.FddiRing;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A Medusa reset behind its driver's back ({@link MedusaCard#hardwareReset}): what the board loses, and how the
 * driver's periodic watchdog brings it back without losing a frame it had accepted, also when the station only
 * receives, and never resets a card that runs.
 */
class MedusaWatchdogTest {
    static final long T = TimeUnit.MILLISECONDS.toNanos(20);
    static final long A = 0x0200_0000_0001L;
    static final long B = 0x0200_0000_0002L;
    static final ValueLayout.OfInt SEQ = ValueLayout.JAVA_INT_UNALIGNED;

    static MedusaDriver open(MedusaCard card, long station) {
        return MedusaDriver.open(card, MedusaConfig.builder().stationAddress(station)
                .interruptMode(MedusaConfig.InterruptMode.POLLING).build());
    }

    static boolean send(MedusaDriver d, long to, int seq) {
        MemorySegment payload = MemorySegment.ofArray(new byte[64]);
        payload.set(SEQ, 0, seq);
        return d.send(to, FC_LLC_ASYNC_DEFAULT, payload, 0, 0, payload, 0, 64) != FramePort.NONE;
    }

    static void drain(MedusaDriver d, List<Integer> into) {
        MemorySegment dst = MemorySegment.ofArray(new byte[4]);
        int h;
        while ((h = d.poll()) != FramePort.NONE) {
            d.copyOut(h, MedusaDriver.MAC_HEADER, dst, 0, 4);
            into.add(dst.get(SEQ, 0));
            d.release(h);
        }
    }

    @Test
    void theResetLeavesTheRingAndForgetsFifosAndRegistersButNotBufferRam() {
        try (EmulatedTestbed bed = EmulatedTestbed.create(EngineMode.VIRTUAL, 3)) {
            FddiRing ring = bed.fddiRing("ring");
            MedusaCard ca = bed.medusa("a", ring, new byte[] {2, 0, 0, 0, 0, 1});
            MedusaCard cb = bed.medusa("b", ring, new byte[] {2, 0, 0, 0, 0, 2});
            MedusaDriver a = open(ca, A);
            open(cb, B);
            VirtualTimeBase vt = bed.virtualEngine().timeBase();
            vt.runUntilIdle();
            assertEquals(2, ring.memberCount());
            assertTrue(send(a, B, 42));
            vt.runUntilIdle();
            assertTrue(ca.model().counter(REG_CNT_FRAMES_TX) > 0);
            ca.registers().write(0x2000 * 100, 0x1234_5678); // a host PIO word into buffer 100
            int word = ca.registers().read(0x2000 * 100);
            assertEquals(0x1234_5678, word);
            ca.hardwareReset();
            vt.runUntilIdle();
            assertEquals(CTRL_RESET_VALUE, ca.registers().read(REGS_OFS + REG_CTRL));
            assertEquals(0, ca.registers().read(REGS_OFS + REG_IMR));
            assertEquals(0, ca.registers().read(REGS_OFS + REG_FIFO_LEVEL), "all four FIFOs empty");
            assertEquals(0, ca.model().counter(REG_CNT_FRAMES_TX), "counters reset");
            assertEquals(1, ring.memberCount(), "off the ring");
            assertEquals(word, ca.registers().read(0x2000 * 100), "buffer RAM kept");
        }
    }

    @Test
    void framesQueuedBeforeTheResetAreSentAfterItOnceAndInOrder() {
        try (EmulatedTestbed bed = EmulatedTestbed.create(EngineMode.VIRTUAL, 4)) {
            FddiRing ring = bed.fddiRing("ring");
            MedusaCard ca = bed.medusa("a", ring, new byte[] {2, 0, 0, 0, 0, 1});
            MedusaCard cb = bed.medusa("b", ring, new byte[] {2, 0, 0, 0, 0, 2});
            MedusaDriver a = open(ca, A);
            MedusaDriver b = open(cb, B);
            VirtualTimeBase vt = bed.virtualEngine().timeBase();
            vt.runUntilIdle();
            a.watchdog(vt, T);
            long t0 = vt.nanoTime();
            for (int seq = 0; seq < 6; seq++) {
                assertTrue(send(a, B, seq)); // queued; the card has not run yet
            }
            ca.hardwareReset();
            assertTrue(vt.runUntil(() -> a.statistics().get(Counter.CARD_RESETS) == 1, t0 + T));
            assertTrue(vt.nanoTime() - t0 <= T, "found at the next tick");
            assertEquals(6, a.statistics().get(Counter.TX_REQUEUED));
            List<Integer> got = new ArrayList<>();
            assertTrue(vt.runUntil(() -> {
                drain(b, got);
                return got.size() >= 6;
            }, vt.nanoTime() + TimeUnit.SECONDS.toNanos(1)));
            vt.runUntil(vt.nanoTime() + 2 * T);
            drain(b, got);
            assertEquals(List.of(0, 1, 2, 3, 4, 5), got);
            assertEquals(2, ring.memberCount(), "back on the ring");
            a.reclaim();
            assertEquals(a.config().transmitBuffers(), a.freeTransmitBuffers(), "every transmit buffer came back");
            // and it receives again, into the buffers it pushed into FREE_FIFO anew
            assertTrue(send(b, A, 77));
            List<Integer> back = new ArrayList<>();
            assertTrue(vt.runUntil(() -> {
                drain(a, back);
                return !back.isEmpty();
            }, vt.nanoTime() + TimeUnit.SECONDS.toNanos(1)));
            assertEquals(List.of(77), back);
            assertEquals(0, a.statistics().get(Counter.TX_TIMEOUTS), "found by CTRL, not as a stuck transmission");
        }
    }

    @Test
    void aResetStationThatOnlyReceivesIsFoundAndJoinsTheRingAgain() {
        // Before the periodic check the watchdog was armed only by a queued frame: a reset station with nothing to
        // send stayed off the ring, and b's frames to it went round unreceived for ever.
        try (EmulatedTestbed bed = EmulatedTestbed.create(EngineMode.VIRTUAL, 5)) {
            FddiRing ring = bed.fddiRing("ring");
            MedusaCard ca = bed.medusa("a", ring, new byte[] {2, 0, 0, 0, 0, 1});
            MedusaCard cb = bed.medusa("b", ring, new byte[] {2, 0, 0, 0, 0, 2});
            MedusaDriver a = open(ca, A);
            MedusaDriver b = open(cb, B);
            VirtualTimeBase vt = bed.virtualEngine().timeBase();
            vt.runUntilIdle();
            a.watchdog(vt, T);
            b.watchdog(vt, T);
            vt.runUntil(vt.nanoTime() + 3 * T); // idle ticks on running cards reset nothing
            long t0 = vt.nanoTime();
            ca.hardwareReset();
            assertTrue(vt.runUntil(() -> ring.memberCount() == 1, t0 + T / 10), "off the ring");
            assertTrue(vt.runUntil(() -> a.statistics().get(Counter.CARD_RESETS) == 1, t0 + T),
                    () -> "a station with nothing queued must be found within one period: " + a.statistics());
            assertTrue(vt.runUntil(() -> ring.memberCount() == 2, vt.nanoTime() + T), "back on the ring");
            assertTrue(send(b, A, 5));
            List<Integer> got = new ArrayList<>();
            assertTrue(vt.runUntil(() -> {
                drain(a, got);
                return !got.isEmpty();
            }, vt.nanoTime() + T));
            assertEquals(List.of(5), got);
            vt.runUntil(vt.nanoTime() + 3 * T);
            assertEquals(1, a.statistics().get(Counter.CARD_RESETS));
            assertEquals(0, b.statistics().get(Counter.CARD_RESETS), "the healthy card was never reset");
            assertEquals(0, a.statistics().get(Counter.TX_TIMEOUTS) + b.statistics().get(Counter.TX_TIMEOUTS));
        }
    }
}
