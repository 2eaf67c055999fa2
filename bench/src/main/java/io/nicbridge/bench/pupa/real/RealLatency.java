package io.nicbridge.bench.pupa.real;

import io.nicbridge.bench.pupa.real.PupaShimPair.Node;
import io.nicbridge.bench.pupa.real.PupaShimPair.Wait;
import io.nicbridge.bench.real.InterleavedTrials;
import io.nicbridge.bench.verdict.BootstrapInterval;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bridge.platform.CpuAffinity;
import io.nicbridge.bridge.platform.TcpBaseline;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimTulipLinks;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.core.MessageHandler;
import io.nicbridge.protocols.pupa.PupaConfig;
import io.nicbridge.protocols.pupa.PupaCounters;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * {@code nic pupa real-latency}: Pupa's one-way latency (half the round trip, as the paper's Table 1) in real time on
 * two native-shim 21140s across a veth pair between two network namespaces, beside kernel TCP with TCP_NODELAY over
 * the same pair in the same run ({@link TcpBaseline}), per message size, in four settings: both stacks blocking, both
 * busy polling ({@code SO_BUSY_POLL} and a spinning {@code recv} for TCP, an inline card polled by a spinning node for
 * Pupa), each with the two ends unpinned and pinned to CPUs 0 and 1.
 *
 * <p>Per setting, {@code trials} trials; in each the two stacks run every size one after the other, which one first
 * alternating from trial to trial (ABBA), the Pupa cards open only during Pupa's turn (their packet sockets would take a
 * copy of every TCP frame). Per trial and size the ratio Pupa p50 / TCP p50; per size the median ratio with a seeded
 * percentile-bootstrap 95% interval ({@link BootstrapInterval}). The paper's claim (Table 1: "less than half of TCP's"
 * for small messages) is judged as the target "Pupa at most half of TCP for messages up to 256 B with busy polling"
 * ({@code anchor check}, on TCP/Pupa >= 2: MET when the interval's lower bound clears it, NOT MET when its upper bound
 * is below it); the blocking settings are printed as comparisons.
 */
public final class RealLatency {
    public static final int[] DEFAULT_SIZES = {4, 32, 64, 128, 256, 512, 1024, 1436};
    public static final int[] QUICK_SIZES = {4, 256, 1436};
    /** Target: TCP one-way / Pupa one-way at least this for messages up to {@link #TARGET_MAX_SIZE}, busy polling. */
    static final double TARGET_RATIO = 2.0;
    static final int TARGET_MAX_SIZE = 256;
    /**
     * Round trips of the unmeasured run of each stack before a setting's trials, spread over the sizes: the JIT's
     * compilation of the hop. Without it the first trials measured the compiler: on this 2-CPU machine the pinned
     * spinning nodes leave the compiler threads only their yields, so the command's 300 warm-up round trips per size
     * ended long before the hop was compiled, and the same code gave busy pinned p50s from 2.3 to 9 us from run to run
     * (quiet, 2300 round trips per size and trial; warm, after 50 000 round trips, 2.2-2.6 us every time; README).
     */
    static final int JIT_WARMUP_ROUND_TRIPS = 60_000;
    /** The stacks' indices in the trials. */
    private static final int PUPA = 0;
    private static final int TCP = 1;
    /** The paper's Table 1 (P90 PCs, FreeBSD, SMC EtherPower 10/100, hub): Pupa and TCP one-way microseconds. */
    static final int[] PAPER_SIZES = {4, 32, 64, 128, 256, 512, 1024, 1436};
    static final int[] PAPER_PUPA = {198, 208, 241, 253, 268, 318, 410, 492};
    static final int[] PAPER_TCP = {405, 411, 422, 438, 451, 482, 564, 645};

    /** One setting: how both stacks wait, and whether the two ends are pinned. */
    record Setting(Wait waitMode, boolean pinned) {
        String label() {
            return (waitMode == Wait.SPIN ? "busy polling" : "blocking") + ", " + (pinned ? "pinned" : "unpinned");
        }
    }

    private final PrintWriter out;
    private final int[] sizes;
    private final int count;
    private final int warmup;
    private final int trials;
    private final List<Setting> settings;
    private final boolean acceptInconclusive;
    private final ShimTulipLinks.Transport transport;

    /** @throws IllegalArgumentException naming the bad argument */
    public RealLatency(PrintWriter out, int[] sizes, int count, int warmup, int trials, List<String> waits,
                       List<String> pinnings, boolean acceptInconclusive, ShimTulipLinks.Transport transport) {
        this.out = out;
        this.transport = java.util.Objects.requireNonNull(transport, "transport");
        InterleavedTrials.checkRoundTrips(sizes, 1436, "one frame", count, warmup, trials);
        this.sizes = sizes.clone();
        this.count = count;
        this.warmup = warmup;
        this.trials = trials;
        this.acceptInconclusive = acceptInconclusive;
        settings = new ArrayList<>();
        for (String w : waits) {
            Wait wait = InterleavedTrials.spins(w) ? Wait.SPIN : Wait.BLOCK;
            for (String p : pinnings) {
                boolean pinned = switch (p.trim().toLowerCase(Locale.ROOT)) {
                    case "unpinned" -> false;
                    case "pinned" -> true;
                    default -> throw new IllegalArgumentException("--pinning: unpinned or pinned, was '" + p + "'");
                };
                settings.add(new Setting(wait, pinned));
            }
        }
        if (settings.isEmpty()) {
            throw new IllegalArgumentException("--waits and --pinning must name at least one setting each");
        }
    }

    /** @return how the header names the shim cards' transport */
    static String transportName(ShimTulipLinks.Transport transport) {
        return transport == ShimTulipLinks.Transport.AF_XDP ? "AF_XDP, shim:afxdp"
            : "AF_PACKET, shim:afpacket tx=send: one send()/sendmmsg() per card round";
    }

    /** @return the exit code: 0 all checks passed, 1 a check failed or a target NOT MET, 3 INCONCLUSIVE */
    public int run() throws Exception {
        int cpuA = 0;
        int cpuB = CpuAffinity.cpus() > 1 ? 1 : 0;
        CheckLog checks = new CheckLog(out::println);
        long roundTrips = 0;
        try (VethPair veth = VethPair.builder().ipv4(true).create();
             TcpBaseline tcpBlock = TcpBaseline.open(veth, false);
             TcpBaseline tcpBusy = TcpBaseline.open(veth, true)) {
            out.printf(Locale.ROOT, "pupa real-latency: one-way latency (RTT/2) over %s, Pupa on two native-shim 21140s"
                + " (%s) vs kernel TCP_NODELAY; %d trials x %d round trips (+%d warm-up) per size and stack, after"
                + " %d unmeasured round trips of each stack per setting (the JIT); pinned = node A on CPU %d, node B on"
                + " CPU %d; each node does its own card's work%n",
                veth, transportName(transport), trials, count, warmup, JIT_WARMUP_ROUND_TRIPS, cpuA, cpuB);
            for (Setting s : settings) {
                int a = s.pinned() ? cpuA : -1;
                int b = s.pinned() ? cpuB : -1;
                TcpBaseline stack = s.waitMode() == Wait.SPIN ? tcpBusy : tcpBlock;
                TcpBaseline.Wait tcpWait = s.waitMode() == Wait.SPIN ? TcpBaseline.Wait.SPIN : TcpBaseline.Wait.BLOCK;
                int jit = Math.max(1, JIT_WARMUP_ROUND_TRIPS / sizes.length);
                pupaTrial(veth, s, a, b, jit, 1, unmeasured(), false);
                for (int size : sizes) {
                    stack.roundTrips(size, jit, 1, tcpWait, a, b, unmeasured()[0]);
                }
                InterleavedTrials trial = new InterleavedTrials(sizes.length, trials, 2);
                trial.run(pupa -> pupaTrial(veth, s, a, b, warmup, count, pupa, true), tcp -> {
                    for (int i = 0; i < sizes.length; i++) {
                        stack.roundTrips(sizes[i], warmup, count, tcpWait, a, b, tcp[i]);
                    }
                });
                report(s, trial, checks);
                roundTrips += trial.samples();
            }
        }
        return InterleavedTrials.finish(out, checks, roundTrips + " round trips of both stacks: every echo arrived"
            + " whole and byte for byte as sent, none lost (a loss or a damaged echo ends the run with an error)",
            acceptInconclusive);
    }

    private void report(Setting s, InterleavedTrials trial, CheckLog checks) {
        boolean judged = s.waitMode() == Wait.SPIN;
        out.printf(Locale.ROOT, "%n%s: one-way latency, us (RTT/2, p50 of all trials' round trips); ratio Pupa/TCP per"
            + " trial, median [95%% bootstrap interval]; paper (Table 1, P90s on a 100 Mb/s hub): Pupa / TCP%n",
            s.label());
        out.println("  bytes |  Pupa p50   p99 |   TCP p50   p99 | Pupa/TCP median [95% CI]      | paper Pupa/TCP");
        for (int i = 0; i < sizes.length; i++) {
            BootstrapInterval ci = trial.interval(PUPA, TCP, i);
            Histogram pupa = trial.all(PUPA, i);
            Histogram tcp = trial.all(TCP, i);
            out.printf(Locale.ROOT, "  %5d | %8.2f %6.1f | %8.2f %6.1f | %5.3f [%5.3f, %5.3f] %-9s | %s%n", sizes[i],
                pupa.getValueAtPercentile(50) / 2e3, pupa.getValueAtPercentile(99) / 2e3,
                tcp.getValueAtPercentile(50) / 2e3, tcp.getValueAtPercentile(99) / 2e3, ci.median(),
                ci.lower(), ci.upper(), "", paper(sizes[i]));
        }
        for (int i = 0; i < sizes.length; i++) {
            String what = String.format(Locale.ROOT, "%s, %d B: Pupa one-way at most half of kernel TCP's (TCP p50 /"
                + " Pupa p50 >= %.1f; anchor: kernel TCP_NODELAY over the same veth pair, this run; the paper: 'less"
                + " than half')", s.label(), sizes[i], TARGET_RATIO);
            trial.target(checks, what, TCP, PUPA, i, TARGET_RATIO, judged && sizes[i] <= TARGET_MAX_SIZE,
                judged ? "above " + TARGET_MAX_SIZE + " B: the paper claims less" : "blocking: printed, not judged;"
                + " the target is the busy-polling one");
        }
    }

    private static String paper(int size) {
        for (int i = 0; i < PAPER_SIZES.length; i++) {
            if (PAPER_SIZES[i] == size) {
                return String.format(Locale.ROOT, "%d / %d us = %.2f", PAPER_PUPA[i], PAPER_TCP[i],
                    (double) PAPER_PUPA[i] / PAPER_TCP[i]);
            }
        }
        return "-";
    }

    /** Round-trip times nobody reads: the JIT's warm-up run. */
    private Histogram[] unmeasured() {
        Histogram[] h = new Histogram[sizes.length];
        for (int i = 0; i < h.length; i++) {
            h[i] = new Histogram(TimeUnit.SECONDS.toNanos(60), 2);
        }
        return h;
    }

    /**
     * One Pupa trial: fresh (inline) cards, every size ({@code warm + timed} round trips each, the last
     * {@code timed} timed into {@code rtt}), then closed; {@code report}: print its retransmission counters.
     */
    private void pupaTrial(VethPair veth, Setting s, int cpuA, int cpuB, int warm, int timed, Histogram[] rtt,
                           boolean report) throws Exception {
        PupaConfig config = PupaShimPair.realTime(PupaConfig.defaults());
        try (PupaShimPair pair = new PupaShimPair(veth, s.waitMode(), config, transport)) {
            Echo echo = new Echo(pair.node(1), cpuB, config.maxMessage());
            Thread echoThread = Thread.ofPlatform().name("pupa-echo").start(echo);
            try {
                Node a = pair.node(0);
                if (cpuA >= 0) {
                    CpuAffinity.pinCurrentThread(cpuA);
                }
                MemorySegment message = MemorySegment.ofArray(new byte[1436]);
                MemorySegment answer = MemorySegment.ofArray(new byte[1436]);
                int[] got = {-1};
                MessageHandler onAnswer = (peer, data, off, len) -> {
                    MemorySegment.copy(data, off, answer, 0, len);
                    got[0] = len;
                };
                for (int i = 0; i < sizes.length; i++) {
                    int size = sizes[i];
                    for (int k = 0; k < warm + timed; k++) {
                        message.fill((byte) k);
                        message.set(ValueLayout.JAVA_BYTE, 0, (byte) (k * 7 + size));
                        got[0] = -1;
                        long start = System.nanoTime();
                        while (a.core().send(1, message, 0, size, k, true) != MessageChannel.OK) {
                            a.step(onAnswer);
                        }
                        long limit = start + TimeUnit.SECONDS.toNanos(10);
                        while (got[0] < 0) {
                            if (a.step(onAnswer) == 0) {
                                if (System.nanoTime() - limit > 0) {
                                    throw new IOException("no Pupa echo of message " + k + " (" + size + " B) within"
                                        + " 10 s: " + a + "; " + pair.node(1) + "; " + pair.cardStatistics());
                                }
                                a.idle();
                            }
                        }
                        long elapsed = System.nanoTime() - start;
                        if (got[0] != size || MemorySegment.mismatch(answer, 0, size, message, 0, size) != -1) {
                            throw new IOException("Pupa echo of message " + k + " differs: " + got[0] + " bytes for "
                                + size);
                        }
                        if (k >= warm) {
                            rtt[i].recordValue(elapsed);
                        }
                    }
                }
            } finally {
                if (cpuA >= 0) {
                    CpuAffinity.unpinCurrentThread();
                }
                echo.stop = true;
                LockSupport.unpark(echoThread);
                echoThread.join(10_000);
            }
            if (echo.failure != null) {
                throw new IOException("the Pupa echo node failed", echo.failure);
            }
            if (!report) {
                return;
            }
            // What a tail could be made of besides waiting for a CPU: a retransmission (RTO), a NACKed go-back, a
            // duplicate. Printed per trial so that a slow round trip can be told from a lost frame.
            PupaCounters ca = pair.node(0).core().counters();
            PupaCounters cb = pair.node(1).core().counters();
            long slowest = 0;
            for (Histogram h : rtt) {
                slowest = Math.max(slowest, h.getMaxValue());
            }
            out.printf(Locale.ROOT, "  Pupa trial, %s: retransmission timeouts %d / %d, messages resent %d / %d, NACKs"
                + " %d / %d, duplicates %d / %d (node A / B); slowest round trip so far %.1f us%n", s.label(),
                ca.timeouts(), cb.timeouts(), ca.messagesRetransmitted(), cb.messagesRetransmitted(), ca.validNacks(),
                cb.validNacks(), ca.duplicates(), cb.duplicates(), slowest / 1e3);
        }
    }

    /** Node B: sends every message back as it came, until stopped. */
    private static final class Echo implements Runnable {
        private final Node node;
        private final int cpu;
        private final MemorySegment buffer;
        private int pending = -1;
        private int tag;
        volatile boolean stop;
        volatile Throwable failure;

        Echo(Node node, int cpu, int maxMessage) {
            this.node = node;
            this.cpu = cpu;
            this.buffer = MemorySegment.ofArray(new byte[maxMessage]);
        }

        @Override
        public void run() {
            try {
                if (cpu >= 0) {
                    CpuAffinity.pinCurrentThread(cpu);
                }
                MessageHandler keep = (peer, data, off, len) -> {
                    MemorySegment.copy(data, off, buffer, 0, len);
                    pending = len;
                    tag = node.core().lastTag();
                };
                while (!stop) {
                    int work = node.step(keep);
                    if (pending >= 0 && node.core().send(0, buffer, 0, pending, tag, true) == MessageChannel.OK) {
                        pending = -1;
                        work++;
                    }
                    if (work == 0) {
                        node.idle();
                    }
                }
            } catch (Throwable t) {
                failure = t;
            }
        }
    }
}
