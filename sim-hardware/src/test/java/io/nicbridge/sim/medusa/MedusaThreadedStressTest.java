package io.nicbridge.sim.medusa;

import static io.nicbridge.contract.Medusa.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.fddi.FddiRing;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real time, threaded engine, one host thread per card, all sending at once: no deadlock between the ring's
 * lock and the cards' locks, and every frame is accounted for. A receiver whose host thread falls behind runs
 * out of FREE buffers and drops; its sender sees A without C in the frame status and sends the buffer again
 * (what a careful protocol would do), so every frame arrives exactly once and drops equal retransmissions.
 */
class MedusaThreadedStressTest {
    static final int FRAMES = 300;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void threeHostsSendConcurrentlyAndEveryFrameArrives() throws Exception {
        try (EmulatedTestbed bed = EmulatedTestbed.create(EngineMode.THREADED, 0)) {
            FddiRing ring = bed.fddiRing("fddi0");
            List<MedusaHost> hosts = new ArrayList<>();
            for (int i = 1; i <= 3; i++) {
                MedusaHost h = new MedusaHost(bed.medusa("t" + i, ring, MedusaHost.mac(i)));
                h.init(MedusaRingEndToEndTest.ON, 64, 64);
                hosts.add(h);
            }
            MedusaRingEndToEndTest.settle(bed, () -> ring.memberCount() == 3
                && ring.state() == FddiRing.STATE_OPERATIONAL);
            ExecutorService pool = Executors.newFixedThreadPool(3);
            List<Future<long[]>> results = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                MedusaHost h = hosts.get(i);
                int next = (i + 1) % 3 + 1;
                int me = i + 1;
                results.add(pool.submit(() -> run(h, me, next)));
            }
            pool.shutdown();
            long received = 0;
            long[] resent = new long[3];
            for (int i = 0; i < 3; i++) {
                long[] r = results.get(i).get(50, TimeUnit.SECONDS);
                assertEquals(FRAMES, r[0], "TX completions copied by the receiver");
                received += r[1];
                resent[i] = r[2];
            }
            assertEquals(3L * FRAMES, received);
            assertEquals(3L * FRAMES + resent[0] + resent[1] + resent[2], ring.frames());
            for (int i = 0; i < 3; i++) {
                MedusaHost h = hosts.get(i);
                assertEquals(FRAMES + resent[i], h.card.model().counter(REG_CNT_FRAMES_TX));
                assertEquals(resent[(i + 2) % 3], h.card.model().counter(REG_CNT_NOBUF_DROPS),
                    "each drop at a receiver was resent by its sender");
                assertEquals(0, h.card.model().rejectedTxPushes());
                assertEquals(0, h.card.model().rejectedFreePushes());
            }
        }
    }

    /** Sends FRAMES frames from buffers 0..7 to {@code next} while receiving and recycling. */
    private static long[] run(MedusaHost h, int me, int next) {
        long done = 0;
        long rx = 0;
        long resent = 0;
        int queued = 0;
        int sent = 0;
        boolean[] busy = new boolean[8];
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
        IdleStrategy idle = new BackoffIdle(49, 0, 20_000L, 20_000L);
        while (done < FRAMES || rx < FRAMES) {
            boolean progress = false;
            for (int n = 0; n < 8 && sent < FRAMES; n++) {
                if (!busy[n]) {
                    h.frame(n, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(next), MedusaHost.mac(me), 100 + sent % 200, sent);
                    h.regs.writeRelease(MedusaHost.reg(REG_TX_FIFO), n);
                    busy[n] = true;
                    sent++;
                    queued++;
                    progress = true;
                }
            }
            int e;
            while ((e = h.regs.readAcquire(MedusaHost.reg(REG_TXDONE_FIFO))) != 0) {
                assertEquals(0, e & FIFO_ERROR);
                int n = e & FIFO_BUF_MASK;
                int stat = h.stat(n) & STAT_CODE_MASK;
                progress = true;
                if ((stat & STAT_C_BIT) == 0) {
                    assertEquals(STAT_DONE_BIT | STAT_A_BIT, stat, "recognised, not copied: no buffer");
                    h.regs.writeRelease(MedusaHost.reg(REG_TX_FIFO), n); // send it again from card memory
                    resent++;
                    continue;
                }
                busy[n] = false;
                done++;
            }
            while ((e = h.regs.readAcquire(MedusaHost.reg(REG_RX_FIFO))) != 0) {
                int n = e & FIFO_BUF_MASK;
                assertEquals(STAT_DONE_BIT | STAT_A_BIT | STAT_C_BIT, h.stat(n) & STAT_CODE_MASK);
                h.regs.writeRelease(MedusaHost.reg(REG_FREE_FIFO), n);
                rx++;
                progress = true;
                if (me == 2 && rx % 100 == 0) {
                    LockSupport.parkNanos(5_000_000); // station 2's host falls behind: its sender will likely resend
                }
            }
            if (System.nanoTime() > deadline) {
                fail("station " + me + ": " + done + " done, " + rx + " received, " + queued + " queued");
            }
            idle.idle(progress ? 1 : 0);
        }
        return new long[] {done, rx, resent};
    }
}
