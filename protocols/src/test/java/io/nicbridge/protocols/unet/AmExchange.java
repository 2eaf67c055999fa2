package io.nicbridge.protocols.unet;

import io.nicbridge.protocols.am.AmConfig;
import io.nicbridge.protocols.am.AmCore;
import io.nicbridge.protocols.runner.CoreBuilder;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.RunnerNode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The application of the Active Messages runs on U-Net, whatever the card or runner: two nodes each issue
 * {@code operations} operations to the other, in turn a request (answered by an echo handler's reply carrying the
 * arguments + 1), a block store of a size from {@link #SIZES} (inline single-cell, one buffer, the paper's 4164-byte
 * case of two buffers, several buffers) and a block get of the same size; every handler checks what it got.
 *
 * <pre>
 *   memory of each node (64 KiB):  [0, 32K) stores from the peer  |  [32K, 64K) get source, filled with a pattern
 *   gets land in [0, 32K) too (a node's stores and its gets never overlap: the peer stores, this node gets)
 * </pre>
 * Per-node state is touched only by that node's thread; the totals are atomics for the test thread to watch.
 */
final class AmExchange implements NodeApplication {
    static final int MEMORY = 64 * 1024;
    static final int GET_SOURCE = 32 * 1024;
    static final int[] SIZES = {4, 40, 4160, 4164, 12_000};
    /** The paper's UAM: w = 8, 4160-byte buffers (1 ms RTO, 100 us ack delay: virtual time). */
    static final AmConfig PAPER = AmConfig.paper(MEMORY);
    static final int ECHO = 1;
    static final int PONG = 2;
    static final int STORED = 3;
    static final int GOT = 4;

    private final AmConfig config;
    private final int operations;
    private final int[] issued = new int[2];
    private final int[] expectedStore = new int[2];
    private final int[] expectedPong = new int[2];
    private final MemorySegment[] source = new MemorySegment[2];
    private final AtomicLong completed = new AtomicLong();
    private final AtomicInteger errors = new AtomicInteger();
    private volatile String firstError;

    AmExchange(AmConfig config, int operations) {
        this.config = config;
        this.operations = operations;
        expectedStore[0] = 1; // operation k is a store when k % 3 == 1
        expectedStore[1] = 1;
        for (int i = 0; i < 2; i++) {
            source[i] = MemorySegment.ofArray(new byte[SIZES[SIZES.length - 1]]);
        }
    }

    static byte pattern(int node, int k, int i) {
        return (byte) (node * 31 + k * 7 + i);
    }

    static byte getPattern(int node, int i) {
        return (byte) (node * 131 + i * 3);
    }

    /** @return the cores: Active Messages with this exchange's handlers, the get source filled in */
    CoreBuilder cores() {
        return (link, clock, cpu) -> {
            AmCore am = new AmCore(link, clock, config, cpu);
            int me = link.self();
            for (int i = 0; i < MEMORY - GET_SOURCE; i++) {
                am.memory().set(ValueLayout.JAVA_BYTE, GET_SOURCE + i, getPattern(me, i));
            }
            am.register(ECHO, (t, a0, a1, a2, a3) -> am.reply(t, PONG, a0 + 1, a1 + 1, a2 + 1, a3 + 1));
            am.register(PONG, (t, a0, a1, a2, a3) -> {
                int want = expectedPong[me];
                if (a0 != want + 1 || a1 != me + 1 || a2 != 3 || a3 != 4) {
                    error("node " + me + ": pong " + a0 + "," + a1 + "," + a2 + "," + a3 + ", expected request "
                            + want);
                }
                expectedPong[me] = want + 3;
                completed.incrementAndGet();
            });
            am.register(STORED, (t, address, nbytes, k, unused) -> {
                int want = expectedStore[me];
                if (k != want || address != 0 || nbytes != size(k)) {
                    error("node " + me + ": store " + k + " at " + address + "+" + nbytes + ", expected " + want);
                }
                for (int i = 0; i < nbytes; i++) {
                    if (am.memory().get(ValueLayout.JAVA_BYTE, i) != pattern(t.source(), k, i)) {
                        error("node " + me + ": store " + k + " differs at byte " + i);
                        break;
                    }
                }
                expectedStore[me] = want + 3;
                completed.incrementAndGet();
            });
            am.register(GOT, (t, address, nbytes, k, unused) -> {
                for (int i = 0; i < nbytes; i++) {
                    if (am.memory().get(ValueLayout.JAVA_BYTE, address + i) != getPattern(t.source(), i)) {
                        error("node " + me + ": get " + k + " differs at byte " + i);
                        break;
                    }
                }
                completed.incrementAndGet();
            });
            return am;
        };
    }

    static int size(int k) {
        return SIZES[(k / 3) % SIZES.length];
    }

    @Override
    public void afterEvent(RunnerNode node) {
        int me = node.id();
        int peer = 1 - me;
        AmCore am = (AmCore) node.core();
        am.poll();
        while (issued[me] < operations) {
            int k = issued[me];
            int r;
            switch (k % 3) {
                case 0 -> r = am.request(peer, ECHO, k, me, 2, 3);
                case 1 -> {
                    int n = size(k);
                    MemorySegment s = source[me];
                    for (int i = 0; i < n; i++) {
                        s.set(ValueLayout.JAVA_BYTE, i, pattern(me, k, i));
                    }
                    r = am.store(peer, s, 0, 0, n, STORED, k);
                }
                default -> r = am.get(peer, GET_SOURCE, 16 * 1024, Math.min(size(k), 16 * 1024), GOT, k);
            }
            if (r != AmCore.OK) {
                break;
            }
            issued[me] = k + 1;
        }
    }

    boolean done() {
        return completed.get() == 2L * operations || errors.get() > 0;
    }

    long completed() {
        return completed.get();
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
}
