package io.nicbridge.protocols.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.EventLoop;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.core.MessageCore;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.sim.InMemoryMedium;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The same go-back-N core, unchanged, in real time: the runner, the medium and the timers on one event loop. */
class RealTimeRunTest {
    private static final int MESSAGES = 300;

    @Test
    void goBackNDeliversEverythingInOrderOnARealTimeEventLoopDespiteLosses() throws Exception {
        EventLoop loop = new EventLoop("gbn-real-time", TimeUnit.MILLISECONDS.toNanos(1));
        // Every 7th frame lost: recovery needs the real retransmission timer.
        HostCpu[] cpus = HostCpu.forNodes(2, CostTable.measured(), loop);
        InMemoryMedium medium = new InMemoryMedium(loop, new InMemoryMedium.Config(2, 64, 4, 8, 20_000, 80),
                (index, s, d, now, fate) -> fate.drop = index % 7 == 3, cpus);
        List<Integer> received = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(1);
        MemorySegment message = MemorySegment.ofArray(new byte[16]);
        int[] next = {0};
        NodeRunner[] runner = new NodeRunner[1];
        NodeApplication app = node -> {
            threads.add(Thread.currentThread());
            MessageCore core = (MessageCore) node.core();
            core.deliver((peer, data, off, len) -> {
                received.add(data.get(ValueLayout.JAVA_INT_UNALIGNED, off));
                if (received.size() == MESSAGES) {
                    done.countDown();
                }
            }, Integer.MAX_VALUE);
            if (node.id() == 0) {
                offer(core, message, next);
            }
        };
        runner[0] = new NodeRunner(loop, new Link[] {medium.link(0), medium.link(1)}, cpus,
                (link, clock, cpu) -> new GoBackNCore(link, clock,
                        new GoBackNConfig(4, 16, TimeUnit.MILLISECONDS.toNanos(2)), cpu),
                app, NodeSlowness.NONE);
        Timer start = loop.newTimer("start", () -> {
            offer((MessageCore) runner[0].node(0).core(), message, next);
            runner[0].node(0).applicationActed();
        });
        start.armAfter(0);
        Thread loopThread = loop.start();
        try {
            assertTrue(done.await(60, TimeUnit.SECONDS), "delivered " + received.size() + " of " + MESSAGES);
        } finally {
            loop.close();
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            expected.add(i);
        }
        assertEquals(expected, received);
        assertTrue(threads.stream().allMatch(t -> t == loopThread), "every event ran on the loop's own thread");
        GoBackNCore sender = (GoBackNCore) runner[0].node(0).core();
        assertTrue(sender.counters().timeouts() > 0 && sender.counters().retransmitted() > 0, sender.toString());
        // In real time the real CPU pays: charges are counted and priced, never turned into delays.
        assertTrue(cpus[0].units(CostItem.COPY) >= 16L * MESSAGES && cpus[1].units(CostItem.HANDLER_DISPATCH) > 0,
                cpus[0].summary());
        assertEquals(Long.MIN_VALUE, cpus[0].busyUntil());
    }

    private static void offer(MessageCore core, MemorySegment message, int[] next) {
        while (next[0] < MESSAGES) {
            message.set(ValueLayout.JAVA_INT_UNALIGNED, 0, next[0]);
            if (core.offer(1, message, 0, 16) == MessageChannel.BACK_PRESSURE) {
                return;
            }
            next[0]++;
        }
    }
}
