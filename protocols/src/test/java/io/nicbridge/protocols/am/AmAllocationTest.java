package io.nicbridge.protocols.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.core.LoopbackLink;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * The hot paths allocate nothing: request, handler dispatch, reply, explicit ack, a two-chunk store and a get of the
 * paper's 4160-byte buffers, and the delayed ack's timer, over a hand-polled link pair, measured with the JVM's
 * per-thread allocation counter after a warm-up.
 */
class AmAllocationTest {
    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    @Test
    void requestReplyStoreGetAndAckPathsAllocateNothing() {
        long[] now = {0};
        AmConfig config = AmConfig.paper(16 * 1024);
        LoopbackLink[] pair = LoopbackLink.pair(config.linkMtu());
        AmCore a = new AmCore(pair[0], () -> now[0], config, HostCpu.uncharged("a"));
        AmCore b = new AmCore(pair[1], () -> now[0], config, HostCpu.uncharged("b"));
        long[] handled = new long[1];
        AmCore[] cores = {a, b};
        for (AmCore c : cores) {
            c.register(1, (t, a0, a1, a2, a3) -> c.reply(t, 2, a0, a1, a2, a3));
            c.register(2, (t, a0, a1, a2, a3) -> handled[0]++);
            c.register(3, (t, a0, a1, a2, a3) -> handled[0]++);
        }
        MemorySegment src = MemorySegment.ofArray(new byte[2 * AmConfig.PAPER_BUFFER_BYTES]);
        Runnable round = () -> {
            assertEquals(AmCore.OK, a.request(1, 1, 1, 2, 3, 4));
            assertEquals(AmCore.OK, a.store(1, src, 0, 0, AmConfig.PAPER_BUFFER_BYTES + 4, 3, 0));
            assertEquals(AmCore.OK, a.get(1, 0, 8192, 5000, 3, 0));
            for (int i = 0; i < 3; i++) {
                pair[1].poll(b, 64);
                b.poll();
                pair[0].poll(a, 64);
                a.poll();
            }
            now[0] += config.ackDelayNanos(); // the delayed acks go out
            if (a.nextDeadline() <= now[0]) {
                a.onTimer();
            }
            if (b.nextDeadline() <= now[0]) {
                b.onTimer();
            }
            pair[0].poll(a, 64);
            pair[1].poll(b, 64);
        };
        for (int i = 0; i < 20_000; i++) {
            round.run();
        }
        long before = allocated();
        for (int i = 0; i < 10_000; i++) {
            round.run();
        }
        long bytes = allocated() - before;
        assertEquals(30_000 * 3, handled[0], "every round: one reply, one store and one get handler");
        assertTrue(a.quiescent() && b.quiescent(), a + " / " + b);
        assertTrue(bytes < 1024, "10,000 rounds allocated " + bytes + " bytes");
    }
}
