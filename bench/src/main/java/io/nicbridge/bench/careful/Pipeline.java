package io.nicbridge.bench.careful;

import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.cstar.FragmentHandler;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.RunnerNode;
import java.lang.foreign.MemorySegment;

/**
 * The paper's throughput test (TR 94-14 section 6.1, Table 2) as a C* program: node 0 streams {@code messages}
 * messages of {@code bytes} to node P - 1 through the intermediate nodes (each receives message e from its left
 * neighbour and sends it on to its right one), message e being event e. Every node must receive in every event, so
 * node P - 1 answers each message with a one-word message to node 0, which node 0 consumes only {@link #LAG} events
 * later ("its reception is delayed", so that it rarely waits for it). The run ends when every node has done its part;
 * the ring's throughput is the payload sent by each sender times the P - 1 senders over that time.
 */
final class Pipeline implements NodeApplication, FragmentHandler {
    /** Events node 0 runs ahead of the answers it has consumed. */
    static final int LAG = 4;
    private static final int ANSWER = 4;

    private final int nodes;
    private final int bytes;
    private final int messages;
    private final boolean processing;
    private final MemorySegment[] buffer;
    /** Per node: the next event it sends (node 0) or receives (the others). */
    private final int[] next;
    private final boolean[] pending;
    private int answered;
    private CStarRing ring;
    private int receiver;
    private String wrong;

    Pipeline(int nodes, int bytes, int messages, boolean processing) {
        this.nodes = nodes;
        this.bytes = bytes;
        this.messages = messages;
        this.processing = processing;
        buffer = new MemorySegment[nodes];
        for (int i = 0; i < nodes; i++) {
            buffer[i] = MemorySegment.ofArray(new byte[Math.max(ANSWER, bytes)]);
        }
        next = new int[nodes];
        pending = new boolean[nodes];
    }

    boolean done() {
        if (answered < messages) {
            return false;
        }
        for (int i = 1; i < nodes; i++) {
            if (next[i] < messages || pending[i]) {
                return false;
            }
        }
        return true;
    }

    /** Plays the stream on {@code ring} (whose application is this); true when it completed within the limit. */
    boolean run(CStarRing ring, long limitNanos) {
        this.ring = ring;
        ring.kick(0, this);
        return ring.time().runUntil(() -> done() || wrong != null, ring.time().nanoTime() + limitNanos)
                && wrong == null;
    }

    String wrong() {
        return wrong;
    }

    @Override
    public void afterEvent(RunnerNode node) {
        int p = node.id();
        CStarNetwork core = (CStarNetwork) node.core();
        receiver = p;
        if (p == 0) {
            source(core);
        } else {
            relay(p, core);
        }
    }

    private void source(CStarNetwork core) {
        while (wrong == null) {
            if (next[0] < messages && next[0] < answered + LAG) {
                if (!pending[0]) {
                    if (processing) {
                        Processing.write(ring.cpu(0), buffer[0], bytes, next[0]);
                    }
                    pending[0] = true;
                }
                if (core.send(1, next[0], buffer[0], 0, bytes, CStarNetwork.LAST_FRAG) != CStarNetwork.BACK_PRESSURE) {
                    pending[0] = false;
                    next[0]++;
                    continue;
                }
            }
            if (answered < messages && core.receive(nodes - 1, answered, this) != CStarNetwork.NOTHING) {
                answered++;
                continue;
            }
            return;
        }
    }

    private void relay(int p, CStarNetwork core) {
        boolean last = p == nodes - 1;
        while (wrong == null) {
            if (pending[p]) {
                int status = last ? core.send(0, next[p], buffer[p], 0, ANSWER, CStarNetwork.LAST_FRAG)
                        : core.send(p + 1, next[p], buffer[p], 0, bytes, CStarNetwork.LAST_FRAG);
                if (status == CStarNetwork.BACK_PRESSURE) {
                    return;
                }
                pending[p] = false;
                next[p]++;
            }
            if (next[p] >= messages || core.receive(p - 1, next[p], this) == CStarNetwork.NOTHING) {
                return;
            }
            if (processing && !last) {
                Processing.write(ring.cpu(p), buffer[p], bytes, next[p]);
            }
            pending[p] = true;
        }
    }

    @Override
    public void onFragment(int src, int event, int status, MemorySegment data, long offset, int length) {
        int p = receiver;
        int want = p == 0 ? ANSWER : bytes;
        if (length != want || status != CStarNetwork.EVENT_DONE) {
            wrong = "node " + p + " event " + event + ": " + length + " bytes, status " + status;
            return;
        }
        if (p == 0) {
            return; // the answer: only its arrival matters
        }
        MemorySegment.copy(data, offset, buffer[p], 0, length);
        if (processing && Processing.read(ring.cpu(p), buffer[p], 0, length) != Processing.expectedSum(length, event)) {
            wrong = "node " + p + " event " + event + ": the payload read is not what was written";
        }
    }
}
