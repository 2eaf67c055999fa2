package io.nicbridge.protocols.cards;

import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.core.MessageCore;
import io.nicbridge.protocols.core.MessageHandler;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.RunnerNode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The one application every card test runs, unchanged, on every medium and runner: each node sends {@code messages}
 * numbered messages of {@code size} bytes to every other node (round robin over the peers, as far as the core
 * takes them), and checks that from every peer it gets each number exactly once, in order, with the content the
 * sender wrote (a pattern of sender, receiver and number). State of node i is touched only on node i's thread.
 * Public for the media tested outside this package (the fabric).
 */
public final class Exchange implements NodeApplication {
    private final int nodes;
    private final int messages;
    private final int size;
    private final int[][] sent;
    private final int[][] expected;
    private final boolean[] finished;
    private final MemorySegment[] scratch;
    private final MessageHandler[] handlers;
    private final AtomicInteger errors = new AtomicInteger();
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private final CountDownLatch done;

    public Exchange(int nodes, int messages, int size) {
        if (size < 8) {
            throw new IllegalArgumentException("size must be >= 8, was " + size);
        }
        this.nodes = nodes;
        this.messages = messages;
        this.size = size;
        sent = new int[nodes][nodes];
        expected = new int[nodes][nodes];
        finished = new boolean[nodes];
        scratch = new MemorySegment[nodes];
        handlers = new MessageHandler[nodes];
        done = new CountDownLatch(nodes);
        for (int i = 0; i < nodes; i++) {
            int me = i;
            scratch[i] = MemorySegment.ofArray(new byte[size]);
            handlers[i] = (peer, data, off, len) -> received(me, peer, data, off, len);
        }
    }

    @Override
    public void afterEvent(RunnerNode node) {
        int me = node.id();
        MessageCore core = (MessageCore) node.core();
        core.deliver(handlers[me], Integer.MAX_VALUE);
        boolean progress = true;
        while (progress) {
            progress = false;
            for (int p = 0; p < nodes; p++) {
                if (p == me || sent[me][p] == messages) {
                    continue;
                }
                fill(scratch[me], me, p, sent[me][p]);
                if (core.offer(p, scratch[me], 0, size) == MessageChannel.OK) {
                    sent[me][p]++;
                    progress = true;
                }
            }
        }
    }

    private void fill(MemorySegment m, int from, int to, int seq) {
        m.set(ValueLayout.JAVA_INT_UNALIGNED, 0, seq);
        m.set(ValueLayout.JAVA_BYTE, 4, (byte) from);
        m.set(ValueLayout.JAVA_BYTE, 5, (byte) to);
        for (int k = 6; k < size; k++) {
            m.set(ValueLayout.JAVA_BYTE, k, (byte) (seq * 31 + k + from * 7 + to));
        }
    }

    private void received(int me, int peer, MemorySegment data, long off, int len) {
        int seq = data.get(ValueLayout.JAVA_INT_UNALIGNED, off);
        if (len != size || seq != expected[me][peer] || data.get(ValueLayout.JAVA_BYTE, off + 4) != (byte) peer
                || data.get(ValueLayout.JAVA_BYTE, off + 5) != (byte) me) {
            error("node " + me + " from " + peer + ": got #" + seq + " (" + len + " bytes), expected #"
                    + expected[me][peer]);
            return;
        }
        for (int k = 6; k < size; k++) {
            if (data.get(ValueLayout.JAVA_BYTE, off + k) != (byte) (seq * 31 + k + peer * 7 + me)) {
                error("node " + me + " from " + peer + ": message #" + seq + " damaged at byte " + k);
                return;
            }
        }
        expected[me][peer]++;
        if (!finished[me] && allIn(me)) {
            finished[me] = true;
            done.countDown();
        }
    }

    private boolean allIn(int me) {
        for (int p = 0; p < nodes; p++) {
            if (p != me && expected[me][p] != messages) {
                return false;
            }
        }
        return true;
    }

    private void error(String what) {
        errors.incrementAndGet();
        firstError.compareAndSet(null, what);
    }

    /** Starts every node of a {@link NodeRunner} at time 0 (a real-time runner starts them itself). */
    public void start(Scheduler scheduler, NodeRunner runner) {
        for (int i = 0; i < runner.nodeCount(); i++) {
            RunnerNode n = runner.node(i);
            Timer t = scheduler.newTimer("start" + i, () -> {
                afterEvent(n);
                n.applicationActed();
            });
            t.armAfter(0);
        }
    }

    /** @return true when every node has everything (thread-safe) */
    public boolean isDone() {
        return done.getCount() == 0;
    }

    public boolean await(long seconds) throws InterruptedException {
        return done.await(seconds, TimeUnit.SECONDS);
    }

    public int errors() {
        return errors.get();
    }

    public String firstError() {
        return firstError.get();
    }

    /** @return messages delivered in order so far, all nodes (diagnostics; racy from another thread) */
    public long delivered() {
        long n = 0;
        for (int[] row : expected) {
            for (int v : row) {
                n += v;
            }
        }
        return n;
    }

    public long expectedTotal() {
        return (long) nodes * (nodes - 1) * messages;
    }
}
