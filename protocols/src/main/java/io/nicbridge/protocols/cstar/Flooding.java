package io.nicbridge.protocols.cstar;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.bridge.time.VirtualScheduler;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.RunnerNode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * The paper's flooding test (TR 94-14 section 6.1, Table 3) as a C* application for any {@link CStarNetwork} core:
 * every node broadcasts events of {@code k} fragments (a crowd event: {@code BCAST_EVENT}) and starts consuming
 * only once it has sent {@code n} of them: it sends event e only while {@code e < consumed + n}, so up to
 * {@code n x k} fragments per sender are outstanding. Fragments carry their source, event and index and are checked
 * on receipt.
 *
 * <p>{@link #run} plays it in virtual time with a <b>bounded</b> check of what happens, so that a protocol that
 * cannot cope is reported, not waited for:
 * <ul>
 *   <li>{@link Verdict#COMPLETED}: every node consumed every event (the time is the flooding time);</li>
 *   <li>{@link Verdict#LIVELOCK}: for {@code quietWindows} windows in a row frames kept flowing (the links sent
 *       frames: retransmissions, requests) while no node sent or consumed a single fragment;</li>
 *   <li>{@link Verdict#DEADLOCK}: for as long, nothing moved at all, not even a frame;</li>
 *   <li>{@link Verdict#UNFINISHED}: still making progress when the time limit came.</li>
 * </ul>
 * A fragment delivered wrong (not what its source sent, or twice) ends the run as {@link Verdict#WRONG}.
 *
 * <p>The program writes every byte of a fragment before sending it and reads every byte it receives (the check).
 * That work is free unless {@link #chargeProcessing} names the nodes' CPUs: then it is the paper's "with processing"
 * variant, each pass over n bytes charged as {@link CostItem#COPY} of n bytes.
 */
public final class Flooding implements NodeApplication, FragmentHandler {
    /** How a flooding run ended. */
    public enum Verdict { COMPLETED, LIVELOCK, DEADLOCK, UNFINISHED, WRONG }

    /**
     * @param events        events every node broadcasts (>= 1)
     * @param n             events a node sends before it consumes (>= 1): the paper's n
     * @param k             fragments per event and node (1 .. 64): the paper's k
     * @param fragmentBytes bytes per fragment (>= 8)
     */
    public record Params(int events, int n, int k, int fragmentBytes) {
        public Params {
            if (events < 1 || n < 1 || k < 1 || k > 64 || fragmentBytes < 8) {
                throw new IllegalArgumentException("events >= 1, n >= 1, k in [1, 64], fragmentBytes >= 8 wanted; were "
                        + events + ", " + n + ", " + k + ", " + fragmentBytes);
            }
        }
    }

    /**
     * @param verdict    how it ended
     * @param endNanos   virtual time of the end (completion, or when the verdict was reached)
     * @param taken      fragments consumed, over all nodes
     * @param expected   fragments to consume, over all nodes: {@code P (P-1) events k}
     * @param frames     frames the links sent, over all nodes
     * @param evidence   what the check saw, one line
     */
    public record Outcome(Verdict verdict, long endNanos, long taken, long expected, long frames, String evidence) {
    }

    private final Params params;
    private final int nodes;
    private final int[] sendEvent;
    private final int[] sendIndex;
    private final int[] recvEvent;
    private final long[][] seen;
    private final MemorySegment fragment;
    private long sent;
    private long taken;
    private int receiver;
    private String wrong;
    private HostCpu[] processing;
    /** Per node: 1 + the tag of the fragment whose writing was last charged (a refused send composes it again). */
    private long[] charged;

    /** One flooding program for {@code nodes} nodes. */
    public Flooding(int nodes, Params params) {
        this.params = Objects.requireNonNull(params, "params");
        if (nodes < 2) {
            throw new IllegalArgumentException("nodes must be >= 2, was " + nodes);
        }
        this.nodes = nodes;
        sendEvent = new int[nodes];
        sendIndex = new int[nodes];
        recvEvent = new int[nodes];
        seen = new long[nodes][nodes];
        fragment = MemorySegment.ofArray(new byte[params.fragmentBytes()]);
    }

    /**
     * Charges the program's writing and reading of the payload to the nodes' CPUs (the paper's "with processing"):
     * each fragment written once before it is sent and each fragment received read once, each pass over n bytes as
     * {@link CostItem#COPY} of n bytes. Call before {@link #run}.
     *
     * @param cpus node i's CPU at index i (the runner's)
     * @return this
     */
    public Flooding chargeProcessing(HostCpu[] cpus) {
        Objects.requireNonNull(cpus, "cpus");
        if (cpus.length != nodes) {
            throw new IllegalArgumentException("cpus: one per node wanted, " + nodes + ", got " + cpus.length);
        }
        processing = cpus.clone();
        charged = new long[nodes];
        return this;
    }

    /** @return fragments every node must consume, summed: P (P-1) events k */
    public long expected() {
        return (long) nodes * (nodes - 1) * params.events() * params.k();
    }

    public long taken() {
        return taken;
    }

    /** @return fragments the cores accepted from the application, over all nodes */
    public long sent() {
        return sent;
    }

    public boolean done() {
        return taken == expected();
    }

    @Override
    public void afterEvent(RunnerNode node) {
        int p = node.id();
        CStarNetwork core = (CStarNetwork) node.core();
        boolean moved = true;
        while (moved && wrong == null) {
            moved = false;
            while (sendEvent[p] < params.events() && sendEvent[p] < recvEvent[p] + params.n()) {
                int e = sendEvent[p];
                int i = sendIndex[p];
                compose(p, e, i);
                int flags = CStarNetwork.BCAST_EVENT | (params.k() > 1 ? CStarNetwork.LARGE_EVENT : 0)
                        | (i == params.k() - 1 ? CStarNetwork.LAST_FRAG : 0);
                if (core.send(CStarNetwork.BROADCAST, e, fragment, 0, params.fragmentBytes(), flags)
                        == CStarNetwork.BACK_PRESSURE) {
                    break;
                }
                sent++;
                if (++sendIndex[p] == params.k()) {
                    sendIndex[p] = 0;
                    sendEvent[p]++;
                }
                moved = true;
            }
            if (sendEvent[p] < params.n() && sendEvent[p] < params.events()) {
                continue; // the paper's node consumes only after sending n events
            }
            receiver = p;
            while (recvEvent[p] < params.events() && wrong == null) {
                int status = core.receive(CStarNetwork.ANY, recvEvent[p], this);
                if (status == CStarNetwork.NOTHING) {
                    break;
                }
                moved = true;
                if (status == CStarNetwork.EVENT_DONE) {
                    recvEvent[p]++;
                    java.util.Arrays.fill(seen[p], 0L);
                }
            }
        }
    }

    private void compose(int src, int event, int index) {
        fragment.set(ValueLayout.JAVA_INT_UNALIGNED, 0, src);
        fragment.set(ValueLayout.JAVA_INT_UNALIGNED, 4, event * 64 + index);
        for (int b = 8; b < params.fragmentBytes(); b++) {
            fragment.set(ValueLayout.JAVA_BYTE, b, (byte) (src * 31 + event * 17 + index * 7 + b));
        }
        long tag = 1 + (long) event * 64 + index;
        if (processing != null && charged[src] != tag) {
            charged[src] = tag;
            processing[src].charge(CostItem.COPY, params.fragmentBytes());
        }
    }

    @Override
    public void onFragment(int src, int event, int status, MemorySegment data, long offset, int length) {
        int q = receiver;
        if (processing != null) {
            processing[q].charge(CostItem.COPY, length);
        }
        int s = data.get(ValueLayout.JAVA_INT_UNALIGNED, offset);
        int tag = data.get(ValueLayout.JAVA_INT_UNALIGNED, offset + 4);
        int index = tag - event * 64;
        boolean ok = length == params.fragmentBytes() && s == src && index >= 0 && index < params.k()
                && (seen[q][src] & (1L << index)) == 0;
        for (int b = 8; ok && b < length; b++) {
            ok = data.get(ValueLayout.JAVA_BYTE, offset + b) == (byte) (src * 31 + event * 17 + index * 7 + b);
        }
        if (!ok) {
            wrong = "node " + q + " event " + event + ": a wrong or repeated fragment from " + src;
            return;
        }
        seen[q][src] |= 1L << index;
        taken++;
    }

    /**
     * Plays the program on {@code runner}'s nodes (whose application must be this object) until it completes or the
     * check decides, never beyond {@code limitNanos} of virtual time.
     *
     * @param scheduler    the runner's virtual scheduler
     * @param links        the nodes' links (their sent-frame counters are the livelock's evidence)
     * @param window       the length of one observation window
     * @param quietWindows windows in a row without progress that make a livelock (frames flowed) or a deadlock
     */
    public Outcome run(VirtualScheduler scheduler, NodeRunner runner, Link[] links, long window, int quietWindows,
                       long limitNanos) {
        if (window <= 0 || quietWindows < 1) {
            throw new IllegalArgumentException("window must be > 0 and quietWindows >= 1, were " + window + ", "
                    + quietWindows);
        }
        Timer[] kick = new Timer[nodes];
        for (int i = 0; i < nodes; i++) {
            int node = i;
            kick[i] = scheduler.newTimer("flooding" + i + ".start", () -> {
                afterEvent(runner.node(node));
                runner.node(node).applicationActed();
            });
            kick[i].armAt(scheduler.nanoTime());
        }
        long start = scheduler.nanoTime();
        long lastProgress = sent + taken;
        long lastFrames = frames(links);
        long framesAtProgress = lastFrames;
        int busyQuiet = 0;
        int idleQuiet = 0;
        while (true) {
            long sliceEnd = Math.min(start + limitNanos, scheduler.nanoTime() + window);
            boolean finished = scheduler.runUntil(() -> done() || wrong != null, sliceEnd);
            long now = scheduler.nanoTime();
            if (wrong != null) {
                return new Outcome(Verdict.WRONG, now - start, taken, expected(), frames(links), wrong);
            }
            if (finished) {
                return new Outcome(Verdict.COMPLETED, runner.workEndNanos() - start, taken, expected(),
                        frames(links), "every node consumed all " + params.events() + " events");
            }
            if (now < sliceEnd) {
                scheduler.runUntil(sliceEnd); // nothing was scheduled before the slice's end: let time pass
            }
            long progress = sent + taken;
            long f = frames(links);
            if (progress != lastProgress) {
                busyQuiet = 0;
                idleQuiet = 0;
            } else if (f != lastFrames) {
                busyQuiet++;
                idleQuiet = 0;
            } else {
                idleQuiet++;
                busyQuiet = 0;
            }
            long elapsed = scheduler.nanoTime() - start;
            if (busyQuiet >= quietWindows) {
                return new Outcome(Verdict.LIVELOCK, elapsed, taken, expected(), f, "for " + quietWindows * window
                        + " ns the links sent " + (f - framesAtProgress) + " frames while no node sent or"
                        + " consumed a fragment (" + taken + " of " + expected() + " consumed, " + sent + " sent)");
            }
            if (idleQuiet >= quietWindows) {
                return new Outcome(Verdict.DEADLOCK, elapsed, taken, expected(), f, "for " + quietWindows * window
                        + " ns nothing moved: no frame, no fragment (" + taken + " of " + expected() + " consumed)");
            }
            if (elapsed >= limitNanos) {
                return new Outcome(Verdict.UNFINISHED, elapsed, taken, expected(), f, "still progressing after "
                        + limitNanos + " ns (" + taken + " of " + expected() + " consumed)");
            }
            if (progress != lastProgress) {
                framesAtProgress = f;
            }
            lastProgress = progress;
            lastFrames = f;
        }
    }

    private static long frames(Link[] links) {
        long n = 0;
        for (Link l : links) {
            n += l.counters().txFrames();
        }
        return n;
    }
}
