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
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.IntPredicate;

/**
 * The one C* application of the tests: a C* program run by every node, whose delivered fragments and receive
 * statuses it checks. Its events are each of one kind:
 * <ul>
 *   <li><b>shift</b>: every node sends its fragments point-to-point to the node {@code s} places on (the neighbour
 *       exchange of C* programs; {@link Pattern#RING} is s = 1); each node receives from exactly one source;</li>
 *   <li><b>broadcast</b>: one root broadcasts; every other node receives from it ({@link Pattern#ONE_TO_ALL}: the
 *       root of event e is node e mod P);</li>
 *   <li><b>crowd</b>: every node broadcasts with {@code BCAST_EVENT}; every node receives from every other one.</li>
 * </ul>
 * Each sender sends its fragments of an event ({@code LARGE_EVENT} when more than one, {@code LAST_FRAG} on the
 * last), retrying after back-pressure at its node's next event. A node sends event e only after it has received
 * every event before {@code e - lead}, and receives its events in order until each is done. Two ways to make one:
 * <ul>
 *   <li>from a simulation {@link Schedule} (the tester's): kinds, shifts, roots, lead, 1 to 4 fragments per sender
 *       and fragment lengths drawn from the seed; a shift names its source in {@code receive}, the others receive
 *       from {@code ANY}; a broken check is the run's {@link Verdict};</li>
 *   <li>explicitly ({@link #CStarWorkload(int, int, int, int, int, Pattern[], boolean)}, the core tests): patterns,
 *       fragments per sender and one length; broken checks are counted ({@link #errors()}, {@link #firstError()}),
 *       and a test can gate a node's consumption ({@link #consumeGate}), let it consume before its own sends are
 *       through ({@link #receiveAfterSending}), or make it consume greedily from any unfinished event
 *       ({@link #greedy}).</li>
 * </ul>
 *
 * <p>Checks, per delivered fragment:
 * <ul>
 *   <li>{@code integrity}: the fragment is one that was sent to this node in this event by the source the core
 *       names, byte for byte and of its exact length (nothing delivered that was not sent);</li>
 *   <li>{@code exactly-once}: no fragment is delivered twice;</li>
 *   <li>{@code event-completion}: the status is exactly right: {@code EVENT_DONE} on the event's last fragment for
 *       this node, {@code NODE_DONE} on a source's last, {@code MORE} otherwise; and {@code receive} returns the
 *       status it handed over;</li>
 * </ul>
 * and the world checks progress (every node completes every event) and bounded memory. Fragments carry what they
 * are, so the receiver checks them without a table:
 * <pre>
 *   0        2        4                8        10       12
 *   | source | dest   | event (u32)    | index  | count  | pattern: byte i = source*31 + event*17 + index*7 + i |
 *                dest = the receiver, or 0xffff for a broadcast
 * </pre>
 *
 * <p>Single-threaded: every node's program runs on the one thread of a {@link NodeRunner} (virtual time, or a
 * real-time event loop).
 */
public final class CStarWorkload implements Workload, FragmentHandler {
    /** An event's communication pattern, for explicit programs. */
    public enum Pattern {
        /** Node i sends to node i + 1 (mod P), point to point. */
        RING,
        /** Node e mod P broadcasts; every other node receives from it. */
        ONE_TO_ALL,
        /** Every node broadcasts with BCAST_EVENT; every node receives from every other. */
        CROWD
    }

    /** The smallest fragment: its self-describing header. */
    public static final int FRAGMENT_HEADER = 12;
    static final int KIND_SHIFT = 0;
    static final int KIND_BROADCAST = 1;
    static final int KIND_CROWD = 2;
    private static final int MAX_PER_SENDER = 4;
    private static final int MAX_FRAGMENTS = 4096;
    private static final int BROADCAST_DEST = 0xFFFF;
    private static final int GREEDY_SPAN = 64;
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final Verdict verdict;
    private final Scheduler scheduler;
    private final long seed;
    private final int nodes;
    private final int events;
    private final int maxFragment;
    /** 0: lengths drawn per fragment in [FRAGMENT_HEADER, maxFragment]; else every fragment's length */
    private final int fixedLength;
    private final int lead;
    private final int[] kind;
    /** shift distance, or the broadcast's root */
    private final int[] param;
    /** receive names the source (the lowest not yet done) rather than ANY */
    private final boolean[] byName;
    private final int[][] count;
    private final int total;
    private final MemorySegment fragment;
    private Timer[] startTimer;
    private NodeRunner runner;

    /** Explicit programs: may node n consume now? */
    public IntPredicate consumeGate = node -> true;
    /**
     * True (a C* program, the explicit default): a node receives event e only once it has sent the events before e.
     * False (the schedules'): it consumes whatever has arrived, in event order, whether or not its sends are stuck.
     */
    public boolean receiveAfterSending;
    /**
     * True: a consumer that takes whatever has arrived for any unfinished event (up to 64 events ahead), from any
     * source, not only the oldest event - one that "eventually consumes" every frame, as Theorem 1 assumes.
     */
    public boolean greedy;

    private final int[] sendEvent;
    private final int[] sendIndex;
    private final int[] recvEvent;
    private final int[][][] gotFrom; // [node][event][src]
    /** [node][event][src * words + index / 64]: bit index % 64 set once fragment index was delivered */
    private final long[][][] seen;
    private final int words;
    private final int[][] gotTotal; // [node][event]
    private int receiver;
    private int receivingEvent;
    private int handedStatus;
    private int offered;
    private int delivered;
    private long sendRefusals;
    private long reportedAtEnd;

    CStarWorkload(Schedule schedule, SimSettings settings, Scheduler scheduler, Verdict verdict) {
        this.verdict = verdict;
        this.scheduler = scheduler;
        this.seed = schedule.seed();
        this.nodes = schedule.nodes();
        this.events = schedule.messagesPerNode();
        this.maxFragment = settings.maxMessage();
        this.fixedLength = 0;
        if (maxFragment < FRAGMENT_HEADER) {
            throw new IllegalArgumentException("the C* workload needs fragments of at least " + FRAGMENT_HEADER
                    + " bytes; maxMessage is " + maxFragment);
        }
        SplittableRandom r = new SplittableRandom(schedule.seed() * 0xC2B2AE3D27D4EB4FL + nodes * 131L + events);
        lead = r.nextInt(3);
        kind = new int[events];
        param = new int[events];
        byName = new boolean[events];
        count = new int[events][nodes];
        for (int e = 0; e < events; e++) {
            kind[e] = r.nextInt(3);
            param[e] = kind[e] == KIND_SHIFT ? 1 + r.nextInt(nodes - 1) : r.nextInt(nodes);
            byName[e] = kind[e] == KIND_SHIFT;
            for (int p = 0; p < nodes; p++) {
                count[e][p] = 1 + r.nextInt(MAX_PER_SENDER);
            }
        }
        receiveAfterSending = false;
        total = totalOfPlan();
        fragment = MemorySegment.ofArray(new byte[maxFragment]);
        sendEvent = new int[nodes];
        sendIndex = new int[nodes];
        recvEvent = new int[nodes];
        words = 1;
        gotFrom = new int[nodes][events][nodes];
        seen = new long[nodes][events][nodes];
        gotTotal = new int[nodes][events];
    }

    /**
     * An explicit program.
     *
     * @param fragments  fragments every sender sends per event (1 .. 64)
     * @param length     every fragment's length, at least {@link #FRAGMENT_HEADER}
     * @param ahead      how many events a node may send ahead of the oldest one it has not received completely
     * @param patterns   one per event
     * @param anySource  receive from {@code ANY}; false: name the lowest source not yet done
     */
    public CStarWorkload(int nodes, int events, int fragments, int length, int ahead, Pattern[] patterns,
                         boolean anySource) {
        Objects.requireNonNull(patterns, "patterns");
        if (nodes < 2 || events < 1 || patterns.length != events) {
            throw new IllegalArgumentException("nodes must be >= 2, events >= 1 and one pattern per event; nodes "
                    + nodes + ", events " + events + ", patterns " + patterns.length);
        }
        if (fragments < 1 || fragments > MAX_FRAGMENTS || length < FRAGMENT_HEADER || ahead < 0) {
            throw new IllegalArgumentException("fragments must be in [1, " + MAX_FRAGMENTS + "], length >= "
                    + FRAGMENT_HEADER + " (the fragment's own header), ahead >= 0; were " + fragments + ", " + length
                    + ", " + ahead);
        }
        this.verdict = new Tally();
        this.scheduler = null;
        this.seed = 0;
        this.nodes = nodes;
        this.events = events;
        this.maxFragment = length;
        this.fixedLength = length;
        this.lead = ahead;
        kind = new int[events];
        param = new int[events];
        byName = new boolean[events];
        count = new int[events][nodes];
        for (int e = 0; e < events; e++) {
            kind[e] = switch (patterns[e]) {
                case RING -> KIND_SHIFT;
                case ONE_TO_ALL -> KIND_BROADCAST;
                case CROWD -> KIND_CROWD;
            };
            param[e] = kind[e] == KIND_SHIFT ? 1 : e % nodes;
            byName[e] = !anySource;
            java.util.Arrays.fill(count[e], fragments);
        }
        receiveAfterSending = true;
        total = totalOfPlan();
        fragment = MemorySegment.ofArray(new byte[length]);
        sendEvent = new int[nodes];
        sendIndex = new int[nodes];
        recvEvent = new int[nodes];
        words = (fragments + 63) / 64;
        gotFrom = new int[nodes][events][nodes];
        seen = new long[nodes][events][nodes * words];
        gotTotal = new int[nodes][events];
    }

    /** @return {@code pattern} for each of {@code events} events */
    public static Pattern[] all(Pattern pattern, int events) {
        Pattern[] a = new Pattern[events];
        java.util.Arrays.fill(a, pattern);
        return a;
    }

    private int totalOfPlan() {
        int sum = 0;
        for (int e = 0; e < events; e++) {
            for (int q = 0; q < nodes; q++) {
                sum += expectedTotal(q, e);
            }
        }
        return sum;
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
        if (fixedLength > 0) {
            return fixedLength;
        }
        int span = maxFragment - FRAGMENT_HEADER + 1;
        return FRAGMENT_HEADER + Math.floorMod(src * 7919 + e * 104729 + index * 31 + (int) seed, span);
    }

    private static byte pattern(int src, int e, int index, int i) {
        return (byte) (src * 31 + e * 17 + index * 7 + i);
    }

    // ------------------------------------------------------------------ Workload

    @Override
    public void start(NodeRunner runner) {
        start(scheduler, runner);
    }

    /** Starts every node's program at the scheduler's present time (a real-time loop's, or a virtual world's). */
    public void start(Scheduler scheduler, NodeRunner runner) {
        this.runner = runner;
        startTimer = new Timer[nodes];
        for (int i = 0; i < nodes; i++) {
            int node = i;
            startTimer[i] = scheduler.newTimer("cstar" + i + ".start", () -> {
                act(runner.node(node));
                runner.node(node).applicationActed();
            });
            startTimer[i].armAt(scheduler.nanoTime());
        }
    }

    /** Runs every node's program again now (a test opened a consumer gate). */
    public void poke(Scheduler scheduler, NodeRunner runner) {
        start(scheduler, runner);
    }

    @Override
    public void stop() {
        reportedAtEnd = reportedByCores();
        if (startTimer != null) {
            for (Timer t : startTimer) {
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
        return !isDone();
    }

    /** @return true when every node has sent and received every event */
    public boolean isDone() {
        for (int p = 0; p < nodes; p++) {
            if (sendEvent[p] < events || recvEvent[p] < events) {
                return false;
            }
        }
        return true;
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

    /** @return the fragments the program must see delivered */
    public long expectedTotal() {
        return total;
    }

    /** @return the fragments delivered and checked so far */
    public long deliveredTotal() {
        return delivered;
    }

    /** @return true when {@code node} has sent all its events */
    public boolean sentAll(int node) {
        return sendEvent[node] >= events;
    }

    /** @return sends the core answered with back-pressure */
    public long sendRefusals() {
        return sendRefusals;
    }

    /** @return broken checks of an explicit program (a schedule's first one is its verdict) */
    public long errors() {
        return verdict instanceof Tally t ? t.errors : verdict.failed() ? 1 : 0;
    }

    /** @return the first broken check of an explicit program, or null */
    public String firstError() {
        return verdict instanceof Tally t ? t.first : null;
    }

    public int nodes() {
        return nodes;
    }

    /** @return the longest fragment the program sends */
    public int maxFragment() {
        return maxFragment;
    }

    /** @return where each node stands, for a failure message */
    public String progress() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < nodes; i++) {
            sb.append("node ").append(i).append(": sent up to event ").append(sendEvent[i]).append('/')
                    .append(sendIndex[i]).append(", receiving event ").append(recvEvent[i]).append("; ");
        }
        return sb.append(delivered).append(" of ").append(total).append(" delivered").toString();
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
            moved = passCompleteEvents(p);
            moved |= sendSome(p, core);
            if (consumeGate.test(p)) {
                moved |= receiveSome(p, core);
            }
        }
    }

    /** Moves past the events node {@code p} has received completely, or receives nothing in (gate or not). */
    private boolean passCompleteEvents(int p) {
        boolean moved = false;
        while (recvEvent[p] < events && gotTotal[p][recvEvent[p]] == expectedTotal(p, recvEvent[p])) {
            recvEvent[p]++;
            moved = true;
        }
        return moved;
    }

    /** @return true when a fragment or an event's sending finished */
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
                    sendRefusals++;
                    return moved; // tried again after the node's next event
                }
                sendIndex[p] = index + 1;
                offered += dst == CStarNetwork.BROADCAST ? nodes - 1 : 1;
                verdict.progressed();
                moved = true;
            }
            sendEvent[p] = e + 1;
            sendIndex[p] = 0;
            moved = true;
        }
        return moved;
    }

    /** @return true when something was received or an event finished */
    private boolean receiveSome(int p, CStarNetwork core) {
        boolean moved = false;
        while (recvEvent[p] < events && !verdict.failed()) {
            int e = recvEvent[p];
            if (gotTotal[p][e] == expectedTotal(p, e)) {
                recvEvent[p] = e + 1;
                moved = true;
                continue;
            }
            if (receiveAfterSending && sendEvent[p] < e) {
                break; // a C* program receives an event once it has sent the events before it
            }
            if (!receiveOne(p, e, core)) {
                break;
            }
            moved = true;
        }
        for (int e = recvEvent[p] + 1; greedy && e < Math.min(events, recvEvent[p] + GREEDY_SPAN); e++) {
            while (gotTotal[p][e] < expectedTotal(p, e) && !verdict.failed() && receiveOne(p, e, core)) {
                moved = true;
            }
        }
        return moved;
    }

    /** @return true when the core handed over a fragment of event {@code e} */
    private boolean receiveOne(int p, int e, CStarNetwork core) {
        int src = CStarNetwork.ANY;
        if (byName[e] && !greedy) {
            for (int s = 0; s < nodes; s++) {
                if (gotFrom[p][e][s] < expectedFrom(p, e, s)) {
                    src = s;
                    break;
                }
            }
        }
        receiver = p;
        receivingEvent = e;
        handedStatus = CStarNetwork.NOTHING;
        int status = core.receive(src, e, this);
        if (status == CStarNetwork.NOTHING) {
            return false;
        }
        if (status != handedStatus) {
            verdict.fail("event-completion", "node " + p + " event " + e + ": receive returned "
                    + statusName(status) + " but handed the fragment over with " + statusName(handedStatus));
        }
        return true;
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
        handedStatus = status;
        if (verdict.failed()) {
            return;
        }
        int q = receiver;
        int e = receivingEvent;
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
        int word = src * words + (index >>> 6);
        if ((seen[q][e][word] & (1L << index)) != 0) {
            verdict.fail("exactly-once", what + ": fragment " + index + " delivered again");
            return;
        }
        seen[q][e][word] |= 1L << index;
        gotFrom[q][e][src]++;
        gotTotal[q][e]++;
        int expected = gotTotal[q][e] == expectedTotal(q, e) ? CStarNetwork.EVENT_DONE
                : gotFrom[q][e][src] == from ? CStarNetwork.NODE_DONE : CStarNetwork.MORE;
        if (status != expected) {
            verdict.fail("event-completion", what + ", fragment " + index + ": status " + statusName(status)
                    + ", should be " + statusName(expected) + " (" + gotFrom[q][e][src] + " of " + from
                    + " from the source, " + gotTotal[q][e] + " of " + expectedTotal(q, e) + " in the event)");
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

    /** An explicit program's verdict: counts broken checks and keeps the first; the program stops at one. */
    private static final class Tally implements Verdict {
        long errors;
        String first;

        @Override
        public void fail(String invariant, String detail) {
            if (errors++ == 0) {
                first = invariant + ": " + detail;
            }
        }

        @Override
        public boolean failed() {
            return errors > 0;
        }

        @Override
        public void progressed() {
        }
    }
}
