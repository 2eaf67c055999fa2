package io.nicbridge.sim.trace;

import static io.nicbridge.sim.trace.TraceMachine.pointer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.sim.traffic.FabricPorts;
import io.nicbridge.sim.traffic.IdealFabric;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TraceMachineTest {
    private static final TraceCosts COSTS = TraceCosts.defaults();

    /** The paper's figure 6: the sum of one word per node by a fork tree. */
    private static long sumThread(TraceMachine m, int first, int count, int data, JoinCapability j) {
        if (count > 1) {
            int n = count / 2;
            JoinCapability j1 = m.newJoin();
            JoinCapability j2 = m.newJoin();
            m.fork(first, () -> sumThread(m, first, n, data, j1));
            m.fork(first + n, () -> sumThread(m, first + n, count - n, data, j2));
            m.join(j, m.sync(j1) + m.sync(j2));
        } else {
            m.join(j, m.load(pointer(m.node(), data)));
        }
        return 0;
    }

    @Test
    void figureSixSumProducesExactlyItsForkAndJoinMessages() {
        long[] sum = new long[1];
        int[] data = new int[1];
        BlockTrace t = TraceMachine.record("sum", 4, COSTS, m -> {
            data[0] = m.allocate(1);
            for (int n = 0; n < 4; n++) {
                m.poke(pointer(n, data[0]), 10 + n);
            }
        }, m -> {
            JoinCapability j = m.newJoin();
            m.fork(0, () -> sumThread(m, 0, 4, data[0], j));
            sum[0] = m.sync(j);
        });
        assertEquals(10 + 11 + 12 + 13, sum[0]);
        // Remote forks 0->2, 0->1, 2->3 and remote joins 1->0, 3->2, 2->0; every load is local.
        assertEquals(6, t.networkMessageCount(FabricPorts.REQUEST));
        assertEquals(0, t.networkMessageCount(FabricPorts.REPLY));
        assertEquals(3L * COSTS.forkFlits() + 3L * COSTS.joinFlits(), t.networkFlits());
    }

    @Test
    void remoteLoadIsARequestReplyPairAndStoresAreAwaitedByWait() {
        BlockTrace t = TraceMachine.record("ls", 2, COSTS, m -> m.allocate(2), m -> {
            m.store(pointer(1, 0), 5);
            m.store(pointer(1, 1), 6);
            m.waitStores();
            assertEquals(5, m.load(pointer(1, 0)));
            assertEquals(6, m.load(pointer(0, 0)) + 6);   // local: no message
        });
        assertEquals(3, t.networkMessageCount(FabricPorts.REQUEST));   // 2 stores + 1 load request
        assertEquals(3, t.networkMessageCount(FabricPorts.REPLY));     // 2 acks + 1 load reply
        // The block after Wait needs both acks plus the end of the block before it.
        int waitBlock = -1;
        for (int b = 0; b < t.blockCount(); b++) {
            if (t.blockSignalsNeeded(b) == 3) {
                waitBlock = b;
            }
        }
        assertTrue(waitBlock >= 0, "a block waiting on 2 acks + its predecessor");
    }

    @Test
    void loadOfAnAddressWithAnOutstandingStoreWaitsFirst() {
        BlockTrace t = TraceMachine.record("conflict", 2, COSTS, m -> m.allocate(1), m -> {
            m.store(pointer(1, 0), 5);
            assertEquals(5, m.load(pointer(1, 0)));
        });
        int ackMessage = -1;
        for (int msg = 0; msg < t.messageCount(); msg++) {
            if (t.messageNetwork(msg) == FabricPorts.REPLY && t.messageSize(msg) == COSTS.storeAckFlits()) {
                ackMessage = msg;
            }
        }
        assertTrue(t.messageTarget(ackMessage) >= 0, "the store's ack is awaited before the load");
    }

    @Test
    void syncThenRunsTheContinuationAtSyncOrAtJoinWhicheverComesLast() {
        List<String> order = new ArrayList<>();
        TraceMachine.record("join-first", 2, COSTS, null, m -> {
            JoinCapability j = m.newJoin();
            m.fork(1, () -> {
                order.add("join");
                m.join(j, 7);
            });
            m.syncThen(j, v -> order.add("continuation " + v));
            order.add("after syncThen");
        });
        assertEquals(List.of("join", "continuation 7", "after syncThen"), order);

        order.clear();
        JoinCapability[] shared = new JoinCapability[1];
        BlockTrace t = TraceMachine.record("sync-first", 3, COSTS, null, m -> {
            // A thread on node 1 waits on its register before anyone has written it ...
            m.fork(1, () -> {
                shared[0] = m.newJoin();
                m.syncThen(shared[0], v -> {
                    order.add("continuation " + v + " on node " + m.node());
                    m.compute(3);
                });
                order.add("suspended");
            });
            // ... and a thread forked later on node 2 writes it.
            m.fork(2, () -> {
                order.add("join");
                m.join(shared[0], 9);
                order.add("after join");
            });
        });
        assertEquals(List.of("suspended", "join", "continuation 9 on node 1", "after join"), order);
        assertTrue(t.blockCount() > 0);
    }

    @Test
    void misuseIsRefusedWithTheReason() {
        IllegalStateException early = assertThrows(IllegalStateException.class,
                () -> TraceMachine.record("early", 2, COSTS, null, m -> m.sync(m.newJoin())));
        assertTrue(early.getMessage().contains("syncThen"), early.getMessage());
        assertThrows(IllegalStateException.class, () -> TraceMachine.record("twice", 2, COSTS, null, m -> {
            JoinCapability j = m.newJoin();
            m.join(j, 1);
            m.join(j, 2);
        }));
        assertThrows(IllegalArgumentException.class,
                () -> TraceMachine.record("bad", 2, COSTS, m -> m.allocate(1), m -> m.load(pointer(5, 0))));
        assertThrows(IllegalStateException.class, () -> TraceMachine.record("suspended", 2, COSTS, null, m -> {
            m.syncThen(m.newJoin(), v -> { });
            m.compute(1);
        }));
    }

    @Test
    void engineTimesLocalWorkExactly() {
        BlockTrace t = TraceMachine.record("local", 2, COSTS, null, m -> {
            m.compute(100);
            m.fork(0, () -> m.compute(50));
        });
        TraceResult r = new TraceEngine(t, new IdealFabric(2, 5, 1, 4, -1), 0).run(10_000);
        assertTrue(r.completed());
        assertEquals(100 + COSTS.localFork() + 50, r.completionCycle());
    }

    @Test
    void engineTimesARemoteForkThroughTheNetwork() {
        BlockTrace t = TraceMachine.record("remote", 2, COSTS, null, m -> {
            m.compute(10);
            m.fork(1, () -> m.compute(20));
        });
        // Released at 10, serialised from cycle 11 for 5 flits, 5 cycles of flight: child runs 21..41.
        TraceResult r = new TraceEngine(t, new IdealFabric(2, 5, 1, 4, -1), 0).run(10_000);
        assertTrue(r.completed());
        assertEquals(41, r.completionCycle());
        assertEquals(1, r.requestPackets());
        TraceResult slow = new TraceEngine(t, new IdealFabric(2, 5, 1, 4, -1), 7).run(10_000);
        assertEquals(48, slow.completionCycle());
    }
}
