package io.nicbridge.sim.medusa;

import static io.nicbridge.contract.Medusa.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.idle.BusySpinIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.fddi.FddiRing;
import io.nicbridge.sim.fddi.FddiTiming;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class MedusaRingEndToEndTest {
    static final int ON = CTRL_RX_EN | CTRL_TX_EN | CTRL_RING_JOIN | CTRL_FRAME_OFS3;

    @ParameterizedTest
    @EnumSource(EngineMode.class)
    void aFrameTravelsBetweenTwoStations(EngineMode mode) {
        try (EmulatedTestbed bed = EmulatedTestbed.create(mode, 7)) {
            FddiRing ring = bed.fddiRing("fddi0");
            MedusaHost a = new MedusaHost(bed.medusa("a", ring, MedusaHost.mac(1)));
            MedusaHost b = new MedusaHost(bed.medusa("b", ring, MedusaHost.mac(2)));
            a.init(ON, 64, 64);
            b.init(ON, 64, 64);
            settle(bed, () -> ring.state() == FddiRing.STATE_OPERATIONAL && ring.memberCount() == 2);
            assertEquals(STATUS_RING_OP | RING_STATE_OPERATIONAL << STATUS_RING_STATE_SHIFT,
                a.read(REG_STATUS) & ~STATUS_TX_BUSY);

            int len = a.frame(5, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(2), MedusaHost.mac(1), 100, 3);
            a.write(REG_TX_FIFO, 5);
            settle(bed, () -> (b.read(REG_FIFO_LEVEL) & FIFO_LEVEL_RX_MASK) != 0
                && (a.read(REG_FIFO_LEVEL) & FIFO_LEVEL_TXDONE_MASK) != 0);

            int rx = b.read(REG_RX_FIFO);
            assertEquals(FIFO_VALID, rx & FIFO_VALID);
            int n = rx & FIFO_BUF_MASK;
            assertTrue(n >= 64, "received into a FREE buffer, got " + n);
            assertEquals(len, b.len(n));
            assertArrayEquals(a.frameBytes(5, len), b.frameBytes(n, len));
            int st = b.stat(n);
            assertEquals(STAT_DONE_BIT | STAT_A_BIT | STAT_C_BIT, st & STAT_CODE_MASK, Integer.toHexString(st));
            assertEquals(FC_LLC_ASYNC_DEFAULT, (st & STAT_FC_MASK) >>> STAT_FC_SHIFT);
            assertEquals(0, b.read(REG_RX_FIFO), "RX FIFO reads 0 when empty");

            int done = a.read(REG_TXDONE_FIFO);
            assertEquals(FIFO_VALID | 5, done);
            assertEquals(STAT_DONE_BIT | STAT_A_BIT | STAT_C_BIT, a.stat(5) & STAT_CODE_MASK);
            assertEquals(1, a.card.model().counter(REG_CNT_FRAMES_TX));
            assertEquals(1, b.card.model().counter(REG_CNT_FRAMES_RX));
            assertTrue((a.read(REG_ISR) & INT_TX_DONE) != 0);
            assertTrue(b.card.interrupt().isAsserted());
        }
    }

    @Test
    void virtualLatencyOfOneHopIsTokenWaitPlusFrameTimePlusHop() {
        try (EmulatedTestbed bed = EmulatedTestbed.create(EngineMode.VIRTUAL, 1)) {
            FddiRing ring = bed.fddiRing("fddi0");
            MedusaHost a = new MedusaHost(bed.medusa("a", ring, MedusaHost.mac(1)));
            MedusaHost b = new MedusaHost(bed.medusa("b", ring, MedusaHost.mac(2)));
            a.init(ON, 64, 64);
            b.init(ON, 64, 64);
            bed.virtualEngine().runFor(1_000_000);
            int len = a.frame(1, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(2), MedusaHost.mac(1), 1000, 1);
            long t0 = bed.timeBase().nanoTime();
            a.write(REG_TX_FIFO, 1);
            assertTrue(bed.virtualEngine().runUntil(() -> (b.read(REG_FIFO_LEVEL) & FIFO_LEVEL_RX_MASK) != 0,
                t0 + 10_000_000));
            long took = bed.timeBase().nanoTime() - t0;
            long wire = FddiTiming.frameNanos(len) + ring.hopNanos();
            long rotation = ring.idleRotationNanos();
            assertTrue(took >= wire && took <= wire + rotation, "took " + took + " ns; wire+hop " + wire
                + ", idle rotation " + rotation);
        }
    }

    static void settle(EmulatedTestbed bed, java.util.function.BooleanSupplier done) {
        if (bed.mode() == EngineMode.VIRTUAL) {
            assertTrue(bed.virtualEngine().runUntil(done, bed.timeBase().nanoTime() + 50_000_000L));
            return;
        }
        long deadline = System.nanoTime() + 5_000_000_000L;
        IdleStrategy idle = new BusySpinIdle(100);
        while (!done.getAsBoolean()) {
            bed.engine().poll();
            assertTrue(System.nanoTime() < deadline, "timed out");
            idle.idle();
        }
    }
}
