package io.nicbridge.protocols.pupa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.bridge.port.PortCounters;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.core.MessageHandler;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * The hot paths allocate nothing: two cores over a minimal in-process link pair, driven by hand (send, poll, deliver,
 * acknowledgements and the timer's ACK), measured with the JVM's per-thread allocation counter after a warm-up.
 */
class PupaAllocationTest {
    /** One end of a two-node link: 64 preallocated frames each way, handed over by index. */
    static final class LoopLink implements Link {
        final int self;
        LoopLink other;
        final MemorySegment[] tx = new MemorySegment[64];
        final int[] length = new int[64];
        final int[] queue = new int[64];
        int head;
        int tail;
        int claimed = NONE;
        boolean broadcast;

        LoopLink(int self) {
            this.self = self;
            for (int i = 0; i < tx.length; i++) {
                tx[i] = Arena.ofAuto().allocate(1498, 8);
            }
        }

        @Override
        public String name() {
            return "loop" + self;
        }

        @Override
        public int self() {
            return self;
        }

        @Override
        public int peers() {
            return 2;
        }

        @Override
        public int mtu() {
            return 1498;
        }

        @Override
        public boolean canBroadcast() {
            return broadcast; // with two nodes, BROADCAST is the other one
        }

        @Override
        public int claim(int peer) {
            if (other.tail - other.head == 64) {
                return NONE;
            }
            claimed = other.tail & 63;
            return claimed;
        }

        @Override
        public MemorySegment txBuffer(int h) {
            return other.tx[h];
        }

        @Override
        public void commit(int h, int len) {
            other.length[h] = len;
            other.queue[other.tail & 63] = h;
            other.tail++;
        }

        @Override
        public void abort(int h) {
        }

        @Override
        public int poll(LinkHandler handler, int limit) {
            int n = 0;
            while (head != tail && n < limit) {
                int h = queue[head & 63];
                head++;
                n++;
                handler.onFrame(this, h);
            }
            return n;
        }

        @Override
        public int rxPeer(int h) {
            return 1 - self;
        }

        @Override
        public MemorySegment rxBuffer(int h) {
            return tx[h];
        }

        @Override
        public int rxLength(int h) {
            return length[h];
        }

        @Override
        public void release(int h) {
        }

        @Override
        public void readinessListener(Runnable listener) {
        }

        @Override
        public <C> C capability(Class<C> type) {
            return null;
        }

        @Override
        public PortCounters counters() {
            return null;
        }

        @Override
        public void close() {
        }
    }

    static final class Counting implements MessageHandler {
        long messages;
        long bytes;

        @Override
        public void onMessage(int peer, MemorySegment data, long offset, int length) {
            messages++;
            bytes += length;
        }
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    @Test
    void sendReceiveAckAndTimerPathsAllocateNothing() {
        paths(false);
    }

    @Test
    void multicastByBroadcastAllocatesNothingEither() {
        paths(true);
    }

    private static void paths(boolean multicast) {
        long[] now = {0};
        LoopLink a = new LoopLink(0);
        LoopLink b = new LoopLink(1);
        a.other = b;
        b.other = a;
        a.broadcast = multicast;
        b.broadcast = multicast;
        PupaConfig config = PupaConfig.defaults();
        PupaCore sender = new PupaCore(a, () -> now[0], config, HostCpu.uncharged("a"));
        PupaCore receiver = new PupaCore(b, () -> now[0], config, HostCpu.uncharged("b"));
        MemorySegment message = Arena.ofAuto().allocate(4096, 8);
        Counting counting = new Counting();
        int[] sizes = {8, 100, 1000, 4000}; // primary, secondary, card buffer, fragmented
        Runnable round = () -> {
            for (int size : sizes) {
                assertEquals(MessageChannel.OK, multicast ? sender.multicast(0b10, message, 0, size, size)
                        : sender.send(1, message, 0, size, size, true));
                b.poll(receiver, 64);
                receiver.deliver(counting, 64);
                a.poll(sender, 64);
            }
            now[0] += 11_000_000; // past the ACK timer: the receiver's timed ACK, the sender's empty tick
            if (receiver.nextDeadline() <= now[0]) {
                receiver.onTimer();
            }
            if (sender.nextDeadline() <= now[0]) {
                sender.onTimer();
            }
            a.poll(sender, 64);
            b.poll(receiver, 64);
        };
        for (int i = 0; i < 20_000; i++) {
            round.run();
        }
        long before = allocated();
        for (int i = 0; i < 10_000; i++) {
            round.run();
        }
        long bytes = allocated() - before;
        assertEquals(30_000 * 4, counting.messages);
        assertTrue(sender.holdsNothing() && receiver.holdsNothing(), sender.leaks() + " / " + receiver.leaks());
        assertTrue(bytes < 1024, "40,000 messages allocated " + bytes + " bytes");
        if (multicast) {
            assertEquals(sender.counters().messagesSent(), sender.counters().multicastFrames(),
                    "every fragment went as one broadcast frame");
        }
    }
}
