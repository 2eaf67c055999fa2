package io.nicbridge.bench.unet.real;

import io.nicbridge.bench.real.InterleavedTrials;
import io.nicbridge.bench.unet.real.UnetIpShimPair.Access;
import io.nicbridge.bench.unet.real.UnetIpShimPair.Node;
import io.nicbridge.bench.unet.real.UnetIpShimPair.Wait;
import io.nicbridge.bench.verdict.BootstrapInterval;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bridge.platform.CpuAffinity;
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
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * {@code nic unet real-latency} (the U-Net paper's Figure 9 in real time, and Table 3's UDP and TCP round trips on
 * U-Net over Ethernet): U-Net UDP's and U-Net TCP's round trip - the one IPv4 stack with {@code Udp} and {@code Tcp}
 * on U-Net over Ethernet across a veth pair between two network namespaces ({@link UnetIpShimPair}), on each of
 * the two U-Net endpoints ({@link Access}): two native-shim SBA-200 contracts (the card model's threads between the
 * process and the wire), and two direct-access endpoints on AF_XDP sockets (no card model) - beside kernel UDP ({@link UdpBaseline}) and kernel TCP with TCP_NODELAY
 * ({@link TcpBaseline}) over the same pair in the same run, and beside the same kernel stacks over loopback
 * ({@link LoopbackPath}: no device in the path), per message size, every stack waiting the same way: all blocking
 * (kernel {@code read}; on the shim card the node asleep in the shim's epoll, doing its inline card's work itself, on
 * the direct endpoint ppoll on its socket and the shim's timerfd), or all busy polling (non-blocking kernel
 * {@code read} in a spin, {@code SO_BUSY_POLL} for TCP; an inline card polled by a spinning node), each spin backing
 * off to {@link Thread#yield()}.
 *
 * <p>Per setting both ends of every stack are unpinned or pinned ({@code pinnings}: U-Net's node A and the kernel's
 * client on CPU 0, node B and the kernel's echo on CPU 1; {@code one-cpu}, a diagnosis: both on CPU 0) - like with
 * like: unpinned, two spinning node threads may share one CPU for a while and hand it over at each yield (about one
 * context switch per round trip, measured), and two blocking ones either switch on one CPU or wake an idle vCPU at
 * every hop, 10 against 45 us per kernel UDP round trip on the 2-vCPU VM. Which one mostly depends on whether a third
 * thread keeps a CPU busy - the JIT's compiler - so before the timed trials every stack takes untimed turns until the
 * JIT is nearly done ({@link #warmUp}). U-Net TCP acknowledges at the end of the node's step
 * ({@link io.nicbridge.protocols.ip.tcp.TcpConfig#ackAtPoll}), so that the echo's reply carries the ACK of the
 * request and the next request the ACK of the reply: two segments per round trip, printed per turn
 * ({@link #tcpAckAtPoll} false: a pure ACK before each, four).
 *
 * <p>Per protocol, wait mode and pinning, {@code trials} interleaved trials ({@link InterleavedTrials}); the U-Net
 * cards are open only during U-Net's turn (their packet sockets would take a copy of every kernel frame). Per trial and size the
 * ratio kernel p50 / U-Net p50; per size its median with a seeded percentile-bootstrap 95% interval. Issue 17's
 * target - "U-Net UDP and TCP round trips lower than the kernel's on the same veth pair in the same run, for small
 * messages, with the same wait mode" - is judged for messages up to {@value #TARGET_MAX_SIZE} B ({@code anchor check}
 * on kernel/U-Net >= 1: MET when the interval's lower bound clears it, NOT MET when its upper bound is below, else
 * INCONCLUSIVE) for both endpoints in both wait modes; larger sizes and loopback are printed as comparisons.
 */
public final class UnetRealLatency {
    public static final int[] DEFAULT_SIZES = {4, 64, 256, 1024, 1472};
    public static final int[] QUICK_SIZES = {4, 256, 1472};
    static final double TARGET_RATIO = 1.0;
    static final int TARGET_MAX_SIZE = 256;
    /** Warm-up rounds repeat while the JIT compiled for this long during the last one ({@link #warmUp}). */
    static final long JIT_BUSY_MILLIS = 100;
    static final int MAX_WARM_UP_ROUNDS = 4;
    static final int PORT = 7007;
    /** Each U-Net TCP connection's rings: one message in flight needs little; 64 KB is the kernel's usual window. */
    static final int TCP_WINDOW = 1 << 16;

    /** The transport compared. */
    enum Protocol {
        UDP, TCP;

        String kernelName() {
            return this == UDP ? "kernel UDP" : "kernel TCP_NODELAY";
        }
    }

    private final PrintWriter out;
    private final int[] sizes;
    private final int count;
    private final int warmup;
    private final int trials;
    private final List<Wait> waits;
    private final List<Protocol> protocols;
    /** The U-Net endpoints compared: stacks 0 .. accesses-1 of the trials; the kernel next, then loopback. */
    private final List<Access> accesses;
    private final int kernelStack;
    private final int loopbackStack;
    private final boolean loopback;
    private final boolean acceptInconclusive;
    /** Per setting: where both ends of every stack run (U-Net's node A and node B, the kernel's client and echo). */
    private final List<Placement> pinnings;
    /** U-Net TCP acknowledges at the end of the step (the default), or inside each data segment's arrival. */
    private boolean tcpAckAtPoll = true;

    /** Unpinned only. @throws IllegalArgumentException naming the bad argument */
    public UnetRealLatency(PrintWriter out, int[] sizes, int count, int warmup, int trials, List<String> waits,
                           List<String> protocols, List<String> endpoints, boolean loopback,
                           boolean acceptInconclusive) {
        this(out, sizes, count, warmup, trials, waits, protocols, endpoints, List.of("unpinned"), loopback,
            acceptInconclusive);
    }

    /**
     * @param pinnings "unpinned", "pinned" and/or "one-cpu" ({@link Placement}): whether both ends of every stack -
     *                 U-Net's node A (the measuring thread) and node B (the echo), the kernel's client and echo
     *                 threads - are pinned to CPUs 0 and 1, both to CPU 0, or not at all
     * @throws IllegalArgumentException naming the bad argument
     */
    public UnetRealLatency(PrintWriter out, int[] sizes, int count, int warmup, int trials, List<String> waits,
                           List<String> protocols, List<String> endpoints, List<String> pinnings, boolean loopback,
                           boolean acceptInconclusive) {
        this.out = out;
        InterleavedTrials.checkRoundTrips(sizes, 1472, "one 1500-byte frame for the kernel", count, warmup, trials);
        this.sizes = sizes.clone();
        this.count = count;
        this.warmup = warmup;
        this.trials = trials;
        this.loopback = loopback;
        this.acceptInconclusive = acceptInconclusive;
        this.waits = new ArrayList<>();
        for (String w : waits) {
            this.waits.add(InterleavedTrials.spins(w) ? Wait.SPIN : Wait.BLOCK);
        }
        if (this.waits.isEmpty()) {
            throw new IllegalArgumentException("--waits must name at least one wait mode");
        }
        this.protocols = new ArrayList<>();
        for (String p : protocols) {
            this.protocols.add(switch (p.trim().toLowerCase(Locale.ROOT)) {
                case "udp" -> Protocol.UDP;
                case "tcp" -> Protocol.TCP;
                default -> throw new IllegalArgumentException("--protocols: udp or tcp, was '" + p + "'");
            });
        }
        if (this.protocols.isEmpty()) {
            throw new IllegalArgumentException("--protocols must name at least one protocol");
        }
        this.accesses = accesses(endpoints);
        this.pinnings = new ArrayList<>();
        for (String p : pinnings) {
            Placement placement = Placement.of(p);
            if (!this.pinnings.contains(placement)) {
                this.pinnings.add(placement);
            }
        }
        if (this.pinnings.isEmpty()) {
            throw new IllegalArgumentException("--pinning must name at least one setting");
        }
        this.kernelStack = accesses.size();
        this.loopbackStack = kernelStack + 1;
    }

    /**
     * Where the two ends of every stack run in a setting ({@code --pinning}): unpinned (the scheduler's choice, as a user
     * runs it), pinned to two CPUs (node A and the kernel's client on CPU 0, node B and the kernel's echo on CPU 1),
     * or both on CPU 0 ({@code one-cpu}: a diagnosis, every hop a wake-up on the waker's own CPU - where an unpinned
     * pair lands while a third thread, such as the JIT's compiler, keeps the other CPU busy).
     */
    enum Placement {
        UNPINNED("unpinned", UdpBaseline.NOT_PINNED, UdpBaseline.NOT_PINNED),
        PINNED("pinned", 0, CpuAffinity.cpus() > 1 ? 1 : 0),
        ONE_CPU("one CPU", 0, 0);

        final String label;
        final int cpuA;
        final int cpuB;

        Placement(String label, int cpuA, int cpuB) {
            this.label = label;
            this.cpuA = cpuA;
            this.cpuB = cpuB;
        }

        /** @throws IllegalArgumentException for a word other than unpinned, pinned or one-cpu */
        static Placement of(String word) {
            return switch (word.trim().toLowerCase(Locale.ROOT)) {
                case "unpinned" -> UNPINNED;
                case "pinned" -> PINNED;
                case "one-cpu" -> ONE_CPU;
                default -> throw new IllegalArgumentException("--pinning: unpinned, pinned or one-cpu, was '" + word
                    + "'");
            };
        }
    }

    /**
     * U-Net TCP acknowledges every data segment inside its arrival, a pure ACK before the reply (false), instead of
     * at the end of the step ({@link io.nicbridge.protocols.ip.tcp.TcpConfig#ackAtPoll}, true, the default): the
     * comparison of the two, on the wire and in the round trip.
     */
    public UnetRealLatency tcpAckAtPoll(boolean v) {
        this.tcpAckAtPoll = v;
        return this;
    }

    /**
     * @param endpoints "card" (the shim's SBA-200 model) and/or "direct" (the AF_XDP endpoint)
     * @throws IllegalArgumentException for another word or none
     */
    static List<Access> accesses(List<String> endpoints) {
        List<Access> list = new ArrayList<>();
        for (String e : endpoints) {
            Access a = switch (e.trim().toLowerCase(Locale.ROOT)) {
                case "card" -> Access.CARD;
                case "direct" -> Access.DIRECT;
                default -> throw new IllegalArgumentException("--endpoints: card or direct, was '" + e + "'");
            };
            if (!list.contains(a)) {
                list.add(a);
            }
        }
        if (list.isEmpty()) {
            throw new IllegalArgumentException("--endpoints must name at least one U-Net endpoint");
        }
        return list;
    }

    /** @return the exit code: 0 all checks passed, 1 a check failed or a target NOT MET, 3 INCONCLUSIVE */
    public int run() throws Exception {
        CheckLog checks = new CheckLog(out::println);
        long roundTrips = 0;
        // 8 bytes over Ethernet's 1500: U-Net over Ethernet's tag, so that U-Net carries the kernel's 1500-byte IP MTU.
        try (VethPair veth = VethPair.builder().ipv4(true).mtu(VethPair.DEFAULT_MTU + UnetIpShimPair.TAG).create()) {
            LoopbackPath lo = LoopbackPath.in(veth.namespaceA());
            out.printf(Locale.ROOT, "unet real-latency: round trips over %s, U-Net %s (the one Ipv4Stack on U-Net over"
                + " Ethernet) on %s vs the kernel's (UDP: DatagramChannel; TCP: TCP_NODELAY) over the same pair%s; %d"
                + " trials x %d round trips (+%d warm-up) per size and stack, after untimed turns of every stack (the"
                + " JIT's warm-up); pinned: node A / the kernel's client on CPU %d, node B / its echo on CPU %d%n", veth,
                protocols, endpointsLabel(), loopback ? " and over " + lo : "", trials, count, warmup,
                Placement.PINNED.cpuA, Placement.PINNED.cpuB);
            for (Protocol protocol : protocols) {
                for (Wait wait : waits) {
                    for (Placement pinned : pinnings) {
                        int a = pinned.cpuA;
                        int b = pinned.cpuB;
                        InterleavedTrials trial = new InterleavedTrials(sizes.length, trials, loopbackStack
                            + (loopback ? 1 : 0));
                        List<InterleavedTrials.Turn> turns = new ArrayList<>();
                        for (Access access : accesses) {
                            turns.add(protocol == Protocol.UDP ? rtt -> unetUdp(veth, access, wait, a, b, rtt)
                                : rtt -> unetTcp(veth, access, wait, a, b, rtt));
                        }
                        turns.add(rtt -> kernel(protocol, veth, wait, a, b, rtt));
                        if (loopback) {
                            turns.add(rtt -> kernel(protocol, lo, wait, a, b, rtt));
                        }
                        warmUp(turns);
                        trial.run(turns.toArray(InterleavedTrials.Turn[]::new));
                        report(protocol, wait, pinned, trial, checks);
                        roundTrips += trial.samples();
                    }
                }
            }
        }
        return InterleavedTrials.finish(out, checks, roundTrips + " round trips of every stack: every echo arrived"
            + " whole and byte for byte as sent, none lost (a loss or a damaged echo ends the run with an error)",
            acceptInconclusive);
    }

    /**
     * Untimed turns of every stack before the timed trials (the JIT's warm-up): the per-size warm-up of a few hundred
     * round trips is shorter than C2 takes to compile (the first size of the first trial ran interpreted - the "4 B
     * three times slower than 256 B" of the direct endpoint). Rounds repeat while the JIT compiled for at least
     * {@value #JIT_BUSY_MILLIS} ms during the last one, at most {@value #MAX_WARM_UP_ROUNDS}: unpinned, a compiler
     * thread busy on one CPU leaves both ends of every stack the other, so two spinning ends hand one CPU back and
     * forth at each yield (busy UDP 17-30 us against 5 us on two CPUs, quiet) and two blocking ends switch on one CPU
     * instead of waking an idle vCPU - the first setting of a run, timed while the JIT was still compiling, was a
     * different machine from the later ones. (The JIT never goes fully quiet here - every turn opens fresh endpoints -
     * so the bound is a burst, not zero.)
     */
    private void warmUp(List<InterleavedTrials.Turn> turns) throws Exception {
        if (warmup == 0) {
            return;
        }
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean timed = jit != null && jit.isCompilationTimeMonitoringSupported();
        long compiled;
        int rounds = 0;
        do {
            long before = timed ? jit.getTotalCompilationTime() : 0;
            for (InterleavedTrials.Turn turn : turns) {
                Histogram[] scratch = new Histogram[sizes.length];
                for (int i = 0; i < sizes.length; i++) {
                    scratch[i] = new Histogram(InterleavedTrials.HIGHEST_VALUE, 3);
                }
                turn.run(scratch);
            }
            compiled = timed ? jit.getTotalCompilationTime() - before : 0;
            rounds++;
        } while (compiled >= JIT_BUSY_MILLIS && rounds < MAX_WARM_UP_ROUNDS);
        out.printf(Locale.ROOT, "  warm-up: %d untimed round(s) of every stack, the JIT compiling for %d ms in the"
            + " last%s%n", rounds, compiled, timed ? "" : " (compilation time not monitored by this JVM)");
    }

    /** The kernel's turn over {@code path}: every size, the same wait and pinning as U-Net's. */
    private void kernel(Protocol protocol, KernelPath path, Wait wait, int cpuA, int cpuB, Histogram[] rtt)
        throws IOException {
        boolean spin = wait == Wait.SPIN;
        if (protocol == Protocol.UDP) {
            for (int i = 0; i < sizes.length; i++) {
                rtt[i].add(UdpBaseline.roundTrip(path, sizes[i], warmup, count, spin, cpuA, cpuB));
            }
            return;
        }
        try (TcpBaseline tcp = TcpBaseline.open(path, spin)) {
            for (int i = 0; i < sizes.length; i++) {
                tcp.roundTrips(sizes[i], warmup, count, spin ? TcpBaseline.Wait.SPIN : TcpBaseline.Wait.BLOCK, cpuA,
                    cpuB, rtt[i]);
            }
        }
    }

    private String endpointsLabel() {
        StringBuilder b = new StringBuilder();
        for (Access a : accesses) {
            b.append(b.isEmpty() ? "" : " and ").append(a == Access.CARD ? "two native-shim SBA-200 contracts (shim card)"
                : "two direct-access AF_XDP endpoints (direct XSK)");
        }
        return b.toString();
    }

    /**
     * One table per protocol and wait: each U-Net endpoint's p50 and p99, the kernel's, kernel/U-Net per trial with its
     * interval, and loopback; the target judged up to {@value #TARGET_MAX_SIZE} B for every endpoint and wait. A
     * blocking node is one thread woken by the kernel, as the kernel's reader is ({@link UnetIpShimPair.Wait#BLOCK});
     * a threaded shim card would add its own thread's wake-up to every hop.
     */
    private void report(Protocol protocol, Wait wait, Placement pinned, InterleavedTrials trial, CheckLog checks) {
        String label = protocol + ", " + (wait == Wait.SPIN ? "busy polling" : "blocking") + ", " + pinned.label;
        out.printf(Locale.ROOT, "%n%s: round trip, us (p50 and p99 of all trials); kernel/U-Net per trial, median [95%%"
            + " bootstrap interval]%n", label);
        StringBuilder head = new StringBuilder("  bytes");
        for (Access a : accesses) {
            head.append(String.format(Locale.ROOT, " | %10s p50    p99", a.label));
        }
        head.append(" | kernel p50    p99");
        for (Access a : accesses) {
            head.append(String.format(Locale.ROOT, " | kernel/%-10s median [95%% CI]", a.label));
        }
        out.println(head + (loopback ? " | loopback p50    p99" : ""));
        for (int i = 0; i < sizes.length; i++) {
            out.printf(Locale.ROOT, "  %5d", sizes[i]);
            for (int u = 0; u < accesses.size(); u++) {
                Histogram h = trial.all(u, i);
                out.printf(Locale.ROOT, " | %14.2f %6.1f", h.getValueAtPercentile(50) / 1e3,
                    h.getValueAtPercentile(99) / 1e3);
            }
            Histogram kernel = trial.all(kernelStack, i);
            out.printf(Locale.ROOT, " | %10.2f %6.1f", kernel.getValueAtPercentile(50) / 1e3,
                kernel.getValueAtPercentile(99) / 1e3);
            for (int u = 0; u < accesses.size(); u++) {
                BootstrapInterval ci = trial.interval(kernelStack, u, i);
                out.printf(Locale.ROOT, " | %-32s", String.format(Locale.ROOT, "%5.3f [%5.3f, %5.3f]", ci.median(),
                    ci.lower(), ci.upper()));
            }
            if (loopback) {
                Histogram lo = trial.all(loopbackStack, i);
                out.printf(Locale.ROOT, " | %12.2f %6.1f", lo.getValueAtPercentile(50) / 1e3,
                    lo.getValueAtPercentile(99) / 1e3);
            }
            out.println();
        }
        for (int u = 0; u < accesses.size(); u++) {
            Access access = accesses.get(u);
            for (int i = 0; i < sizes.length; i++) {
                String what = String.format(Locale.ROOT, "%s, %d B, %s: U-Net %s round trip lower than %s's over the"
                    + " same veth pair in the same run (kernel p50 / U-Net p50 > %.1f; issue 17's target)", label,
                    sizes[i], access.label, protocol, protocol.kernelName(), TARGET_RATIO);
                trial.target(checks, what, kernelStack, u, i, TARGET_RATIO, sizes[i] <= TARGET_MAX_SIZE,
                    "above " + TARGET_MAX_SIZE + " B: printed, not judged");
            }
        }
    }

    /** One U-Net UDP turn: fresh endpoints (and cards), an echo thread on node B, every size timed from node A, then closed. */
    private void unetUdp(VethPair veth, Access access, Wait wait, int cpuA, int cpuB, Histogram[] rtt)
        throws Exception {
        try (UnetIpShimPair pair = new UnetIpShimPair(veth, access, wait, TCP_WINDOW);
             Pinned pin = Pinned.to(cpuA)) {
            try (UdpEcho echo = new UdpEcho(pair.node(1), pair.mtu())) {
                echo.pinTo(cpuB).start(pair);
                Node a = pair.node(0);
                a.attach();
                MemorySegment message = MemorySegment.ofArray(new byte[1472]);
                MemorySegment answer = MemorySegment.ofArray(new byte[1472]);
                int[] got = {-1};
                UdpPcb pcb = a.udp.bind(PORT, (p, src, sp, d, off, len, now) -> {
                    MemorySegment.copy(d, off, answer, 0, Math.min(len, 1472));
                    got[0] = len;
                }, true);
                for (int i = 0; i < sizes.length; i++) {
                    int size = sizes[i];
                    for (int k = 0; k < warmup + count; k++) {
                        message.fill((byte) k);
                        message.set(ValueLayout.JAVA_BYTE, 0, (byte) (k * 7 + size));
                        got[0] = -1;
                        long start = System.nanoTime();
                        long limit = start + TimeUnit.SECONDS.toNanos(10);
                        while (pcb.send(UnetIpShimPair.IP_B, PORT, message, 0, size, start) != 0) {
                            if (a.step() == 0) {
                                a.idle();
                            }
                            failAfter(limit, "no transmit buffer for datagram " + k, pair);
                        }
                        while (got[0] < 0) {
                            if (a.step() == 0) {
                                failAfter(limit, "no U-Net UDP echo of datagram " + k + " (" + size + " B)", pair);
                                a.idle();
                            }
                        }
                        long elapsed = System.nanoTime() - start;
                        if (got[0] != size || MemorySegment.mismatch(answer, 0, size, message, 0, size) != -1) {
                            throw new IOException("U-Net UDP echo of datagram " + k + " differs: " + got[0]
                                + " bytes for " + size);
                        }
                        if (k >= warmup) {
                            rtt[i].recordValue(Math.min(elapsed, InterleavedTrials.HIGHEST_VALUE));
                        }
                    }
                }
                echo.close();
                echo.rethrow();
            }
        }
    }

    /**
     * One U-Net TCP turn: fresh cards, node B listening and echoing every byte on its thread, node A connecting, then
     * every size timed from node A (write the message, poll until all of its echo is read), then closed.
     */
    private void unetTcp(VethPair veth, Access access, Wait wait, int cpuA, int cpuB, Histogram[] rtt)
        throws Exception {
        try (UnetIpShimPair pair = new UnetIpShimPair(veth, access, wait, TCP_WINDOW, tcpAckAtPoll);
             Pinned pin = Pinned.to(cpuA)) {
            try (TcpEcho echo = new TcpEcho(pair.node(1))) {
                echo.pinTo(cpuB).start(pair);
                Node a = pair.node(0);
                a.attach();
                TcpConnection c = pair.connect(PORT);
                long sentBefore = a.tcp.counters().get(TcpCounters.Counter.SEGMENTS_SENT);
                long sentBeforeB = echoSegmentsSent(pair);
                MemorySegment message = MemorySegment.ofArray(new byte[1472]);
                MemorySegment answer = MemorySegment.ofArray(new byte[1472]);
                for (int i = 0; i < sizes.length; i++) {
                    int size = sizes[i];
                    for (int k = 0; k < warmup + count; k++) {
                        message.fill((byte) k);
                        message.set(ValueLayout.JAVA_BYTE, 0, (byte) (k * 7 + size));
                        long start = System.nanoTime();
                        long limit = start + TimeUnit.SECONDS.toNanos(10);
                        int written = 0;
                        int read = 0;
                        while (read < size) {
                            if (written < size) {
                                int n = c.write(message, written, size - written, System.nanoTime());
                                if (n < 0) {
                                    throw new IOException("U-Net TCP connection closed: " + c.closeReason());
                                }
                                written += n;
                            }
                            int n = c.read(answer, read, size - read, System.nanoTime());
                            if (n < 0) {
                                throw new IOException("U-Net TCP echo stream ended after " + read + " of " + size
                                    + " bytes: " + c.closeReason());
                            }
                            read += n;
                            if (read < size && n == 0 && a.step() == 0) {
                                failAfter(limit, "no U-Net TCP echo of message " + k + " (" + size + " B, " + read
                                    + " read) " + c, pair);
                                a.idle();
                            }
                        }
                        long elapsed = System.nanoTime() - start;
                        if (MemorySegment.mismatch(answer, 0, size, message, 0, size) != -1) {
                            throw new IOException("U-Net TCP echo of message " + k + " (" + size + " B) differs");
                        }
                        if (k >= warmup) {
                            rtt[i].recordValue(Math.min(elapsed, InterleavedTrials.HIGHEST_VALUE));
                        }
                    }
                }
                long sentA = a.tcp.counters().get(TcpCounters.Counter.SEGMENTS_SENT) - sentBefore;
                c.abort(System.nanoTime());
                echo.close();
                echo.rethrow();
                long sentB = echoSegmentsSent(pair) - sentBeforeB;
                long roundTrips = (long) sizes.length * (warmup + count);
                out.printf(Locale.ROOT, "  U-Net TCP turn, %s: %.2f segments on the wire per round trip (node A %.2f,"
                    + " node B %.2f)%n", access.label, (double) (sentA + sentB) / roundTrips,
                    (double) sentA / roundTrips, (double) sentB / roundTrips);
            }
        }
    }

    /** The measuring thread pinned to a CPU for a turn (or not, for {@link UdpBaseline#NOT_PINNED}), then unpinned. */
    private record Pinned(boolean pinned) implements AutoCloseable {
        static Pinned to(int cpu) throws IOException {
            if (cpu == UdpBaseline.NOT_PINNED) {
                return new Pinned(false);
            }
            CpuAffinity.pinCurrentThread(cpu);
            return new Pinned(true);
        }

        @Override
        public void close() throws IOException {
            if (pinned) {
                CpuAffinity.unpinCurrentThread();
            }
        }
    }

    /**
     * Node B's TCP segments sent so far: read while its thread runs, a plain long of another thread - a count for a
     * report, exact once the thread is joined (the second reading, after {@link NodeThread#close}).
     */
    private static long echoSegmentsSent(UnetIpShimPair pair) {
        return pair.node(1).tcp.counters().get(TcpCounters.Counter.SEGMENTS_SENT);
    }

    private static void failAfter(long limit, String what, UnetIpShimPair pair) throws IOException {
        if (System.nanoTime() - limit > 0) {
            throw new IOException(what + " within 10 s: " + pair.node(0) + "; " + pair.node(1) + "; "
                + pair.cardStatistics());
        }
    }

    /** Node B: sends every datagram back to where it came from, until stopped. */
    private static final class UdpEcho extends NodeThread {
        private final MemorySegment buffer;
        private UdpPcb pcb;
        private int pending = -1;
        private int source;
        private int sourcePort;

        UdpEcho(Node node, int mtu) {
            super(node, "unet-udp-echo");
            this.buffer = MemorySegment.ofArray(new byte[mtu]);
        }

        @Override
        void setUp() {
            pcb = node.udp.bind(PORT, (p, src, sp, d, off, len, now) -> {
                if (p.send(src, sp, d, off, len, now) != 0) { // no transmit buffer: keep it, send it later
                    MemorySegment.copy(d, off, buffer, 0, len);
                    pending = len;
                    source = src;
                    sourcePort = sp;
                }
            }, true);
        }

        @Override
        int work() {
            if (pending >= 0 && pcb.send(source, sourcePort, buffer, 0, pending, System.nanoTime()) == 0) {
                pending = -1;
                return 1;
            }
            return 0;
        }
    }

    /** Node B: listens, and writes every byte it reads back on the same connection, until stopped. */
    private static final class TcpEcho extends TcpServerThread {
        private final MemorySegment buffer = MemorySegment.ofArray(new byte[1 << 14]);
        private int pending;
        private int sent;

        TcpEcho(Node node) {
            super(node, "unet-tcp-echo", PORT);
        }

        /**
         * Reads when all that was read before went back, then writes out what is pending - in the same call, so
         * that the reply leaves in the step that took the message and carries its ACK (TCP acknowledges at the
         * end of the step, {@link io.nicbridge.protocols.ip.tcp.TcpConfig#ackAtPoll}). @return bytes moved
         */
        @Override
        int serve(TcpConnection c) {
            long now = System.nanoTime();
            int moved = 0;
            if (sent == pending) {
                int n = c.read(buffer, 0, (int) buffer.byteSize(), now);
                if (n > 0) {
                    pending = n;
                    sent = 0;
                    moved += n;
                }
            }
            if (sent < pending) {
                int n = c.write(buffer, sent, pending - sent, now);
                if (n < 0) {
                    return 0;
                }
                sent += n;
                moved += n;
            }
            return moved;
        }
    }
}
