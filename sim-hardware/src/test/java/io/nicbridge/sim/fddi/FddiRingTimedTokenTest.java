package io.nicbridge.sim.fddi;

import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.contract.Medusa;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** The timed-token MAC in virtual time: claim, TTRT, rotation bound, throughput, parking, determinism. */
class FddiRingTimedTokenTest {

    record World(VirtualTimeEngine engine, FddiRing ring, List<SaturatedMac> macs, List<FddiRingPort> ports) {
    }

    static World world(long seed, int stations, long[] treqUs, int minLen, int maxLen, int maxFrameBytes) {
        VirtualTimeEngine engine = new VirtualTimeEngine(seed);
        FddiRing ring = FddiRing.builder(engine.timeBase()).maxFrameBytes(maxFrameBytes).build();
        List<SaturatedMac> macs = new ArrayList<>();
        List<FddiRingPort> ports = new ArrayList<>();
        for (int i = 0; i < stations; i++) {
            SaturatedMac m = new SaturatedMac("s" + i, 0x0200_0000_0000L + i, treqUs[i % treqUs.length] * 1000, minLen,
                maxLen, seed * 31 + i);
            macs.add(m);
            ports.add(ring.attach(m));
        }
        return new World(engine, ring, macs, ports);
    }

    @Property(tries = 30)
    void rotationNeverExceedsTwiceTtrtUnderSaturatingLoad(
            @ForAll @IntRange(min = 1, max = 12) int stations,
            @ForAll @LongRange(min = 1, max = 9000) long treqA,
            @ForAll @LongRange(min = 1, max = 9000) long treqB,
            @ForAll @IntRange(min = 13, max = 8188) int maxLen,
            @ForAll @IntRange(min = 0, max = 1000) int seed) {
        int minLen = Math.min(13 + seed, maxLen);
        World w = world(seed, stations, new long[] {treqA, treqB}, minLen, maxLen, Medusa.MAX_FRAME_LONG);
        for (FddiRingPort p : w.ports) {
            p.join();
            p.requestToken();
        }
        FddiRing ring = w.ring;
        w.engine.runFor(2_000_000);
        assertEquals(FddiRing.STATE_OPERATIONAL, ring.state());
        long ttrt = ring.ttrtNanos();
        assertEquals(Math.max(Math.min(treqA, stations > 1 ? treqB : treqA) * 1000, ring.ttrtFloorNanos(stations)), ttrt);
        ring.resetRotationStats();
        long t0 = w.engine.timeBase().nanoTime();
        long bytes0 = ring.bytes();
        long frames0 = ring.frames();
        long frameNanos0 = ring.frameNanos();
        w.engine.runFor(Math.max(30 * ttrt, 50_000_000));
        long elapsed = w.engine.timeBase().nanoTime() - t0;
        assertTrue(ring.rotations() > 0);
        assertEquals(0, ring.rotationOverruns(), "rotations over 2 x TTRT; max " + ring.maxRotationNanos() + " ns, TTRT "
            + ttrt);
        assertTrue(ring.maxRotationNanos() <= 2 * ttrt);
        assertEquals(0, ring.trtOverruns());
        assertEquals(0, ring.slotStalls());
        // saturated: the fibre is busy with frames nearly all the time (tokens and hops are the rest)
        long onFibre = ring.bytes() - bytes0 + (ring.frames() - frames0) * (FddiTiming.FRAME_OVERHEAD_BYTES - 4L);
        double busy = onFibre * 80.0 / elapsed;
        assertEquals(onFibre * 80, ring.frameNanos() - frameNanos0);
        assertTrue(busy > 0.85, "fibre busy with frames " + busy + ", TTRT " + ttrt + ", " + stations + " stations");
        for (SaturatedMac m : w.macs) {
            assertTrue(m.sent > 0, m.name + " starved");
            long inFlight = 2 + stations * ring.hopNanos() / FddiTiming.frameNanos(minLen);
            assertTrue(m.sent - m.returned <= inFlight, "frames stripped by their senders: " + m.sent + " sent, "
                + m.returned + " back");
        }
    }

    @Test
    void claimPicksTheLowestBidRaisedToTheFloorAndReportsStateChanges() {
        World w = world(1, 3, new long[] {7000, 5000, 6000}, 100, 100, Medusa.MAX_FRAME);
        w.macs.forEach(m -> m.saturated = false);
        w.ports.get(0).join();
        assertEquals(FddiRing.STATE_CLAIM, w.ring.state());
        assertEquals(FddiRing.STATE_CLAIM, w.macs.get(0).lastState);
        w.engine.runFor(w.ring.claimNanos(1) - 1);
        assertEquals(FddiRing.STATE_CLAIM, w.ring.state(), "the claim lasts one round of claim frames");
        w.engine.runFor(1);
        assertEquals(FddiRing.STATE_OPERATIONAL, w.ring.state());
        assertEquals(7_000_000, w.ring.ttrtNanos());
        w.ports.get(1).join();
        w.ports.get(2).join();
        w.engine.runFor(1_000_000);
        assertEquals(5_000_000, w.ring.ttrtNanos());
        assertEquals(5_000_000, w.macs.get(2).lastTtrt);
        assertEquals(2, w.ring.claims(), "the third join restarted the second claim");
        w.ports.get(1).leave();
        assertEquals(FddiRing.STATE_ISOLATED, w.macs.get(1).lastState);
        w.engine.runFor(1_000_000);
        assertEquals(6_000_000, w.ring.ttrtNanos(), "the 5 ms bidder left");
        assertEquals(2, w.ring.memberCount());
        assertEquals(2 * (880 + 700), w.ring.idleRotationNanos(), "a bypassed station adds no latency");
        w.ports.get(0).leave();
        w.ports.get(2).leave();
        assertEquals(FddiRing.STATE_ISOLATED, w.ring.state());
    }

    @Test
    void aTinyBidIsRaisedToRingLatencyPlusTheLongestFrame() {
        World w = world(1, 4, new long[] {1}, 100, 100, Medusa.MAX_FRAME);
        w.ports.forEach(FddiRingPort::join);
        w.engine.runFor(1_000_000);
        long floor = 4 * (880 + 700) + (Medusa.MAX_FRAME + 11) * 80L;
        assertEquals(floor, w.ring.ttrtFloorNanos(4));
        assertEquals(floor, w.ring.ttrtNanos());
    }

    @Test
    void anIdleTokenIsParkedYetCountedAndResumesWhereItWouldBe() {
        World w = world(3, 4, new long[] {8000}, 50, 50, Medusa.MAX_FRAME);
        w.macs.forEach(m -> m.saturated = false);
        w.ports.forEach(FddiRingPort::join); // at t = 0: the claim ends at 4 x 3260 ns, then the token idles
        w.engine.runFor(10_000_000);
        assertEquals(0, w.engine.timeBase().pendingEvents(), "a parked token schedules nothing");
        long p = 880 + 700;
        assertEquals(4 * p, w.ring.idleRotationNanos());
        SaturatedMac m2 = w.macs.get(2);
        m2.queued = 3;
        w.ports.get(2).requestToken(); // brings every station's count up to now
        long passes = w.ring.tokenPasses();
        long expected = (10_000_000 - w.ring.claimNanos(4)) / p;
        assertTrue(Math.abs(passes - expected) <= 2, "token passes " + passes + ", expected about " + expected);
        long seen = 0;
        for (SaturatedMac m : w.macs) {
            assertTrue(Math.abs(m.tokens - passes / 4.0) <= 1, m.name + " saw " + m.tokens + " of " + passes);
            seen += m.tokens;
        }
        assertEquals(passes, seen);
        w.engine.runFor(1_000_000);
        assertEquals(3, m2.sent);
        assertEquals(3, m2.returned, "stripped by their sender after a full round");
        assertEquals(3 * 3, w.macs.stream().mapToLong(m -> m.received).sum(), "each of the 3 others saw each frame");
        assertEquals(0, w.ring.rotationOverruns());
        assertEquals(0, w.ring.lateTokens());
    }

    @Test
    void oneHopLatencyHasASlopeOfEightyNanosecondsPerByte() {
        long[] latency = new long[2];
        int[] lens = {100, 8100};
        for (int k = 0; k < 2; k++) {
            World w = world(5, 2, new long[] {8000}, lens[k], lens[k], Medusa.MAX_FRAME_LONG);
            w.macs.forEach(m -> m.saturated = false);
            w.ports.forEach(FddiRingPort::join);
            w.engine.runFor(1_234_567); // same world, same instant: the idle token is at the same place
            long start = w.engine.timeBase().nanoTime();
            w.macs.get(0).queued = 1;
            w.ports.get(0).requestToken();
            assertTrue(w.engine.runUntil(() -> w.macs.get(1).received == 1, start + 10_000_000));
            latency[k] = w.engine.timeBase().nanoTime() - start;
            long wait = latency[k] - FddiTiming.frameNanos(lens[k]) - w.ring.hopNanos();
            assertTrue(wait >= 0 && wait < w.ring.idleRotationNanos(), "token wait " + wait);
        }
        assertEquals((lens[1] - lens[0]) * 80L, latency[1] - latency[0], "10 ns per bit");
    }

    @Test
    void sameSeedSameTimeline() {
        long[] a = run(99);
        long[] b = run(99);
        assertArrayEquals(a, b);
    }

    private static long[] run(long seed) {
        World w = world(seed, 5, new long[] {3000, 4000}, 13, 4496, Medusa.MAX_FRAME);
        w.ports.forEach(p -> {
            p.join();
            p.requestToken();
        });
        w.engine.runFor(30_000_000);
        return new long[] {w.ring.frames(), w.ring.bytes(), w.ring.maxRotationNanos(), w.ring.tokenPasses(),
            w.macs.get(3).received, w.engine.timeBase().eventsProcessed()};
    }
}
