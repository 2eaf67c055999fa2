package io.nicbridge.bench.unet.real;

import static io.nicbridge.contract.Sba200Unet.INLINE_MAX;

import io.nicbridge.bench.pingpong.RttSummary;
import io.nicbridge.bench.real.InterleavedTrials;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bench.verdict.Outcome;
import io.nicbridge.bench.verdict.TrialRatios;
import io.nicbridge.bridge.driver.unet.Endpoint;
import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.bridge.driver.unet.UnetKernelDriver;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.platform.CpuAffinity;
import io.nicbridge.bridge.platform.UdpBaseline;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.queue.QueueCode;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.shim.ShimCard;
import io.nicbridge.bridge.shim.XskUnetEndpoint;
import io.nicbridge.bridge.spi.Backends;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * U-Net round trips in real time on one veth pair, per message size and wait, for every way this project carries a
 * U-Net endpoint over Ethernet and for kernel UDP, in the same run:
 * <pre>
 *   afpacket  UnetEndpoint - UnetKernelDriver - shim SBA-200 card - PACKET_MMAP rings  ===veth===  (the same, B)
 *   afxdp     UnetEndpoint - UnetKernelDriver - shim SBA-200 card - AF_XDP rings       ===veth===  (the same, B)
 *   direct    XskUnetEndpoint: the endpoint's queues are the AF_XDP rings, no card     ===veth===  (the same, B)
 *   udp       kernel UDP (UdpBaseline): DatagramChannels in the two namespaces         ===veth===  (IPv4 on the pair)
 * </pre>
 * A's thread sends a message and waits for B's echo of the same length; B's echo thread does the same the other way.
 * A message of m bytes is a frame of m + 22 bytes (Ethernet 14, U-Net tag 8); kernel UDP carries m - 20 bytes of
 * payload, so both put the same frame on the veth. Each wait is measured in each variant:
 * <ul>
 *   <li>{@code block}: both sides sleep until a frame is there ({@link Endpoint#await}, a blocking {@code read});
 *   <li>{@code spin}: both sides busy-poll ({@link Endpoint#poll}, a non-blocking {@code read}) with
 *       {@link Thread#onSpinWait()}, yielding after {@link #SPIN_NANOS_BEFORE_YIELD} of polls (the endpoints) or
 *       {@value UdpBaseline#SPINS_BEFORE_YIELD} empty reads (kernel UDP);
 *   <li>each of them unpinned or {@code pinned}: A's thread on CPU 0, the echo thread on CPU 1 (the card threads of
 *       afpacket and afxdp stay unpinned: they are the card's, not the application's).
 * </ul>
 * Each trial opens every backend in turn and closes it before the next, so one XDP program at a time is on the
 * interfaces; within a trial every variant and size runs. The trials are {@link InterleavedTrials}' (the order of the
 * backends reverses from trial to trial, so a drift of the machine's load hits each alike; per trial and (size,
 * variant) the p50 is kept, and every sample goes into the backend's histogram over all trials). The targets (issue
 * 18) are judged on the per-trial ratio kernel UDP p50 / direct p50 at the 64-byte frame
 * ({@value #TARGET_MESSAGE}-byte message), pinned: at least {@value #TARGET_BLOCKING}x blocking and at least
 * {@value #TARGET_SPIN}x busy-polling ({@link TrialRatios}: median and bootstrap interval, MET / NOT MET /
 * INCONCLUSIVE, the exit code follows); every other ratio is printed as a comparison.
 */
public final class UnetRealPingPong {
    static final String[] BACKENDS = {"afpacket", "afxdp", "direct", "udp"};
    static final int DIRECT = 2;
    static final int UDP = 3;
    public static final int CHANNEL = 0;
    static final int VCI_A_TO_B = 120;
    static final int VCI_B_TO_A = 121;
    static final long MESSAGE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(2);
    static final long DIRECT_SEGMENT = 1024 * 1024;
    static final long DIRECT_RX_AREA = 256 * 1024;
    /** Ethernet header + U-Net tag: a message of m bytes is a frame of m + 22. */
    static final int UNET_FRAME_OVERHEAD = XskUnetEndpoint.FRAME_OVERHEAD;
    /** Ethernet + IPv4 + UDP headers: a UDP payload of p bytes is a frame of p + 42. */
    static final int UDP_FRAME_OVERHEAD = 14 + UdpBaseline.IPV4_UDP_HEADERS;
    /** The message that makes the targets' 64-byte frame. */
    static final int TARGET_MESSAGE = 64 - UNET_FRAME_OVERHEAD;
    /** Issue 18: pinned, both blocking, kernel UDP's p50 RTT at least this many times the direct endpoint's. */
    static final double TARGET_BLOCKING = 1.5;
    /** Issue 18: pinned, both busy-polling, at least this many times. */
    static final double TARGET_SPIN = 3.0;

    /** How both sides wait for a frame, and whether their threads are pinned. */
    record Variant(boolean spin, boolean pinned) {
        String label() {
            return (spin ? "spin" : "block") + (pinned ? " pinned" : "");
        }

        /** The target for this variant, or 0: unpinned variants are comparisons. */
        double target() {
            return !pinned ? 0 : spin ? TARGET_SPIN : TARGET_BLOCKING;
        }
    }

    private final PrintWriter out;
    private final int[] sizes;
    private final int count;
    private final int warmup;
    private final int trials;
    private final List<Variant> variants;
    private final boolean[] measured;
    private final boolean acceptInconclusive;

    /** Every backend, blocking and busy-polling, unpinned and pinned. */
    public UnetRealPingPong(PrintWriter out, int[] sizes, int count, int warmup, int trials) {
        this(out, sizes, count, warmup, trials, List.of(BACKENDS), new boolean[] {false, true},
            new boolean[] {false, true}, false);
    }

    /**
     * @param backends           a subset of {@link #BACKENDS}
     * @param spins              the waits to measure: false = block, true = spin
     * @param pins               unpinned (false) and/or pinned (true)
     * @param acceptInconclusive whether an INCONCLUSIVE target may exit 0
     * @throws IllegalArgumentException naming the first bad argument, before any socket is opened
     */
    public UnetRealPingPong(PrintWriter out, int[] sizes, int count, int warmup, int trials, List<String> backends,
                            boolean[] spins, boolean[] pins, boolean acceptInconclusive) {
        this.measured = new boolean[BACKENDS.length];
        for (String b : backends) {
            int i = List.of(BACKENDS).indexOf(b);
            if (i < 0) {
                throw new IllegalArgumentException("--backends: unknown backend '" + b + "'; expected some of "
                    + String.join(",", BACKENDS));
            }
            measured[i] = true;
        }
        if (backends.isEmpty()) {
            throw new IllegalArgumentException("--backends: name at least one of " + String.join(",", BACKENDS));
        }
        int smallest = measured[UDP] ? UDP_FRAME_OVERHEAD - UNET_FRAME_OVERHEAD + 1 : 1;
        for (int size : sizes) {
            if (size < smallest || size > 1492) {
                throw new IllegalArgumentException("--sizes: a message is " + smallest + "..1492 bytes (the veth's MTU"
                    + " less U-Net over Ethernet's 8-byte tag" + (measured[UDP] ? "; with udp at least " + smallest
                    + ", the frame of a 1-byte UDP datagram" : "") + "), was " + size);
            }
        }
        if (count < 1 || warmup < 0 || trials < 1) {
            throw new IllegalArgumentException("--count and --trials must be positive, --warmup non-negative");
        }
        if (spins.length == 0 || pins.length == 0) {
            throw new IllegalArgumentException("--wait and --pin each need at least one value");
        }
        this.variants = new ArrayList<>();
        for (boolean pin : pins) {
            for (boolean spin : spins) {
                Variant v = new Variant(spin, pin);
                if (!variants.contains(v)) {
                    variants.add(v);
                }
            }
        }
        this.out = out;
        this.sizes = sizes.clone();
        this.count = count;
        this.warmup = warmup;
        this.trials = trials;
        this.acceptInconclusive = acceptInconclusive;
    }

    /** One backend's two endpoints and what they need, closed together. */
    public static final class Pair implements AutoCloseable {
        public final Endpoint a;
        public final Endpoint b;
        public final String describe;
        /** Closed in this order. */
        private final List<AutoCloseable> resources;

        Pair(Endpoint a, Endpoint b, String describe, List<AutoCloseable> resources) {
            this.a = a;
            this.b = b;
            this.describe = describe;
            this.resources = resources;
        }

        @Override
        public void close() throws Exception {
            Exception first = null;
            for (AutoCloseable r : resources) { // in order: each kernel driver before its card, the segment last
                try {
                    r.close();
                } catch (Exception e) {
                    first = first == null ? e : first;
                }
            }
            if (first != null) {
                throw first;
            }
        }
    }

    /**
     * Opens {@code backend}'s two endpoints on the pair's ends (A on end A, B on end B), channel {@link #CHANNEL}
     * open between them, receive buffers posted.
     *
     * @param backend afpacket, afxdp (the shim's SBA-200 card, threaded, under UnetKernelDriver) or direct
     */
    public static Pair open(String backend, VethPair veth) throws Exception {
        List<AutoCloseable> resources = new ArrayList<>();
        String[] ifs = {veth.interfaceA(), veth.interfaceB()};
        String[] nss = {veth.namespaceA().name(), veth.namespaceB().name()};
        String[] peers = {veth.macB().toString().replace(':', '-'), veth.macA().toString().replace(':', '-')};
        int[][] vcis = {{VCI_A_TO_B, VCI_B_TO_A}, {VCI_B_TO_A, VCI_A_TO_B}};
        Endpoint[] eps = new Endpoint[2];
        String describe = backend;
        try {
            for (int i = 0; i < 2; i++) {
                if (backend.equals("direct")) {
                    XskUnetEndpoint ep = ShimBackendProvider.openUnetEndpoint("shim:afxdp?if=" + ifs[i]
                        + "&card=" + ShimBackendProvider.CARD_UNET_DIRECT + "&netns=" + nss[i] + "&peer=" + peers[i],
                        DIRECT_SEGMENT);
                    resources.add(ep);
                    ep.openChannel(CHANNEL, 0, vcis[i][0], vcis[i][1]);
                    int chunks = (int) ((DIRECT_SEGMENT - DIRECT_RX_AREA) / 2048);
                    ep.postReceiveBuffers(DIRECT_RX_AREA, chunks, 2048);
                    describe = "direct: XskUnetEndpoint on the XSK rings, " + ep.xdpInfo().describe();
                    eps[i] = ep;
                } else {
                    ShimCard card = (ShimCard) Backends.open("shim:" + backend + "?if=" + ifs[i] + "&card=sba200"
                        + "&netns=" + nss[i] + "&mode=threaded&peer=" + peers[i]);
                    resources.add(card);
                    UnetKernelDriver kernel = UnetKernelDriver.open(card, card.bcr(), card.progress());
                    resources.add(resources.indexOf(card), kernel);
                    CommSegment segment = CommSegment.allocate("unet-real-" + i, 256 * 1024);
                    resources.add(segment);
                    UnetEndpoint ep = kernel.createEndpoint(0, segment, 64);
                    kernel.openChannel(ep, CHANNEL, 0, vcis[i][0], vcis[i][1]);
                    ep.postReceiveBuffers(128 * 1024, 48, 1024);
                    describe = backend + ": UnetEndpoint, UnetKernelDriver, shim SBA-200 card (threaded)";
                    eps[i] = ep;
                }
            }
            return new Pair(eps[0], eps[1], describe, resources);
        } catch (Exception | Error e) {
            new Pair(null, null, "", resources).close();
            throw e;
        }
    }

    /** Sends {@code size} bytes from offset 0 of the segment, retrying while the send queue is full. */
    static void send(Endpoint ep, int size, long deadline) {
        while (!(size <= INLINE_MAX ? ep.sendInline(CHANNEL, ep.segment(), 0, size) : ep.send(CHANNEL, 0, size))) {
            ep.reapSends();
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("send queue stayed full for " + size + " B");
            }
            Thread.yield();
        }
        ep.reapSends();
    }

    /**
     * Busy polling spins this long before it starts yielding. Kernel UDP's busy reader yields after
     * {@value UdpBaseline#SPINS_BEFORE_YIELD} empty non-blocking reads, each a system call: tens of microseconds. A
     * poll of the RX ring is a load, so as many polls take one or two microseconds - less than a one-way trip - and a
     * poller that counted them would sit in {@code sched_yield} whenever a frame arrived; the same spin in time keeps
     * it on the ring.
     */
    static final long SPIN_NANOS_BEFORE_YIELD = TimeUnit.MICROSECONDS.toNanos(50);

    /**
     * The next message on {@code ep}, or {@link QueueCode#EMPTY} after {@code timeoutNanos}: blocking in
     * {@link Endpoint#await}, or busy polling as kernel UDP's busy-polling reader does (spin
     * {@link #SPIN_NANOS_BEFORE_YIELD}, then yield between polls).
     */
    static long next(Endpoint ep, boolean spin, long timeoutNanos) throws InterruptedException {
        if (!spin) {
            return ep.await(timeoutNanos, TimeUnit.NANOSECONDS);
        }
        long start = System.nanoTime();
        for (int idle = 1; ; idle++) {
            long d = ep.poll();
            if (d >= 0) {
                return d;
            }
            if ((idle & 63) != 0) {
                Thread.onSpinWait(); // the clock every 64 polls: reading it costs as much as a poll
                continue;
            }
            long waited = System.nanoTime() - start;
            if (waited < SPIN_NANOS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else if (waited > timeoutNanos) {
                return QueueCode.EMPTY;
            } else {
                Thread.yield();
            }
        }
    }

    /** The CPUs of A's thread and the echo thread when pinned: one each where there are two. */
    static int cpuA() {
        return 0;
    }

    static int cpuB() {
        return CpuAffinity.cpus() > 1 ? 1 : 0;
    }

    /** The echo side: every message back with its length, until stopped. */
    private static final class Echo implements Runnable {
        private final Endpoint ep;
        private final Variant variant;
        volatile boolean stop;
        volatile Throwable failure;

        Echo(Endpoint ep, Variant variant) {
            this.ep = ep;
            this.variant = variant;
        }

        @Override
        public void run() {
            try {
                if (variant.pinned()) {
                    CpuAffinity.pinCurrentThread(cpuB()); // a thread of its own: it ends with the round trips
                }
                while (!stop) {
                    long d = next(ep, variant.spin(), TimeUnit.MILLISECONDS.toNanos(50));
                    if (d < 0) {
                        continue;
                    }
                    int length = ep.length(d);
                    ep.release(d);
                    send(ep, length, System.nanoTime() + MESSAGE_TIMEOUT_NANOS);
                }
            } catch (Throwable t) {
                failure = t;
            }
        }
    }

    /** Round trips of one size on one pair into {@code rtt} (after the warm-up). */
    static void measure(Pair pair, int size, Variant variant, int warmup, int count, Histogram rtt) throws Exception {
        Echo echo = new Echo(pair.b, variant);
        Thread thread = Thread.ofPlatform().name("unet-echo").start(echo);
        try {
            if (variant.pinned()) {
                CpuAffinity.pinCurrentThread(cpuA()); // inside the try: a refusal still stops the echo thread
            }
            for (int i = 0; i < warmup + count; i++) {
                long start = System.nanoTime();
                send(pair.a, size, start + MESSAGE_TIMEOUT_NANOS);
                long d = next(pair.a, variant.spin(), MESSAGE_TIMEOUT_NANOS);
                long end = System.nanoTime();
                if (d < 0) {
                    throw new IllegalStateException("round trip " + i + " of " + size + " B: no echo within "
                        + TimeUnit.NANOSECONDS.toMillis(MESSAGE_TIMEOUT_NANOS) + " ms"
                        + (echo.failure != null ? " (echo side: " + echo.failure + ")" : ""));
                }
                if (pair.a.length(d) != size) {
                    throw new IllegalStateException("echo of " + size + " B came back with " + pair.a.length(d));
                }
                pair.a.release(d);
                if (i >= warmup) {
                    rtt.recordValue(end - start);
                }
            }
        } finally {
            echo.stop = true;
            thread.join();
            if (variant.pinned()) {
                CpuAffinity.unpinCurrentThread();
            }
        }
        if (echo.failure != null) {
            throw new IllegalStateException("echo side failed: " + echo.failure, echo.failure);
        }
    }

    /** Kernel UDP's round trips of the same frame on the same pair into {@code rtt}. */
    static void measureUdp(VethPair veth, int size, Variant variant, int warmup, int count, Histogram rtt)
        throws IOException {
        int payload = size + UNET_FRAME_OVERHEAD - UDP_FRAME_OVERHEAD;
        Histogram h = UdpBaseline.roundTrip(veth, payload, warmup, count, variant.spin(),
            variant.pinned() ? cpuA() : UdpBaseline.NOT_PINNED, variant.pinned() ? cpuB() : UdpBaseline.NOT_PINNED);
        rtt.add(h);
    }

    /**
     * @return {@link ExitCodes#OK} when every judged target was MET (or none was judged), {@link ExitCodes#CHECK_FAILED}
     *         when one was NOT MET, {@link ExitCodes#INCONCLUSIVE} when one was undecided (OK with
     *         --accept-inconclusive), {@link ExitCodes#RUN_ERROR} when the run broke
     */
    public int run() throws Exception {
        int nv = variants.size();
        int nb = BACKENDS.length;
        // The stacks of InterleavedTrials are the measured backends; its "sizes" are (size, variant) pairs, index
        // s * nv + v: each trial's turn of a backend opens its pair once and runs every size in every variant.
        List<Integer> stacks = new ArrayList<>();
        int[] stackOf = new int[nb];
        Arrays.fill(stackOf, -1);
        for (int b = 0; b < nb; b++) {
            if (measured[b]) {
                stackOf[b] = stacks.size();
                stacks.add(b);
            }
        }
        InterleavedTrials trial = new InterleavedTrials(sizes.length * nv, trials, stacks.size());
        String[] describe = new String[nb];
        List<String> labels = variants.stream().map(Variant::label).toList();
        out.printf(Locale.ROOT, "unet real-pingpong: U-Net round trips on one veth pair, %d trial(s) x %d round trips"
            + " (+%d warm-up) per size, wait and backend; waits: %s; backends in turn, the order reversing per trial:"
            + " %s%n", trials, count, warmup, String.join(", ", labels), String.join(", ", measuredBackends()));
        out.printf(Locale.ROOT, "machine: %d CPUs, load average %.2f at the start; pinned: A's thread on CPU %d, the"
            + " echo thread on CPU %d (the shim cards' threads unpinned)%n", CpuAffinity.cpus(), loadAverage(), cpuA(),
            cpuB());
        try (VethPair veth = VethPair.builder().ipv4(measured[UDP]).create()) {
            InterleavedTrials.Turn[] turns = new InterleavedTrials.Turn[stacks.size()];
            for (int k = 0; k < turns.length; k++) {
                int b = stacks.get(k);
                turns[k] = samples -> {
                    if (b == UDP) {
                        describe[b] = "udp: kernel UDP, DatagramChannels in the two namespaces, payload = message - "
                            + (UDP_FRAME_OVERHEAD - UNET_FRAME_OVERHEAD) + " (the same frame)";
                        for (int s = 0; s < sizes.length; s++) {
                            for (int v = 0; v < nv; v++) {
                                measureUdp(veth, sizes[s], variants.get(v), warmup, count, samples[s * nv + v]);
                            }
                        }
                        return;
                    }
                    try (Pair pair = open(BACKENDS[b], veth)) {
                        describe[b] = pair.describe;
                        for (int s = 0; s < sizes.length; s++) {
                            for (int v = 0; v < nv; v++) {
                                measure(pair, sizes[s], variants.get(v), warmup, count, samples[s * nv + v]);
                            }
                        }
                    }
                };
            }
            trial.run(turns);
        } catch (RuntimeException | IOException e) {
            out.println("unet real-pingpong: run failed: " + e.getMessage());
            out.flush();
            return ExitCodes.RUN_ERROR;
        }
        for (String d : describe) {
            if (d != null) {
                out.println("  " + d);
            }
        }
        out.printf(Locale.ROOT, "%8s %7s  %-12s %-9s %10s %10s %10s   %s%n", "message", "frame", "wait", "backend",
            "p50 us", "p90 us", "p99 us", measured[UDP] ? "UDP p50 / p50, all trials pooled (comparison)" : "");
        for (int s = 0; s < sizes.length; s++) {
            for (int v = 0; v < nv; v++) {
                for (int b = 0; b < nb; b++) {
                    if (!measured[b]) {
                        continue;
                    }
                    RttSummary r = RttSummary.of(BACKENDS[b], trial.all(stackOf[b], s * nv + v));
                    String ratio = measured[UDP] ? String.format(Locale.ROOT, "%.2fx",
                        trial.all(stackOf[UDP], s * nv + v).getValueAtPercentile(50) / (double) r.p50()) : "";
                    out.printf(Locale.ROOT, "%6d B %5d B  %-12s %-9s %10.2f %10.2f %10.2f   %s%n", sizes[s],
                        sizes[s] + UNET_FRAME_OVERHEAD, labels.get(v), BACKENDS[b], r.p50() / 1e3, r.p90() / 1e3,
                        r.p99() / 1e3, ratio);
                }
            }
        }
        int code = judge(trial, stackOf, labels);
        out.flush();
        return code;
    }

    /** The targets and comparisons on the per-trial ratios UDP p50 / direct p50; returns the exit code. */
    private int judge(InterleavedTrials trial, int[] stackOf, List<String> labels) {
        CheckLog checks = new CheckLog(out::println);
        if (!measured[UDP] || !measured[DIRECT]) {
            out.println("targets: not judged: they compare the direct endpoint with kernel UDP, and this run measured"
                + " " + (measured[UDP] ? "no direct endpoint" : "no kernel UDP"));
            return checks.finish(acceptInconclusive);
        }
        String why = TrialRatios.tooFewTrials(trials);
        boolean hasTargetSize = Arrays.stream(sizes).anyMatch(s -> s == TARGET_MESSAGE);
        boolean hasPinned = variants.stream().anyMatch(Variant::pinned);
        if (why == null && !hasTargetSize) {
            why = "--sizes has no " + TARGET_MESSAGE + "-byte message (the 64-byte frame the targets name)";
        }
        if (why == null && !hasPinned) {
            why = "--pin no: the targets are on pinned threads";
        }
        out.printf(Locale.ROOT, "targets (issue 18; anchor: kernel UDP on the same veth pair, interleaved in this run):"
                + " at the 64-byte frame (%d-byte message), pinned, per trial ratio = UDP p50 RTT / direct p50 RTT;"
                + " blocking >= %.1fx, busy-polling >= %.1fx; the median ratio with a %.0f%% percentile-bootstrap"
                + " interval (seed %d): MET when its lower bound clears the target, NOT MET when its upper bound is"
                + " below it, else INCONCLUSIVE%s%n", TARGET_MESSAGE, TARGET_BLOCKING, TARGET_SPIN,
            TrialRatios.CONFIDENCE * 100, TrialRatios.BOOTSTRAP_SEED, why == null ? ""
                : "; NOT JUDGED in this run: " + why + ", so the intervals are printed as comparisons");
        List<String> notMet = new ArrayList<>();
        List<String> undecided = new ArrayList<>();
        int judged = 0;
        for (int s = 0; s < sizes.length; s++) {
            for (int v = 0; v < variants.size(); v++) {
                double[] ratios = trial.ratios(stackOf[UDP], stackOf[DIRECT], s * variants.size() + v);
                Variant variant = variants.get(v);
                String name = String.format(Locale.ROOT, "RTT at %d B (%d B frame), %s", sizes[s],
                    sizes[s] + UNET_FRAME_OVERHEAD, labels.get(v));
                out.printf(Locale.ROOT, "trials %s: UDP p50 / direct p50 %s%n", name, TrialRatios.format(ratios));
                double target = variant.target();
                if (why != null || target == 0 || sizes[s] != TARGET_MESSAGE) {
                    TrialRatios.compare(checks, name + ", kernel UDP p50 / direct p50", ratios);
                    continue;
                }
                judged++;
                Outcome o = TrialRatios.judge(checks, String.format(Locale.ROOT, "%s, direct at least %.1fx lower"
                    + " than kernel UDP (UDP p50 / direct p50 >= %.1f)", name, target, target), ratios, target);
                if (o == Outcome.FAIL) {
                    notMet.add(name);
                } else if (o == Outcome.INCONCLUSIVE) {
                    undecided.add(name);
                }
            }
        }
        if (judged > 0) {
            out.println("verdict: " + TrialRatios.verdict(notMet, undecided, judged));
        } else {
            out.println("verdict: not judged (" + (why != null ? why : "no pinned variant at the target size") + ")");
        }
        out.printf(Locale.ROOT, "machine load: load average %.2f at the end of the run on %d CPUs (other work on the"
            + " machine widens the intervals)%n", loadAverage(), CpuAffinity.cpus());
        return checks.finish(acceptInconclusive);
    }

    private List<String> measuredBackends() {
        List<String> r = new ArrayList<>();
        for (int b = 0; b < BACKENDS.length; b++) {
            if (measured[b]) {
                r.add(BACKENDS[b]);
            }
        }
        return r;
    }

    private static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
}
