package io.nicbridge.protocols.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class InMemoryMediumTest {
    private final VirtualTimeBase time = new VirtualTimeBase(1);

    private static final class Recorder implements LinkHandler {
        final List<String> events = new ArrayList<>();
        boolean hold;
        int held = Link.NONE;

        @Override
        public void onFrame(Link link, int h) {
            events.add("frame from " + link.rxPeer(h) + " len " + link.rxLength(h) + " first "
                    + link.rxBuffer(h).get(ValueLayout.JAVA_BYTE, 0));
            if (hold) {
                held = h;
            } else {
                link.release(h);
            }
        }

        @Override
        public void onWritable(Link link) {
            events.add("writable");
        }
    }

    private static void send(Link l, int peer, int len, byte first) {
        int h = l.claim(peer);
        l.txBuffer(h).set(ValueLayout.JAVA_BYTE, 0, first);
        l.commit(h, len);
    }

    @Test
    void framesArriveAfterLatencyPlusTransmissionInSendOrderAndSayWhoSentThem() {
        InMemoryMedium m = new InMemoryMedium(time, new InMemoryMedium.Config(3, 100, 2, 4, 1_000, 80),
                FrameFaults.NONE, HostCpu.forNodes(3, CostTable.zero(), time));
        Link a = m.link(0);
        Link b = m.link(1);
        int[] ready = {0};
        b.readinessListener(() -> ready[0]++);
        send(a, 1, 100, (byte) 7);
        send(a, 1, 10, (byte) 8); // shorter, but may not overtake
        assertEquals(Link.NONE, a.claim(1), "two transmit buffers, both flying");
        assertEquals(1, a.counters().txBackPressure());
        time.runUntil(8_999);
        assertEquals(0, ready[0]);
        time.runUntil(9_000); // 1000 + 100 * 80
        assertEquals(2, ready[0]);
        Recorder r = new Recorder();
        assertEquals(2, b.poll(r, 10));
        assertEquals(List.of("frame from 0 len 100 first 7", "frame from 0 len 10 first 8"), r.events);
        Recorder ra = new Recorder();
        a.poll(ra, 10);
        assertEquals(List.of("writable"), ra.events, "the refused claim is answered once buffers are free");
        assertEquals(2, b.counters().rxFrames());
    }

    @Test
    void aFullReceiverDropsAndCountsAndHeldFramesStayInPlace() {
        InMemoryMedium m = new InMemoryMedium(time, new InMemoryMedium.Config(2, 16, 4, 2, 0, 0), FrameFaults.NONE,
                HostCpu.forNodes(2, CostTable.zero(), time));
        Link a = m.link(0);
        Link b = m.link(1);
        for (int i = 0; i < 3; i++) {
            send(a, 1, 4, (byte) i);
        }
        time.runUntilIdle();
        assertEquals(1, b.counters().rxDrops());
        Recorder r = new Recorder();
        r.hold = true;
        assertEquals(1, b.poll(r, 1));
        int h = r.held;
        assertEquals(0, b.rxBuffer(h).get(ValueLayout.JAVA_BYTE, 0));
        b.release(h);
        assertThrows(IllegalStateException.class, () -> b.release(h), "double release");
    }

    @Test
    void faultsDropDuplicateDelayAndCorrupt() {
        FrameFaults faults = (i, s, d, now, fate) -> {
            if (i == 0) {
                fate.drop = true;
            } else if (i == 1) {
                fate.duplicateAfterNanos = 500;
            } else if (i == 2) {
                fate.corruptOffset = 0;
                fate.corruptMask = (byte) 0x80;
            }
        };
        InMemoryMedium m = new InMemoryMedium(time, new InMemoryMedium.Config(2, 16, 4, 8, 100, 0), faults,
                HostCpu.forNodes(2, CostTable.zero(), time));
        Link a = m.link(0);
        Link b = m.link(1);
        send(a, 1, 4, (byte) 1);
        send(a, 1, 4, (byte) 2);
        send(a, 1, 4, (byte) 3);
        time.runUntilIdle();
        Recorder r = new Recorder();
        b.poll(r, 10);
        assertEquals(List.of("frame from 0 len 4 first 2", "frame from 0 len 4 first -125",
                "frame from 0 len 4 first 2"), r.events);
        assertEquals(1, m.faultDrops());
        assertEquals(3, m.framesFaulted());
    }

    @Test
    void broadcastReachesEveryOtherNode() {
        InMemoryMedium m = new InMemoryMedium(time, new InMemoryMedium.Config(3, 16, 1, 1, 0, 0), FrameFaults.NONE,
                HostCpu.forNodes(3, CostTable.zero(), time));
        assertTrue(m.link(0).canBroadcast());
        send(m.link(0), Link.BROADCAST, 3, (byte) 9);
        time.runUntilIdle();
        for (int n = 1; n < 3; n++) {
            Recorder r = new Recorder();
            assertEquals(1, m.link(n).poll(r, 5));
        }
        assertEquals(0, m.link(0).poll(new Recorder(), 5));
    }

    @Test
    void misuseIsRefusedAndChangesNothing() {
        InMemoryMedium m = new InMemoryMedium(time, new InMemoryMedium.Config(2, 16, 1, 1, 0, 0), FrameFaults.NONE,
                HostCpu.forNodes(2, CostTable.zero(), time));
        Link a = m.link(0);
        assertThrows(IllegalArgumentException.class, () -> a.claim(0), "to itself");
        assertThrows(IllegalArgumentException.class, () -> a.claim(2));
        assertThrows(IllegalStateException.class, () -> a.commit(0, 1), "never claimed");
        int h = a.claim(1);
        assertThrows(IllegalArgumentException.class, () -> a.commit(h, 17));
        assertThrows(IllegalArgumentException.class, () -> a.commit(h, 0));
        a.abort(h);
        assertThrows(IllegalStateException.class, () -> a.abort(h));
        assertThrows(IllegalStateException.class, () -> a.rxLength(0));
        assertEquals(0, a.counters().txFrames());
        assertNull(a.capability(String.class));
        a.close();
        assertThrows(IllegalStateException.class, () -> a.claim(1));
        assertFalse(a.name().isEmpty());
        assertThrows(IllegalArgumentException.class, () -> new InMemoryMedium.Config(1, 16, 1, 1, 0, 0));
    }
}
