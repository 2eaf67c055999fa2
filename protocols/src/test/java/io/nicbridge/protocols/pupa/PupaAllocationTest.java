package io.nicbridge.protocols.pupa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.core.LoopbackLink;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.core.MessageHandler;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * The hot paths allocate nothing: two cores over a {@link LoopbackLink} pair, driven by hand (send, poll, deliver,
 * acknowledgements and the timer's ACK), measured with the JVM's per-thread allocation counter after a warm-up.
 */
class PupaAllocationTest {
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
        LoopbackLink[] pair = LoopbackLink.pair(1498, multicast);
        LoopbackLink a = pair[0];
        LoopbackLink b = pair[1];
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
