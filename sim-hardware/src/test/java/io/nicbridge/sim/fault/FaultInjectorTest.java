package io.nicbridge.sim.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FaultInjectorTest {

    @Test
    void explicitScheduleHitsExactlyTheNamedFrames() {
        FaultPlan plan = FaultPlan.builder()
                .corruptFrame(7, 100).dropFrame(3).duplicateFrame(4).reorderFrame(5).delayFrame(6, 12_345)
                .build();
        FaultInjector inj = plan.newInjector();
        List<FaultKind> kinds = new ArrayList<>();
        for (int i = 1; i <= 9; i++) {
            FaultKind k = inj.next(64);
            kinds.add(k);
            if (k == FaultKind.DELAY) {
                assertEquals(12_345, inj.delayNanos());
            }
            if (k == FaultKind.CORRUPT) {
                assertEquals(100, inj.corruptBit());
            }
        }
        assertEquals(List.of(FaultKind.NONE, FaultKind.NONE, FaultKind.DROP, FaultKind.DUPLICATE, FaultKind.REORDER,
                FaultKind.DELAY, FaultKind.CORRUPT, FaultKind.NONE, FaultKind.NONE), kinds);
        assertEquals(9, inj.frames());
        assertEquals(5, inj.injected());
        assertEquals(4, inj.count(FaultKind.NONE));
        for (FaultKind k : List.of(FaultKind.DROP, FaultKind.DUPLICATE, FaultKind.REORDER, FaultKind.DELAY,
                FaultKind.CORRUPT)) {
            assertEquals(1, inj.count(k), k.name());
        }
    }

    @Test
    void scheduledBitBeyondTheFrameWrapsAroundItsLength() {
        FaultInjector inj = FaultPlan.builder().corruptFrame(1, 64 * 8 + 5).build().newInjector();
        assertEquals(FaultKind.CORRUPT, inj.next(64));
        assertEquals(5, inj.corruptBit());
    }

    /** Replays the documented draw rule independently and compares every decision. */
    @Test
    void seededProbabilitiesFollowTheDocumentedDrawRule() {
        long seed = 20261121L;
        FaultPlan plan = FaultPlan.builder().seed(seed)
                .drop(0.05).duplicate(0.04).reorder(0.03).delay(0.02, 1_000, 9_000).corrupt(0.06).build();
        FaultInjector inj = plan.newInjector();
        SplittableRandom r = new SplittableRandom(seed);
        long[] expected = new long[FaultKind.count()];
        int frames = 20_000;
        for (int i = 0; i < frames; i++) {
            int length = 64 + (i % 1455);
            double u = r.nextDouble();
            FaultKind want;
            long delay = -1;
            long bit = -1;
            if (u < 0.05) {
                want = FaultKind.DROP;
            } else if (u < 0.09) {
                want = FaultKind.DUPLICATE;
            } else if (u < 0.12) {
                want = FaultKind.REORDER;
            } else if (u < 0.14) {
                want = FaultKind.DELAY;
                delay = r.nextLong(1_000, 9_001);
            } else if (u < 0.20) {
                want = FaultKind.CORRUPT;
                bit = r.nextLong(12 * 8, length * 8L);
            } else {
                want = FaultKind.NONE;
            }
            FaultKind got = inj.next(length, 12);
            assertEquals(want, got, "frame " + (i + 1));
            if (delay >= 0) {
                assertEquals(delay, inj.delayNanos());
                assertTrue(delay >= 1_000 && delay <= 9_000);
            }
            if (bit >= 0) {
                assertEquals(bit, inj.corruptBit());
            }
            expected[want.ordinal()]++;
        }
        for (FaultKind k : FaultKind.values()) {
            assertEquals(expected[k.ordinal()], inj.count(k), k.name());
        }
        // and the rates are what was asked for (loose bounds: 20 000 draws)
        assertEquals(0.05, inj.count(FaultKind.DROP) / (double) frames, 0.01);
        assertEquals(0.06, inj.count(FaultKind.CORRUPT) / (double) frames, 0.01);
        assertEquals(0.80, inj.count(FaultKind.NONE) / (double) frames, 0.02);
    }

    @Test
    void sameSeedSameDecisionsDifferentSeedDifferent() {
        FaultPlan a = FaultPlan.builder().seed(7).drop(0.2).corrupt(0.2).build();
        FaultPlan b = FaultPlan.builder().seed(8).drop(0.2).corrupt(0.2).build();
        assertEquals(trace(a), trace(a));
        assertTrue(!trace(a).equals(trace(b)));
    }

    private static List<String> trace(FaultPlan p) {
        FaultInjector inj = p.newInjector();
        List<String> t = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            FaultKind k = inj.next(100);
            t.add(k == FaultKind.CORRUPT ? k + ":" + inj.corruptBit() : k.name());
        }
        return t;
    }

    @Test
    void scheduleTakesPrecedenceOverProbabilities() {
        FaultInjector inj = FaultPlan.builder().seed(1).drop(1.0).corruptFrame(2, 3).build().newInjector();
        assertEquals(FaultKind.DROP, inj.next(64));
        assertEquals(FaultKind.CORRUPT, inj.next(64));
        assertEquals(FaultKind.DROP, inj.next(64));
    }

    @Test
    void noneNeverFaults() {
        FaultInjector inj = FaultPlan.NONE.newInjector();
        for (int i = 0; i < 1000; i++) {
            assertEquals(FaultKind.NONE, inj.next(64));
        }
        assertEquals(0, inj.injected());
        assertTrue(FaultPlan.NONE.isNone());
    }

    @Test
    void seededCorruptionSparesTheProtectedPrefix() {
        FaultInjector inj = FaultPlan.builder().seed(3).corrupt(1.0).build().newInjector();
        for (int i = 0; i < 5000; i++) {
            inj.next(64, 12);
            assertTrue(inj.corruptBit() >= 96 && inj.corruptBit() < 512, "bit " + inj.corruptBit());
        }
        // a frame no longer than the prefix may be hit anywhere
        inj.next(10, 12);
        assertTrue(inj.corruptBit() < 80);
    }

    @Test
    void flipBitInvertsExactlyThatBitLeastSignificantFirst() {
        byte[] b = new byte[8];
        MemorySegment s = MemorySegment.ofArray(b);
        FaultInjector.flipBit(s, 2, 0);
        FaultInjector.flipBit(s, 2, 15);
        assertEquals(1, b[2]);
        assertEquals((byte) 0x80, b[3]);
        FaultInjector.flipBit(s, 2, 0);
        assertEquals(0, b[2]);
    }

    @Test
    void parseUnderstandsTheTextForm() {
        FaultPlan p = FaultPlan.parse("seed=42, drop=0.01 duplicate=0.02 reorder=0.03 delay=0.04:1000-5000 corrupt=0.05 "
                + "drop@3 dup@4 reorder@5 delay@9:5000 corrupt@7 corrupt@8:100");
        assertEquals(42, p.seed());
        assertEquals(0.01, p.probability(FaultKind.DROP));
        assertEquals(0.02, p.probability(FaultKind.DUPLICATE));
        assertEquals(0.03, p.probability(FaultKind.REORDER));
        assertEquals(0.04, p.probability(FaultKind.DELAY));
        assertEquals(0.05, p.probability(FaultKind.CORRUPT));
        assertEquals(1000, p.delayMinNanos());
        assertEquals(5000, p.delayMaxNanos());
        assertEquals(6, p.scheduledCount());
        assertEquals("seed=42 drop=0.01 duplicate=0.02 reorder=0.03 delay=0.04:1000-5000 corrupt=0.05 drop@3 "
                + "duplicate@4 reorder@5 corrupt@7 corrupt@8:100 delay@9:5000", p.toString());
        assertEquals(p.toString(), FaultPlan.parse(p.toString()).toString());
        FaultInjector inj = FaultPlan.parse("drop@2").newInjector();
        assertEquals(FaultKind.NONE, inj.next(64));
        assertEquals(FaultKind.DROP, inj.next(64));
    }

    @Test
    void badPlansAreRejectedWithTheReason() {
        assertMessage("sum", () -> FaultPlan.builder().drop(0.6).corrupt(0.6).build());
        assertMessage("[0, 1]", () -> FaultPlan.builder().drop(-0.1));
        assertMessage("[0, 1]", () -> FaultPlan.builder().drop(Double.NaN));
        assertMessage("numbered from 1", () -> FaultPlan.builder().dropFrame(0));
        assertMessage("already scheduled", () -> FaultPlan.builder().dropFrame(3).corruptFrame(3));
        assertMessage("min <= max", () -> FaultPlan.builder().delay(0.1, 10, 5));
        assertMessage("'bogus@3'", () -> FaultPlan.parse("bogus@3"));
        assertMessage("'delay@3'", () -> FaultPlan.parse("delay@3"));
        assertMessage("'drop=x'", () -> FaultPlan.parse("drop=x"));
        assertMessage("'drop'", () -> FaultPlan.parse("drop"));
        assertMessage("> 0", () -> FaultPlan.NONE.newInjector().next(0));
    }

    private static void assertMessage(String part, org.junit.jupiter.api.function.Executable e) {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, e);
        assertTrue(x.getMessage().contains(part), x.getMessage());
    }
}
