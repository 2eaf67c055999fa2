package io.nicbridge.protocols.unet;

import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.core.MessageCore;
import io.nicbridge.protocols.core.MessageHandler;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.RunnerNode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The application every U-Net run of the go-back-N core uses, whatever the card, engine or runner: each node sends
 * {@code messages} messages to every other node and checks what it receives - each sender's messages exactly once,
 * in order, byte for byte. Message sizes cycle through 4 .. maxMessage, so with a 16-byte core header the short
 * ones go inline (one cell) and the rest through a comm-segment buffer.
 *
 * <pre>
 *   0            4
 *   | number u32 | pattern: byte i = source*31 + dest*17 + number*7 + i |
 * </pre>
 * Per-node state is touched only by that node's thread; the totals are atomics for the test thread to watch.
 */
final class Exchange implements NodeApplication {
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final int nodes;
    private final int messages;
    private final int maxMessage;
    private final int[][] sent;
    private final int[][] expected;
    private final MemorySegment[] scratch;
    private final Receiver[] receivers;
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicInteger errors = new AtomicInteger();
    private volatile String firstError;

    Exchange(int nodes, int messages, int maxMessage) {
        this.nodes = nodes;
        this.messages = messages;
        this.maxMessage = maxMessage;
        sent = new int[nodes][nodes];
        expected = new int[nodes][nodes];
        scratch = new MemorySegment[nodes];
        receivers = new Receiver[nodes];
        for (int i = 0; i < nodes; i++) {
            scratch[i] = MemorySegment.ofArray(new byte[maxMessage]);
            receivers[i] = new Receiver(i);
        }
    }

    int length(int number) {
        return 4 + (int) ((number * 37L) % (maxMessage - 3));
    }

    private static byte pattern(int source, int dest, int number, int i) {
        return (byte) (source * 31 + dest * 17 + number * 7 + i);
    }

    @Override
    public void afterEvent(RunnerNode node) {
        int me = node.id();
        MessageCore core = (MessageCore) node.core();
        core.deliver(receivers[me], Integer.MAX_VALUE);
        for (int peer = 0; peer < nodes; peer++) {
            if (peer == me) {
                continue;
            }
            MemorySegment m = scratch[me];
            while (sent[me][peer] < messages) {
                int number = sent[me][peer];
                int len = length(number);
                m.set(U32, 0, number);
                for (int i = 4; i < len; i++) {
                    m.set(ValueLayout.JAVA_BYTE, i, pattern(me, peer, number, i));
                }
                if (core.offer(peer, m, 0, len) == MessageChannel.BACK_PRESSURE) {
                    break;
                }
                sent[me][peer]++;
            }
        }
    }

    /** @return true when every message has arrived everywhere */
    boolean done() {
        return delivered.get() == (long) nodes * (nodes - 1) * messages || errors.get() > 0;
    }

    long delivered() {
        return delivered.get();
    }

    int errors() {
        return errors.get();
    }

    String firstError() {
        return firstError;
    }

    private void error(String what) {
        if (errors.getAndIncrement() == 0) {
            firstError = what;
        }
    }

    private final class Receiver implements MessageHandler {
        private final int me;

        Receiver(int me) {
            this.me = me;
        }

        @Override
        public void onMessage(int peer, MemorySegment data, long offset, int length) {
            int number = data.get(U32, offset);
            int want = expected[me][peer];
            if (number != want) {
                error("node " + me + " got message " + number + " from " + peer + ", expected " + want);
                return;
            }
            if (length != length(number)) {
                error("node " + me + ": message " + number + " from " + peer + " has " + length + " bytes, not "
                        + length(number));
                return;
            }
            for (int i = 4; i < length; i++) {
                if (data.get(ValueLayout.JAVA_BYTE, offset + i) != pattern(peer, me, number, i)) {
                    error("node " + me + ": message " + number + " from " + peer + " differs at byte " + i);
                    return;
                }
            }
            expected[me][peer] = want + 1;
            delivered.incrementAndGet();
        }
    }
}
