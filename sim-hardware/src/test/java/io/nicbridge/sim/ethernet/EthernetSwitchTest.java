package io.nicbridge.sim.ethernet;

import static io.nicbridge.sim.testing.TestFrames.frame;
import static io.nicbridge.sim.testing.TestFrames.mac;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.nicbridge.sim.fault.FaultPlan;
import io.nicbridge.sim.testing.ManualVirtualTime;
import io.nicbridge.sim.testing.TestFrames.Recorder;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The store-and-forward learning switch ({@link EthernetMode#SWITCHED}): 100 Mb/s links, 500 ns each. */
class EthernetSwitchTest {
    static final byte[] BCAST = mac(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF);
    static final byte[] A = mac(0x02, 0, 0, 0, 0, 0xA);
    static final byte[] B = mac(0x02, 0, 0, 0, 0, 0xB);
    static final byte[] C = mac(0x02, 0, 0, 0, 0, 0xC);

    static long send(WirePort p, byte[] f) {
        return p.transmit(MemorySegment.ofArray(f), 0, f.length);
    }

    /**
     * Model self-check: a broadcast from C is flooded (A and B get it, each 2 x ((64 + 8) x 80 + 500) = 12 520 ns
     * after it started: across C's link, stored, across the output port's link); afterwards the switch knows C's
     * port and a unicast to C reaches C only.
     */
    @Test
    void floodsUnknownAndBroadcastThenForwardsToTheLearnedPort() {
        ManualVirtualTime time = new ManualVirtualTime();
        try (EthernetSegment sw = EthernetSegment.builder(time).mode(EthernetMode.SWITCHED).build()) {
            Recorder ra = new Recorder(time), rb = new Recorder(time), rc = new Recorder(time);
            WirePort pa = sw.attach("a", ra);
            sw.attach("b", rb);
            WirePort pc = sw.attach("c", rc);
            assertEquals(6720, send(pc, frame(BCAST, C, 0x88B5, 1, 64)), "C's own link, as on the ideal medium");
            time.runUntilIdle();
            assertEquals(List.of(12_520L), ra.times);
            assertEquals(List.of(12_520L), rb.times);
            send(pa, frame(C, A, 0x88B5, 2, 64));
            time.runUntilIdle();
            assertEquals(1, rc.count());
            assertEquals(1, rb.count(), "B does not see A's frame to C");
            assertEquals(3, sw.deliveries());
        }
    }

    /**
     * A and B each send 20 frames to C at once: C's port gets two frames per frame time and drains one, so with a
     * buffer of 4 frames it overflows; every frame is either delivered to C or tail-dropped at C's port, and
     * nothing is dropped elsewhere.
     */
    @Test
    void fullOutputBufferTailDropsAndCountsPerPort() {
        ManualVirtualTime time = new ManualVirtualTime();
        try (EthernetSegment sw = EthernetSegment.builder(time).mode(EthernetMode.SWITCHED).portBufferFrames(4)
                .build()) {
            Recorder ra = new Recorder(time), rb = new Recorder(time), rc = new Recorder(time);
            WirePort pa = sw.attach("a", ra);
            WirePort pb = sw.attach("b", rb);
            WirePort pc = sw.attach("c", rc);
            send(pc, frame(BCAST, C, 0x88B5, 0, 64));
            time.runUntilIdle();
            for (int i = 1; i <= 20; i++) {
                send(pa, frame(C, A, 0x88B5, i, 64));
                send(pb, frame(C, B, 0x88B5, 100 + i, 64));
            }
            time.runUntilIdle();
            long drops = sw.tailDrops("c");
            assertEquals(40, rc.count() + drops);
            assertEquals(drops, sw.drops(EthernetSegment.DropReason.OUTPUT_BUFFER_FULL));
            assertEquals(0, sw.tailDrops("a") + sw.tailDrops("b"));
            // Model self-check, by hand: pairs arrive at C's port at 6260 + 6720 k; one frame leaves per 6720 ns
            // and a frame counts until its last bit has left. k = 0: 2 held; k = 1: one left, 3 held; k = 2: one
            // left, 4 held; from k = 3 on one leaves, one of the pair fits, the other is dropped: 17 drops, 23 sent.
            assertEquals(17, drops, "C got " + rc.count());
            assertEquals(23, rc.count());
        }
    }

    @Test
    void switchedNeedsVirtualTimeAndNoFaultPlan() {
        ManualVirtualTime time = new ManualVirtualTime();
        assertThrows(IllegalArgumentException.class, () -> EthernetSegment.builder(time)
                .mode(EthernetMode.SWITCHED).faults(FaultPlan.builder().seed(1).drop(0.1).build()).build());
        assertThrows(IllegalArgumentException.class, () -> EthernetSegment.builder(time).portBufferFrames(0));
    }
}
