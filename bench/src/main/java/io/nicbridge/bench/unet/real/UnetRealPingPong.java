package io.nicbridge.bench.unet.real;

import static io.nicbridge.contract.Sba200Unet.INLINE_MAX;

import io.nicbridge.bench.pingpong.RttSummary;
import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.driver.unet.Endpoint;
import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.bridge.driver.unet.UnetKernelDriver;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.shim.ShimCard;
import io.nicbridge.bridge.shim.XskUnetEndpoint;
import io.nicbridge.bridge.spi.Backends;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * U-Net round trips in real time on one veth pair, per message size, for every way this project carries a U-Net
 * endpoint over Ethernet, in the same run:
 * <pre>
 *   afpacket  UnetEndpoint - UnetKernelDriver - shim SBA-200 card - PACKET_MMAP rings  ===veth===  (the same, B)
 *   afxdp     UnetEndpoint - UnetKernelDriver - shim SBA-200 card - AF_XDP rings       ===veth===  (the same, B)
 *   direct    XskUnetEndpoint: the endpoint's queues are the AF_XDP rings, no card     ===veth===  (the same, B)
 * </pre>
 * A's thread sends a message and waits (blocking: {@link Endpoint#await}) for B's echo of the same length; B's echo
 * thread does the same the other way. Each trial opens every backend's pair in turn (the order rotates from trial
 * to trial, so each sees the same machine) and closes it before the next, so one XDP program at a time is on the
 * interfaces. The figures are comparisons, not targets: p50/p90/p99 per backend and the p50 ratio to afpacket.
 */
public final class UnetRealPingPong {
    static final String[] BACKENDS = {"afpacket", "afxdp", "direct"};
    static final int CHANNEL = 0;
    static final int VCI_A_TO_B = 120;
    static final int VCI_B_TO_A = 121;
    static final long MESSAGE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(2);
    static final long DIRECT_SEGMENT = 1024 * 1024;
    static final long DIRECT_RX_AREA = 256 * 1024;

    private final PrintWriter out;
    private final int[] sizes;
    private final int count;
    private final int warmup;
    private final int trials;

    public UnetRealPingPong(PrintWriter out, int[] sizes, int count, int warmup, int trials) {
        for (int size : sizes) {
            if (size < 1 || size > 1492) {
                throw new IllegalArgumentException("--sizes: a message is 1..1492 bytes (the veth's MTU less U-Net"
                    + " over Ethernet's 8-byte tag), was " + size);
            }
        }
        if (count < 1 || warmup < 0 || trials < 1) {
            throw new IllegalArgumentException("--count and --trials must be positive, --warmup non-negative");
        }
        this.out = out;
        this.sizes = sizes.clone();
        this.count = count;
        this.warmup = warmup;
        this.trials = trials;
    }

    /** One backend's two endpoints and what they need, closed together. */
    private static final class Pair implements AutoCloseable {
        final Endpoint a;
        final Endpoint b;
        final String describe;
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

    static Pair open(String backend, VethPair veth) throws Exception {
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

    /** The echo side: every message back with its length, until stopped. */
    private static final class Echo implements Runnable {
        private final Endpoint ep;
        volatile boolean stop;
        volatile Throwable failure;

        Echo(Endpoint ep) {
            this.ep = ep;
        }

        @Override
        public void run() {
            try {
                while (!stop) {
                    long d = ep.await(50, TimeUnit.MILLISECONDS);
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
    static void measure(Pair pair, int size, int warmup, int count, Histogram rtt) throws Exception {
        Echo echo = new Echo(pair.b);
        Thread thread = Thread.ofPlatform().name("unet-echo").start(echo);
        try {
            for (int i = 0; i < warmup + count; i++) {
                long start = System.nanoTime();
                send(pair.a, size, start + MESSAGE_TIMEOUT_NANOS);
                long d = pair.a.await(MESSAGE_TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
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
        }
        if (echo.failure != null) {
            throw new IllegalStateException("echo side failed: " + echo.failure, echo.failure);
        }
    }

    public int run() throws Exception {
        Histogram[][] rtt = new Histogram[sizes.length][BACKENDS.length];
        for (Histogram[] row : rtt) {
            for (int b = 0; b < row.length; b++) {
                row[b] = RttSummary.newHistogram();
            }
        }
        String[] describe = new String[BACKENDS.length];
        out.printf(Locale.ROOT, "unet real-pingpong: U-Net round trips on one veth pair, %d trial(s) x %d round trips"
            + " (+%d warm-up) per size and backend, blocking waits, backends rotating per trial%n", trials, count,
            warmup);
        try (VethPair veth = VethPair.builder().ipv4(false).create()) {
            for (int trial = 0; trial < trials; trial++) {
                for (int k = 0; k < BACKENDS.length; k++) {
                    int b = (trial + k) % BACKENDS.length;
                    try (Pair pair = open(BACKENDS[b], veth)) {
                        describe[b] = pair.describe;
                        for (int s = 0; s < sizes.length; s++) {
                            measure(pair, sizes[s], warmup, count, rtt[s][b]);
                        }
                    }
                }
            }
        } catch (RuntimeException e) {
            out.println("unet real-pingpong: run failed: " + e.getMessage());
            out.flush();
            return ExitCodes.RUN_ERROR;
        }
        for (String d : describe) {
            out.println("  " + d);
        }
        out.printf(Locale.ROOT, "%8s  %-9s %10s %10s %10s   %s%n", "size", "backend", "p50 us", "p90 us", "p99 us",
            "p50 vs afpacket (comparison)");
        for (int s = 0; s < sizes.length; s++) {
            RttSummary base = RttSummary.of(BACKENDS[0], rtt[s][0]);
            for (int b = 0; b < BACKENDS.length; b++) {
                RttSummary r = RttSummary.of(BACKENDS[b], rtt[s][b]);
                out.printf(Locale.ROOT, "%6d B  %-9s %10.2f %10.2f %10.2f   %.2fx%n", sizes[s], BACKENDS[b],
                    r.p50() / 1e3, r.p90() / 1e3, r.p99() / 1e3, (double) r.p50() / base.p50());
            }
        }
        out.flush();
        return ExitCodes.OK;
    }
}
