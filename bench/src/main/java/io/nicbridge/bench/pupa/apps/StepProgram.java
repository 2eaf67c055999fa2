package io.nicbridge.bench.pupa.apps;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.core.MessageHandler;
import io.nicbridge.protocols.pupa.PupaCore;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.RunnerNode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.function.DoubleBinaryOperator;

/**
 * A message-passing parallel program over Pupa's user library, written as the event-driven loop every node of a
 * {@link PupaCluster} runs: steps of <em>prepare, send, wait until what the step needs has arrived, compute</em>.
 * A send Pupa pushes back is retried after the next event (back-pressure is Pupa's return value, and the node's
 * program simply waits for the core to drain); messages are taken as they arrive, for any step, and the program
 * files them by their tag (kind and step), so a neighbour that is a step ahead loses nothing.
 *
 * <p>Two shared pieces: {@link #reduceStep} / {@link #resultStep}, a global reduction by way of node 0 (every other
 * node sends its partial in an 8-byte fast-path message; node 0 combines them in node order and multicasts the result
 * to everyone by one Ethernet broadcast), and the computation charge: a program charges its arithmetic to the node's
 * CPU as {@link CostItem#COPY} of the bytes each operation touches, a rule it states ({@link #computeRule()}).
 */
abstract class StepProgram implements NodeApplication, MessageHandler {
    /** Tag = kind << 24 | step. */
    static final int STEP_MASK = 0xffffff;
    static final int K_REDUCE = 120;
    static final int K_RESULT = 121;

    final int nodes;
    private final int[] step;
    private final int[] sent;
    private final boolean[] prepared;
    private final double[][] partials;
    private final int[] partialsIn;
    private final int[] partialStep;
    private final double[] result;
    private final int[] resultStep;
    private final double[] one = new double[1];
    private PupaCluster cluster;
    private int receiver;
    private String wrong;

    StepProgram(int nodes) {
        if (nodes < 2 || nodes > 63) {
            throw new IllegalArgumentException("nodes must be in [2, 63], was " + nodes);
        }
        this.nodes = nodes;
        step = new int[nodes];
        sent = new int[nodes];
        prepared = new boolean[nodes];
        partials = new double[2][nodes];
        partialsIn = new int[2];
        partialStep = new int[] {-1, -1};
        result = new double[nodes];
        resultStep = new int[nodes];
        Arrays.fill(resultStep, -1);
    }

    /** The program's name in Table 3 (LES, GEL, LRS, SRS). */
    abstract String name();

    /** @return how the program's arithmetic is charged, for the output */
    abstract String computeRule();

    /** @return true when node {@code p} has nothing left to do at step {@code s} */
    abstract boolean finished(int p, int s);

    /** Called once at the start of step {@code s} on node {@code p}, before its sends. */
    void prepare(int p, int s) {
    }

    /** @return the number of sends node {@code p} makes in step {@code s} */
    abstract int sends(int p, int s);

    /** Makes send {@code i} of step {@code s}. @return {@link MessageChannel#OK} or back-pressure */
    abstract int send(int p, int s, int i);

    /** @return true when everything node {@code p} needs for step {@code s} has arrived */
    abstract boolean ready(int p, int s);

    /** Node {@code p}'s computation of step {@code s}, charged to its CPU. */
    abstract void compute(int p, int s);

    /** Files a message that arrived at {@code p} from {@code src}. */
    abstract void received(int p, int src, int kind, int step, MemorySegment data, long offset, int length);

    /** @return whether every node's answer equals the single-node program's (exactly, or within the stated bound) */
    abstract boolean matchesSerial();

    /** @return how the answer was compared with the single-node program's */
    abstract String comparison();

    // ------------------------------------------------------------------ running

    void attach(PupaCluster cluster) {
        this.cluster = cluster;
    }

    boolean done() {
        if (wrong != null) {
            return true;
        }
        for (int p = 0; p < nodes; p++) {
            if (!finished(p, step[p])) {
                return false;
            }
        }
        return true;
    }

    /** @return what went wrong (a message the program did not expect), or null */
    String wrong() {
        return wrong;
    }

    void fail(String why) {
        if (wrong == null) {
            wrong = why;
        }
    }

    @Override
    public final void afterEvent(RunnerNode node) {
        int p = node.id();
        PupaCore core = core(p);
        receiver = p;
        core.deliver(this, Integer.MAX_VALUE);
        while (wrong == null && !finished(p, step[p])) {
            int s = step[p];
            if (!prepared[p]) {
                prepare(p, s);
                prepared[p] = true;
            }
            for (int n = sends(p, s); sent[p] < n; sent[p]++) {
                if (send(p, s, sent[p]) != MessageChannel.OK) {
                    return; // pushed back: the next event (an ACK freeing room, the link writable) resumes here
                }
            }
            if (!ready(p, s)) {
                return;
            }
            compute(p, s);
            step[p]++;
            sent[p] = 0;
            prepared[p] = false;
        }
    }

    @Override
    public final void onMessage(int peer, MemorySegment data, long offset, int length) {
        int tag = core(receiver).lastTag();
        int kind = tag >>> 24;
        int s = tag & STEP_MASK;
        if (kind == K_REDUCE) {
            if (receiver != 0 || length != 8) {
                fail("node " + receiver + " got a partial from " + peer);
                return;
            }
            int slot = s & 1;
            if (partialStep[slot] != s) {
                partialStep[slot] = s;
                partialsIn[slot] = 0;
            }
            partials[slot][peer] = data.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset);
            partialsIn[slot]++;
        } else if (kind == K_RESULT) {
            if (length != 8 || peer != 0) {
                fail("node " + receiver + " got a result of " + length + " bytes from " + peer);
                return;
            }
            result[receiver] = data.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset);
            resultStep[receiver] = s;
        } else {
            received(receiver, peer, kind, s, data, offset, length);
        }
    }

    PupaCore core(int p) {
        return cluster.core(p);
    }

    /** Charges {@code bytes} of computation to node {@code p}'s CPU by the program's rule. */
    void charge(int p, long bytes) {
        cluster.cpu(p).charge(CostItem.COPY, bytes);
    }

    static int tag(int kind, int step) {
        return kind << 24 | (step & STEP_MASK);
    }

    int sendDoubles(int p, int dst, double[] a, int from, int count, int kind, int s) {
        return core(p).send(dst, MemorySegment.ofArray(a), from * 8L, count * 8, tag(kind, s), false);
    }

    int multicastDoubles(int p, long destinations, double[] a, int from, int count, int kind, int s) {
        return core(p).multicast(destinations, MemorySegment.ofArray(a), from * 8L, count * 8, tag(kind, s));
    }

    long everyoneBut(int p) {
        return ((1L << nodes) - 1) & ~(1L << p);
    }

    // ------------------------------------------------------------------ the global reduction through node 0

    /**
     * Reduction step {@code r} (the program's own counter): a node other than 0 sends {@code partial} to node 0 (one
     * send); call from {@link #send}. @return the send's result
     */
    int reduceStep(int p, int r, double partial) {
        one[0] = partial;
        return core(p).send(0, MemorySegment.ofArray(one), 0, 8, tag(K_REDUCE, r), true);
    }

    /** @return true on node 0 once every other node's partial of reduction {@code r} is in */
    boolean partialsIn(int r) {
        return partialStep[r & 1] == r && partialsIn[r & 1] == nodes - 1;
    }

    /** Node 0: the partials of reduction {@code r}, its own at index 0, combined in node order by {@code op}. */
    double combine(int r, double own, DoubleBinaryOperator op) {
        double[] v = partials[r & 1];
        v[0] = own;
        double acc = v[0];
        for (int i = 1; i < nodes; i++) {
            acc = op.applyAsDouble(acc, v[i]);
        }
        partialStep[r & 1] = -1;
        return acc;
    }

    /** Node 0 multicasts the result of reduction {@code r} to every node. */
    int resultStep(int r, double value) {
        one[0] = value;
        return core(0).multicast(everyoneBut(0), MemorySegment.ofArray(one), 0, 8, tag(K_RESULT, r));
    }

    /** @return true on node {@code p} once the result of reduction {@code r} has arrived */
    boolean resultIn(int p, int r) {
        return resultStep[p] == r;
    }

    double result(int p) {
        return result[p];
    }
}
