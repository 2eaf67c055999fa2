package io.nicbridge.protocols.fabric;

import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.core.MessageCore;
import io.nicbridge.protocols.core.MessageHandler;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.RunnerNode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The application of the fabric runs: node pairs, each node sending {@code messages} messages to its partner and
 * checking what its partner sends - exactly once, in order, byte for byte. Sizes cycle through 4 .. maxMessage.
 *
 * <pre>
 *   0            4
 *   | number u32 | pattern: byte i = source*31 + dest*17 + number*7 + i |
 * </pre>
 * Single-threaded (virtual time): the runner's thread is the only one.
 */
final class PairExchange implements NodeApplication {
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final int[] partner;
    private final int messages;
    private final int maxMessage;
    private final int[] sent;
    private final int[] expected;
    private final MemorySegment scratch;
    private final MessageHandler[] receivers;
    private final long total;
    private long delivered;
    private int errors;
    private String firstError;

    /** @param partner partner[i] is node i's partner (partner[partner[i]] == i), or -1 for a node that stays silent */
    PairExchange(int[] partner, int messages, int maxMessage) {
        this.partner = partner.clone();
        this.messages = messages;
        this.maxMessage = maxMessage;
        sent = new int[partner.length];
        expected = new int[partner.length];
        scratch = MemorySegment.ofArray(new byte[maxMessage]);
        receivers = new MessageHandler[partner.length];
        long pairs = 0;
        for (int i = 0; i < partner.length; i++) {
            int p = partner[i];
            if (p >= 0 && (p >= partner.length || partner[p] != i || p == i)) {
                throw new IllegalArgumentException("partner table is not a pairing at node " + i);
            }
            int me = i;
            receivers[i] = (peer, data, offset, length) -> received(me, peer, data, offset, length);
            pairs += p >= 0 ? 1 : 0;
        }
        total = pairs * messages;
    }

    /** Pairs {@code i} with {@code n-1-i} for the first n nodes of {@code nodes}: every pair crosses the middle. */
    static int[] mirrored(int nodes, int n) {
        int[] p = new int[nodes];
        java.util.Arrays.fill(p, -1);
        for (int i = 0; i < n; i++) {
            p[i] = n - 1 - i;
        }
        return p;
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
        int peer = partner[me];
        if (peer < 0) {
            return;
        }
        while (sent[me] < messages) {
            int number = sent[me];
            int len = length(number);
            scratch.set(U32, 0, number);
            for (int i = 4; i < len; i++) {
                scratch.set(ValueLayout.JAVA_BYTE, i, pattern(me, peer, number, i));
            }
            if (core.offer(peer, scratch, 0, len) == MessageChannel.BACK_PRESSURE) {
                break;
            }
            sent[me]++;
        }
    }

    private void received(int me, int peer, MemorySegment data, long offset, int length) {
        int number = data.get(U32, offset);
        if (peer != partner[me]) {
            error("node " + me + " got a message from " + peer + ", not its partner " + partner[me]);
        } else if (number != expected[me]) {
            error("node " + me + " got message " + number + " from " + peer + ", expected " + expected[me]);
        } else if (length != length(number)) {
            error("node " + me + ": message " + number + " has " + length + " bytes, not " + length(number));
        } else {
            for (int i = 4; i < length; i++) {
                if (data.get(ValueLayout.JAVA_BYTE, offset + i) != pattern(peer, me, number, i)) {
                    error("node " + me + ": message " + number + " from " + peer + " differs at byte " + i);
                    return;
                }
            }
            expected[me]++;
            delivered++;
        }
    }

    boolean done() {
        return delivered == total || errors > 0;
    }

    long total() {
        return total;
    }

    long delivered() {
        return delivered;
    }

    int errors() {
        return errors;
    }

    String firstError() {
        return firstError;
    }

    private void error(String what) {
        if (errors++ == 0) {
            firstError = what;
        }
    }
}
