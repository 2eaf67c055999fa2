package io.nicbridge.protocols.dst;

import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.core.MessageCore;
import io.nicbridge.protocols.core.MessageHandler;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.RunnerNode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

/**
 * The workload of {@link MessageCore}s: each node offers {@code messagesPerNode} messages to peers drawn from the
 * seed, at times drawn over the settings' load span, and checks what it is delivered:
 * <ul>
 *   <li>{@code exactly-once}: no message is delivered twice;</li>
 *   <li>{@code per-peer-order}: each receiver gets each sender's messages in offer order, with no gap (a gap means a
 *       lost or overtaken message);</li>
 *   <li>{@code integrity}: a delivered message is the one offered, byte for byte, to the right node.</li>
 * </ul>
 * Messages carry their source, destination and per-pair number in their first 8 bytes and a pattern derived from
 * them after, so the receiver checks them without a table:
 * <pre>
 *   0        2        4                8
 *   | source | dest   | number (u32)   | pattern: byte i = source*31 + dest*17 + number*7 + i |
 * </pre>
 */
final class MessageWorkload implements Workload, MessageHandler {
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final Schedule schedule;
    private final SimSettings settings;
    private final Scheduler scheduler;
    private final Verdict verdict;
    private final int nodes;
    private final int perNode;
    private final int total;
    private final int[][] destination;
    private final int[][] number;
    private final long[][] availableAt;
    private final int[] nextToOffer;
    private final Timer[] offerTimer;
    private final int[][] expected;
    private final MemorySegment message;
    private NodeRunner runner;
    private int receiver;
    private int offered;
    private int delivered;

    MessageWorkload(Schedule schedule, SimSettings settings, Scheduler scheduler, Verdict verdict) {
        this.schedule = schedule;
        this.settings = settings;
        this.scheduler = scheduler;
        this.verdict = verdict;
        this.nodes = schedule.nodes();
        this.perNode = schedule.messagesPerNode();
        this.total = nodes * perNode;
        destination = new int[nodes][perNode];
        number = new int[nodes][perNode];
        availableAt = new long[nodes][perNode];
        int[][] counts = new int[nodes][nodes];
        SplittableRandom r = new SplittableRandom(schedule.seed() * 0x9E3779B97F4A7C15L + nodes * 31L + perNode);
        for (int i = 0; i < nodes; i++) {
            long t = 0;
            for (int k = 0; k < perNode; k++) {
                int d = r.nextInt(nodes - 1);
                d = d >= i ? d + 1 : d;
                destination[i][k] = d;
                number[i][k] = counts[i][d]++;
                t += r.nextLong(2 * settings.loadSpanNanos() / Math.max(1, perNode) + 1);
                availableAt[i][k] = Math.min(t, settings.loadSpanNanos());
            }
        }
        nextToOffer = new int[nodes];
        expected = new int[nodes][nodes];
        message = MemorySegment.ofArray(new byte[settings.maxMessage()]);
        offerTimer = new Timer[nodes];
    }

    @Override
    public void start(NodeRunner runner) {
        this.runner = runner;
        for (int i = 0; i < nodes; i++) {
            int node = i;
            offerTimer[i] = scheduler.newTimer("app" + i + ".offer", () -> {
                offerAvailable(node);
                runner.node(node).applicationActed();
            });
            if (perNode > 0) {
                offerTimer[i].armAt(availableAt[i][0]);
            }
        }
    }

    @Override
    public void stop() {
        for (Timer t : offerTimer) {
            if (t != null) {
                t.cancel();
            }
        }
    }

    @Override
    public int total() {
        return total;
    }

    @Override
    public int delivered() {
        return delivered;
    }

    @Override
    public int offered() {
        return offered;
    }

    @Override
    public long reportedByCores() {
        return 0;
    }

    @Override
    public boolean outstanding(long now) {
        if (offered > delivered) {
            return true;
        }
        for (int i = 0; i < nodes; i++) {
            if (nextToOffer[i] < perNode && availableAt[i][nextToOffer[i]] <= now) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void afterEvent(RunnerNode node) {
        MessageCore core = (MessageCore) node.core();
        receiver = node.id();
        core.deliver(this, Integer.MAX_VALUE);
        offerAvailable(node.id());
    }

    private void offerAvailable(int i) {
        MessageCore core = (MessageCore) runner.node(i).core();
        long now = scheduler.nanoTime();
        while (nextToOffer[i] < perNode && availableAt[i][nextToOffer[i]] <= now) {
            int k = nextToOffer[i];
            int d = destination[i][k];
            int n = number[i][k];
            int length = lengthOf(i, d, n);
            compose(i, d, n, length);
            if (core.offer(d, message, 0, length) == MessageChannel.BACK_PRESSURE) {
                return; // retried after the node's next event
            }
            nextToOffer[i] = k + 1;
            offered++;
            verdict.progressed();
        }
        if (nextToOffer[i] < perNode && !offerTimer[i].isArmed()) {
            offerTimer[i].armAt(Math.max(now, availableAt[i][nextToOffer[i]]));
        }
    }

    private int lengthOf(int src, int dst, int n) {
        int span = settings.maxMessage() - 8 + 1;
        return 8 + Math.floorMod((src * 7919 + dst * 104729 + n * 31 + (int) schedule.seed()), span);
    }

    private void compose(int src, int dst, int n, int length) {
        message.set(U16, 0, (short) src);
        message.set(U16, 2, (short) dst);
        message.set(U32, 4, n);
        for (int b = 8; b < length; b++) {
            message.set(ValueLayout.JAVA_BYTE, b, (byte) (src * 31 + dst * 17 + n * 7 + b));
        }
    }

    @Override
    public void onMessage(int peer, MemorySegment data, long offset, int length) {
        if (verdict.failed()) {
            return;
        }
        if (length < 8) {
            verdict.fail("integrity", "node " + receiver + " got a " + length + "-byte message from " + peer);
            return;
        }
        int src = Short.toUnsignedInt(data.get(U16, offset));
        int dst = Short.toUnsignedInt(data.get(U16, offset + 2));
        int n = data.get(U32, offset + 4);
        if (src != peer || dst != receiver) {
            verdict.fail("integrity", "node " + receiver + " got a message from " + peer + " that says " + src
                    + " -> " + dst);
            return;
        }
        int want = expected[src][dst];
        if (n < want) {
            verdict.fail("exactly-once", "node " + dst + " got message #" + n + " from " + src
                    + " again (next due #" + want + ")");
            return;
        }
        if (n > want) {
            verdict.fail("per-peer-order", "node " + dst + " got message #" + n + " from " + src + " while #" + want
                    + " was due (lost or overtaken)");
            return;
        }
        if (length != lengthOf(src, dst, n)) {
            verdict.fail("integrity", "message #" + n + " " + src + " -> " + dst + " is " + length + " bytes, was "
                    + lengthOf(src, dst, n));
            return;
        }
        for (int b = 8; b < length; b++) {
            if (data.get(ValueLayout.JAVA_BYTE, offset + b) != (byte) (src * 31 + dst * 17 + n * 7 + b)) {
                verdict.fail("integrity", "message #" + n + " " + src + " -> " + dst + " differs at byte " + b);
                return;
            }
        }
        expected[src][dst] = want + 1;
        delivered++;
        verdict.progressed();
    }
}
