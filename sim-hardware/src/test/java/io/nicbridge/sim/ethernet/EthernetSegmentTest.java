package io.nicbridge.sim.ethernet;

import static io.nicbridge.sim.testing.TestFrames.frame;
import static io.nicbridge.sim.testing.TestFrames.mac;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.sim.testing.ManualVirtualTime;
import io.nicbridge.sim.testing.RealTimeForTests;
import io.nicbridge.sim.testing.TestFrames.Recorder;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

class EthernetSegmentTest {
    static final byte[] A = mac(0x02, 0, 0, 0, 0, 0xA);
    static final byte[] B = mac(0x02, 0, 0, 0, 0, 0xB);
    static final byte[] BCAST = mac(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF);

    static MemorySegment seg(byte[] b) {
        return MemorySegment.ofArray(b);
    }

    @Test
    void realTimeDeliversAtOnceToEveryOtherStationButNotTheSender() {
        try (RealTimeForTests rt = new RealTimeForTests();
                EthernetSegment wire = EthernetSegment.builder(rt).name("rt").build()) {
            Recorder ra = new Recorder(rt), rb = new Recorder(rt), rc = new Recorder(rt);
            WirePort pa = wire.attach("a", ra);
            wire.attach("b", rb);
            wire.attach("c", rc);
            byte[] f = frame(BCAST, A, 0x0800, 1, 64);
            assertEquals(0, pa.transmit(seg(f), 0, f.length));
            assertEquals(0, ra.count());
            assertEquals(1, rb.count());
            assertEquals(1, rc.count());
            assertArrayEquals(f, rb.frames.get(0));
            assertArrayEquals(f, rc.frames.get(0));
            assertEquals(1, wire.frames());
            assertEquals(64, wire.bytes());
            assertEquals(2, wire.deliveries());
        }
    }

    @Test
    void realTimeTransmitFromOffsetInsideALargerSegment() {
        try (RealTimeForTests rt = new RealTimeForTests();
                EthernetSegment wire = EthernetSegment.builder(rt).build()) {
            Recorder rb = new Recorder(rt);
            WirePort pa = wire.attach("a", new Recorder(rt));
            wire.attach("b", rb);
            byte[] f = frame(B, A, 0x0800, 9, 100);
            byte[] big = new byte[300];
            System.arraycopy(f, 0, big, 77, f.length);
            pa.transmit(seg(big), 77, f.length);
            assertArrayEquals(f, rb.frames.get(0));
        }
    }

    @Test
    void sinkMayTransmitAgainFromInsideDelivery() {
        // What an inline engine does: the receiving card answers on the delivering thread.
        try (RealTimeForTests rt = new RealTimeForTests();
                EthernetSegment wire = EthernetSegment.builder(rt).build()) {
            Recorder ra = new Recorder(rt);
            WirePort pa = wire.attach("a", ra);
            WirePort[] pb = new WirePort[1];
            byte[] reply = frame(A, B, 0x0800, 2, 64);
            pb[0] = wire.attach("b", (frame, off, len) -> pb[0].transmit(seg(reply), 0, reply.length));
            byte[] f = frame(B, A, 0x0800, 1, 64);
            pa.transmit(seg(f), 0, f.length);
            assertEquals(1, ra.count());
            assertArrayEquals(reply, ra.frames.get(0));
            assertEquals(2, wire.frames());
        }
    }

    @Test
    void virtualTime64ByteFrameArrivesAfterPreambleFrameAndPropagation() {
        ManualVirtualTime vt = new ManualVirtualTime();
        vt.advanceTo(1_000);
        EthernetSegment wire = EthernetSegment.builder(vt).propagationNanos(500).build();
        Recorder rb = new Recorder(vt);
        WirePort pa = wire.attach("a", new Recorder(vt));
        wire.attach("b", rb);
        byte[] f = frame(B, A, 0x0800, 1, 64);
        long busy = pa.transmit(seg(f), 0, f.length);
        assertEquals(6_720, busy, "(64 + 20) x 80 ns");
        assertEquals(1_000 + 6_720, wire.mediumFreeAt());
        assertEquals(0, rb.count(), "nothing arrives before its last bit");
        vt.runUntilIdle();
        assertEquals(List.of(1_000L + (64 + 8) * 80 + 500), rb.times);
        assertArrayEquals(f, rb.frames.get(0));
        assertEquals(0, wire.inFlight());
    }

    @Test
    void virtualTimeMaximumFrameOccupies123_04Microseconds() {
        ManualVirtualTime vt = new ManualVirtualTime();
        EthernetSegment wire = EthernetSegment.builder(vt).propagationNanos(0).build();
        Recorder rb = new Recorder(vt);
        WirePort pa = wire.attach("a", new Recorder(vt));
        wire.attach("b", rb);
        byte[] f = frame(B, A, 0x0800, 1, 1518);
        assertEquals(123_040, pa.transmit(seg(f), 0, f.length));
        vt.runUntilIdle();
        assertEquals(List.of((1518L + 8) * 80), rb.times);
    }

    @Test
    void tenMegabitSegmentIsTenTimesSlower() {
        ManualVirtualTime vt = new ManualVirtualTime();
        EthernetSegment wire = EthernetSegment.builder(vt).bitRate(10_000_000).propagationNanos(0).build();
        WirePort pa = wire.attach("a", new Recorder(vt));
        wire.attach("b", new Recorder(vt));
        byte[] f = frame(B, A, 0x0800, 1, 64);
        assertEquals(67_200, pa.transmit(seg(f), 0, f.length));
    }

    @Test
    void backToBackFramesQueueOnTheSharedMedium() {
        ManualVirtualTime vt = new ManualVirtualTime();
        EthernetSegment wire = EthernetSegment.builder(vt).propagationNanos(500).build();
        Recorder ra = new Recorder(vt), rb = new Recorder(vt);
        WirePort pa = wire.attach("a", ra);
        WirePort pb = wire.attach("b", rb);
        byte[] f1 = frame(B, A, 0x0800, 1, 64);
        byte[] f2 = frame(B, A, 0x0800, 2, 1518);
        byte[] f3 = frame(A, B, 0x0800, 3, 64);
        assertEquals(6_720, pa.transmit(seg(f1), 0, f1.length));
        // a's second frame waits for the first one and its gap: returns wait + its own time
        assertEquals(6_720 + 123_040, pa.transmit(seg(f2), 0, f2.length));
        // b transmits at the same instant and defers behind both
        assertEquals(6_720 + 123_040 + 6_720, pb.transmit(seg(f3), 0, f3.length));
        assertEquals(2, wire.deferrals());
        assertEquals(3, wire.inFlight());
        vt.runUntilIdle();
        assertEquals(List.of(72L * 80 + 500, 6_720L + 1526 * 80 + 500), rb.times);
        assertEquals(List.of(1, 2), rb.seqs());
        assertEquals(List.of(6_720L + 123_040 + 72 * 80 + 500), ra.times);
        assertEquals(3, wire.frames());
        assertEquals(64 + 1518 + 64, wire.bytes());
        assertEquals(3, wire.deliveries());
        // later transmit on an idle medium starts at once: no deferral
        vt.advanceTo(1_000_000);
        assertEquals(6_720, pa.transmit(seg(f1), 0, f1.length));
        assertEquals(2, wire.deferrals());
    }

    @Test
    void senderMayReuseItsBufferAtOnce() {
        ManualVirtualTime vt = new ManualVirtualTime();
        EthernetSegment wire = EthernetSegment.builder(vt).build();
        Recorder rb = new Recorder(vt);
        WirePort pa = wire.attach("a", new Recorder(vt));
        wire.attach("b", rb);
        byte[] f = frame(B, A, 0x0800, 1, 64);
        byte[] copy = f.clone();
        pa.transmit(seg(f), 0, f.length);
        java.util.Arrays.fill(f, (byte) 0);
        vt.runUntilIdle();
        assertArrayEquals(copy, rb.frames.get(0));
    }

    @Test
    void fullInFlightPoolDropsAndCounts() {
        ManualVirtualTime vt = new ManualVirtualTime();
        EthernetSegment wire = EthernetSegment.builder(vt).maxInFlight(2).build();
        Recorder rb = new Recorder(vt);
        WirePort pa = wire.attach("a", new Recorder(vt));
        wire.attach("b", rb);
        for (int i = 1; i <= 3; i++) {
            byte[] f = frame(B, A, 0x0800, i, 64);
            pa.transmit(seg(f), 0, f.length);
        }
        assertEquals(1, wire.drops(EthernetSegment.DropReason.POOL_FULL));
        vt.runUntilIdle();
        assertEquals(List.of(1, 2), rb.seqs());
        byte[] f = frame(B, A, 0x0800, 4, 64);
        pa.transmit(seg(f), 0, f.length);
        vt.runUntilIdle();
        assertEquals(List.of(1, 2, 4), rb.seqs(), "slots come back after delivery");
    }

    @Test
    void tooLongFrameIsDroppedAndCounted() {
        ManualVirtualTime vt = new ManualVirtualTime();
        EthernetSegment wire = EthernetSegment.builder(vt).maxFrameBytes(1600).build();
        Recorder rb = new Recorder(vt);
        WirePort pa = wire.attach("a", new Recorder(vt));
        wire.attach("b", rb);
        byte[] f = frame(B, A, 0x0800, 1, 1601);
        assertEquals((1601 + 20) * 80, pa.transmit(seg(f), 0, f.length), "it still occupied the medium");
        vt.runUntilIdle();
        assertEquals(0, rb.count());
        assertEquals(1, wire.drops(EthernetSegment.DropReason.TOO_LONG));
    }

    @Test
    void modelFiguresMatchTheArithmetic() {
        ManualVirtualTime vt = new ManualVirtualTime();
        EthernetSegment wire = EthernetSegment.builder(vt).build();
        assertEquals(6_260, wire.arrivalNanos(64));
        assertEquals(6_720, wire.occupancyNanos(64));
        assertEquals(123_040, wire.occupancyNanos(1518));
        assertEquals(1526 * 80 + 500, wire.arrivalNanos(1518));
        assertEquals(500, wire.propagationNanos());
        assertEquals(100_000_000L, wire.bitRate());
        String d = wire.modelDescription();
        assertTrue(d.contains("6720 ns") && d.contains("6260 ns") && d.contains("500 ns"), d);
        try (RealTimeForTests rt = new RealTimeForTests()) {
            assertTrue(EthernetSegment.builder(rt).build().modelDescription().contains("real time"));
        }
    }

    @Test
    void badArgumentsAreRejectedWithAMessage() {
        ManualVirtualTime vt = new ManualVirtualTime();
        EthernetSegment wire = EthernetSegment.builder(vt).build();
        WirePort pa = wire.attach("a", new Recorder(vt));
        byte[] f = new byte[64];
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pa.transmit(seg(f), 10, 64));
        assertTrue(e.getMessage().contains("outside"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> pa.transmit(seg(f), 0, 0));
        assertThrows(IllegalArgumentException.class, () -> pa.transmit(seg(f), -1, 10));
        assertThrows(IllegalArgumentException.class, () -> wire.attach("a", new Recorder(vt)));
        assertThrows(IllegalArgumentException.class, () -> EthernetSegment.builder(vt).propagationNanos(-1));
        assertThrows(IllegalArgumentException.class, () -> EthernetSegment.builder(vt).maxInFlight(0));
        assertThrows(IllegalArgumentException.class, () -> EthernetSegment.builder(vt).bitRate(0));
        assertEquals(0, wire.frames());
    }
}
