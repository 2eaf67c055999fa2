package io.nicbridge.sim.ethernet;

import static io.nicbridge.sim.testing.TestFrames.fcsOk;
import static io.nicbridge.sim.testing.TestFrames.frame;
import static io.nicbridge.sim.testing.TestFrames.mac;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.sim.fault.FaultKind;
import io.nicbridge.sim.fault.FaultPlan;
import io.nicbridge.sim.testing.ManualVirtualTime;
import io.nicbridge.sim.testing.RealTimeForTests;
import io.nicbridge.sim.testing.TestFrames.Recorder;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EthernetSegmentFaultTest {
    static final byte[] A = mac(0x02, 0, 0, 0, 0, 0xA);
    static final byte[] B = mac(0x02, 0, 0, 0, 0, 0xB);
    static final long SPACING = 10_000;
    static final long FLIGHT = (64 + 8) * 80 + 500;

    static final FaultPlan SCHEDULE = FaultPlan.builder()
            .dropFrame(3).duplicateFrame(4).reorderFrame(5).delayFrame(7, 100_000).corruptFrame(9, 200).build();

    /** Sends frames 1..count of 64 bytes from a to b, one every SPACING ns; returns b's recorder. */
    static Recorder run(ManualVirtualTime vt, EthernetSegment wire, int count) {
        Recorder rb = new Recorder(vt);
        WirePort pa = wire.attach("a", new Recorder(vt));
        wire.attach("b", rb);
        for (int i = 1; i <= count; i++) {
            vt.runUntil(i * SPACING);
            vt.advanceTo(i * SPACING);
            byte[] f = frame(B, A, 0x0800, i, 64);
            pa.transmit(MemorySegment.ofArray(f), 0, f.length);
        }
        vt.runUntilIdle();
        return rb;
    }

    static long arrival(int seq) {
        return seq * SPACING + FLIGHT;
    }

    @Test
    void explicitScheduleInVirtualTime() {
        ManualVirtualTime vt = new ManualVirtualTime();
        EthernetSegment wire = EthernetSegment.builder(vt).faults(SCHEDULE).build();
        Recorder rb = run(vt, wire, 12);
        assertEquals(List.of(1, 2, 4, 4, 6, 5, 8, 9, 10, 11, 12, 7), rb.seqs());
        assertEquals(List.of(arrival(1), arrival(2), arrival(4), arrival(4), arrival(6), arrival(6), arrival(8),
                arrival(9), arrival(10), arrival(11), arrival(12), arrival(7) + 100_000), rb.times);
        for (int i = 0; i < rb.frames.size(); i++) {
            int seq = rb.seqs().get(i);
            byte[] sent = frame(B, A, 0x0800, seq, 64);
            if (seq == 9) {
                assertFalse(fcsOk(rb.frames.get(i)), "corrupted frame must fail the FCS check");
                sent[25] ^= 1; // bit 200 = byte 25, bit 0
                assertArrayEquals(sent, rb.frames.get(i), "exactly bit 200 inverted");
            } else {
                assertTrue(fcsOk(rb.frames.get(i)));
                assertArrayEquals(sent, rb.frames.get(i));
            }
        }
        for (FaultKind k : List.of(FaultKind.DROP, FaultKind.DUPLICATE, FaultKind.REORDER, FaultKind.DELAY,
                FaultKind.CORRUPT)) {
            assertEquals(1, wire.faultCount(k), k.name());
        }
        assertEquals(7, wire.faultCount(FaultKind.NONE));
        assertEquals(5, wire.faultsInjected());
        assertEquals(1, wire.drops(EthernetSegment.DropReason.FAULT));
        assertEquals(12, wire.frames());
        assertEquals(12, wire.deliveries());
        assertEquals(0, wire.inFlight());
    }

    @Test
    void explicitScheduleInRealTime() throws Exception {
        // The delay is wall-clock time: long enough that frames 8..12 are sent and delivered before it expires even
        // on a loaded 2-core machine (20 ms was not: the delayed frame sometimes overtook later ones there).
        FaultPlan plan = FaultPlan.builder()
                .dropFrame(3).duplicateFrame(4).reorderFrame(5).delayFrame(7, 300_000_000).corruptFrame(9, 200).build();
        try (RealTimeForTests rt = new RealTimeForTests();
                EthernetSegment wire = EthernetSegment.builder(rt).faults(plan).build()) {
            Recorder rb = new Recorder(rt);
            WirePort pa = wire.attach("a", new Recorder(rt));
            wire.attach("b", rb);
            for (int i = 1; i <= 12; i++) {
                byte[] f = frame(B, A, 0x0800, i, 64);
                assertEquals(0, pa.transmit(MemorySegment.ofArray(f), 0, f.length));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (rb.count() < 12 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            List<Integer> seqs = rb.seqs();
            assertEquals(12, seqs.size(), seqs.toString());
            assertEquals(7, seqs.get(11), "the delayed frame comes last: " + seqs);
            assertEquals(List.of(1, 2, 4, 4, 6, 5, 8, 9, 10, 11, 12), seqs.subList(0, 11));
            assertFalse(fcsOk(rb.frames.get(7)));
            assertEquals(5, wire.faultsInjected());
            assertEquals(0, wire.inFlight());
        }
    }

    @Test
    void reorderChainsAndReleaseBehindADroppedFrame() {
        ManualVirtualTime vt = new ManualVirtualTime();
        // 2 held; 3 also drawn for reorder: 2 released in 3's place, 3 held until 4; 6 held, 7 dropped:
        // 6 arrives when 7 would have.
        FaultPlan plan = FaultPlan.builder().reorderFrame(2).reorderFrame(3).reorderFrame(6).dropFrame(7).build();
        EthernetSegment wire = EthernetSegment.builder(vt).faults(plan).build();
        Recorder rb = run(vt, wire, 8);
        assertEquals(List.of(1, 2, 4, 3, 5, 6, 8), rb.seqs());
        assertEquals(List.of(arrival(1), arrival(3), arrival(4), arrival(4), arrival(5), arrival(7), arrival(8)),
                rb.times);
        assertEquals(3, wire.faultCount(FaultKind.REORDER));
    }

    @Test
    void heldFrameWithNoSuccessorStaysHeldAndShowsInCounters() {
        ManualVirtualTime vt = new ManualVirtualTime();
        EthernetSegment wire = EthernetSegment.builder(vt).faults(FaultPlan.builder().reorderFrame(3).build()).build();
        Recorder rb = run(vt, wire, 3);
        assertEquals(List.of(1, 2), rb.seqs());
        assertTrue(wire.holdsFrame());
        assertEquals(1, wire.inFlight());
        assertEquals(1, wire.faultCount(FaultKind.REORDER));
    }

    @Test
    void heldFrameRidesBehindADelayedOne() {
        ManualVirtualTime vt = new ManualVirtualTime();
        FaultPlan plan = FaultPlan.builder().reorderFrame(2).delayFrame(3, 50_000).build();
        EthernetSegment wire = EthernetSegment.builder(vt).faults(plan).build();
        Recorder rb = run(vt, wire, 4);
        assertEquals(List.of(1, 4, 3, 2), rb.seqs());
        assertEquals(List.of(arrival(1), arrival(4), arrival(3) + 50_000, arrival(3) + 50_000), rb.times);
    }

    /**
     * A seeded plan on many frames: every frame is accounted for. Received = sent - dropped +
     * duplicated - (held at the end); frames failing the FCS check = corrupted.
     */
    @Test
    void seededPlanEveryLossShowsInACounter() {
        ManualVirtualTime vt = new ManualVirtualTime();
        FaultPlan plan = FaultPlan.builder().seed(99)
                .drop(0.05).duplicate(0.05).reorder(0.05).delay(0.05, 0, 40_000).corrupt(0.05).build();
        EthernetSegment wire = EthernetSegment.builder(vt).faults(plan).build();
        int n = 2000;
        Recorder rb = run(vt, wire, n);
        long drop = wire.faultCount(FaultKind.DROP);
        long dup = wire.faultCount(FaultKind.DUPLICATE);
        long corrupt = wire.faultCount(FaultKind.CORRUPT);
        for (FaultKind k : FaultKind.values()) {
            assertTrue(wire.faultCount(k) > 0, k + " observed");
        }
        assertEquals(n, wire.faultCount(FaultKind.NONE) + wire.faultsInjected());
        long held = wire.holdsFrame() ? 1 : 0;
        assertEquals(0, wire.drops(EthernetSegment.DropReason.POOL_FULL));
        assertEquals(n - drop + dup - held, rb.count(), "drop " + drop + " dup " + dup + " held " + held + " deliveries "
                + wire.deliveries() + " inflight " + wire.inFlight());
        long bad = rb.frames.stream().filter(f -> !fcsOk(f)).count();
        assertEquals(corrupt, bad);
        assertEquals(drop, wire.drops(EthernetSegment.DropReason.FAULT));
        // every frame not dropped (or still held) arrived: the intact ones by sequence number (a
        // corrupted one may have its number hit, and one fault per frame means it was not duplicated)
        List<Integer> intact = new ArrayList<>();
        for (byte[] f : rb.frames) {
            if (fcsOk(f)) {
                intact.add(io.nicbridge.sim.testing.TestFrames.seqOf(f));
            }
        }
        assertEquals(n - drop - held, intact.stream().distinct().count() + corrupt);
        assertTrue(intact.stream().allMatch(s -> s >= 1 && s <= n));
        // exactly the same outcome with the same seed
        ManualVirtualTime vt2 = new ManualVirtualTime();
        EthernetSegment again = EthernetSegment.builder(vt2).faults(plan).build();
        Recorder rb2 = run(vt2, again, n);
        assertEquals(rb.seqs(), rb2.seqs());
        assertEquals(rb.times, rb2.times);
    }

    @Test
    void corruptedFrameKeepsItsAddresses() {
        ManualVirtualTime vt = new ManualVirtualTime();
        EthernetSegment wire = EthernetSegment.builder(vt)
                .faults(FaultPlan.builder().seed(5).corrupt(1.0).build()).build();
        Recorder rb = run(vt, wire, 300);
        assertEquals(300, rb.count());
        for (byte[] f : rb.frames) {
            assertFalse(fcsOk(f));
            assertArrayEquals(B, java.util.Arrays.copyOfRange(f, 0, 6));
            assertArrayEquals(A, java.util.Arrays.copyOfRange(f, 6, 12));
        }
    }
}
