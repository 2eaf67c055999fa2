package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.sim.engine.EngineMode;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, "one i960": the card's send and receive work share its single processor in virtual time, and sends are
 * pipelined with the fiber ({@link Sba200Timing}, "One i960" and "Send pipelining"). With the assumed 25 MHz timing
 * a single-cell message costs the sending i960 2 us (set-up; nothing to fetch) and the receiving one 3 us (1 us per
 * cell + 2 us inline write), against 3.029 us per cell on the fiber.
 * <ul>
 *   <li>One way, back to back: pipelined, the sender's set-up overlaps the previous cell's time on the fiber, so the
 *       messages follow each other at the fiber's cell time (before: set-up + cell time, 5.03 us each).</li>
 *   <li>Both ways at once: each i960 now sends and receives, 2 + 3 = 5 us per message pair, so the two directions
 *       together carry less than twice one way (before: each side's send and receive were timed as if each had its
 *       own processor, and both ways carried exactly twice one way).</li>
 * </ul>
 */
class Sba200OneI960Test {
    static final int N = SQ_LEN; // one full send queue per side, no reaping needed
    static final long LIMIT = 1_000_000_000L;

    /** Queues N single-cell (40-byte, inline) messages on each sender at once; returns ns until all arrived. */
    private static long burst(Pair p, boolean bothWays) {
        p.virtual().runUntilIdle();
        long t0 = p.virtual().timeBase().nanoTime();
        for (int i = 0; i < N; i++) {
            assertTrue(p.sa.sendInline(Pair.bytes(40, i)));
            if (bothWays) {
                assertTrue(p.sb.sendInline(Pair.bytes(40, 100 + i)));
            }
        }
        int[] got = new int[2];
        assertTrue(p.virtual().runUntil(() -> {
            got[1] += drain(p.sb);
            got[0] += drain(p.sa);
            return got[1] == N && got[0] == (bothWays ? N : 0);
        }, t0 + LIMIT), "every message arrives (got " + got[1] + " at B, " + got[0] + " at A)");
        long took = p.virtual().timeBase().nanoTime() - t0;
        assertEquals(N, p.sa.ep.reapSends());
        assertEquals(bothWays ? N : 0, p.sb.ep.reapSends());
        assertEquals(0, p.b.model().counter(UG_CNT_DROP_RQ_FULL_OFS) + p.a.model().counter(UG_CNT_DROP_RQ_FULL_OFS));
        return took;
    }

    private static int drain(Pair.Side s) {
        int n = 0;
        for (long d = s.ep.poll(); d >= 0; d = s.ep.poll()) {
            assertTrue(s.ep.isInline(d));
            s.ep.release(d);
            n++;
        }
        return n;
    }

    /** Microsecond receive timestamps of N back-to-back inline messages at B: their spacing, in ns per message. */
    @Test
    void backToBackSingleCellSendsArePipelinedAtTheFibersCellTime() {
        try (Pair p = new Pair(EngineMode.VIRTUAL, Sba200Timing.I960_25MHZ, s -> s.ports(2), 64)) {
            p.virtual().runUntilIdle();
            for (int i = 0; i < N; i++) {
                assertTrue(p.sa.sendInline(Pair.bytes(40, i)));
            }
            long first = -1;
            long last = -1;
            int got = 0;
            long t0 = p.virtual().timeBase().nanoTime();
            while (got < N) {
                long[] d = {-1};
                assertTrue(p.virtual().runUntil(() -> (d[0] = p.sb.ep.poll()) >= 0, t0 + LIMIT));
                long us = p.sb.ep.timestampMicros(d[0]);
                first = got == 0 ? us : first;
                last = us;
                p.sb.ep.release(d[0]);
                got++;
            }
            double spacingNs = (last - first) * 1000.0 / (N - 1);
            // The fiber's cell time is the floor; timestamps are whole microseconds (+-1 us over 31 gaps).
            assertTrue(spacingNs >= CELL_TIME_NS - 50 && spacingNs <= CELL_TIME_NS + 100,
                "back-to-back single-cell messages leave at the fiber's cell time (" + CELL_TIME_NS
                    + " ns), not set-up + cell time (" + (2_000 + CELL_TIME_NS) + " ns): spacing " + spacingNs + " ns");
        }
    }

    @Test
    void bothWaysTogetherCarryLessThanTwiceOneWayWhenTheI960IsTheBottleneck() {
        long oneWay;
        long bothWays;
        try (Pair p = new Pair(EngineMode.VIRTUAL, Sba200Timing.I960_25MHZ, s -> s.ports(2), 64)) {
            oneWay = burst(p, false);
        }
        try (Pair p = new Pair(EngineMode.VIRTUAL, Sba200Timing.I960_25MHZ, s -> s.ports(2), 64)) {
            bothWays = burst(p, true);
        }
        double oneWayRate = (double) N / oneWay;
        double bothRate = 2.0 * N / bothWays;
        double ratio = bothRate / oneWayRate;
        System.out.printf("one i960, %d single-cell messages: one way %.1f us, both ways at once %.1f us: both ways"
            + " carry %.2f x one way%n", N, oneWay / 1e3, bothWays / 1e3, ratio);
        assertTrue(ratio < 1.5, "full duplex on one i960: both ways carry " + ratio + " x one way (N = " + N
            + " 40-byte messages: one way " + oneWay + " ns, both ways " + bothWays + " ns); separate processors would"
            + " give 2");
        assertTrue(ratio > 1.0, "both ways still carry more than one way (the fiber is full duplex): " + ratio);
        // Model self-check: with both ways loaded each i960 alternates a received cell (1 + 2 us) and a send
        // (2 us set-up), so the run takes about N x 5 us.
        Sba200Timing t = Sba200Timing.I960_25MHZ;
        long perPair = t.txSetupNanos() + t.rxCellNanos() + t.rxInlineNanos();
        assertEquals(N * perPair, bothWays, 0.15 * N * perPair, "both ways: about N x (set-up + cell + inline write)");
    }
}
