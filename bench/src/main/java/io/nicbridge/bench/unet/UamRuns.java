package io.nicbridge.bench.unet;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.am.AmConfig;
import io.nicbridge.protocols.am.AmCore;
import io.nicbridge.protocols.am.SplitCStore;
import io.nicbridge.protocols.runner.CoreBuilder;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.sim.sba200.Sba200Timing;
import io.nicbridge.bench.real.InterleavedTrials;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.function.BooleanSupplier;
import org.HdrHistogram.Histogram;

/**
 * The U-Net Active Messages experiments of the paper's section 5.2 (Figures 3 and 4, Table 3) on two emulated
 * SBA-200s through the ATM switch, in virtual time, every host's work priced by a host cost table: the same
 * {@link io.nicbridge.bridge.driver.unet.UnetLink}, node runner and table for raw U-Net and for UAM, so that the two
 * differ only by the Active Messages layer.
 *
 * <ul>
 *   <li><b>raw</b>: a minimal core that writes the message into a send buffer (or inline, up to 40 bytes) and, on
 *       the echoing node, copies it straight back;</li>
 *   <li><b>UAM</b>: {@link AmCore} with the paper's configuration (w = 8, 4160-byte buffers);</li>
 *   <li><b>Split-C</b>: {@link SplitCStore} on the same core.</li>
 * </ul>
 * Every figure is simulated time; the runs are deterministic.
 */
public final class UamRuns {
    static final int MEMORY = 64 * 1024;
    static final AmConfig CONFIG = AmConfig.paper(MEMORY);
    static final int ECHO = 1;
    static final int PONG = 2;
    static final int BOUNCE = 3;
    static final int BACK = 4;
    static final int SINK = 5;
    static final int TX_BUFFERS = 16;
    static final int RX_BUFFERS = 40;
    /** Where the Split-C round trips store their word on node 1, and its layout (SplitCStore's: big-endian). */
    static final int SPLITC_ADDRESS = 64;
    static final ValueLayout.OfInt SPLITC_WORD = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private UamRuns() {
    }

    /**
     * Round trips: {min, max} in nanoseconds of the run's clock over {@code count} after {@code warmup}, and every one of
     * them in {@code samples} (for percentiles; a sample above 10 s is recorded as 10 s).
     */
    public record Rtt(long min, long max, Histogram samples) {
        public double minMicros() {
            return min / 1000.0;
        }
    }

    private static final class Rounds {
        final int warmup;
        final int count;
        int done;
        long start;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        final Histogram samples = InterleavedTrials.histograms(1)[0];

        Rounds(int warmup, int count) {
            if (count < 1 || warmup < 0) {
                throw new IllegalArgumentException("count must be >= 1 and warmup >= 0, were " + count + ", " + warmup);
            }
            this.warmup = warmup;
            this.count = count;
        }

        void ended(long now) {
            if (done >= warmup) {
                min = Math.min(min, now - start);
                max = Math.max(max, now - start);
                samples.recordValue(Math.min(now - start, InterleavedTrials.HIGHEST_VALUE));
            }
            done++;
        }

        boolean finished() {
            return done >= warmup + count;
        }

        Rtt rtt() {
            return new Rtt(min, max, samples);
        }
    }

    // ------------------------------------------------------------------ raw U-Net on the same link

    /**
     * Raw U-Net as a core: {@link #send} writes {@code size} bytes into a send buffer (charged as a copy: the
     * application builds its message in the segment), the echoing node copies each arrival back, the other counts
     * arrivals and stamps the last one with its CPU's time.
     */
    static final class RawCore extends TimerlessCore {
        private final Link link;
        private final HostCpu cpu;
        private final boolean echo;
        long arrivals;
        long lastArrival;
        private long sent;
        /** What arrival k must hold, refilled per check (receiving node only). */
        private final MemorySegment expected;

        RawCore(Link link, HostCpu cpu, boolean echo) {
            this.link = link;
            this.cpu = cpu;
            this.echo = echo;
            this.expected = echo ? null : MemorySegment.ofArray(new byte[link.mtu()]);
        }

        boolean send(int size) {
            int h = link.claim(1 - link.self());
            if (h == Link.NONE) {
                return false;
            }
            cpu.charge(CostItem.COPY, size);
            link.txBuffer(h).asSlice(0, size).fill((byte) sent++); // message k's bytes are all k (mod 256)
            link.commit(h, size);
            return true;
        }

        @Override
        public String toString() {
            return "raw U-Net node " + link.self() + ": " + sent + " sent, " + arrivals + " arrived";
        }

        @Override
        public void onFrame(Link from, int rxHandle) {
            int length = from.rxLength(rxHandle);
            if (echo) {
                int h = link.claim(0);
                if (h != Link.NONE) {
                    MemorySegment.copy(from.rxBuffer(rxHandle), 0, link.txBuffer(h), 0, length);
                    cpu.charge(CostItem.COPY, length);
                    link.commit(h, length);
                }
            } else {
                checkMessage(from.rxBuffer(rxHandle), length, arrivals, expected);
            }
            from.release(rxHandle);
            arrivals++;
            lastArrival = cpu.now();
        }
    }

    /** Raw U-Net round trips of {@code size}-byte messages (1 .. the link's mtu). */
    /** As {@link #rawRoundTrip(Timebase, int, int, int, Sba200Timing, CostTable)} in virtual time. */
    public static Rtt rawRoundTrip(int size, int warmup, int count, Sba200Timing timing, CostTable costs) {
        return rawRoundTrip(Timebase.VIRTUAL, size, warmup, count, timing, costs);
    }

    /** @param timebase virtual time (host work charged by {@code costs}) or the real clock on this thread */
    public static Rtt rawRoundTrip(Timebase timebase, int size, int warmup, int count, Sba200Timing timing,
            CostTable costs) {
        Rounds r = new Rounds(warmup, count);
        long[] seen = {0};
        NodeApplication app = node -> {
            if (node.id() != 0) {
                return;
            }
            RawCore core = (RawCore) node.core();
            if (core.arrivals > seen[0]) {
                seen[0] = core.arrivals;
                r.ended(core.lastArrival);
                if (!r.finished()) {
                    r.start = core.lastArrival;
                    core.send(size);
                }
            }
        };
        try (UnetWorld w = world(timebase, timing, costs, (link, clock, cpu) -> new RawCore(link, cpu, link.self() == 1), app)) {
            w.run(() -> {
                r.start = w.cpus[0].now();
                ((RawCore) w.runner.node(0).core()).send(size);
                w.runner.node(0).applicationActed();
            }, r::finished, "raw round trips");
        }
        return r.rtt();
    }

    /** Raw U-Net stream: {@code messages} of {@code size} bytes one way; payload Mbit/s to the last arrival. */
    /** As {@link #rawStream(Timebase, int, int, Sba200Timing, CostTable)} in virtual time. */
    public static double rawStream(int size, int messages, Sba200Timing timing, CostTable costs) {
        return rawStream(Timebase.VIRTUAL, size, messages, timing, costs);
    }

    /** @param timebase virtual time (host work charged by {@code costs}) or the real clock on this thread */
    public static double rawStream(Timebase timebase, int size, int messages, Sba200Timing timing,
            CostTable costs) {
        int[] sent = {0};
        long[] start = {0};
        NodeApplication app = node -> {
            if (node.id() == 1) {
                return;
            }
            RawCore core = (RawCore) node.core();
            while (sent[0] < messages && core.send(size)) {
                sent[0]++;
            }
        };
        try (UnetWorld w = world(timebase, timing, costs, (link, clock, cpu) -> new RawCore(link, cpu, false), app)) {
            RawCore sink = (RawCore) w.runner.node(1).core();
            w.run(() -> {
                start[0] = w.cpus[0].now();
                app.afterEvent(w.runner.node(0));
                w.runner.node(0).applicationActed();
            }, () -> sink.arrivals >= messages, "raw stream");
            return mbits((long) size * messages, sink.lastArrival - start[0]);
        }
    }

    /**
     * Raw U-Net carries no sequence number: a channel delivers in order, so arrival k is message k, whose bytes are all
     * {@code (byte) k} (echoed back unchanged on the round trips). Compared against {@code expected} filled with that
     * byte (fill and mismatch are the JDK's vectorised loops: a 4 KB message costs well under a microsecond).
     *
     * @throws IllegalStateException when a byte differs
     */
    static void checkMessage(MemorySegment message, int length, long k, MemorySegment expected) {
        byte b = (byte) k;
        expected.asSlice(0, length).fill(b);
        long at = MemorySegment.mismatch(message, 0, length, expected, 0, length);
        if (at != -1) {
            throw new IllegalStateException("raw U-Net message " + k + " (" + length + " B) differs at byte " + at
                    + ": " + message.get(ValueLayout.JAVA_BYTE, at) + " for " + b);
        }
    }

    // ------------------------------------------------------------------ UAM

    private static CoreBuilder amCores(boolean splitC, Object[] splitOut) {
        return (link, clock, cpu) -> {
            AmCore am = new AmCore(link, clock, CONFIG, cpu);
            if (splitC) {
                splitOut[link.self()] = new SplitCStore(am);
            }
            return am;
        };
    }

    /** UAM single-cell round trips: a request with four arguments, a handler replying with an identical message. */
    /** As {@link #amRoundTrip(Timebase, int, int, Sba200Timing, CostTable)} in virtual time. */
    public static Rtt amRoundTrip(int warmup, int count, Sba200Timing timing, CostTable costs) {
        return amRoundTrip(Timebase.VIRTUAL, warmup, count, timing, costs);
    }

    /** @param timebase virtual time (host work charged by {@code costs}) or the real clock on this thread */
    public static Rtt amRoundTrip(Timebase timebase, int warmup, int count, Sba200Timing timing,
            CostTable costs) {
        Rounds r = new Rounds(warmup, count);
        NodeApplication app = node -> ((AmCore) node.core()).poll();
        try (UnetWorld w = world(timebase, timing, costs, amCores(false, null), app)) {
            AmCore a = am(w, 0);
            AmCore b = am(w, 1);
            b.register(ECHO, (t, a0, a1, a2, a3) -> b.reply(t, PONG, a0, a1, a2, a3));
            a.register(ECHO, (t, a0, a1, a2, a3) -> { });
            a.register(PONG, (t, a0, a1, a2, a3) -> {
                if (a0 != r.done || a1 != 1 || a2 != 2 || a3 != 3) {
                    throw new IllegalStateException("UAM reply " + r.done + " carries (" + a0 + ", " + a1 + ", " + a2
                            + ", " + a3 + ") for (" + r.done + ", 1, 2, 3)");
                }
                r.ended(w.cpus[0].now());
                if (!r.finished()) {
                    r.start = w.cpus[0].now();
                    a.request(1, ECHO, a0 + 1, a1, a2, a3);
                }
            });
            b.register(PONG, (t, a0, a1, a2, a3) -> { });
            w.run(() -> {
                r.start = w.cpus[0].now();
                a.request(1, ECHO, 0, 1, 2, 3);
                w.runner.node(0).applicationActed();
            }, r::finished, "UAM round trips");
        }
        return r.rtt();
    }

    /**
     * UAM block transfer round trips: node 0 stores {@code size} bytes to node 1, whose store handler stores them
     * back; the round trip ends when node 0's store handler runs.
     */
    public static Rtt amBlockRoundTrip(int size, int warmup, int count, Sba200Timing timing, CostTable costs) {
        Rounds r = new Rounds(warmup, count);
        NodeApplication app = node -> ((AmCore) node.core()).poll();
        try (UnetWorld w = world(Timebase.VIRTUAL, timing, costs, amCores(false, null), app)) {
            AmCore a = am(w, 0);
            AmCore b = am(w, 1);
            for (AmCore c : new AmCore[] {a, b}) {
                c.register(BOUNCE, (t, address, nbytes, arg, u) -> require(
                        c.store(t.source(), c.memory(), address, 0, nbytes, BACK, arg), "the bounce store"));
                c.register(BACK, (t, address, nbytes, arg, u) -> {
                    r.ended(w.cpus[0].now());
                    if (!r.finished()) {
                        r.start = w.cpus[0].now();
                        require(a.store(1, a.memory(), 0, 0, size, BOUNCE, 0), "the next store");
                    }
                });
            }
            w.run(() -> {
                r.start = w.cpus[0].now();
                require(a.store(1, a.memory(), 0, 0, size, BOUNCE, 0), "the first store");
                w.runner.node(0).applicationActed();
            }, r::finished, "UAM block round trips");
        }
        return r.rtt();
    }

    /** Split-C store round trips: {@code *p := v} on the other node and its acknowledgement (store_sync). */
    /** As {@link #splitCStoreRoundTrip(Timebase, int, int, Sba200Timing, CostTable)} in virtual time. */
    public static Rtt splitCStoreRoundTrip(int warmup, int count, Sba200Timing timing, CostTable costs) {
        return splitCStoreRoundTrip(Timebase.VIRTUAL, warmup, count, timing, costs);
    }

    /** @param timebase virtual time (host work charged by {@code costs}) or the real clock on this thread */
    public static Rtt splitCStoreRoundTrip(Timebase timebase, int warmup, int count, Sba200Timing timing,
            CostTable costs) {
        Rounds r = new Rounds(warmup, count);
        Object[] split = new Object[2];
        HostCpu[] cpu0 = new HostCpu[1];
        boolean[] waiting = {false};
        MemorySegment[] remote = new MemorySegment[1];
        NodeApplication app = node -> {
            ((AmCore) node.core()).poll();
            SplitCStore store = (SplitCStore) split[0];
            if (node.id() == 0 && waiting[0] && store.sync()) {
                waiting[0] = false;
                int stored = remote[0].get(SPLITC_WORD, SPLITC_ADDRESS); // both nodes are in this process
                if (stored != r.done) {
                    throw new IllegalStateException("Split-C store " + r.done + " acknowledged, but node 1's word at "
                            + SPLITC_ADDRESS + " reads " + stored);
                }
                r.ended(cpu0[0].now());
                if (!r.finished()) {
                    r.start = cpu0[0].now();
                    require(store.put(1, SPLITC_ADDRESS, r.done), "the next put");
                    waiting[0] = true;
                }
            }
        };
        try (UnetWorld w = world(timebase, timing, costs, amCores(true, split), app)) {
            cpu0[0] = w.cpus[0];
            remote[0] = am(w, 1).memory();
            w.run(() -> {
                r.start = w.cpus[0].now();
                require(((SplitCStore) split[0]).put(1, SPLITC_ADDRESS, 0), "the first put");
                waiting[0] = true;
                w.runner.node(0).applicationActed();
            }, r::finished, "Split-C store round trips");
        }
        return r.rtt();
    }

    /** What a block stream delivered: payload Mbit/s and MB/s to the last block's handler. */
    public record Bandwidth(int size, int blocks, long nanos) {
        public double mbits() {
            return UamRuns.mbits((long) size * blocks, nanos);
        }

        public double mbytesPerSecond() {
            return (double) size * blocks / nanos * 1e3;
        }
    }

    /** The kinds of block stream. */
    public enum Transfer { STORE, GET, SPLITC_BULK }

    /**
     * Node 0 keeps storing (or getting, or Split-C bulk-storing) {@code size}-byte blocks as fast as its credits
     * allow; the time runs from the first call to the last block's handler (the store's on node 1, the get's on
     * node 0, the bulk store's acknowledgement on node 0).
     */
    /** As {@link #blockStream(Timebase, Transfer, int, int, Sba200Timing, CostTable)} in virtual time. */
    public static Bandwidth blockStream(Transfer kind, int size, int blocks, Sba200Timing timing, CostTable costs) {
        return blockStream(Timebase.VIRTUAL, kind, size, blocks, timing, costs);
    }

    /** @param timebase virtual time (host work charged by {@code costs}) or the real clock on this thread */
    public static Bandwidth blockStream(Timebase timebase, Transfer kind, int size, int blocks, Sba200Timing timing,
            CostTable costs) {
        if (size < 1 || size > CONFIG.maxTransfer() || size > MEMORY / 2) {
            throw new IllegalArgumentException("block size must be in [1, " + Math.min(CONFIG.maxTransfer(), MEMORY / 2)
                    + "], was " + size);
        }
        int[] issued = {0};
        long[] completed = {0};
        long[] last = {0};
        long[] start = {0};
        Object[] split = new Object[2];
        NodeApplication app = node -> {
            AmCore am = (AmCore) node.core();
            am.poll();
            if (node.id() != 0) {
                return;
            }
            while (issued[0] < blocks) {
                int r = switch (kind) {
                    case STORE -> am.store(1, am.memory(), 0, 0, size, SINK, 0);
                    case GET -> am.get(1, 0, MEMORY / 2, size, SINK, 0);
                    case SPLITC_BULK -> ((SplitCStore) split[0]).bulkPut(1, am.memory(), 0, 0, size);
                };
                if (r != AmCore.OK) {
                    break;
                }
                issued[0]++;
            }
        };
        try (UnetWorld w = world(timebase, timing, costs, amCores(kind == Transfer.SPLITC_BULK, split), app)) {
            for (int i = 0; i < 2; i++) {
                HostCpu cpu = w.cpus[i];
                am(w, i).register(SINK, (t, a, n, arg, u) -> {
                    completed[0]++;
                    last[0] = cpu.now();
                });
            }
            MemorySegment source = am(w, 0).memory().asSlice(0, size);
            MemorySegment target = am(w, 1).memory().asSlice(0, size);
            for (int i = 0; i < size; i++) { // what the stores carry, checked on node 1 at the end
                source.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
            }
            target.fill((byte) 0);
            BooleanSupplier done = kind == Transfer.SPLITC_BULK
                    ? () -> ((SplitCStore) split[0]).acknowledged() >= blocks : () -> completed[0] >= blocks;
            w.run(() -> {
                start[0] = w.cpus[0].now();
                app.afterEvent(w.runner.node(0));
                w.runner.node(0).applicationActed();
            }, done, kind + " stream");
            long end = kind == Transfer.SPLITC_BULK ? w.cpus[0].now() : last[0];
            long bad = kind == Transfer.GET ? -1 : MemorySegment.mismatch(source, 0, size, target, 0, size);
            if (bad != -1) {
                throw new IllegalStateException(kind + " stream: node 1's memory differs from the " + size
                        + "-byte block stored, at byte " + bad);
            }
            return new Bandwidth(size, blocks, end - start[0]);
        }
    }

    /** The world of every run here: buffers of the AM configuration's link MTU. */
    private static UnetWorld world(Timebase timebase, Sba200Timing timing, CostTable costs, CoreBuilder cores, NodeApplication app) {
        return new UnetWorld(timebase, timing, costs, CONFIG.linkMtu(), TX_BUFFERS, RX_BUFFERS, cores, app);
    }

    private static AmCore am(UnetWorld w, int node) {
        return (AmCore) w.core(node);
    }

    static double mbits(long bytes, long nanos) {
        return bytes * 8.0 / nanos * 1e3;
    }

    private static void require(int result, String what) {
        if (result != AmCore.OK) {
            throw new IllegalStateException(what + " was refused (no credits): the experiment keeps one in flight");
        }
    }
}
