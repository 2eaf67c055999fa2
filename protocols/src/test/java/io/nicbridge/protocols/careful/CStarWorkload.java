package io.nicbridge.protocols.careful;

import static io.nicbridge.protocols.cstar.CStarNetwork.ANY;
import static io.nicbridge.protocols.cstar.CStarNetwork.BACK_PRESSURE;
import static io.nicbridge.protocols.cstar.CStarNetwork.BCAST_EVENT;
import static io.nicbridge.protocols.cstar.CStarNetwork.BROADCAST;
import static io.nicbridge.protocols.cstar.CStarNetwork.EVENT_DONE;
import static io.nicbridge.protocols.cstar.CStarNetwork.LARGE_EVENT;
import static io.nicbridge.protocols.cstar.CStarNetwork.LAST_FRAG;
import static io.nicbridge.protocols.cstar.CStarNetwork.MORE;
import static io.nicbridge.protocols.cstar.CStarNetwork.NODE_DONE;
import static io.nicbridge.protocols.cstar.CStarNetwork.NOTHING;

import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.cstar.FragmentHandler;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.RunnerNode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.IntPredicate;

/**
 * A C* application for tests: every node runs the same sequence of events, each of one {@link Pattern}, sending its
 * fragments for event e (retrying on back-pressure) up to {@code ahead} events before it has received event e - 1
 * completely, and receiving each event until {@link CStarNetwork#EVENT_DONE}. Every fragment carries
 * {@code [src, event, index, dst]} and then bytes derived from them, so the receiver checks content, the exactly-once
 * delivery of every fragment, and that the status of each receive is exactly right: MORE until a source's last
 * fragment, then NODE_DONE, and EVENT_DONE for the very last fragment of the event. A consumer gate can hold a
 * node's receiving back (a slow or flooding application).
 */
public final class CStarWorkload implements NodeApplication {
    public enum Pattern {
        /** Node i sends to node i + 1 (mod P), point to point. */
        RING,
        /** Node e mod P broadcasts; every other node receives from it. */
        ONE_TO_ALL,
        /** Every node broadcasts with BCAST_EVENT; every node receives from every other. */
        CROWD
    }

    final int nodes;
    final int events;
    final int fragments;
    final int length;
    final int ahead;
    final Pattern[] patterns;
    final boolean anySource;
    IntPredicate consumeGate = node -> true;
    /**
     * True (a C* program): a node receives event e only once it has sent its fragments of e. False: it consumes
     * whatever has arrived, in event order, whether or not its own sends are stuck.
     */
    boolean receiveAfterSending = true;
    /**
     * True: a consumer that takes whatever has arrived for any unfinished event (up to 64 events ahead), not only
     * the oldest - one that "eventually consumes" every frame, as Theorem 1 assumes.
     */
    boolean greedy;

    private final MemorySegment[] sendBuffer;
    private final int[] sendEvent;
    private final int[] sendIndex;
    private final int[] recvEvent; // the oldest event not yet done, per node
    private final int[][][] takenFrom; // [node][event][src] fragments taken
    private final int[][] takenTotal; // [node][event]
    private final boolean[][] done; // [node][event]
    final long[] delivered;
    public long errors;
    public String firstError;
    long sendRefusals;
    private final Checker checker = new Checker();

    public CStarWorkload(int nodes, int events, int fragments, int length, int ahead, Pattern[] patterns,
                         boolean anySource) {
        this.nodes = nodes;
        this.events = events;
        this.fragments = fragments;
        this.length = length;
        this.ahead = ahead;
        this.patterns = patterns;
        this.anySource = anySource;
        sendBuffer = new MemorySegment[nodes];
        for (int i = 0; i < nodes; i++) {
            sendBuffer[i] = MemorySegment.ofArray(new byte[Math.max(length, 4)]);
        }
        sendEvent = new int[nodes];
        sendIndex = new int[nodes];
        recvEvent = new int[nodes];
        takenFrom = new int[nodes][events][nodes];
        takenTotal = new int[nodes][events];
        done = new boolean[nodes][events];
        delivered = new long[nodes];
    }

    public static Pattern[] all(Pattern p, int events) {
        Pattern[] a = new Pattern[events];
        java.util.Arrays.fill(a, p);
        return a;
    }

    /** @return node's destination in event e, or BROADCAST, or -1 when it sends nothing */
    int destination(int node, int e) {
        return switch (patterns[e]) {
            case RING -> (node + 1) % nodes;
            case ONE_TO_ALL -> node == e % nodes ? BROADCAST : -1;
            case CROWD -> BROADCAST;
        };
    }

    /** @return true when node receives from src in event e */
    boolean sendsTo(int src, int node, int e) {
        int d = destination(src, e);
        return src != node && (d == node || d == BROADCAST);
    }

    int sourcesOf(int node, int e) {
        int n = 0;
        for (int s = 0; s < nodes; s++) {
            n += sendsTo(s, node, e) ? 1 : 0;
        }
        return n;
    }

    boolean receivesIn(int node, int e) {
        return sourcesOf(node, e) > 0;
    }

    /** @return true when {@code node} has sent all its events */
    public boolean sentAll(int node) {
        return sendEvent[node] >= events;
    }

    public boolean isDone() {
        for (int i = 0; i < nodes; i++) {
            if (recvEvent[i] < events || sendEvent[i] < events) {
                return false;
            }
        }
        return true;
    }

    public long expectedTotal() {
        long n = 0;
        for (int e = 0; e < events; e++) {
            for (int i = 0; i < nodes; i++) {
                n += (long) sourcesOf(i, e) * fragments;
            }
        }
        return n;
    }

    public long deliveredTotal() {
        long n = 0;
        for (long d : delivered) {
            n += d;
        }
        return n;
    }

    public String progress() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < nodes; i++) {
            sb.append("node ").append(i).append(": sent up to event ").append(sendEvent[i]).append('/')
                    .append(sendIndex[i]).append(", receiving event ").append(recvEvent[i]).append("; ");
        }
        return sb.toString();
    }

    @Override
    public void afterEvent(RunnerNode node) {
        CStarNetwork net = (CStarNetwork) node.core();
        int id = node.id();
        boolean progress = true;
        while (progress) {
            progress = false;
            // skip events this node receives nothing in, or has finished already
            while (recvEvent[id] < events && (!receivesIn(id, recvEvent[id]) || done[id][recvEvent[id]])) {
                recvEvent[id]++;
            }
            if (sendEvent[id] < events && sendEvent[id] <= recvEvent[id] + ahead) {
                progress |= sendSome(net, id);
            }
            if (recvEvent[id] < events && (!receiveAfterSending || recvEvent[id] <= sendEvent[id])
                    && consumeGate.test(id)) {
                progress |= receiveSome(net, id, recvEvent[id]);
                for (int e = recvEvent[id] + 1; greedy && e < Math.min(events, recvEvent[id] + 64); e++) {
                    if (receivesIn(id, e) && !done[id][e]) {
                        progress |= receiveSome(net, id, e);
                    }
                }
            }
        }
    }

    private boolean sendSome(CStarNetwork net, int id) {
        int e = sendEvent[id];
        int dst = destination(id, e);
        if (dst == -1) {
            sendEvent[id]++;
            return true;
        }
        int flags = (patterns[e] == Pattern.CROWD ? BCAST_EVENT : 0) | (fragments > 1 ? LARGE_EVENT : 0);
        int i = sendIndex[id];
        MemorySegment b = sendBuffer[id];
        fill(b, id, e, i, dst, length);
        int r = net.send(dst, e, b, 0, length, flags | (i == fragments - 1 ? LAST_FRAG : 0));
        if (r == BACK_PRESSURE) {
            sendRefusals++;
            return false;
        }
        if (++sendIndex[id] == fragments) {
            sendIndex[id] = 0;
            sendEvent[id]++;
        }
        return true;
    }

    static void fill(MemorySegment b, int src, int e, int index, int dst, int length) {
        for (int j = 0; j < length; j++) {
            b.set(ValueLayout.JAVA_BYTE, j, content(src, e, index, dst, j));
        }
    }

    static byte content(int src, int e, int index, int dst, int j) {
        return switch (j) {
            case 0 -> (byte) src;
            case 1 -> (byte) e;
            case 2 -> (byte) index;
            case 3 -> (byte) dst;
            default -> (byte) (src * 31 + e * 7 + index * 13 + j);
        };
    }

    private boolean receiveSome(CStarNetwork net, int id, int e) {
        checker.node = id;
        checker.event = e;
        int src = ANY;
        if (!anySource && !greedy) { // a greedy consumer takes from whichever source has sent
            // ask the sources in turn: the lowest one not yet done
            for (int s = 0; s < nodes; s++) {
                if (sendsTo(s, id, e) && takenFrom[id][e][s] < fragments) {
                    src = s;
                    break;
                }
            }
        }
        int status = net.receive(src, e, checker);
        if (status == NOTHING) {
            return false;
        }
        if (status != checker.status) {
            error("node " + id + " event " + e + ": receive returned " + status + " but handed status " + checker.status);
        }
        if (status == EVENT_DONE) {
            if (takenTotal[id][e] != sourcesOf(id, e) * fragments) {
                error("node " + id + " event " + e + ": EVENT_DONE after " + takenTotal[id][e] + " of "
                        + sourcesOf(id, e) * fragments + " fragments");
            }
            done[id][e] = true;
        }
        return true;
    }

    private void error(String what) {
        errors++;
        if (firstError == null) {
            firstError = what;
        }
    }

    /** Checks each fragment handed over. */
    private final class Checker implements FragmentHandler {
        int node;
        int event;
        int status;

        @Override
        public void onFragment(int src, int e, int st, MemorySegment data, long offset, int len) {
            status = st;
            if (e != event || !sendsTo(src, node, e) || len != length) {
                error("node " + node + ": fragment of event " + e + " from " + src + " length " + len
                        + " not expected (receiving event " + event + ")");
                return;
            }
            int dst = destination(src, e);
            int index = data.get(ValueLayout.JAVA_BYTE, offset + 2) & 0xFF;
            for (int j = 0; j < len; j++) {
                if (data.get(ValueLayout.JAVA_BYTE, offset + j) != content(src, e, index, dst, j)) {
                    error("node " + node + ": fragment " + index + " of event " + e + " from " + src
                            + " damaged at byte " + j);
                    return;
                }
            }
            int taken = ++takenFrom[node][e][src];
            int total = ++takenTotal[node][e];
            delivered[node]++;
            if (taken > fragments) {
                error("node " + node + ": fragment " + index + " of event " + e + " from " + src + " delivered twice");
            }
            int all = sourcesOf(node, e) * fragments;
            int expected = total == all ? EVENT_DONE : taken == fragments ? NODE_DONE : MORE;
            if (st != expected) {
                error("node " + node + ": event " + e + " fragment " + total + "/" + all + " (from " + src
                        + ", its " + taken + "/" + fragments + ") came with status " + st + ", expected " + expected);
            }
        }
    }

    /** Starts every node of a virtual-time runner at time 0. */
    public void start(Scheduler scheduler, NodeRunner runner) {
        for (int i = 0; i < runner.nodeCount(); i++) {
            RunnerNode n = runner.node(i);
            Timer t = scheduler.newTimer("start" + i, () -> {
                afterEvent(n);
                n.applicationActed();
            });
            t.armAt(scheduler.nanoTime());
        }
    }

    /** Re-runs every node's application now (a consumer gate opened). */
    void poke(Scheduler scheduler, NodeRunner runner) {
        start(scheduler, runner);
    }
}
