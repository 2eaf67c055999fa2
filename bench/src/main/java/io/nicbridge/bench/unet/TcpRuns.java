package io.nicbridge.bench.unet;

import io.nicbridge.bench.real.InterleavedTrials;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Clock;
import io.nicbridge.protocols.core.Guarantee;
import io.nicbridge.protocols.core.ProtocolCore;
import io.nicbridge.protocols.ip.Ipv4Stack;
import io.nicbridge.protocols.ip.UnetIpLink;
import io.nicbridge.protocols.ip.tcp.Tcp;
import io.nicbridge.protocols.ip.tcp.TcpCloseReason;
import io.nicbridge.protocols.ip.tcp.TcpConfig;
import io.nicbridge.protocols.ip.tcp.TcpConnection;
import io.nicbridge.protocols.ip.tcp.TcpCounters.Counter;
import io.nicbridge.protocols.ip.tcp.TcpHandler;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.sim.sba200.Sba200Timing;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.HdrHistogram.Histogram;

/**
 * TCP over U-Net (the paper's section 7.7, Table 3's TCP row and Figure 8) on two emulated SBA-200s through the ATM
 * switch, in virtual time, every host's work priced by a host cost table: {@link Tcp} over the one {@link Ipv4Stack}
 * on a {@link UnetIpLink} (MTU 9 KB, the channel the route), on the same link, node runner and table as raw U-Net,
 * UAM ({@link UamRuns}) and UDP ({@link UdpRuns}), so that the rows of Table 3 differ only by their layers.
 *
 * <p>The TCP is configured as the paper's U-Net TCP (section 7.8): 2048-byte segments, no delayed ACK, and a
 * retransmission timer fitted to a LAN (1 ms granularity, a 2 ms floor) instead of the BSD 500 ms one. The window is
 * the receive ring's free space ({@link TcpConfig#receiveBuffer}), so "a window of W bytes" is rings of W bytes on
 * both sides. Every figure is simulated time; the runs are deterministic.
 */
public final class TcpRuns {
    /** Section 7.8: "The standard configuration for U-Net TCP uses 2048 byte segments". */
    public static final int SEGMENT_BYTES = 2048;
    /** The window of the Table 3 runs: the largest one without window scaling (the rings are 64 KiB). */
    public static final int TABLE3_WINDOW = 1 << 16;
    static final int PORT = 5003;
    static final int TX_BUFFERS = 16;
    static final int RX_BUFFERS = 48;

    private TcpRuns() {
    }

    /**
     * The paper's U-Net TCP with a window of {@code window} bytes: 2048-byte segments, no delayed ACK (the default),
     * RTO 5 ms before the first sample, at least 2 ms (the 1 ms timer's granularity, twice), at most 1 s.
     *
     * @throws IllegalArgumentException unless {@code window} is a power of two in [2048, 2^30]
     */
    public static TcpConfig config(int window) {
        if (window < SEGMENT_BYTES) {
            throw new IllegalArgumentException("window must be at least one " + SEGMENT_BYTES + "-byte segment, was "
                    + window);
        }
        if (Integer.bitCount(window) != 1 || window > (1 << 30)) {
            throw new IllegalArgumentException("window must be a power of two (the rings' size) up to 2^30, was "
                    + window);
        }
        return TcpConfig.defaults().withMss(SEGMENT_BYTES).withBuffers(window, window).withConnections(2)
                .withRto(5_000_000L, 2_000_000L, 1_000_000_000L);
    }

    /** The IP stack and TCP of one node as the runner's core: frames in through the U-Net link, TCP's timers. */
    static final class TcpCore implements ProtocolCore {
        final UnetIpLink link;
        final Ipv4Stack ip;
        final Tcp tcp;
        final HostCpu cpu;
        private final Clock clock;

        TcpCore(Link link, Clock clock, HostCpu cpu, TcpConfig config, Arena arena) {
            this.cpu = cpu;
            this.clock = clock;
            this.link = new UnetIpLink(link).route(link.self() == 0 ? UdpRuns.IP_1 : UdpRuns.IP_0, 1 - link.self());
            this.ip = new Ipv4Stack(this.link, link.self() == 0 ? UdpRuns.IP_0 : UdpRuns.IP_1, 24,
                    UdpRuns.ipMtu(this.link));
            ip.hostCpu(cpu);
            this.tcp = Tcp.over(ip, config.withIssSeed(config.issSeed() + link.self()), arena);
        }

        @Override
        public void onFrame(Link from, int rxHandle) {
            link.deliver(from, rxHandle, cpu.now());
        }

        /** A claim TCP was refused (no TX buffer) can succeed now: send what it kept pending. */
        @Override
        public void onWritable(Link from) {
            tcp.poll(cpu.now());
        }

        @Override
        public void onTimer() {
            tcp.poll(cpu.now());
        }

        /**
         * TCP's earliest timer; while output waits for a TX buffer, the next 1 ms tick as well (the link's writable
         * notification normally comes first). Always in the future, as the runner requires.
         */
        @Override
        public long nextDeadline() {
            long d = tcp.nextDeadline();
            long now = clock.nanoTime();
            if (d == Long.MIN_VALUE) {
                return now + TcpConfig.GRANULARITY_NANOS;
            }
            return d == Long.MAX_VALUE ? NO_DEADLINE : Math.max(d, now + 1);
        }

        @Override
        public Set<Guarantee> guarantees() {
            return Set.of(); // the simulation tester does not drive this core; TcpOverUnetTest checks its promises
        }

        @Override
        public int bufferedMessages() {
            return 0;
        }

        @Override
        public int bufferCapacity() {
            return 0;
        }
    }

    /** The two-node {@link UnetWorld} with a TCP core per node; the TCP rings in an arena closed with the world. */
    private static final class World implements AutoCloseable {
        final Arena arena = Arena.ofConfined();
        final UnetWorld unet;
        final Timebase.Medium medium;
        final HostCpu[] cpus;
        final NodeRunner runner;

        World(Timebase timebase, Sba200Timing timing, CostTable costs, TcpConfig config) {
            unet = new UnetWorld(timebase, timing, costs, Ipv4Stack.UNET_MTU, TX_BUFFERS, RX_BUFFERS,
                    (link, clock, cpu) -> new TcpCore(link, clock, cpu, config, arena), NodeApplication.NONE);
            medium = unet.medium;
            cpus = unet.cpus;
            runner = unet.runner;
        }

        TcpCore core(int i) {
            return (TcpCore) runner.node(i).core();
        }

        /** Runs {@code start} on the world's thread, then the world until {@code done} (or the limit). */
        boolean run(Runnable start, BooleanSupplier done) {
            return unet.runUntil(start, done);
        }

        String describe() {
            return core(0).tcp.counters() + " / " + core(1).tcp.counters();
        }

        @Override
        public void close() {
            unet.close();
            arena.close();
        }
    }

    /**
     * Round trips: the best and worst of {@code count} after {@code warmup}, nanoseconds of the run's clock, and every
     * one of them in {@code samples} (for percentiles; a sample above 10 s is recorded as 10 s).
     */
    public record Rtt(long min, long max, Histogram samples) {
    }

    /**
     * TCP round trips of {@code size}-byte messages on one connection (opened before the clock starts): node 0
     * writes the message, node 1's application reads what arrives and writes it back, node 0's application stamps the
     * moment it has read all {@code size} bytes with its CPU's time and writes the next.
     */
    /** As {@link #roundTrip(Timebase, int, int, int, Sba200Timing, CostTable)} in virtual time. */
    public static Rtt roundTrip(int size, int warmup, int count, Sba200Timing timing, CostTable costs) {
        return roundTrip(Timebase.VIRTUAL, size, warmup, count, timing, costs);
    }

    /** @param timebase virtual time (host work charged by {@code costs}) or the real clock on this thread */
    public static Rtt roundTrip(Timebase timebase, int size, int warmup, int count, Sba200Timing timing,
            CostTable costs) {
        if (size < 1 || size > 65536) {
            throw new IllegalArgumentException("size must be 1..65536 bytes, was " + size);
        }
        if (count < 1 || warmup < 0) {
            throw new IllegalArgumentException("count must be >= 1 and warmup >= 0, were " + count + ", " + warmup);
        }
        long[] state = {0, 0, Long.MAX_VALUE, Long.MIN_VALUE, 0}; // done, start, min, max, bytes back
        Histogram samples = InterleavedTrials.histograms(1)[0];
        MemorySegment message = Arena.ofAuto().allocate(size).copyFrom(UdpRuns.pattern(size));
        MemorySegment echo = Arena.ofAuto().allocate(size);
        MemorySegment back = Arena.ofAuto().allocate(size); // node 0's: node 1 echoes through its own buffer
        try (World w = new World(timebase, timing, costs, config(TABLE3_WINDOW))) {
            HostCpu cpu0 = w.cpus[0];
            w.core(1).tcp.listen(PORT, new TcpHandler() {
                @Override
                public void onReadable(TcpConnection c, long now) {
                    for (int n = c.read(echo, 0, size, now); n > 0; n = c.read(echo, 0, size, now)) {
                        require(c.write(echo, 0, n, now) == n, "the echo");
                    }
                }
            });
            TcpHandler client = new TcpHandler() {
                @Override
                public void onEstablished(TcpConnection c, long now) {
                    state[1] = cpu0.now();
                    require(c.write(message, 0, size, now) == size, "the first message");
                }

                @Override
                public void onReadable(TcpConnection c, long now) {
                    int n;
                    while (state[4] < size && (n = c.read(back, state[4], (int) (size - state[4]), now)) > 0) {
                        state[4] += n;
                    }
                    if (state[4] < size) {
                        return;
                    }
                    if (MemorySegment.mismatch(back, 0, size, message, 0, size) != -1) {
                        throw new IllegalStateException("echo " + state[0] + " (" + size + " B) differs from the"
                                + " message sent");
                    }
                    state[4] = 0;
                    long t = cpu0.now();
                    if (state[0] >= warmup) {
                        state[2] = Math.min(state[2], t - state[1]);
                        state[3] = Math.max(state[3], t - state[1]);
                        samples.recordValue(Math.min(t - state[1], InterleavedTrials.HIGHEST_VALUE));
                    }
                    state[0]++;
                    if (state[0] < warmup + count) {
                        state[1] = t;
                        require(c.write(message, 0, size, now) == size, "the next message");
                    }
                }
            };
            boolean done = w.run(() -> {
                require(w.core(0).tcp.connect(UdpRuns.IP_1, PORT, client, cpu0.now()) != null, "the connection");
                w.runner.node(0).applicationActed();
            }, () -> state[0] >= warmup + count);
            if (!done) {
                throw new IllegalStateException("TCP round trips of " + size + " B did not finish: " + w.describe());
            }
            return new Rtt(state[2], state[3], samples);
        }
    }

    /**
     * What a one-way transfer delivered: bytes, the time from the first write to the last byte read, and what the
     * TCP had to repair on the way.
     */
    public record Stream(int window, int writeSize, long bytes, long nanos, long retransmissions, long cardDrops) {
        /** @return payload Mbit/s, first write to the last byte read */
        public double mbits() {
            return bytes * 8.0 / nanos * 1e3;
        }

        /** @return payload MB/s (10^6 bytes per second), the unit of the paper's Figure 8 */
        public double mbytesPerSecond() {
            return (double) bytes / nanos * 1e3;
        }
    }

    /**
     * Node 0's application writes {@code bytes} in {@code writeSize}-byte writes as fast as the send ring takes them
     * (on each writable event; a write larger than the ring goes in piecewise, as a blocking socket write would), on a connection with a window of {@code window} bytes; node 1's application reads
     * everything as it arrives (so the window it advertises is its free ring space). The clock runs from the first
     * write, after the handshake.
     */
    /** As {@link #stream(Timebase, long, int, int, Sba200Timing, CostTable)} in virtual time. */
    public static Stream stream(long bytes, int writeSize, int window, Sba200Timing timing, CostTable costs) {
        return stream(Timebase.VIRTUAL, bytes, writeSize, window, timing, costs);
    }

    /** @param timebase virtual time (host work charged by {@code costs}) or the real clock on this thread */
    public static Stream stream(Timebase timebase, long bytes, int writeSize, int window, Sba200Timing timing,
            CostTable costs) {
        if (bytes < 1) {
            throw new IllegalArgumentException("bytes must be >= 1, was " + bytes);
        }
        if (writeSize < 1 || writeSize > (1 << 20)) {
            throw new IllegalArgumentException("writeSize must be 1..1048576 bytes, was " + writeSize);
        }
        TcpConfig config = config(window);
        long[] state = {0, 0, 0, 0}; // written, read, start, end
        // Stream byte j is PATTERN's byte j % PERIOD: the writer writes from the chunk at its stream position's phase,
        // the reader checks every byte at its own.
        MemorySegment chunk = Arena.ofAuto().allocate(writeSize + PERIOD).copyFrom(streamPattern(writeSize + PERIOD));
        MemorySegment sink = Arena.ofAuto().allocate(Math.max(writeSize, SEGMENT_BYTES));
        int sinkBytes = (int) sink.byteSize();
        MemorySegment expected = Arena.ofAuto().allocate(sinkBytes + PERIOD).copyFrom(streamPattern(sinkBytes + PERIOD));
        try (World w = new World(timebase, timing, costs, config)) {
            HostCpu cpu0 = w.cpus[0];
            HostCpu cpu1 = w.cpus[1];
            w.core(1).tcp.listen(PORT, new TcpHandler() {
                @Override
                public void onReadable(TcpConnection c, long now) {
                    int n;
                    while ((n = c.read(sink, 0, sinkBytes, now)) > 0) {
                        long phase = state[1] % PERIOD;
                        long bad = MemorySegment.mismatch(sink, 0, n, expected, phase, phase + n);
                        if (bad != -1) {
                            throw new IllegalStateException("TCP stream byte " + (state[1] + bad) + " differs from"
                                    + " what was sent");
                        }
                        state[1] += n;
                    }
                    if (state[1] >= bytes) {
                        state[3] = cpu1.now();
                    }
                }
            });
            TcpHandler writer = new TcpHandler() {
                @Override
                public void onEstablished(TcpConnection c, long now) {
                    state[2] = cpu0.now();
                    onWritable(c, now);
                }

                @Override
                public void onWritable(TcpConnection c, long now) {
                    // Whole writes while one fits the send ring (an application writing records); a write larger
                    // than the ring goes in as the ring takes it, as a blocking socket write would.
                    while (state[0] < bytes) {
                        int n = (int) Math.min(writeSize, bytes - state[0]);
                        int room = c.writable();
                        if (room < Math.min(n, config.sendBuffer())) {
                            return;
                        }
                        n = Math.min(n, room);
                        require(c.write(chunk, state[0] % PERIOD, n, now) == n, "a write the ring had room for");
                        state[0] += n;
                    }
                }

                @Override
                public void onClosed(TcpConnection c, TcpCloseReason reason, long now) {
                    throw new IllegalStateException("the stream's connection closed: " + reason);
                }
            };
            boolean done = w.run(() -> {
                require(w.core(0).tcp.connect(UdpRuns.IP_1, PORT, writer, cpu0.now()) != null, "the connection");
                w.runner.node(0).applicationActed();
            }, () -> state[1] >= bytes);
            if (!done) {
                throw new IllegalStateException("the TCP stream (window " + window + ", writes of " + writeSize
                        + " B) delivered " + state[1] + " of " + bytes + " bytes: " + w.describe());
            }
            var t = w.core(0).tcp.counters();
            long drops = w.medium.receiveDrops(0).counted() + w.medium.receiveDrops(1).counted();
            return new Stream(window, writeSize, bytes, state[3] - state[2],
                    t.get(Counter.TIMEOUT_RETRANSMISSIONS) + t.get(Counter.FAST_RETRANSMISSIONS), drops);
        }
    }

    /** The stream pattern's period: a prime, so no segment or write size lines up with it. */
    private static final int PERIOD = 251;

    /** @return {@code length} bytes of the stream pattern from position 0 */
    private static MemorySegment streamPattern(int length) {
        byte[] b = new byte[length];
        for (int j = 0; j < length; j++) {
            b[j] = (byte) (j % PERIOD * 7 + 3);
        }
        return MemorySegment.ofArray(b);
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what + " was refused: the experiment sizes its writes to the ring");
        }
    }
}
