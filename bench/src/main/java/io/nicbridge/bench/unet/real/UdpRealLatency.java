package io.nicbridge.bench.unet.real;

import io.nicbridge.bench.unet.real.UnetUdpShimPair.Node;
import io.nicbridge.bench.unet.real.UnetUdpShimPair.Wait;
import io.nicbridge.bench.real.InterleavedTrials;
import io.nicbridge.bench.verdict.BootstrapInterval;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bridge.platform.UdpBaseline;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.protocols.ip.UdpPcb;
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
 * {@code nic unet udp-real-latency}: U-Net UDP's round trip in real time - the one IPv4 stack and UDP on U-Net over
 * Ethernet, on two native-shim SBA-200 contracts across a veth pair between two network namespaces
 * ({@link UnetUdpShimPair}) - beside kernel UDP over the same pair in the same run ({@link UdpBaseline}), per message
 * size, both stacks waiting the same way: both blocking (kernel {@code read}; a threaded shim card whose signal
 * unparks the node), or both busy polling (non-blocking kernel {@code read} in a spin; an inline card polled by a
 * spinning node), each spin backing off to {@link Thread#yield()}.
 *
 * <p>Per setting, {@code trials} trials; in each the two stacks run every size one after the other, which first
 * alternating (ABBA), the U-Net cards open only during U-Net's turn (their packet sockets would take a copy of every
 * kernel datagram). Per trial and size the ratio kernel p50 / U-Net p50; per size its median with a seeded
 * percentile-bootstrap 95% interval ({@link BootstrapInterval}). Issue 17's target - "U-Net UDP round trips lower
 * than the kernel's on the same veth pair in the same run, for small messages, with the same wait mode" - is judged
 * for messages up to {@value #TARGET_MAX_SIZE} B in the busy-polling setting ({@code anchor check} on kernel/U-Net
 * >= 1: MET when the interval's lower bound clears it, NOT MET when its upper bound is below, else INCONCLUSIVE); the
 * blocking setting and larger sizes are printed as comparisons.
 */
public final class UdpRealLatency {
    public static final int[] DEFAULT_SIZES = {4, 64, 256, 1024, 1472};
    public static final int[] QUICK_SIZES = {4, 256, 1472};
    static final double TARGET_RATIO = 1.0;
    static final int TARGET_MAX_SIZE = 256;
    /** The stacks' indices in the trials. */
    private static final int UNET = 0;
    private static final int KERNEL = 1;
    static final int PORT = 7007;

    private final PrintWriter out;
    private final int[] sizes;
    private final int count;
    private final int warmup;
    private final int trials;
    private final List<Wait> waits;
    private final boolean acceptInconclusive;

    /** @throws IllegalArgumentException naming the bad argument */
    public UdpRealLatency(PrintWriter out, int[] sizes, int count, int warmup, int trials, List<String> waits,
                          boolean acceptInconclusive) {
        this.out = out;
        for (int s : sizes) {
            if (s < 1 || s > 1472) {
                throw new IllegalArgumentException("--sizes must be 1..1472 bytes (one 1500-byte frame for the kernel),"
                    + " was " + s);
            }
        }
        if (count < 1 || warmup < 0 || trials < 1) {
            throw new IllegalArgumentException("--count must be >= 1, --warmup >= 0 and --trials >= 1, were " + count
                + ", " + warmup + ", " + trials);
        }
        this.sizes = sizes.clone();
        this.count = count;
        this.warmup = warmup;
        this.trials = trials;
        this.acceptInconclusive = acceptInconclusive;
        this.waits = new ArrayList<>();
        for (String w : waits) {
            this.waits.add(switch (w.trim().toLowerCase(Locale.ROOT)) {
                case "block" -> Wait.BLOCK;
                case "spin", "busy" -> Wait.SPIN;
                default -> throw new IllegalArgumentException("--waits: block or spin, was '" + w + "'");
            });
        }
        if (this.waits.isEmpty()) {
            throw new IllegalArgumentException("--waits must name at least one wait mode");
        }
    }

    /** @return the exit code: 0 all checks passed, 1 a check failed or a target NOT MET, 3 INCONCLUSIVE */
    public int run() throws Exception {
        CheckLog checks = new CheckLog(out::println);
        long roundTrips = 0;
        // 8 bytes over Ethernet's 1500: U-Net over Ethernet's tag, so that U-Net carries the kernel's 1500-byte IP MTU.
        try (VethPair veth = VethPair.builder().ipv4(true).mtu(VethPair.DEFAULT_MTU + UnetUdpShimPair.TAG).create()) {
            out.printf(Locale.ROOT, "unet udp-real-latency: UDP round trips over %s, U-Net UDP (the one Ipv4Stack on"
                + " U-Net over Ethernet, two native-shim SBA-200 contracts) vs kernel UDP (DatagramChannel); %d trials"
                + " x %d round trips (+%d warm-up) per size and stack%n", veth, trials, count, warmup);
            for (Wait wait : waits) {
                InterleavedTrials trial = new InterleavedTrials(sizes.length, trials, 2);
                trial.run(unet -> unetTrial(veth, wait, unet), kernel -> {
                    for (int i = 0; i < sizes.length; i++) {
                        kernel[i].add(UdpBaseline.roundTrip(veth, sizes[i], warmup, count, wait == Wait.SPIN));
                    }
                });
                report(wait, trial, checks);
                roundTrips += trial.samples();
            }
        }
        return InterleavedTrials.finish(out, checks, roundTrips + " round trips of both stacks: every echo arrived"
            + " whole and byte for byte as sent, none lost (a loss or a damaged echo ends the run with an error)",
            acceptInconclusive);
    }

    private void report(Wait wait, InterleavedTrials trial, CheckLog checks) {
        String label = wait == Wait.SPIN ? "busy polling" : "blocking";
        out.printf(Locale.ROOT, "%n%s: round trip, us (p50 and p99 of all trials); kernel/U-Net per trial, median [95%%"
            + " bootstrap interval]%n", label);
        out.println("  bytes | U-Net p50    p99 | kernel p50    p99 | kernel/U-Net median [95% CI]");
        for (int i = 0; i < sizes.length; i++) {
            BootstrapInterval ci = trial.interval(KERNEL, UNET, i);
            Histogram unet = trial.all(UNET, i);
            Histogram kernel = trial.all(KERNEL, i);
            out.printf(Locale.ROOT, "  %5d | %9.2f %6.1f | %10.2f %6.1f | %5.3f [%5.3f, %5.3f]%n", sizes[i],
                unet.getValueAtPercentile(50) / 1e3, unet.getValueAtPercentile(99) / 1e3,
                kernel.getValueAtPercentile(50) / 1e3, kernel.getValueAtPercentile(99) / 1e3, ci.median(),
                ci.lower(), ci.upper());
        }
        boolean judged = wait == Wait.SPIN;
        for (int i = 0; i < sizes.length; i++) {
            String what = String.format(Locale.ROOT, "%s, %d B: U-Net UDP round trip lower than kernel UDP's over the"
                + " same veth pair in the same run (kernel p50 / U-Net p50 > %.1f; issue 17's target)", label,
                sizes[i], TARGET_RATIO);
            trial.target(checks, what, KERNEL, UNET, i, TARGET_RATIO, judged && sizes[i] <= TARGET_MAX_SIZE,
                judged ? "above " + TARGET_MAX_SIZE + " B: printed, not judged" : "blocking: printed, not judged -"
                + " the U-Net node waits for two wake-ups per hop, the shim card's thread and then its own, where the"
                + " kernel's reader is woken from its softirq directly");
        }
    }

    /** One U-Net trial: fresh cards, an echo thread on node B, every size timed from node A, then closed. */
    private void unetTrial(VethPair veth, Wait wait, Histogram[] rtt) throws Exception {
        try (UnetUdpShimPair pair = new UnetUdpShimPair(veth, wait)) {
            Echo echo = new Echo(pair.node(1), pair.mtu());
            Thread echoThread = Thread.ofPlatform().name("unet-udp-echo").start(echo);
            try {
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
                        while (pcb.send(UnetUdpShimPair.IP_B, PORT, message, 0, size, start) != 0) {
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
                            rtt[i].recordValue(elapsed);
                        }
                    }
                }
            } finally {
                echo.stop = true;
                LockSupport.unpark(echoThread);
                echoThread.join(10_000);
            }
            if (echo.failure != null) {
                throw new IOException("the U-Net UDP echo node failed", echo.failure);
            }
        }
    }

    private static void failAfter(long limit, String what, UnetUdpShimPair pair) throws IOException {
        if (System.nanoTime() - limit > 0) {
            throw new IOException(what + " within 10 s: " + pair.node(0) + "; " + pair.node(1) + "; "
                + pair.cardStatistics());
        }
    }

    /** Node B: sends every datagram back to where it came from, until stopped. */
    private static final class Echo implements Runnable {
        private final Node node;
        private final MemorySegment buffer;
        private int pending = -1;
        private int source;
        private int sourcePort;
        volatile boolean stop;
        volatile Throwable failure;

        Echo(Node node, int mtu) {
            this.node = node;
            this.buffer = MemorySegment.ofArray(new byte[mtu]);
        }

        @Override
        public void run() {
            try {
                node.attach();
                UdpPcb pcb = node.udp.bind(PORT, (p, src, sp, d, off, len, now) -> {
                    if (p.send(src, sp, d, off, len, now) != 0) { // no transmit buffer: keep it, send it later
                        MemorySegment.copy(d, off, buffer, 0, len);
                        pending = len;
                        source = src;
                        sourcePort = sp;
                    }
                }, true);
                while (!stop) {
                    int work = node.step();
                    if (pending >= 0 && pcb.send(source, sourcePort, buffer, 0, pending, System.nanoTime()) == 0) {
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
