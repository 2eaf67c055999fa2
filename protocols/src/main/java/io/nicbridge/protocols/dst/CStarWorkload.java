package io.nicbridge.protocols.dst;

import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.cstar.FragmentHandler;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.RunnerNode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

/**
 * The workload of {@link CStarNetwork} cores: one C* program run by every node, {@code messagesPerNode} events
 * drawn from the seed, each of one kind:
 * <ul>
 *   <li><b>shift</b>: every node sends its fragments point-to-point to the node {@code s} places on (the neighbour
 *       exchange of C* programs); each node receives from exactly one source, which it names in {@code receive};</li>
 *   <li><b>broadcast</b>: one root broadcasts; every other node receives from it ({@code receive(ANY, e)});</li>
 *   <li><b>crowd</b>: every node broadcasts with {@code BCAST_EVENT}; every node receives from every other one.</li>
 * </ul>
 * Each sender sends 1 to 4 fragments per event ({@code LARGE_EVENT} when more than one, {@code LAST_FRAG} on the
 * last). A node sends event e only after it has received every event before {@code e - lead} ({@code lead} 0 to 2,
 * drawn), and receives its events in order, polling until each is done.
 *
 * <p>Checks, per delivered fragment:
 * <ul>
 *   <li>{@code integrity}: the fragment is one that was sent to this node in this event by the source the core
 *       names, byte for byte (nothing delivered that was not sent);</li>
 *   <li>{@code exactly-once}: no fragment is delivered twice;</li>
 *   <li>{@code event-completion}: the status is exactly right: {@code EVENT_DONE} on the event's last fragment for
 *       this node, {@code NODE_DONE} on a source's last, {@code MORE} otherwise;</li>
 * </ul>
 * and the world checks progress (every node completes every event) and bounded memory. Fragments carry what they
 * are, so the receiver checks them without a table:
 * <pre>
 *   0        2        4                8        10       12
 *   | source | dest   | event (u32)    | index  | count  | pattern: byte i = source*31 + event*17 + index*7 + i |
 *                dest = the receiver, or 0xffff for a broadcast
 * </pre>
 */
final class CStarWorkload implements Workload, FragmentHandler {
    static final int KIND_SHIFT = 0;
    static final int KIND_BROADCAST = 1;
    static final int KIND_CROWD = 2;
    private static final int FRAGMENT_HEADER = 12;
    private static final int MAX_PER_SENDER = 4;
    private static final int BROADCAST_DEST = 0xFFFF;
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final Schedule schedule;
    private final Scheduler scheduler;
    private final Verdict verdict;
    private final int nodes;
    private final int events;
    private final int maxFragment;
    private final int lead;
    private final int[] kind;
    /** shift distance, or the broadcast's root */
    private final int[] param;
    private final int[][] count;
    private final int total;
    private final MemorySegment fragment;
    private final Timer[] startTimer;
    private NodeRunner runner;

    private final int[] sendEvent;
    private final int[] sendIndex;
    private final int[] recvEvent;
    private final int[][] gotFrom;
    private final long[][] seen;
    private final int[] gotTotal;
    private int receiver;
    private int offered;
    private int delivered;
    private long reportedAtEnd;

    CStarWorkload(Schedule schedule, SimSettings settings, Scheduler scheduler, Verdict verdict) {
        this.schedule = schedule;
        this.scheduler = scheduler;
        this.verdict = verdict;
        this.nodes = schedule.nodes();
        this.events = schedule.messagesPerNode();
        this.maxFragment = settings.maxMessage();
        if (maxFragment < FRAGMENT_HEADER) {
            throw new IllegalArgumentException("the C* workload needs fragments of at least " + FRAGMENT_HEADER
                    + " bytes; maxMessage is " + maxFragment);
        }
        SplittableRandom r = new SplittableRandom(schedule.seed() * 0xC2B2AE3D27D4EB4FL + nodes * 131L + events);
        lead = r.nextInt(3);
        kind = new int[events];
        param = new int[events];
        count = new int[events][nodes];
        int sum = 0;
        for (int e = 0; e < events; e++) {
            kind[e] = r.nextInt(3);
            param[e] = kind[e] == KIND_SHIFT ? 1 + r.nextInt(nodes - 1) : r.nextInt(nodes);
            for (int p = 0; p < nodes; p++) {
                count[e][p] = 1 + r.nextInt(MAX_PER_SENDER);
            }
            for (int q = 0; q < nodes; q++) {
                sum += expectedTotal(q, e);
            }
        }
        total = sum;
        fragment = MemorySegment.ofArray(new byte[maxFragment]);
        startTimer = new Timer[nodes];
        sendEvent = new int[nodes];
        sendIndex = new int[nodes];
        recvEvent = new int[nodes];
        gotFrom = new int[nodes][nodes];
        seen = new long[nodes][nodes];
        gotTotal = new int[nodes];
    }

    // ------------------------------------------------------------------ the plan

    /** @return node {@code p}'s destination in event {@code e}: a node, BROADCAST, or -1 when it sends nothing */
    private int destination(int p, int e) {
        return switch (kind[e]) {
            case KIND_SHIFT -> (p + param[e]) % nodes;
            case KIND_BROADCAST -> p == param[e] ? CStarNetwork.BROADCAST : -1;
            default -> CStarNetwork.BROADCAST;
        };
    }

    /** @return the fragments node {@code q} receives from {@code src} in event {@code e} */
    private int expectedFrom(int q, int e, int src) {
        if (src == q || src < 0 || src >= nodes) {
            return 0;
        }
        return switch (kind[e]) {
            case KIND_SHIFT -> (src + param[e]) % nodes == q ? count[e][src] : 0;
            case KIND_BROADCAST -> src == param[e] ? count[e][src] : 0;
            default -> count[e][src];
        };
    }

    private int expectedTotal(int q, int e) {
        int n = 0;
        for (int s = 0; s < nodes; s++) {
            n += expectedFrom(q, e, s);
        }
        return n;
    }

    private int lengthOf(int src, int e, int index) {
        int span = maxFragment - FRAGMENT_HEADER + 1;
        return FRAGMENT_HEADER + Math.floorMod(src * 7919 + e * 104729 + index * 31 + (int) schedule.seed(), span);
    }

    private static byte pattern(int src, int e, int index, int i) {
        return (byte) (src * 31 + e * 17 + index * 7 + i);
    }

    // ------------------------------------------------------------------ Workload

    @Override
    public void start(NodeRunner runner) {
        this.runner = runner;
        for (int i = 0; i < nodes; i++) {
            int node = i;
            startTimer[i] = scheduler.newTimer("cstar" + i + ".start", () -> {
                act(runner.node(node));
                runner.node(node).applicationActed();
            });
            startTimer[i].armAt(0);
        }
    }

    @Override
    public void stop() {
        reportedAtEnd = reportedByCores();
        for (Timer t : startTimer) {
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
    public boolean outstanding(long now) {
        for (int p = 0; p < nodes; p++) {
            if (sendEvent[p] < events || recvEvent[p] < events) {
                return true;
            }
        }
        return false;
    }

    @Override
    public long reportedByCores() {
        if (runner == null) {
            return reportedAtEnd;
        }
        long n = 0;
        for (int p = 0; p < nodes; p++) {
            n += ((CStarNetwork) runner.node(p).core()).violations();
        }
        return n;
    }

    @Override
    public void afterEvent(RunnerNode node) {
        act(node);
    }

    /** Node {@code node}'s program: send what the lead allows, receive what has arrived, until neither moves. */
    private void act(RunnerNode node) {
        int p = node.id();
        CStarNetwork core = (CStarNetwork) node.core();
        boolean moved = true;
        while (moved && !verdict.failed()) {
            moved = sendSome(p, core);
            moved |= receiveSome(p, core);
        }
    }

    /** @return true when an event's sending finished */
    private boolean sendSome(int p, CStarNetwork core) {
        boolean moved = false;
        while (sendEvent[p] < events && sendEvent[p] <= recvEvent[p] + lead) {
            int e = sendEvent[p];
            int dst = destination(p, e);
            int k = count[e][p];
            while (dst != -1 && sendIndex[p] < k) {
                int index = sendIndex[p];
                int length = lengthOf(p, e, index);
                compose(p, dst, e, index, k, length);
                int flags = (index == k - 1 ? CStarNetwork.LAST_FRAG : 0) | (k > 1 ? CStarNetwork.LARGE_EVENT : 0)
                        | (kind[e] == KIND_CROWD ? CStarNetwork.BCAST_EVENT : 0);
                if (core.send(dst, e, fragment, 0, length, flags) == CStarNetwork.BACK_PRESSURE) {
                    return moved; // tried again after the node's next event
                }
                sendIndex[p] = index + 1;
                offered += dst == CStarNetwork.BROADCAST ? nodes - 1 : 1;
                verdict.progressed();
            }
            sendEvent[p] = e + 1;
            sendIndex[p] = 0;
            moved = true;
        }
        return moved;
    }

    /** @return true when an event's receiving finished */
    private boolean receiveSome(int p, CStarNetwork core) {
        boolean moved = false;
        receiver = p;
        while (recvEvent[p] < events && !verdict.failed()) {
            int e = recvEvent[p];
            int want = expectedTotal(p, e);
            if (gotTotal[p] < want) {
                int src = kind[e] == KIND_SHIFT ? (p - param[e] + nodes) % nodes : CStarNetwork.ANY;
                if (core.receive(src, e, this) == CStarNetwork.NOTHING) {
                    return moved;
                }
                if (gotTotal[p] < want) {
                    continue;
                }
            }
            recvEvent[p] = e + 1;
            gotTotal[p] = 0;
            java.util.Arrays.fill(gotFrom[p], 0);
            java.util.Arrays.fill(seen[p], 0L);
            moved = true;
        }
        return moved;
    }

    private void compose(int src, int dst, int e, int index, int k, int length) {
        fragment.set(U16, 0, (short) src);
        fragment.set(U16, 2, (short) (dst == CStarNetwork.BROADCAST ? BROADCAST_DEST : dst));
        fragment.set(U32, 4, e);
        fragment.set(U16, 8, (short) index);
        fragment.set(U16, 10, (short) k);
        for (int i = FRAGMENT_HEADER; i < length; i++) {
            fragment.set(ValueLayout.JAVA_BYTE, i, pattern(src, e, index, i));
        }
    }

    // ------------------------------------------------------------------ the checks

    @Override
    public void onFragment(int src, int event, int status, MemorySegment data, long offset, int length) {
        if (verdict.failed()) {
            return;
        }
        int q = receiver;
        int e = recvEvent[q];
        String what = "node " + q + " event " + e + ": a " + length + "-byte fragment from " + src;
        if (event != e) {
            verdict.fail("integrity", what + " handed over as event " + event);
            return;
        }
        int from = expectedFrom(q, e, src);
        if (from == 0) {
            verdict.fail("integrity", what + ", which sends this node nothing in this event");
            return;
        }
        if (length < FRAGMENT_HEADER) {
            verdict.fail("integrity", what + ": shorter than its header");
            return;
        }
        int s = Short.toUnsignedInt(data.get(U16, offset));
        int d = Short.toUnsignedInt(data.get(U16, offset + 2));
        int ev = data.get(U32, offset + 4);
        int index = Short.toUnsignedInt(data.get(U16, offset + 8));
        int k = Short.toUnsignedInt(data.get(U16, offset + 10));
        int wantDest = destination(src, e) == CStarNetwork.BROADCAST ? BROADCAST_DEST : q;
        if (s != src || d != wantDest || ev != e || k != from || index >= from) {
            verdict.fail("integrity", what + " says source " + s + ", dest " + d + ", event " + ev + ", fragment "
                    + index + " of " + k + " (wanted source " + src + ", dest " + wantDest + ", " + from
                    + " fragments)");
            return;
        }
        if (length != lengthOf(src, e, index)) {
            verdict.fail("integrity", what + ", fragment " + index + ", should be " + lengthOf(src, e, index)
                    + " bytes");
            return;
        }
        for (int i = FRAGMENT_HEADER; i < length; i++) {
            if (data.get(ValueLayout.JAVA_BYTE, offset + i) != pattern(src, e, index, i)) {
                verdict.fail("integrity", what + ", fragment " + index + ", differs at byte " + i);
                return;
            }
        }
        if ((seen[q][src] & (1L << index)) != 0) {
            verdict.fail("exactly-once", what + ": fragment " + index + " delivered again");
            return;
        }
        seen[q][src] |= 1L << index;
        gotFrom[q][src]++;
        gotTotal[q]++;
        int expected = gotTotal[q] == expectedTotal(q, e) ? CStarNetwork.EVENT_DONE
                : gotFrom[q][src] == from ? CStarNetwork.NODE_DONE : CStarNetwork.MORE;
        if (status != expected) {
            verdict.fail("event-completion", what + ", fragment " + index + ": status " + statusName(status)
                    + ", should be " + statusName(expected) + " (" + gotFrom[q][src] + " of " + from
                    + " from the source, " + gotTotal[q] + " of " + expectedTotal(q, e) + " in the event)");
            return;
        }
        delivered++;
        verdict.progressed();
    }

    static String statusName(int status) {
        return switch (status) {
            case CStarNetwork.MORE -> "MORE";
            case CStarNetwork.NODE_DONE -> "NODE_DONE";
            case CStarNetwork.EVENT_DONE -> "EVENT_DONE";
            case CStarNetwork.NOTHING -> "NOTHING";
            default -> "unknown " + status;
        };
    }
}
