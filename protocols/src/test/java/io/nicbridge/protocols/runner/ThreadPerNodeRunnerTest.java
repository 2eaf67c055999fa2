package io.nicbridge.protocols.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.port.LoopbackFramePort;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.core.MessageCore;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The same go-back-N core, one real-time thread per node, both directions at once over a zero-copy loopback. */
class ThreadPerNodeRunnerTest {
    private static final int MESSAGES = 2_000;

    @Test
    void bothNodesSendAndReceiveEverythingInOrderOnTheirOwnThreads() throws Exception {
        try (CommSegment comm = CommSegment.allocate("p2p", LoopbackFramePort.requiredBytes(8, 128));
             LoopbackFramePort.Pair pair = LoopbackFramePort.pair("p2p", comm, 8, 128)) {
            Link[] links = {new PointToPointLink(pair.a(), 0), new PointToPointLink(pair.b(), 1)};
            int[][] sent = new int[2][1];
            int[][] expected = new int[2][1];
            AtomicInteger errors = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(2);
            ConcurrentHashMap<Integer, Thread> threadOf = new ConcurrentHashMap<>();
            MemorySegment[] scratch = {MemorySegment.ofArray(new byte[32]), MemorySegment.ofArray(new byte[32])};
            NodeApplication app = node -> {
                int me = node.id();
                Thread prev = threadOf.putIfAbsent(me, Thread.currentThread());
                if (prev != null && prev != Thread.currentThread()) {
                    errors.incrementAndGet();
                }
                MessageCore core = (MessageCore) node.core();
                core.deliver((peer, data, off, len) -> {
                    if (peer != 1 - me || data.get(ValueLayout.JAVA_INT_UNALIGNED, off) != expected[me][0]++) {
                        errors.incrementAndGet();
                    }
                    if (expected[me][0] == MESSAGES) {
                        done.countDown();
                    }
                }, Integer.MAX_VALUE);
                while (sent[me][0] < MESSAGES) {
                    scratch[me].set(ValueLayout.JAVA_INT_UNALIGNED, 0, sent[me][0]);
                    if (core.offer(1 - me, scratch[me], 0, 32) == MessageChannel.BACK_PRESSURE) {
                        break;
                    }
                    sent[me][0]++;
                }
            };
            try (ThreadPerNodeRunner runner = new ThreadPerNodeRunner("gbn-p2p", links, CostTable.zero(),
                    (link, clock, cpu) -> new GoBackNCore(link, clock,
                            new GoBackNConfig(8, 32, TimeUnit.MILLISECONDS.toNanos(20)), cpu),
                    app, TimeUnit.MICROSECONDS.toNanos(50))) {
                runner.start();
                assertTrue(done.await(60, TimeUnit.SECONDS), "received " + expected[0][0] + " and " + expected[1][0]);
            }
            assertEquals(0, errors.get(), "every message in order, from the right peer, each node on one thread");
            assertNotSame(threadOf.get(0), threadOf.get(1));
        }
    }
}
