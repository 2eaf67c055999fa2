package io.nicbridge.protocols.dst;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PartitionedLinkTest {
    private final VirtualTimeBase time = new VirtualTimeBase(1);
    private final InMemoryMedium medium = new InMemoryMedium(time, new InMemoryMedium.Config(3, 64, 4, 2, 1_000, 0),
            FrameFaults.NONE, HostCpu.forNodes(3, CostTable.zero(), time));

    private static void send(Link l, int peer, byte tag) {
        int h = l.claim(peer);
        l.txBuffer(h).set(ValueLayout.JAVA_BYTE, 0, tag);
        l.commit(h, 8);
    }

    private static final class Recorder implements LinkHandler {
        final List<String> got = new ArrayList<>();

        @Override
        public void onFrame(Link link, int h) {
            got.add(link.rxPeer(h) + ":" + link.rxBuffer(h).get(ValueLayout.JAVA_BYTE, 0));
            link.release(h);
        }

        @Override
        public void onWritable(Link link) {
        }
    }

    @Test
    void whileInForceArrivalsFromTheOtherSideAreReleasedUnreadAndCountedThenItHeals() {
        // Node 0 alone on side 1 from 0 to 10 us; nodes 1 and 2 on side 0.
        Schedule s = Schedule.parse("1/3/1/partition@0:10000:1");
        Link n0 = PartitionedLink.wrap(medium.link(0), time, s);
        Link n2 = PartitionedLink.wrap(medium.link(2), time, s);
        Recorder r0 = new Recorder();
        Recorder r2 = new Recorder();
        send(medium.link(1), 0, (byte) 1); // crosses the cut
        send(medium.link(1), 2, (byte) 2); // same side
        send(medium.link(1), 0, (byte) 3); // crosses the cut: node 0 has only 2 receive slots, so each must be freed
        time.runUntil(2_000);
        assertEquals(2, n0.poll(r0, 10));
        assertEquals(List.of(), r0.got, "nothing crosses while the partition holds");
        assertEquals(2, PartitionedLink.dropped(n0));
        n2.poll(r2, 10);
        assertEquals(List.of("1:2"), r2.got);
        assertEquals(0, PartitionedLink.dropped(n2));
        time.runUntil(10_000); // healed
        send(medium.link(1), 0, (byte) 4);
        send(medium.link(1), 0, (byte) 5);
        time.runUntil(12_000);
        n0.poll(r0, 10);
        assertEquals(List.of("1:4", "1:5"), r0.got,
                "after the heal frames cross again, and the cut ones freed their receive slots");
        assertEquals(2, PartitionedLink.dropped(n0));
        assertTrue(n0.toString().contains("2 frames cut"), n0.toString());
    }

    @Test
    void aScheduleWithoutPartitionsLeavesTheLinkAlone() {
        Link l = medium.link(0);
        assertSame(l, PartitionedLink.wrap(l, time, Schedule.parse("1/3/1/drop@1:0")));
        assertEquals(0, PartitionedLink.dropped(l));
    }
}
