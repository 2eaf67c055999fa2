package io.nicbridge.bench.unet.real;

import io.nicbridge.bench.real.InterleavedTrials;
import io.nicbridge.bench.unet.real.UnetIpShimPair.Access;
import io.nicbridge.bench.unet.real.UnetIpShimPair.Node;
import io.nicbridge.bench.unet.real.UnetIpShimPair.Wait;
import io.nicbridge.bench.verdict.BootstrapInterval;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bridge.platform.KernelPath;
import io.nicbridge.bridge.platform.LoopbackPath;
import io.nicbridge.bridge.platform.TcpBaseline;
import io.nicbridge.bridge.platform.UdpBaseline;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.protocols.ip.UdpPcb;
import io.nicbridge.protocols.ip.tcp.TcpConnection;
import io.nicbridge.protocols.ip.tcp.TcpCounters;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The U-Net paper's bandwidth figures in real time, on U-Net over Ethernet across a veth pair ({@link UnetIpShimPair})
 * beside the kernel over the same pair in the same run and over loopback, in interleaved trials
 * ({@link InterleavedTrials}):
 * <ul>
 *   <li>{@link #sizes} - {@code nic unet real-bandwidth}, Figure 7 (UDP bandwidth vs message size) and Table 3's TCP
 *       bandwidth: U-Net UDP's received bandwidth and datagrams lost beside kernel UDP's ({@link UdpBaseline#frameRate}),
 *       U-Net TCP's beside kernel TCP's ({@link TcpBaseline#stream}), per message size;</li>
 *   <li>{@link #windows} - {@code nic unet real-window}, Figure 8: U-Net TCP's bandwidth per window (each connection's
 *       send and receive rings that size, so the receive window is at most it) beside kernel TCP with
 *       {@code SO_SNDBUF} and {@code SO_RCVBUF} set to the same size.</li>
 * </ul>
 * Each U-Net endpoint ({@link Access}: the shim's SBA-200 card model, the direct AF_XDP endpoint) is a stack of the
 * trials, beside the kernel's. A turn records one figure per size (or window) and trial: received payload Mb/s, as kb/s
 * in the histograms. Per wait mode a table: busy polling (U-Net's nodes spin - an inline card's work included - and
 * kernel TCP's sockets have {@code SO_BUSY_POLL}) and blocking (U-Net's nodes wait in {@link io.nicbridge.bridge.driver.unet.UnetLink#awaitFrame}, the
 * kernel's in {@code read}); kernel UDP's receiver blocks in {@code read} in both. The figures are
 * comparisons, not targets: the targets are the round trips ({@link UnetRealLatency}); the exit code backs
 * the integrity check (every byte of every TCP stream and every UDP datagram that arrived is checked; UDP may lose
 * datagrams - U-Net's card drops what its free queue cannot take, the kernel what its socket buffer cannot - and the
 * losses are printed).
 */
public final class UnetRealBandwidth {
    public static final int[] DEFAULT_SIZES = {64, 256, 1024, 1472, 4096, 8192};
    public static final int[] QUICK_SIZES = {256, 1472, 4096};
    public static final int[] DEFAULT_WINDOWS = {2048, 4096, 8192, 16384, 32768, 65536};
    public static final int[] QUICK_WINDOWS = {4096, 8192, 65536};
    /** The message size of the window sweep: Table 3's 4 KB. */
    public static final int WINDOW_MESSAGE = 4096;
    /** The largest UDP datagram that fits one 1500-byte frame: larger sizes run TCP only. */
    static final int MAX_UDP = 1472;
    static final int PORT = 7008;
    private static final long DRAIN_QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(30);
    private static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** The byte pattern every TCP stream carries: stream byte j is {@code PATTERN[j % PERIOD]}, checked on arrival. */
    private static final int PERIOD = 251;

    private final PrintWriter out;
    private final int messages;
    private final int trials;
    private final boolean loopback;
    /** The U-Net endpoints: stacks 0 .. accesses-1 of the trials; the kernel next, then loopback. */
    private final List<Access> accesses;
    private final List<Wait> waits;
    private final int kernelStack;
    private final int loopbackStack;

    /**
     * @param messages messages per stream (UDP datagrams, TCP writes)
     * @throws IllegalArgumentException naming the bad argument
     */
    public UnetRealBandwidth(PrintWriter out, int messages, int trials, boolean loopback, List<Access> accesses,
                             List<Wait> waits) {
        if (messages < 10 || trials < 1) {
            throw new IllegalArgumentException("--count must be >= 10 and --trials >= 1, were " + messages + ", "
                + trials);
        }
        if (accesses.isEmpty() || waits.isEmpty()) {
            throw new IllegalArgumentException("--endpoints and --waits must name at least one each");
        }
        this.out = out;
        this.messages = messages;
        this.trials = trials;
        this.loopback = loopback;
        this.accesses = List.copyOf(accesses);
        this.waits = List.copyOf(waits);
        this.kernelStack = accesses.size();
        this.loopbackStack = kernelStack + 1;
    }

    private static String waitLabel(Wait wait) {
        return wait == Wait.SPIN ? "busy polling" : "blocking";
    }

    /**
     * Figure 7 and Table 3's bandwidth column: UDP (sizes up to {@value #MAX_UDP} B) and TCP, per message size.
     *
     * @return the exit code: 0 all checks passed, 1 a check failed
     */
    public int sizes(int[] sizes, boolean udp, boolean tcp) throws Exception {
        for (int s : sizes) {
            if (s < 16 || s > 65536) {
                throw new IllegalArgumentException("--sizes must be 16..65536 bytes, was " + s);
            }
        }
        if (!udp && !tcp) {
            throw new IllegalArgumentException("--protocols must name at least one protocol");
        }
        int[] udpSizes = Arrays.stream(sizes).filter(s -> s <= MAX_UDP).toArray();
        CheckLog checks = new CheckLog(out::println);
        long[] moved = new long[1];
        try (VethPair veth = VethPair.builder().ipv4(true).mtu(VethPair.DEFAULT_MTU + UnetIpShimPair.TAG).create()) {
            LoopbackPath lo = LoopbackPath.in(veth.namespaceA());
            out.printf(Locale.ROOT, "unet real-bandwidth: one-way streams over %s, U-Net (the one Ipv4Stack on U-Net"
                + " over Ethernet) on %s vs the kernel's over the same pair%s; %d messages per size, stack and trial,"
                + " %d interleaved trials%n", veth, endpointsLabel(), loopback ? " and over " + lo : "", messages,
                trials);
            for (Wait wait : waits) {
                if (udp && udpSizes.length > 0) {
                    long[][] lost = new long[accesses.size()][udpSizes.length];
                    String[] where = new String[accesses.size()];
                    long[] kernelLost = new long[udpSizes.length];
                    InterleavedTrials trial = new InterleavedTrials(udpSizes.length, trials, stacks());
                    List<InterleavedTrials.Turn> turns = new ArrayList<>();
                    for (int u = 0; u < accesses.size(); u++) {
                        Access access = accesses.get(u);
                        long[] mine = lost[u];
                        int index = u;
                        turns.add(mbits -> where[index] = unetUdp(veth, access, wait, udpSizes, mbits, mine, moved));
                    }
                    turns.add(mbits -> kernelUdp(veth, udpSizes, mbits, kernelLost));
                    turns.add(mbits -> kernelUdp(lo, udpSizes, mbits, new long[udpSizes.length]));
                    run(trial, turns);
                    report("UDP (Figure 7), " + waitLabel(wait) + " (kernel UDP's receiver blocks)",
                        "UDP, " + waitLabel(wait), "bytes", udpSizes, trial, checks);
                    for (int i = 0; i < udpSizes.length; i++) {
                        out.printf(Locale.ROOT, "  %5d B: datagrams lost over %d trials of %d:", udpSizes[i], trials,
                            (long) messages * trials);
                        for (int u = 0; u < accesses.size(); u++) {
                            out.printf(Locale.ROOT, " U-Net %s %d,", accesses.get(u).label, lost[u][i]);
                        }
                        out.printf(Locale.ROOT, " kernel %d%n", kernelLost[i]);
                    }
                    for (int u = 0; u < accesses.size(); u++) {
                        out.printf(Locale.ROOT, "  where U-Net's receiver (%s) lost them, last trial, all sizes: %s%n",
                            accesses.get(u).label, where[u]);
                    }
                } else if (udp) {
                    out.println("UDP: no size up to " + MAX_UDP + " B asked for (a larger datagram needs fragmentation,"
                        + " which IP over U-Net does not do on the sending side)");
                }
                if (tcp) {
                    InterleavedTrials trial = new InterleavedTrials(sizes.length, trials, stacks());
                    int window = UnetRealLatency.TCP_WINDOW;
                    long[][][] resent = new long[accesses.size()][sizes.length][2];
                    boolean busy = wait == Wait.SPIN;
                    List<InterleavedTrials.Turn> turns = new ArrayList<>();
                    for (int u = 0; u < accesses.size(); u++) {
                        Access access = accesses.get(u);
                        long[][] mine = resent[u];
                        turns.add(mbits -> unetTcp(veth, access, wait, window, sizes, mbits, moved, mine, 0));
                    }
                    turns.add(mbits -> kernelTcp(veth, busy, 0, sizes, mbits, moved));
                    turns.add(mbits -> kernelTcp(lo, busy, 0, sizes, mbits, moved));
                    run(trial, turns);
                    report("TCP (Table 3's bandwidth column; U-Net TCP's window " + window / 1024 + " KB, the kernel's"
                        + " autotuned), " + waitLabel(wait), "TCP, " + waitLabel(wait), "bytes", sizes, trial, checks);
                    retransmissions("bytes", sizes, resent);
                }
            }
        }
        return InterleavedTrials.finish(out, checks, moved[0] + " bytes of TCP streams and UDP datagrams arrived"
            + " checked byte for byte, TCP's every byte once and in order (a damaged, reordered or missing byte ends the"
            + " run with an error; UDP's losses are counted above)", false);
    }

    /**
     * Figure 8: TCP bandwidth of {@value #WINDOW_MESSAGE}-byte writes per window size, U-Net TCP's rings and the
     * kernel's socket buffers that size.
     *
     * @return the exit code: 0 all checks passed, 1 a check failed
     */
    public int windows(int[] windows) throws Exception {
        for (int w : windows) {
            if (w < 1024 || w > 65536 || Integer.bitCount(w) != 1) {
                throw new IllegalArgumentException("--windows must be powers of two in 1024..65536 (no window scaling),"
                    + " was " + w);
            }
        }
        CheckLog checks = new CheckLog(out::println);
        long[] moved = new long[1];
        int[] size = {WINDOW_MESSAGE};
        try (VethPair veth = VethPair.builder().ipv4(true).mtu(VethPair.DEFAULT_MTU + UnetIpShimPair.TAG).create()) {
            LoopbackPath lo = LoopbackPath.in(veth.namespaceA());
            out.printf(Locale.ROOT, "unet real-window: TCP bandwidth of %d-byte writes per window over %s, U-Net TCP"
                + " (send and receive rings = the window) on %s vs kernel TCP (SO_SNDBUF = SO_RCVBUF = the window)%s;"
                + " %d messages per window, stack and trial, %d interleaved trials%n", WINDOW_MESSAGE, veth,
                endpointsLabel(), loopback ? " and over " + lo : "", messages, trials);
            for (Wait wait : waits) {
                boolean busy = wait == Wait.SPIN;
                InterleavedTrials trial = new InterleavedTrials(windows.length, trials, stacks());
                long[][][] resent = new long[accesses.size()][windows.length][2];
                List<InterleavedTrials.Turn> turns = new ArrayList<>();
                for (int u = 0; u < accesses.size(); u++) {
                    Access access = accesses.get(u);
                    long[][] mine = resent[u];
                    turns.add(mbits -> {
                        for (int i = 0; i < windows.length; i++) {
                            unetTcp(veth, access, wait, windows[i], size, new Histogram[] {mbits[i]}, moved, mine, i);
                        }
                    });
                }
                turns.add(mbits -> {
                    for (int i = 0; i < windows.length; i++) {
                        kernelTcp(veth, busy, windows[i], size, new Histogram[] {mbits[i]}, moved);
                    }
                });
                turns.add(mbits -> {
                    for (int i = 0; i < windows.length; i++) {
                        kernelTcp(lo, busy, windows[i], size, new Histogram[] {mbits[i]}, moved);
                    }
                });
                run(trial, turns);
                report("TCP (Figure 8: the paper's U-Net TCP reaches 14-15 MB/s with an 8 KB window, kernel TCP not"
                    + " over 9-10 MB/s even with 64 KB), " + waitLabel(wait), "TCP, " + waitLabel(wait), "window",
                    windows, trial, checks);
                retransmissions("window", windows, resent);
            }
        }
        return InterleavedTrials.finish(out, checks, moved[0] + " bytes of TCP streams arrived checked byte for byte,"
            + " every byte once and in order (a damaged, reordered or missing byte ends the run with an error)", false);
    }

    private int stacks() {
        return loopbackStack + (loopback ? 1 : 0);
    }

    private String endpointsLabel() {
        StringBuilder b = new StringBuilder();
        for (Access a : accesses) {
            b.append(b.isEmpty() ? "" : " and ").append(a == Access.CARD ? "two native-shim SBA-200 contracts (shim card)"
                : "two direct-access AF_XDP endpoints (direct XSK)");
        }
        return b.toString();
    }

    /** Runs the turns: the U-Net endpoints', the kernel's over the pair, then (when asked for) over loopback. */
    private void run(InterleavedTrials trial, List<InterleavedTrials.Turn> turns) throws Exception {
        trial.run(turns.subList(0, stacks()).toArray(InterleavedTrials.Turn[]::new));
    }

    /** @param label the protocol and wait, as the comparisons name them (e.g. "UDP, busy polling") */
    private void report(String what, String label, String column, int[] xs, InterleavedTrials trial,
                        CheckLog checks) {
        out.printf(Locale.ROOT, "%n%s: received Mb/s (p50 of the trials); U-Net/kernel per trial, median [95%%"
            + " bootstrap interval]%n", what);
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "  %6s", column));
        for (Access a : accesses) {
            head.append(String.format(Locale.ROOT, " | %10s Mb/s", a.label));
        }
        head.append(" | kernel Mb/s");
        for (Access a : accesses) {
            head.append(String.format(Locale.ROOT, " | %10s/kernel median [95%% CI]", a.label));
        }
        out.println(head + (loopback ? " | loopback Mb/s" : ""));
        for (int i = 0; i < xs.length; i++) {
            out.printf(Locale.ROOT, "  %6d", xs[i]);
            for (int u = 0; u < accesses.size(); u++) {
                out.printf(Locale.ROOT, " | %15.1f", mbits(trial, u, i));
            }
            out.printf(Locale.ROOT, " | %11.1f", mbits(trial, kernelStack, i));
            for (int u = 0; u < accesses.size(); u++) {
                BootstrapInterval ci = trial.interval(u, kernelStack, i);
                out.printf(Locale.ROOT, " | %-34s", String.format(Locale.ROOT, "%5.3f [%5.3f, %5.3f]", ci.median(),
                    ci.lower(), ci.upper()));
            }
            if (loopback) {
                out.printf(Locale.ROOT, " | %13.1f", mbits(trial, loopbackStack, i));
            }
            out.println();
        }
        for (int u = 0; u < accesses.size(); u++) {
            for (int i = 0; i < xs.length; i++) {
                checks.comparison(String.format(Locale.ROOT, "%s, %s %d, %s: U-Net %.1f Mb/s vs kernel %.1f Mb/s over"
                    + " the same veth pair, U-Net/kernel %s (a figure, not a target)", label, column, xs[i],
                    accesses.get(u).label, mbits(trial, u, i), mbits(trial, kernelStack, i),
                    trial.interval(u, kernelStack, i).describe("x")));
            }
        }
    }

    /** U-Net TCP's own counters: a segment the receiving side dropped costs a retransmission (RTO floor 200 ms). */
    private void retransmissions(String column, int[] xs, long[][][] resent) {
        for (int u = 0; u < accesses.size(); u++) {
            for (int i = 0; i < xs.length; i++) {
                out.printf(Locale.ROOT, "  %s %d: U-Net TCP on the %s, retransmissions over %d trials: %d on timeout,"
                    + " %d fast%n", column, xs[i], accesses.get(u).label, trials, resent[u][i][0], resent[u][i][1]);
            }
        }
    }

    private static double mbits(InterleavedTrials trial, int stack, int i) {
        return trial.all(stack, i).getValueAtPercentile(50) / 1e3;
    }

    private static void record(Histogram h, long bytes, long nanos) {
        h.recordValue(Math.max(1, Math.round(bytes * 8e6 / nanos))); // kb/s
    }

    // ================================================================================================ the kernel

    private void kernelUdp(KernelPath path, int[] sizes, Histogram[] mbits, long[] lost) throws IOException {
        for (int i = 0; i < sizes.length; i++) {
            // As long as U-Net's stream of the same count takes at 1 Gb/s, at least 20 ms.
            long millis = Math.max(20, (long) messages * sizes[i] * 8 / 1_000_000);
            UdpBaseline.FrameRate r = UdpBaseline.frameRate(path, sizes[i], Duration.ofMillis(millis));
            if (r.received() == 0) {
                throw new IOException("kernel UDP over " + path + " delivered nothing of " + r.sent() + " datagrams");
            }
            lost[i] += r.sent() - r.received();
            record(mbits[i], r.received() * (long) sizes[i], r.receiveWindowNanos());
        }
    }

    private void kernelTcp(KernelPath path, boolean busyPoll, int window, int[] sizes, Histogram[] mbits,
                           long[] moved) throws IOException {
        try (TcpBaseline tcp = TcpBaseline.open(path, busyPoll, window)) {
            for (int i = 0; i < sizes.length; i++) {
                long nanos = tcp.stream(sizes[i], messages);
                record(mbits[i], (long) messages * sizes[i], nanos);
                moved[0] += (long) messages * sizes[i];
            }
        }
    }

    // ================================================================================================ U-Net UDP

    /**
     * U-Net UDP's turn: fresh endpoints (and cards), a counting sink on node B, node A sending every size as fast as it
     * can. @return where node B lost datagrams ({@link UnetIpShimPair#receiverLosses})
     */
    private String unetUdp(VethPair veth, Access access, Wait wait, int[] sizes, Histogram[] mbits, long[] lost,
                           long[] moved) throws Exception {
        try (UnetIpShimPair pair = new UnetIpShimPair(veth, access, wait, UnetRealLatency.TCP_WINDOW)) {
            try (UdpSink sink = new UdpSink(pair.node(1), sizes.length)) {
                sink.start(pair);
                Node a = pair.node(0);
                a.attach();
                UdpPcb pcb = a.udp.bind(PORT, (p, src, sp, d, off, len, now) -> { }, true);
                MemorySegment message = MemorySegment.ofArray(new byte[MAX_UDP]);
                StringBuilder offered = new StringBuilder();
                for (int i = 0; i < sizes.length; i++) {
                    long sendStart = System.nanoTime();
                    for (int k = 0; k < messages; k++) {
                        message.set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                        message.set(ValueLayout.JAVA_INT_UNALIGNED, 4, k);
                        message.set(ValueLayout.JAVA_BYTE, sizes[i] - 1, (byte) k);
                        long limit = System.nanoTime() + LIMIT_NANOS;
                        while (pcb.send(UnetIpShimPair.IP_B, PORT, message, 0, sizes[i], System.nanoTime()) != 0) {
                            if (a.step() == 0) {
                                a.idle();
                            }
                            if (System.nanoTime() - limit > 0) {
                                throw new IOException("no U-Net transmit buffer for 60 s: " + pair.cardStatistics());
                            }
                        }
                    }
                    long sendNanos = System.nanoTime() - sendStart;
                    drain(sink, i, pair);
                    sink.rethrow();
                    if (sink.received[i] < 2) {
                        throw new IOException("U-Net UDP delivered " + sink.received[i] + " of " + messages + " "
                            + sizes[i] + "-byte datagrams: " + pair.cardStatistics());
                    }
                    lost[i] += messages - sink.received[i];
                    moved[0] += sink.received[i] * (long) sizes[i];
                    record(mbits[i], sink.received[i] * (long) sizes[i], sink.last[i] - sink.first[i]);
                    offered.append(String.format(Locale.ROOT, "%s%d B sent at %.1f Mb/s, taken at %.1f Mb/s",
                        i == 0 ? "" : "; ", sizes[i], (long) messages * sizes[i] * 8e3 / sendNanos,
                        sink.received[i] * (long) sizes[i] * 8e3 / Math.max(1, sink.last[i] - sink.first[i])));
                }
                sink.close();
                sink.rethrow();
                return pair.receiverLosses() + " (" + offered + ")";
            }
        }
    }

    /** Waits until node B has taken nothing new for a while (or everything): what was in flight is counted. */
    private static void drain(UdpSink sink, int size, UnetIpShimPair pair) throws IOException {
        long seen = sink.total;
        long quietSince = System.nanoTime();
        long limit = quietSince + LIMIT_NANOS;
        while (sink.received[size] < sink.expected && !sink.failed()) {
            Thread.yield();
            long now = System.nanoTime();
            long total = sink.total;
            if (total != seen) {
                seen = total;
                quietSince = now;
            } else if (now - quietSince > DRAIN_QUIET_NANOS) {
                return;
            }
            if (now - limit > 0) {
                throw new IOException("the U-Net UDP sink kept receiving for 60 s: " + pair.cardStatistics());
            }
        }
    }

    /**
     * Node B: counts the datagrams of each size, checking each one's size index, its number (increasing: one channel
     * delivers in order) and its last byte, timing the first and the last.
     */
    private final class UdpSink extends NodeThread {
        final long[] received;
        final long[] first;
        final long[] last;
        private final int[] next;
        final int expected = messages;
        /** Datagrams taken so far; written after the arrays, so a reader of it sees them. */
        volatile long total;

        UdpSink(Node node, int sizes) {
            super(node, "unet-udp-sink");
            received = new long[sizes];
            first = new long[sizes];
            last = new long[sizes];
            next = new int[sizes];
        }

        @Override
        void setUp() {
            node.udp.bind(PORT, (p, src, sp, d, off, len, now) -> take(d, off, len), true);
        }

        private void take(MemorySegment d, long off, int len) {
            long now = System.nanoTime();
            int size = d.get(ValueLayout.JAVA_INT_UNALIGNED, off);
            int k = d.get(ValueLayout.JAVA_INT_UNALIGNED, off + 4);
            if (size < 0 || size >= received.length || k < next[size] || d.get(ValueLayout.JAVA_BYTE, off + len - 1)
                != (byte) k) {
                throw new IllegalStateException("U-Net UDP datagram " + k + " of size index " + size + " (" + len
                    + " B) is damaged or out of order (expected at least " + (size >= 0 && size < next.length
                    ? next[size] : -1) + ")");
            }
            next[size] = k + 1;
            if (received[size] == 0) {
                first[size] = now;
            }
            last[size] = now;
            received[size]++;
            total = total + 1;
        }
    }

    // ================================================================================================ U-Net TCP

    /**
     * U-Net TCP's turn: fresh cards with {@code window}-byte rings, a sink on node B that checks every byte, node A
     * connecting and writing {@code messages} of each size as fast as the window lets it; the figure is the bytes
     * over the sink's first-to-last read of each size.
     */
    private void unetTcp(VethPair veth, Access access, Wait wait, int window, int[] sizes, Histogram[] mbits,
                         long[] moved, long[][] resent, int first) throws Exception {
        try (UnetIpShimPair pair = new UnetIpShimPair(veth, access, wait, window)) {
            try (TcpSink sink = new TcpSink(pair.node(1))) {
                sink.start(pair);
                Node a = pair.node(0);
                a.attach();
                TcpConnection c = pair.connect(PORT);
                int largest = Arrays.stream(sizes).max().orElseThrow();
                MemorySegment pattern = pattern(largest + PERIOD);
                long position = 0;
                long[] before = new long[2];
                for (int i = 0; i < sizes.length; i++) {
                    long bytes = (long) messages * sizes[i];
                    sink.mark = position;
                    long end = position + bytes;
                    long limit = System.nanoTime() + LIMIT_NANOS;
                    while (sink.read < end) {
                        if (position < end) {
                            int chunk = (int) Math.min(sizes[i] - (position - sink.mark) % sizes[i], end - position);
                            int n = c.write(pattern, position % PERIOD, chunk, System.nanoTime());
                            if (n < 0) {
                                throw new IOException("U-Net TCP connection closed while streaming: " + c.closeReason());
                            }
                            position += n;
                            if (n > 0) {
                                continue;
                            }
                        }
                        if (a.step() == 0) {
                            a.idle();
                        }
                        sink.rethrow();
                        if (System.nanoTime() - limit > 0) {
                            throw new IOException("U-Net TCP stream of " + sizes[i] + "-byte writes stalled at "
                                + sink.read + " of " + end + " bytes: " + c + "; " + pair.cardStatistics());
                        }
                    }
                    moved[0] += bytes;
                    record(mbits[i], bytes, sink.lastNanos - sink.firstNanos);
                    long timeouts = a.tcp.counters().get(TcpCounters.Counter.TIMEOUT_RETRANSMISSIONS);
                    long fast = a.tcp.counters().get(TcpCounters.Counter.FAST_RETRANSMISSIONS);
                    resent[first + i][0] += timeouts - before[0];
                    resent[first + i][1] += fast - before[1];
                    before[0] = timeouts;
                    before[1] = fast;
                }
                c.abort(System.nanoTime());
                sink.close();
                sink.rethrow();
            }
        }
    }

    /** @return {@code length} bytes of the stream pattern from stream position 0 */
    private static MemorySegment pattern(int length) {
        byte[] p = new byte[length];
        for (int j = 0; j < length; j++) {
            p[j] = (byte) (j % PERIOD * 7 + 3);
        }
        return MemorySegment.ofArray(p);
    }

    /** Node B: listens, reads everything, checks each byte against the pattern at its stream position. */
    private static final class TcpSink extends TcpServerThread {
        private final MemorySegment buffer = MemorySegment.ofArray(new byte[1 << 16]);
        private final MemorySegment pattern = pattern((1 << 16) + PERIOD);
        /** Stream bytes read; written after the times, so a reader of it sees them. */
        volatile long read;
        /** The stream position where the current size starts: the read crossing it is the size's first. */
        volatile long mark;
        volatile long firstNanos;
        volatile long lastNanos;

        TcpSink(Node node) {
            super(node, "unet-tcp-sink", PORT);
        }

        /** Reads what arrived and checks it against the pattern. @return bytes read */
        @Override
        int serve(TcpConnection c) {
            int n = c.read(buffer, 0, (int) buffer.byteSize(), System.nanoTime());
            if (n <= 0) {
                return 0;
            }
            long now = System.nanoTime();
            long at = read;
            long offset = at % PERIOD;
            long bad = MemorySegment.mismatch(buffer, 0, n, pattern, offset, offset + n);
            if (bad != -1) {
                throw new IllegalStateException("U-Net TCP stream byte " + (at + bad) + " differs from what was sent");
            }
            if (at <= mark && at + n > mark) {
                firstNanos = now;
            }
            lastNanos = now;
            read = at + n;
            return n;
        }
    }
}
