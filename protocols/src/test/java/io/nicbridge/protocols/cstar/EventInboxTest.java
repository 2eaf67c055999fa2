package io.nicbridge.protocols.cstar;

import static io.nicbridge.protocols.cstar.CStarNetwork.ANY;
import static io.nicbridge.protocols.cstar.CStarNetwork.BCAST_EVENT;
import static io.nicbridge.protocols.cstar.CStarNetwork.EVENT_DONE;
import static io.nicbridge.protocols.cstar.CStarNetwork.LAST_FRAG;
import static io.nicbridge.protocols.cstar.CStarNetwork.MORE;
import static io.nicbridge.protocols.cstar.CStarNetwork.NODE_DONE;
import static io.nicbridge.protocols.cstar.CStarNetwork.NOTHING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The shared receive side on real link buffers (an in-memory medium of 4 nodes, node 0 receiving): each test frame
 * carries {@code [event, index, flags, mark]} and the inbox files it with the payload at offset 3.
 */
class EventInboxTest {
    static final int NODES = 4;
    static final int RX = 8;

    final VirtualTimeBase time = new VirtualTimeBase(7);
    final HostCpu[] cpus = HostCpu.forNodes(NODES, CostTable.zero(), time);
    final InMemoryMedium medium = new InMemoryMedium(time, new InMemoryMedium.Config(NODES, 64, 4, RX, 100, 0),
            FrameFaults.NONE, cpus);
    final Link rx = medium.link(0);
    final EventInbox inbox = new EventInbox(rx, cpus[0], NODES, 4, RX, 3, 64);
    final List<Integer> codes = new ArrayList<>();
    final List<String> got = new ArrayList<>();

    final LinkHandler filer = new LinkHandler() {
        @Override
        public void onFrame(Link link, int h) {
            MemorySegment b = link.rxBuffer(h);
            int code = inbox.add(link.rxPeer(h), b.get(ValueLayout.JAVA_BYTE, 0), b.get(ValueLayout.JAVA_BYTE, 1),
                    b.get(ValueLayout.JAVA_BYTE, 2), h, 3, link.rxLength(h) - 3);
            codes.add(code);
            if (code != EventInbox.ADDED) {
                link.release(h);
            }
        }

        @Override
        public void onWritable(Link link) {
        }
    };

    final FragmentHandler recorder = (src, event, status, data, offset, length) ->
            got.add(src + ":" + event + ":" + data.get(ValueLayout.JAVA_BYTE, offset) + ":" + name(status));

    static String name(int status) {
        return switch (status) {
            case MORE -> "MORE";
            case NODE_DONE -> "NODE_DONE";
            case EVENT_DONE -> "EVENT_DONE";
            default -> "?" + status;
        };
    }

    void send(int from, int event, int index, int flags, int mark) {
        Link l = medium.link(from);
        int h = l.claim(0);
        MemorySegment b = l.txBuffer(h);
        b.set(ValueLayout.JAVA_BYTE, 0, (byte) event);
        b.set(ValueLayout.JAVA_BYTE, 1, (byte) index);
        b.set(ValueLayout.JAVA_BYTE, 2, (byte) flags);
        b.set(ValueLayout.JAVA_BYTE, 3, (byte) mark);
        l.commit(h, 4);
        time.runUntilIdle();
        rx.poll(filer, 16);
    }

    String take(int src, int event) {
        int before = got.size();
        int s = inbox.take(src, event, recorder);
        if (s == NOTHING) {
            assertEquals(before, got.size(), "NOTHING hands nothing over");
            return "NOTHING";
        }
        return got.getLast();
    }

    @Test
    void pointToPointEventEndsWithTheSourcesLastFragment() {
        send(1, 0, 0, 0, 10);
        send(1, 0, 1, LAST_FRAG, 11);
        assertEquals(2, inbox.inPlace());
        assertEquals("1:0:10:MORE", take(1, 0));
        assertEquals("1:0:11:EVENT_DONE", take(1, 0));
        assertEquals("NOTHING", take(1, 0));
        assertFalse(inbox.isLive(0), "the slot is free again");
        assertEquals(0, inbox.held());
    }

    @Test
    void moreWhileTheSourceMaySendMoreEvenWhenNothingIsHeldNow() {
        send(1, 0, 0, 0, 10);
        assertEquals("1:0:10:MORE", take(1, 0));
        assertEquals("NOTHING", take(1, 0), "fragment 1 has not arrived");
        assertTrue(inbox.isLive(0));
        send(1, 0, 1, LAST_FRAG, 11);
        assertEquals("1:0:11:EVENT_DONE", take(1, 0));
    }

    @Test
    void crowdEventNodeDoneForEachSourceThenEventDoneForTheLast() {
        send(1, 2, 0, BCAST_EVENT | LAST_FRAG, 21);
        send(2, 2, 0, BCAST_EVENT, 22);
        send(2, 2, 1, BCAST_EVENT | LAST_FRAG, 23);
        send(3, 2, 0, BCAST_EVENT | LAST_FRAG, 24);
        assertEquals("1:2:21:NODE_DONE", take(1, 2));
        assertEquals("3:2:24:NODE_DONE", take(3, 2));
        assertEquals("2:2:22:MORE", take(2, 2));
        assertEquals("2:2:23:EVENT_DONE", take(2, 2));
    }

    @Test
    void anySourceTakesSourcesInTurnAndReportsWhoSent() {
        for (int s = 1; s < NODES; s++) {
            send(s, 1, 0, BCAST_EVENT, 10 * s);
            send(s, 1, 1, BCAST_EVENT | LAST_FRAG, 10 * s + 1);
        }
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            order.add(take(ANY, 1));
        }
        assertEquals(List.of("1:1:10:MORE", "2:1:20:MORE", "3:1:30:MORE", "1:1:11:NODE_DONE", "2:1:21:NODE_DONE",
                "3:1:31:EVENT_DONE"), order);
        assertEquals("NOTHING", take(ANY, 1));
    }

    @Test
    void fragmentsOfLaterEventsWaitForTheApplication() {
        send(1, 0, 0, LAST_FRAG, 1);
        send(1, 1, 0, LAST_FRAG, 2);
        send(2, 3, 0, LAST_FRAG, 4);
        assertEquals("NOTHING", take(ANY, 2), "nothing of event 2 yet");
        assertEquals("1:1:2:EVENT_DONE", take(ANY, 1), "events may be taken in any order");
        assertEquals("1:0:1:EVENT_DONE", take(ANY, 0));
        assertEquals("2:3:4:EVENT_DONE", take(2, 3));
    }

    @Test
    void lastFragmentOvertakingItsPredecessorStillEndsTheSourceAfterAllAreTaken() {
        send(1, 0, 1, LAST_FRAG, 11); // a retransmission reordered them
        assertEquals("1:0:11:MORE", take(1, 0), "fragment 0 is still to come");
        send(1, 0, 0, 0, 10);
        assertEquals("1:0:10:EVENT_DONE", take(1, 0));
    }

    @Test
    void refusesWhatItCannotFileAndLeavesTheBufferToTheCaller() {
        send(1, 0, 0, LAST_FRAG, 1);
        send(1, 4, 0, LAST_FRAG, 2); // 4 slots: event 4 shares event 0's slot
        send(2, 0, 0, LAST_FRAG, 3); // second source in a non-crowd event
        send(1, 0, 1, 0, 4); // beyond source 1's LAST_FRAG
        assertEquals(List.of(EventInbox.ADDED, EventInbox.SLOT_BUSY, EventInbox.CROSSED, EventInbox.AFTER_LAST),
                codes);
        assertEquals(1, inbox.held());
        assertEquals("1:0:1:EVENT_DONE", take(1, 0));
        send(1, 4, 0, LAST_FRAG, 2);
        assertEquals(EventInbox.ADDED, codes.getLast(), "the slot is free once event 0 is done");
    }

    @Test
    void crowdFlagMustAgreeWithinAnEvent() {
        send(1, 0, 0, BCAST_EVENT, 1);
        send(2, 0, 0, LAST_FRAG, 2);
        assertEquals(List.of(EventInbox.ADDED, EventInbox.CROSSED), codes);
    }

    @Test
    void takingReleasesTheReceiveBufferAndCopyOutFreesItEarly() {
        for (int i = 0; i < 4; i++) {
            send(1, 0, i, i == 3 ? LAST_FRAG : 0, 40 + i);
        }
        assertEquals(4, inbox.inPlace());
        assertEquals(1, inbox.copyOutOldest());
        assertEquals(1, inbox.copyOutOldest());
        assertEquals(2, inbox.inPlace());
        assertEquals(2, inbox.copiedOut());
        assertEquals(2, cpus[0].units(CostItem.COPY), "the copied bytes (one payload byte each) are charged");
    }

    @Test
    void copiedOutFragmentsAreDeliveredIntactInOrderAndHostBuffersAreBounded() {
        for (int i = 0; i < 5; i++) {
            send(1, 0, i, i == 4 ? LAST_FRAG : 0, 40 + i);
        }
        assertEquals(1, inbox.copyOutOldest());
        assertEquals(1, inbox.copyOutOldest());
        assertEquals(1, inbox.copyOutOldest());
        assertEquals(-1, inbox.copyOutOldest(), "three host buffers only");
        assertEquals(2, inbox.inPlace());
        for (int i = 0; i < 5; i++) {
            String s = take(1, 0);
            assertEquals("1:0:" + (40 + i) + ":" + (i == 4 ? "EVENT_DONE" : "MORE"), s);
            assertEquals(i < 3, !inbox.lastWasInPlace(), "fragment " + i);
        }
        assertEquals(0, inbox.held());
        assertEquals(3, inbox.freeHostBuffers());
        // every receive buffer is back with the link: all 8 can be filled again
        for (int i = 0; i < RX; i++) {
            send(2, 1, i, 0, i);
        }
        assertEquals(RX, inbox.inPlace());
    }

    @Test
    void receiveFromInsideAHandlerIsRefused() {
        send(1, 0, 0, 0, 1);
        send(1, 0, 1, LAST_FRAG, 2);
        assertThrows(IllegalStateException.class, () -> inbox.take(1, 0, (s, e, st, d, o, l) -> inbox.take(1, 0,
                recorder)));
    }

    @Test
    void badArgumentsAreNamed() {
        assertThrows(IllegalArgumentException.class, () -> inbox.take(0, 0, recorder), "self");
        assertThrows(IllegalArgumentException.class, () -> inbox.take(9, 0, recorder));
        assertThrows(IllegalArgumentException.class, () -> inbox.take(1, -1, recorder));
        assertThrows(IllegalArgumentException.class, () -> new EventInbox(rx, cpus[0], NODES, 3, RX, 0, 64));
    }
}
