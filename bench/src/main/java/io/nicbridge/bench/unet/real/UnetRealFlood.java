package io.nicbridge.bench.unet.real;

import static io.nicbridge.contract.Sba200Unet.INLINE_MAX;

import io.nicbridge.bench.verdict.CheckKind;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bench.verdict.Outcome;
import io.nicbridge.bench.verdict.TrialRatios;
import io.nicbridge.bridge.platform.CpuAffinity;
import io.nicbridge.bridge.platform.UdpBaseline;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.shim.XdpInfo;
import io.nicbridge.bridge.shim.XskUnetEndpoint;
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

/**
 * One-way frame rate on one veth pair: the direct-access U-Net endpoint ({@link XskUnetEndpoint}, its send queue the
 * AF_XDP TX ring) beside kernel UDP carrying the same frame, interleaved per trial:
 * <pre>
 *   direct, kick 1   A: send, kick (one sendto per frame)          ===veth===  B: await (or poll), count, release
 *   direct, kick N   A: send N, then one kick (one sendto per N)   ===veth===  B: the same
 *   udp              A: write (one sendto per datagram)            ===veth===  B: read, count (UdpBaseline.frameRate)
 * </pre>
 * One {@code sendto} per UDP datagram is the baseline. It is as strong as a batched one on this path: kernel UDP with
 * {@code sendmmsg} of 256 datagrams and {@code recvmmsg} (the batching the direct sender's kicks have) moves no more
 * frames per second on a veth pair than one {@code send} per datagram (bare C, {@code tools/veth-latency-floor.sh}
 * {@code udp-mmsg-flood} against {@code udp-flood}: within 3 %; README, "Direct-access U-Net on the AF_XDP rings"),
 * because the cost is the stack's per datagram, not the system call; and Java's {@code DatagramChannel} has no
 * {@code sendmmsg}. AF_XDP's kick is a system call too, but one kick can hand the kernel a whole ring of frames
 * ({@link XskUnetEndpoint#kickBatch}); on a veth (copy mode, no zero-copy) the kernel still builds one skb per frame
 * and copies the frame into it, and the receiving veth copies it into the peer's UMEM, all on the sender's CPU inside
 * the kick. The receivers wait alike, blocking ({@link XskUnetEndpoint#await}, a blocking read) or busy-polling
 * ({@code --wait spin}): a blocking receiver costs its sender, since the frames that find it asleep (or woken and not
 * yet running) take the socket's wait queue and wake it from the sender's CPU, where the scheduler then tends to run
 * it ({@code --pin yes} keeps every sender on one CPU and every receiver on the other). The receiver reads every
 * message's sequence number: lost = sent - received, and a number
 * at or below the highest seen is counted as out of order. The rate is taken at the receiver over its receive window,
 * as UDP's is. Target (issue 18): at the 64-byte frame the batched direct endpoint's rate at least
 * {@value #TARGET}x kernel UDP's, judged on the per-trial ratios ({@link TrialRatios}); the rest are comparisons.
 */
public final class UnetRealFlood {
    static final double TARGET = 2.0;
    static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Receive chunks start here; below is the sender's message. */
    static final long RX_AREA = 64 * 1024;
    /**
     * The receiver's FILL and RX rings: every chunk of them posted, so the kernel finds a free chunk for this many
     * frames while the receiving thread waits for a CPU (the sender's CPU does the whole kernel path, the receiver only
     * reads RX: on a loaded machine what drops frames is the receiver losing its CPU, not its speed).
     */
    static final int RX_RING = 8192;
    static final long SEGMENT = RX_AREA + (long) RX_RING * 2048;

    private final PrintWriter out;
    private final int[] sizes;
    private final long durationNanos;
    private final int trials;
    private final int kickBatch;
    private final boolean acceptInconclusive;
    private final boolean pinned;
    private final boolean spin;

    /** Unpinned, the receivers blocking. */
    public UnetRealFlood(PrintWriter out, int[] sizes, Duration duration, int trials, int kickBatch,
                         boolean acceptInconclusive) {
        this(out, sizes, duration, trials, kickBatch, acceptInconclusive, false, false);
    }

    /**
     * @param kickBatch sends per kick of the batched direct run (the unbatched run kicks every send)
     * @param pinned    every sending thread on CPU {@link UnetRealPingPong#cpuA()} and every receiving thread on
     *                  {@link UnetRealPingPong#cpuB()}, direct and UDP alike; unpinned, the scheduler wakes a receiver
     *                  on its waker's CPU (wake-affine): on two CPUs the receiver then mostly shares the sender's
     * @param spin      every receiver busy-polls (the direct one {@link XskUnetEndpoint#poll}, UDP's non-blocking
     *                  reads; {@link Thread#onSpinWait()}, then {@link Thread#yield()}) instead of sleeping in
     *                  {@link XskUnetEndpoint#await} and a blocking read
     * @throws IllegalArgumentException naming the first bad argument
     */
    public UnetRealFlood(PrintWriter out, int[] sizes, Duration duration, int trials, int kickBatch,
                         boolean acceptInconclusive, boolean pinned, boolean spin) {
        for (int size : sizes) {
            if (size < UnetRealPingPong.UDP_FRAME_OVERHEAD - UnetRealPingPong.UNET_FRAME_OVERHEAD + 4 || size > 1492) {
                throw new IllegalArgumentException("--sizes: a message is 24..1492 bytes (a UDP datagram of at least"
                    + " 4 bytes for the sequence number, the veth's MTU), was " + size);
            }
        }
        if (trials < 1) {
            throw new IllegalArgumentException("--trials must be at least 1, was " + trials);
        }
        long nanos = duration.toNanos();
        if (nanos / trials < TimeUnit.MILLISECONDS.toNanos(20) || nanos > TimeUnit.SECONDS.toNanos(60)) {
            throw new IllegalArgumentException("--duration must give each trial at least 20 ms and be at most 60 s,"
                + " was " + duration.toMillis() + " ms for " + trials + " trials");
        }
        if (kickBatch < 2 || kickBatch > 2048) {
            throw new IllegalArgumentException("--kick-batch must be 2..2048 (the TX ring), was " + kickBatch);
        }
        this.out = out;
        this.sizes = sizes.clone();
        this.durationNanos = nanos;
        this.trials = trials;
        this.kickBatch = kickBatch;
        this.acceptInconclusive = acceptInconclusive;
        this.pinned = pinned;
        this.spin = spin;
    }

    /** What one direct flood achieved. */
    record Result(long sent, long received, long outOfOrder, long kicks, long backPressure, long kernelDrops,
                  long windowNanos) {
        double framesPerSecond() {
            return windowNanos <= 0 ? 0 : received * 1e9 / windowNanos;
        }

        Result plus(Result o) {
            return new Result(sent + o.sent, received + o.received, outOfOrder + o.outOfOrder, kicks + o.kicks,
                backPressure + o.backPressure, kernelDrops + o.kernelDrops, windowNanos + o.windowNanos);
        }
    }

    /** Counts what arrives at B until the sender is done and nothing came for {@link #QUIET_NANOS}. */
    private static final class Receiver implements Runnable {
        private final XskUnetEndpoint ep;
        private final boolean pinned;
        private final boolean spin;
        /** Where each message's sequence number is copied (the receiver's own: a heap segment any thread may use). */
        private final MemorySegment scratch = MemorySegment.ofArray(new byte[Integer.BYTES]);
        volatile boolean senderDone;
        volatile Throwable failure;
        long received;
        long outOfOrder;
        long first;
        long last;

        Receiver(XskUnetEndpoint ep, boolean pinned, boolean spin) {
            this.ep = ep;
            this.pinned = pinned;
            this.spin = spin;
        }

        @Override
        public void run() {
            try {
                if (pinned) {
                    // A thread of its own: it ends with the flood, so its affinity needs no undoing.
                    CpuAffinity.pinCurrentThread(UnetRealPingPong.cpuB());
                }
                int highest = -1;
                long quietSince = System.nanoTime();
                while (true) {
                    long d = UnetRealPingPong.next(ep, spin, QUIET_NANOS);
                    long now = System.nanoTime();
                    if (d < 0) {
                        if (senderDone && now - quietSince >= QUIET_NANOS) {
                            return;
                        }
                        continue;
                    }
                    quietSince = now;
                    ep.copyRange(d, 0, scratch, 0, Integer.BYTES);
                    ep.release(d);
                    int seq = scratch.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
                    if (received++ == 0) {
                        first = now;
                    }
                    last = now;
                    if (seq <= highest) {
                        outOfOrder++;
                    } else {
                        highest = seq;
                    }
                }
            } catch (Throwable t) {
                failure = t;
            }
        }
    }

    static XskUnetEndpoint open(VethPair veth, boolean a) {
        String ifname = a ? veth.interfaceA() : veth.interfaceB();
        String ns = a ? veth.namespaceA().name() : veth.namespaceB().name();
        String peer = (a ? veth.macB() : veth.macA()).toString().replace(':', '-');
        // A TX ring of 1024: a kick batch of up to 1024 frames. FILL and RX of RX_RING: a receiver that may lose its
        // CPU for a while (the kernel drops, and counts, what finds FILL empty).
        XskUnetEndpoint ep = ShimBackendProvider.openUnetEndpoint("shim:afxdp?if=" + ifname + "&card="
            + ShimBackendProvider.CARD_UNET_DIRECT + "&netns=" + ns + "&peer=" + peer + "&rx-ring=" + RX_RING + "&tx-ring=1024",
            SEGMENT);
        try {
            ep.openChannel(UnetRealPingPong.CHANNEL, 0, a ? UnetRealPingPong.VCI_A_TO_B : UnetRealPingPong.VCI_B_TO_A,
                a ? UnetRealPingPong.VCI_B_TO_A : UnetRealPingPong.VCI_A_TO_B);
            if (!a) {
                ep.postReceiveBuffers(RX_AREA, (int) ((SEGMENT - RX_AREA) / 2048), 2048);
            }
            return ep;
        } catch (RuntimeException e) {
            ep.close();
            throw e;
        }
    }

    /** One direct flood of {@code size}-byte messages for {@code nanos}, A to B, kicking every {@code batch} sends. */
    static Result direct(VethPair veth, int size, long nanos, int batch, boolean pinned, boolean spin)
        throws InterruptedException, IOException {
        try (XskUnetEndpoint a = open(veth, true);
             XskUnetEndpoint b = open(veth, false)) {
            a.kickBatch(batch);
            MemorySegment source = a.segment();
            Receiver receiver = new Receiver(b, pinned, spin);
            long dropsBefore = b.kernelStatistics().rxDropped() + b.kernelStatistics().rxRingFull();
            Thread thread = Thread.ofPlatform().name("flood-rx").start(receiver);
            long sent = 0;
            long backPressure = 0;
            try {
                if (pinned) {
                    CpuAffinity.pinCurrentThread(UnetRealPingPong.cpuA());
                }
                long deadline = System.nanoTime() + nanos;
                int idle = 0;
                do {
                    for (int i = 0; i < 64; i++) {
                        source.set(ValueLayout.JAVA_INT_UNALIGNED, 0, (int) sent);
                        boolean ok = size <= INLINE_MAX
                            ? a.sendInline(UnetRealPingPong.CHANNEL, source, 0, size)
                            : a.send(UnetRealPingPong.CHANNEL, 0, size);
                        if (ok) {
                            sent++;
                            idle = 0;
                        } else {
                            // The status FIFO or the transmit chunks are used up: reaping kicks what waits for its
                            // batch and takes the completions (reaping after every send would kick every send).
                            backPressure++;
                            a.reapSends();
                            if (++idle > UdpBaseline.SPINS_BEFORE_YIELD) {
                                Thread.yield();
                            } else {
                                Thread.onSpinWait();
                            }
                        }
                    }
                } while (System.nanoTime() < deadline && receiver.failure == null);
                a.flush();
            } finally {
                if (pinned) {
                    CpuAffinity.unpinCurrentThread();
                }
            }
            receiver.senderDone = true;
            thread.join(TimeUnit.SECONDS.toMillis(5));
            if (thread.isAlive() || receiver.failure != null) {
                throw new IllegalStateException("flood receiver " + (thread.isAlive() ? "did not stop"
                    : "failed: " + receiver.failure), receiver.failure);
            }
            XdpInfo after = b.kernelStatistics();
            return new Result(sent, receiver.received, receiver.outOfOrder, a.kicks(), backPressure,
                after.rxDropped() + after.rxRingFull() - dropsBefore, receiver.last - receiver.first);
        }
    }

    public int run() throws Exception {
        String[] names = {"direct, kick 1", "direct, kick " + kickBatch, "udp"};
        long trialNanos = durationNanos / trials;
        out.printf(Locale.ROOT, "unet real-flood: one-way frame rate on one veth pair, %d trial(s) of %.0f ms per size"
                + " and sender, order rotating per trial: %s; %d CPUs, load average %.2f at the start; %s%n", trials,
            trialNanos / 1e6, String.join(", ", names), CpuAffinity.cpus(), loadAverage(), pinned
                ? "pinned: every sender on CPU " + UnetRealPingPong.cpuA() + ", every receiver on CPU "
                    + UnetRealPingPong.cpuB() : "unpinned");
        out.println("baseline: kernel UDP, one write (sendto) per datagram, payload = message - 20 so both put the same"
            + " frame on the veth; the receivers " + (spin ? "busy-poll (poll / non-blocking read, spin then yield)"
            : "block (await / read)") + " and count at the receiver");
        double[][] rate = new double[sizes.length][3];
        double[][][] ratios = new double[sizes.length][2][trials];
        Result[][] total = new Result[sizes.length][2];
        long[] udpSent = new long[sizes.length];
        long[] udpReceived = new long[sizes.length];
        try (VethPair veth = VethPair.builder().ipv4(true).create()) {
            for (int s = 0; s < sizes.length; s++) {
                int payload = sizes[s] + UnetRealPingPong.UNET_FRAME_OVERHEAD - UnetRealPingPong.UDP_FRAME_OVERHEAD;
                double[] sum = new double[3];
                for (int t = 0; t < trials; t++) {
                    double[] trialRate = new double[3];
                    for (int k = 0; k < 3; k++) {
                        int m = (t + k) % 3;
                        if (m == 2) {
                            UdpBaseline.FrameRate f = UdpBaseline.frameRate(veth, payload,
                                Duration.ofNanos(trialNanos), pinned ? UnetRealPingPong.cpuA() : UdpBaseline.NOT_PINNED,
                                pinned ? UnetRealPingPong.cpuB() : UdpBaseline.NOT_PINNED, spin);
                            trialRate[2] = f.receivedPerSecond();
                            udpSent[s] += f.sent();
                            udpReceived[s] += f.received();
                        } else {
                            Result r = direct(veth, sizes[s], trialNanos, m == 0 ? 1 : kickBatch, pinned, spin);
                            trialRate[m] = r.framesPerSecond();
                            total[s][m] = total[s][m] == null ? r : total[s][m].plus(r);
                        }
                    }
                    if (!(trialRate[0] > 0 && trialRate[1] > 0 && trialRate[2] > 0)) {
                        throw new IllegalStateException(sizes[s] + " B, trial " + (t + 1) + ": a flood received fewer"
                            + " than two frames, so the trial has no rate; give a longer --duration");
                    }
                    for (int m = 0; m < 3; m++) {
                        sum[m] += trialRate[m];
                    }
                    ratios[s][0][t] = trialRate[0] / trialRate[2];
                    ratios[s][1][t] = trialRate[1] / trialRate[2];
                }
                for (int m = 0; m < 3; m++) {
                    rate[s][m] = sum[m] / trials;
                }
            }
        } catch (RuntimeException | IOException e) {
            out.println("unet real-flood: run failed: " + e.getMessage());
            out.flush();
            return ExitCodes.RUN_ERROR;
        }
        out.printf(Locale.ROOT, "%8s %7s  %-16s %12s %9s   %s%n", "message", "frame", "sender", "frames/s", "vs UDP",
            "sent, received, out of order, kernel drops at B, kicks (frames per kick), back-pressure");
        CheckLog checks = new CheckLog(out::println);
        boolean whole = true;
        for (int s = 0; s < sizes.length; s++) {
            for (int m = 0; m < 3; m++) {
                String detail;
                if (m == 2) {
                    detail = String.format(Locale.ROOT, "%d, %d", udpSent[s], udpReceived[s]);
                } else {
                    Result r = total[s][m];
                    detail = String.format(Locale.ROOT, "%d, %d, %d, %d, %d (%.1f), %d", r.sent, r.received,
                        r.outOfOrder, r.kernelDrops, r.kicks, r.kicks == 0 ? 0 : (double) r.sent / r.kicks,
                        r.backPressure);
                    // Every frame arrived, or the kernel counted it at B (FILL empty or RX full), and none out of order.
                    whole &= r.outOfOrder == 0 && r.sent - r.received <= r.kernelDrops;
                }
                out.printf(Locale.ROOT, "%6d B %5d B  %-16s %12.0f %8.2fx   %s%n", sizes[s],
                    sizes[s] + UnetRealPingPong.UNET_FRAME_OVERHEAD, names[m], rate[s][m], rate[s][m] / rate[s][2],
                    detail);
            }
        }
        checks.check(CheckKind.INTEGRITY_CHECK, "direct floods: every frame arrived once and in order, or the kernel"
            + " counted its drop at the receiver", whole);
        String why = TrialRatios.tooFewTrials(trials);
        int target = Arrays.stream(sizes).boxed().toList().indexOf(UnetRealPingPong.TARGET_MESSAGE);
        if (why == null && target < 0) {
            why = "--sizes has no " + UnetRealPingPong.TARGET_MESSAGE + "-byte message (the 64-byte frame)";
        }
        out.printf(Locale.ROOT, "target (issue 18; anchor: kernel UDP on the same veth pair, interleaved in this run):"
            + " at the 64-byte frame, the batched direct endpoint's frames/s >= %.1fx kernel UDP's, per-trial ratios,"
            + " median with a %.0f%% bootstrap interval%s%n", TARGET, TrialRatios.CONFIDENCE * 100,
            why == null ? "" : "; NOT JUDGED in this run: " + why + ", so the intervals are comparisons");
        List<String> notMet = new ArrayList<>();
        List<String> undecided = new ArrayList<>();
        for (int s = 0; s < sizes.length; s++) {
            for (int m = 0; m < 2; m++) {
                String name = String.format(Locale.ROOT, "frame rate at %d B (%d B frame), %s / kernel UDP", sizes[s],
                    sizes[s] + UnetRealPingPong.UNET_FRAME_OVERHEAD, names[m]);
                out.printf(Locale.ROOT, "trials %s: %s%n", name, TrialRatios.format(ratios[s][m]));
                if (why != null || m == 0 || s != target) {
                    TrialRatios.compare(checks, name, ratios[s][m]);
                    continue;
                }
                Outcome o = TrialRatios.judge(checks, name + " >= " + TARGET, ratios[s][m], TARGET);
                if (o == Outcome.FAIL) {
                    notMet.add(name);
                } else if (o == Outcome.INCONCLUSIVE) {
                    undecided.add(name);
                }
            }
        }
        out.println("verdict: " + (why != null ? "not judged (" + why + ")" : TrialRatios.verdict(notMet, undecided, 1)));
        out.printf(Locale.ROOT, "machine load: load average %.2f at the end of the run on %d CPUs%n", loadAverage(),
            CpuAffinity.cpus());
        int code = checks.finish(acceptInconclusive);
        out.flush();
        return code;
    }

    private static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
}
