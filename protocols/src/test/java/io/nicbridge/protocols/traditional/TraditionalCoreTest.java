package io.nicbridge.protocols.traditional;

import static io.nicbridge.protocols.cstar.CStarNetwork.BCAST_EVENT;
import static io.nicbridge.protocols.cstar.CStarNetwork.BROADCAST;
import static io.nicbridge.protocols.cstar.CStarNetwork.EVENT_DONE;
import static io.nicbridge.protocols.cstar.CStarNetwork.LARGE_EVENT;
import static io.nicbridge.protocols.cstar.CStarNetwork.LAST_FRAG;
import static io.nicbridge.protocols.cstar.CStarNetwork.MORE;
import static io.nicbridge.protocols.cstar.CStarNetwork.NODE_DONE;
import static io.nicbridge.protocols.cstar.CStarNetwork.NOTHING;
import static io.nicbridge.protocols.cstar.CStarNetwork.OK;
import static io.nicbridge.protocols.cstar.CStarNetwork.ANY;
import static io.nicbridge.protocols.cstar.CStarNetwork.BACK_PRESSURE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.sim.FrameFaults;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The traditional core's service (TR 94-14 section 5.1) and recovery (section 5.2) on an in-memory medium. */
class TraditionalCoreTest {
    private static final long LIMIT = 50_000_000;

    @Test
    void pointToPointFragmentsArriveWithMoreThenEventDone() {
        Cluster c = new Cluster(2, FrameFaults.NONE);
        byte[][] frags = {Cluster.bytes(1, 10), Cluster.bytes(2, 64), Cluster.bytes(3, 0)};
        for (int i = 0; i < 3; i++) {
            assertEquals(OK, c.send(0, 1, 7, frags[i], (i == 2 ? LAST_FRAG : 0) | LARGE_EVENT));
        }
        assertEquals(NOTHING, c.core(1).receive(0, 7, (s, e, st, d, o, l) -> { }), "nothing before the wire");
        List<Cluster.Got> got = c.awaitEvent(1, 0, 7, LIMIT);
        assertEquals(3, got.size());
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(frags[i], got.get(i).data());
            assertEquals(0, got.get(i).src());
            assertEquals(7, got.get(i).event());
            assertEquals(i == 2 ? EVENT_DONE : MORE, got.get(i).status());
        }
        assertEquals(NOTHING, c.core(1).receive(ANY, 7, (s, e, st, d, o, l) -> { }), "each fragment once");
    }

    /**
     * A descriptor ring stops at the first buffer the host still holds (the 21140's RU), so on a link that receives
     * in order no fragment waits on board for the application: each is copied out as it is accepted, and the
     * application still gets every one, once. On the in-memory medium, which does not care, the same fragments stay
     * in place below the copy-out threshold.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void onALinkThatReceivesInOrderNoFragmentStaysOnBoard(boolean inOrder) {
        Cluster c = new Cluster(2, Cluster.config(), FrameFaults.NONE, CostTable.zero(), NodeApplication.NONE,
                inOrder);
        byte[][] frags = new byte[5][];
        for (int i = 0; i < 5; i++) {
            frags[i] = Cluster.bytes(i + 1, 40);
            assertEquals(OK, c.send(0, 1, i < 3 ? 0 : 1, frags[i], i == 2 || i == 4 ? LAST_FRAG : 0));
        }
        c.run(1_000_000);
        assertEquals(5, c.core(1).counters().accepted());
        assertEquals(inOrder ? 0 : 5, c.core(1).heldInPlace(), "fragments left in the link's receive buffers");
        assertEquals(inOrder ? 5 : 0, c.core(1).counters().copiedOut());
        List<Cluster.Got> got = c.awaitEvent(1, 0, 0, LIMIT);
        got.addAll(c.awaitEvent(1, 0, 1, LIMIT));
        assertEquals(5, got.size());
        for (int i = 0; i < 5; i++) {
            assertArrayEquals(frags[i], got.get(i).data());
        }
        assertEquals(0, c.core(1).heldInPlace());
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4, 8})
    void aBroadcastReachesEveryOtherNodeOnce(int nodes) {
        Cluster c = new Cluster(nodes, FrameFaults.NONE);
        int root = nodes - 1;
        assertEquals(OK, c.send(root, BROADCAST, 3, Cluster.bytes(5, 40), LARGE_EVENT));
        assertEquals(OK, c.send(root, BROADCAST, 3, Cluster.bytes(6, 41), LAST_FRAG | LARGE_EVENT));
        for (int n = 0; n < nodes - 1; n++) {
            List<Cluster.Got> got = c.awaitEvent(n, ANY, 3, LIMIT);
            assertEquals(List.of(MORE, EVENT_DONE), got.stream().map(Cluster.Got::status).toList(), "node " + n);
            assertArrayEquals(Cluster.bytes(5, 40), got.get(0).data());
            assertArrayEquals(Cluster.bytes(6, 41), got.get(1).data());
            assertEquals(root, got.get(1).src());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4, 8})
    void aCrowdEventGivesEveryNodeOneMessageFromEveryOther(int nodes) {
        Cluster c = new Cluster(nodes, FrameFaults.NONE);
        for (int p = 0; p < nodes; p++) {
            assertEquals(OK, c.send(p, BROADCAST, 0, Cluster.bytes(p, 16 + p), LAST_FRAG | BCAST_EVENT));
        }
        for (int q = 0; q < nodes; q++) {
            List<Cluster.Got> got = c.awaitEvent(q, ANY, 0, LIMIT);
            assertEquals(nodes - 1, got.size(), "node " + q);
            Set<Integer> sources = new HashSet<>();
            for (int i = 0; i < got.size(); i++) {
                Cluster.Got g = got.get(i);
                assertTrue(sources.add(g.src()));
                assertArrayEquals(Cluster.bytes(g.src(), 16 + g.src()), g.data());
                assertEquals(i == got.size() - 1 ? EVENT_DONE : NODE_DONE, g.status());
            }
            assertTrue(!sources.contains(q));
        }
    }

    @Test
    void eventsInSequenceAndAReceiverNamingItsSource() {
        Cluster c = new Cluster(4, FrameFaults.NONE);
        for (int e = 0; e < 20; e++) {
            for (int p = 0; p < 4; p++) { // shift: p -> p+1
                assertEquals(OK, c.send(p, (p + 1) % 4, e, Cluster.bytes(e * 4 + p, 20), LAST_FRAG));
            }
            for (int q = 0; q < 4; q++) {
                List<Cluster.Got> got = c.awaitEvent(q, (q + 3) % 4, e, LIMIT);
                assertEquals(1, got.size());
                assertEquals(EVENT_DONE, got.get(0).status());
                assertArrayEquals(Cluster.bytes(e * 4 + (q + 3) % 4, 20), got.get(0).data());
            }
        }
        c.run(5_000_000);
        for (int p = 0; p < 4; p++) {
            // a shift has no reverse traffic: the fragments asked for explicit ACKs when descriptors ran low
            assertTrue(c.core(p).descriptorsInUse() <= Cluster.config().descriptors() - Cluster.config().ackLowWater(),
                    c.core(p).toString());
            assertTrue(c.core(p).counters().descriptorsFreed() > 0);
            assertEquals(0, c.core(p).counters().retransmitted());
            assertEquals(0, c.core(p).counters().backPressure());
        }
    }

    @Test
    void theReverseTrafficOfAnExchangeAcknowledgesImplicitly() {
        Cluster c = new Cluster(4, FrameFaults.NONE);
        for (int e = 0; e < 40; e++) {
            for (int p = 0; p < 4; p++) { // pairs 0-1, 2-3 exchange
                assertEquals(OK, c.send(p, p ^ 1, e, Cluster.bytes(e * 4 + p, 20), LAST_FRAG));
            }
            for (int q = 0; q < 4; q++) {
                assertEquals(1, c.awaitEvent(q, q ^ 1, e, LIMIT).size());
            }
        }
        for (int p = 0; p < 4; p++) {
            assertTrue(c.core(p).descriptorsInUse() <= 2, "implicit acks free descriptors: " + c.core(p));
            assertEquals(0, c.core(p).counters().acksSent(), "no explicit ACK was needed");
        }
    }

    /** Frame faults aimed at specific frames: each fragment still arrives exactly once, and the counters show why. */
    @Test
    void dropDuplicateReorderAndCorruptAreRecoveredExactlyOnce() {
        FrameFaults faults = (index, src, dst, now, fate) -> {
            switch ((int) (index % 7)) {
                case 1 -> fate.drop = true;
                case 3 -> fate.duplicateAfterNanos = 30_000;
                case 4 -> fate.extraDelayNanos = 15_000;
                case 5 -> fate.corruptOffset = (int) (index * 13);
                default -> { }
            }
        };
        Cluster c = new Cluster(4, faults);
        for (int e = 0; e < 12; e++) {
            for (int p = 0; p < 4; p++) {
                for (int f = 0; f < 3; f++) {
                    assertEquals(OK, c.send(p, BROADCAST, e, Cluster.bytes(e * 100 + p * 10 + f, 30),
                            (f == 2 ? LAST_FRAG : 0) | BCAST_EVENT | LARGE_EVENT));
                }
            }
            for (int q = 0; q < 4; q++) {
                List<Cluster.Got> got = c.awaitEvent(q, ANY, e, LIMIT);
                assertEquals(9, got.size(), "node " + q + " event " + e + ": " + c.core(q));
                Set<Integer> seen = new HashSet<>();
                for (Cluster.Got g : got) {
                    int f = -1;
                    for (int k = 0; k < 3; k++) {
                        if (java.util.Arrays.equals(Cluster.bytes(e * 100 + g.src() * 10 + k, 30), g.data())) {
                            f = k;
                        }
                    }
                    assertTrue(f >= 0, "delivered bytes are a fragment that was sent");
                    assertTrue(seen.add(g.src() * 10 + f), "exactly once");
                }
                assertEquals(EVENT_DONE, got.get(got.size() - 1).status());
            }
        }
        long retransmitted = 0, duplicates = 0, corrupt = 0, naks = 0;
        for (int p = 0; p < 4; p++) {
            retransmitted += c.core(p).counters().retransmitted();
            duplicates += c.core(p).counters().duplicates();
            corrupt += c.core(p).counters().corrupt();
            naks += c.core(p).counters().naksSent() + c.core(p).counters().timeoutNaks();
        }
        assertTrue(retransmitted > 0 && duplicates > 0 && corrupt > 0 && naks > 0,
                "retransmitted " + retransmitted + ", duplicates " + duplicates + ", corrupt " + corrupt + ", naks "
                        + naks);
    }

    /** The last fragment lost, and its eager retransmission too: only the receiver's timeout brings it. */
    @Test
    void aLostTailIsAskedForOnTheReceiversTimeout() {
        Cluster c = new Cluster(2, (index, src, dst, now, fate) -> fate.drop = index == 0);
        assertEquals(OK, c.send(0, 1, 0, Cluster.bytes(9, 12), LAST_FRAG));
        c.run(1_000_000);
        assertEquals(0, c.core(1).counters().framesReceived(), "the only frame was lost; no hole is visible");
        List<Cluster.Got> got = c.awaitEvent(1, 0, 0, LIMIT);
        assertEquals(1, got.size());
        assertArrayEquals(Cluster.bytes(9, 12), got.get(0).data());
        assertTrue(c.core(1).counters().timeoutNaks() >= 1);
        assertEquals(1, c.core(0).counters().retransmitted());
    }

    @Test
    void descriptorsRunningOutIsBackPressureThenExplicitAcksFreeThem() {
        Cluster c = new Cluster(2, FrameFaults.NONE);
        int accepted = 0;
        while (c.send(0, 1, 0, Cluster.bytes(accepted, 8), 0) == OK) { // all at once: no ACK can come back yet
            accepted++;
        }
        assertEquals(Cluster.config().descriptors(), accepted, "one descriptor per unacknowledged fragment");
        assertTrue(c.core(0).counters().backPressure() >= 1);
        // the last fragments asked for explicit acknowledgements; the timer asks again for the rest
        c.run(2_000_000);
        assertTrue(c.core(1).counters().acksSent() >= 1, c.core(1).toString());
        assertTrue(c.core(0).descriptorsInUse() < accepted, "acknowledged descriptors were freed: " + c.core(0));
        assertEquals(OK, c.send(0, 1, 0, Cluster.bytes(99, 8), LAST_FRAG));
        List<Cluster.Got> got = c.awaitEvent(1, 0, 0, LIMIT);
        assertEquals(accepted + 1, got.size());
        assertEquals(EVENT_DONE, got.get(got.size() - 1).status());
    }

    @Test
    void misuseIsRefusedByName() {
        Cluster c = new Cluster(3, FrameFaults.NONE);
        TraditionalCore core = c.core(0);
        var seg = java.lang.foreign.MemorySegment.ofArray(new byte[100]);
        assertThrows(IllegalArgumentException.class, () -> core.send(0, 1, seg, 0, 8, 0), "to itself");
        assertThrows(IllegalArgumentException.class, () -> core.send(3, 1, seg, 0, 8, 0), "outside the cluster");
        assertThrows(IllegalArgumentException.class, () -> core.send(1, 1, seg, 0, 65, 0), "beyond maxFragment");
        assertThrows(IllegalArgumentException.class, () -> core.send(1, 1, seg, 0, 8, 1 << 5), "unknown flag");
        assertThrows(IllegalArgumentException.class, () -> core.send(1, -1, seg, 0, 8, 0), "negative event");
        assertEquals(OK, core.send(1, 5, seg, 0, 8, 0));
        assertThrows(IllegalArgumentException.class, () -> core.send(1, 4, seg, 0, 8, 0), "event going back");
        var e = assertThrows(IllegalArgumentException.class, () -> core.send(BROADCAST, 5, seg, 0, 8, 0));
        assertTrue(e.getMessage().contains("point-to-point"), e.getMessage());
        assertEquals(OK, core.send(1, 5, seg, 0, 8, LAST_FRAG));
        assertThrows(IllegalArgumentException.class, () -> core.send(1, 5, seg, 0, 8, 0), "after LAST_FRAG");
        assertThrows(IllegalArgumentException.class, () -> core.receive(0, 5, (s, ev, st, d, o, l) -> { }));
        assertEquals(64, core.maxFragment());
        assertEquals(3, core.nodes());
        assertEquals(0, core.self());
        assertThrows(IllegalArgumentException.class, () -> new TraditionalCore(c.medium.link(0), c.time, c.cpus[0],
                new TraditionalConfig(16, 240, 2, 16, 16, 8, 24, 200_000, 16)), "fragment + header beyond the mtu");
    }

    /** Every Appendix A operation is charged, by its paper name, on the node that performs it. */
    @Test
    void everyAppendixAOperationIsChargedToTheNodesCpu() {
        Map<CostItem, Long> items = new EnumMap<>(CostItem.class);
        for (CostItem i : CostItem.values()) {
            items.put(i, 0L);
        }
        StringBuilder text = new StringBuilder(CostTable.of("ops", "test", "none", "today", items, Map.of())
                .format("test"));
        for (String op : TraditionalOperations.fullNames()) {
            text.append("op.").append(op).append(".ps-per-call = 1000000\n");
        }
        CostTable table = CostTable.parse(text.toString(), "ops test");
        Cluster c = new Cluster(2, Cluster.config(), (index, src, dst, now, fate) -> fate.drop = index == 1, table,
                NodeApplication.NONE);
        c.send(0, 1, 0, Cluster.bytes(1, 8), 0);
        c.send(0, 1, 0, Cluster.bytes(2, 8), 0);
        c.send(0, 1, 0, Cluster.bytes(3, 8), LAST_FRAG);
        assertEquals(3, c.awaitEvent(1, 0, 0, LIMIT).size());
        for (String op : TraditionalOperations.fullNames()) {
            long calls = c.cpus[0].operation(op).calls() + c.cpus[1].operation(op).calls();
            assertTrue(calls > 0, op + " was never charged");
        }
        assertEquals(3, c.cpus[0].operation("traditional.fill-fragment-descriptor").calls());
        assertTrue(c.cpus[0].totalPicos() >= 3 * 7 * 1_000_000L, "the send path's seven operations, three times");
        assertTrue(c.cpus[1].operation("traditional.check-retransmission").calls() >= 2);
    }
}
