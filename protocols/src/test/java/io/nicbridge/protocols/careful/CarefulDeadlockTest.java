package io.nicbridge.protocols.careful;

import io.nicbridge.protocols.dst.CStarWorkload;

import static io.nicbridge.protocols.dst.CStarWorkload.Pattern.RING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.protocols.sim.FrameFaults;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * Theorem 1 of TR 94-14: with R &gt;= 2P receive buffers and the two-frame rule the static windows never deadlock,
 * whatever the application does as long as it eventually consumes; with R &lt; 2P, or a sender that ignores the
 * rule, they can. The demonstrations stop in the stuck state and show it: every node refused, nothing in flight,
 * nothing left to happen.
 */
class CarefulDeadlockTest {
    static final long SECOND = 1_000_000_000L;

    @Property(tries = 500)
    void theWindowRuleNeverDeadlocks(@ForAll @IntRange(min = 2, max = 8) int p,
                                     @ForAll @IntRange(min = 0, max = 3) int extraPerNode,
                                     @ForAll @IntRange(min = 0, max = 0x7fff_ffff) int seed) {
        runRandomSchedule(p, extraPerNode, seed, false);
    }

    /**
     * A C* program receives an event only after sending its own fragments of it, so its consumer is not live while
     * its sends are refused; copy-out (with host buffers for what it holds back) keeps it from deadlocking.
     */
    @Property(tries = 200)
    void copyOutRescuesAConsumerThatWaitsForItsSends(@ForAll @IntRange(min = 2, max = 8) int p,
                                                     @ForAll @IntRange(min = 0, max = 3) int extraPerNode,
                                                     @ForAll @IntRange(min = 0, max = 0x7fff_ffff) int seed) {
        runRandomSchedule(p, extraPerNode, seed, true);
    }

    /** Found by the property: five update frames at once overflowed a receiver's spare buffers. */
    @Test
    void regressionP6R24() {
        runRandomSchedule(6, 2, 26, false);
    }

    private static void runRandomSchedule(int p, int extraPerNode, int seed, boolean receiveAfterSending) {
        SplittableRandom random = new SplittableRandom(seed);
        int r = 2 * p + extraPerNode * p + random.nextInt(p);
        int events = 6 + random.nextInt(10);
        CStarWorkload.Pattern[] patterns = new CStarWorkload.Pattern[events];
        for (int e = 0; e < events; e++) {
            patterns[e] = CStarWorkload.Pattern.values()[random.nextInt(3)];
        }
        int fragments = 1 + random.nextInt(5);
        CStarWorkload app = new CStarWorkload(p, events, fragments, CStarWorkload.FRAGMENT_HEADER, random.nextInt(4),
                patterns,
                random.nextBoolean());
        // each node's consumer sleeps until a random time, then consumes everything that arrives, for any event, even
        // while its own sends are refused: Theorem 1 assumes a consumer that eventually consumes every frame. One
        // that takes events only in order, or only after its own sends, is not that consumer, and only copy-out
        // helps it (the second property)
        app.receiveAfterSending = receiveAfterSending;
        app.greedy = !receiveAfterSending;
        long[] wakeAt = new long[p];
        for (int i = 0; i < p; i++) {
            wakeAt[i] = random.nextLong(2_000_000);
        }
        // without copy-out the windows alone must do; with it, enough host buffers for everything held back
        CarefulConfig cfg = CarefulConfig.defaults().withReceiveBuffers(r).withEventSlots(32)
                .withHostBuffers(receiveAfterSending ? events * fragments * p : 0);
        CarefulWorld[] world = new CarefulWorld[1];
        app.consumeGate = node -> world[0].vt.nanoTime() >= wakeAt[node];
        world[0] = new CarefulWorld(seed, cfg, FrameFaults.NONE, app);
        CarefulWorld w = world[0];
        for (int i = 0; i < p; i++) {
            int node = i;
            w.vt.newTimer("wake" + i, () -> {
                app.afterEvent(w.runner.node(node));
                w.runner.node(node).applicationActed();
            }).armAt(wakeAt[i]);
        }
        assertTrue(w.run(10 * SECOND), () -> "P = " + p + ", R = " + r + ": stuck\n" + w.state());
        assertEquals(0, app.errors(), () -> app.firstError());
        assertEquals(app.expectedTotal(), app.deliveredTotal());
        assertEquals(0, w.violations());
    }

    /** Both nodes send two fragments to each other per event, at the same time. */
    static CStarWorkload crossing() {
        return new CStarWorkload(2, 6, 2, CStarWorkload.FRAGMENT_HEADER, 0, CStarWorkload.all(RING, 6), false);
    }

    static CarefulConfig tight(int r) {
        return CarefulConfig.defaults().withReceiveBuffers(r).withEventSlots(8).withHostBuffers(0);
    }

    @Test
    void withTheRuleAndRTwoPTheCrossingTrafficCompletes() {
        CarefulWorld w = new CarefulWorld(1, tight(4), FrameFaults.NONE, crossing());
        assertTrue(w.run(SECOND), w::state);
        assertEquals(0, w.app.errors(), () -> w.app.firstError());
        assertTrue(w.cores[0].updateFramesSent() + w.cores[1].updateFramesSent() > 0,
                "windows of two frames need explicit updates");
    }

    @Test
    void aSenderIgnoringTheTwoFrameRuleDeadlocks() {
        CarefulWorld w = new CarefulWorld(1, tight(4).withSafety(CarefulConfig.Safety.IGNORE_TWO_FRAME_RULE),
                FrameFaults.NONE, crossing());
        assertFalse(w.run(SECOND), "stuck");
        assertEquals(0, w.vt.pendingEvents(), "nothing in flight, nothing left to happen:\n" + w.state());
        for (CarefulCore c : w.cores) {
            int peer = 1 - c.self();
            assertEquals(0, c.window(peer), "both windows closed by data frames: " + w.state());
            assertEquals(2, c.pendingUpdate(peer), "the update each owes the other cannot be sent");
            assertEquals(0, c.bufferedMessages(), "the applications consumed everything");
            assertTrue(c.blockedSends() > 0);
        }
        assertEquals(0, w.violations());
    }

    @Test
    void fewerThanTwoBuffersPerNodeDeadlocksAtOnce() {
        // R = 2P - 1: windows of one frame, which the two-frame rule never lets data through
        CarefulWorld w = new CarefulWorld(1, tight(3).withSafety(CarefulConfig.Safety.UNDERSIZED_WINDOWS),
                FrameFaults.NONE, crossing());
        assertEquals(1, w.cores[0].staticWindow());
        assertFalse(w.run(SECOND), "stuck");
        assertEquals(0, w.vt.pendingEvents(), "nothing in flight:\n" + w.state());
        for (CarefulCore c : w.cores) {
            assertEquals(1, c.window(1 - c.self()));
            assertEquals(0, c.dataFramesSent(), "no data frame ever left");
            assertTrue(c.blockedSends() > 0);
        }
    }
}
