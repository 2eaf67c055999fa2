package io.nicbridge.bench.pingpong;

import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.port.FramePort;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * The real-time ping-pong loops over two {@link FramePort}s on one wire: node A sends a frame to B, B echoes it,
 * A takes the wall-clock round trip. Inline: both nodes on the caller's thread (the cards run inline too). Threaded:
 * B echoes on its own thread while A measures on the caller's.
 */
public final class PingPongLoops {
    /** How long a node waits for a frame before declaring it lost. */
    public static final long FRAME_TIMEOUT_NANOS = 5_000_000_000L;
    /** The sequence number of a probe frame: never a measured frame's. */
    public static final int PROBE_SEQ = -1;
    private static final long PROBE_INTERVAL_NANOS = 200_000_000L;
    private static final long PROBE_DRAIN_NANOS = 50_000_000L;

    private PingPongLoops() {
    }

    /** Both nodes on this thread; the inline cards have delivered each frame before commit returns. */
    public static void inline(FramePort a, long macA, FramePort b, long macB, int size, int warmup, int count,
                              Histogram rtt, Progress progress) throws InterruptedException {
        int total = warmup + count;
        for (int seq = 0; seq < total; seq++) {
            long t0 = System.nanoTime();
            send(a, macB, macA, seq, size);
            expect(b, seq, size);
            send(b, macA, macB, seq, size);
            expect(a, seq, size);
            long t = System.nanoTime() - t0;
            if (seq >= warmup) {
                rtt.recordValue(t);
            }
            progress.tick(seq + 1);
        }
    }

    /** B echoes on a second thread; A sends and measures on this one. Both block while they wait. */
    public static void threaded(FramePort a, long macA, FramePort b, long macB, int size, int warmup, int count,
                                Histogram rtt, Progress progress) throws InterruptedException {
        threaded(a, FrameWait.BLOCK, macA, b, FrameWait.BLOCK, macB, size, warmup, count, rtt, progress);
    }

    /** B echoes on a second thread; A sends and measures on this one; each waits for frames as its wait says. */
    public static void threaded(FramePort a, FrameWait waitA, long macA, FramePort b, FrameWait waitB, long macB,
                                int size, int warmup, int count, Histogram rtt, Progress progress)
        throws InterruptedException {
        int total = warmup + count;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread echo = Thread.ofPlatform().name("pingpong-echo").daemon().start(() -> {
            try {
                for (int seq = 0; seq < total; seq++) {
                    expect(b, waitB, seq, size);
                    send(b, macA, macB, seq, size);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        try {
            client(a, waitA, macA, macB, size, warmup, count, rtt, progress); // B is A's echo, on the other thread
        } catch (IllegalStateException e) {
            Throwable f = failure.get();
            if (f != null) {
                e.addSuppressed(f);
            }
            throw e;
        } finally {
            echo.join(FRAME_TIMEOUT_NANOS / 1_000_000);
        }
        if (failure.get() != null) {
            throw new IllegalStateException("echo node failed: " + failure.get().getMessage(), failure.get());
        }
    }

    /**
     * Node A alone against a remote echo (another host, or another process): sends each frame to {@code peerMac}
     * and expects it back with the same sequence number and size before sending the next.
     */
    public static void client(FramePort a, FrameWait waitA, long macA, long peerMac, int size, int warmup, int count,
                              Histogram rtt, Progress progress) throws InterruptedException {
        int total = warmup + count;
        for (int seq = 0; seq < total; seq++) {
            long t0 = System.nanoTime();
            send(a, peerMac, macA, seq, size);
            expect(a, waitA, seq, size);
            long t = System.nanoTime() - t0;
            if (seq >= warmup) {
                rtt.recordValue(t);
            }
            progress.tick(seq + 1);
        }
    }

    /**
     * Sends probe frames (sequence number {@link #PROBE_SEQ}, minimum size) to {@code peerMac} until one comes back,
     * then drains whatever else arrives within 50 ms (echoes of earlier probes), so the measured frames that follow
     * meet an empty ring.
     *
     * @return false when no echo arrived within {@code timeoutNanos}
     */
    public static boolean probe(FramePort a, long macA, long peerMac, long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        boolean answered = false;
        while (!answered && System.nanoTime() - deadline < 0) {
            send(a, peerMac, macA, PROBE_SEQ, PingPongFrames.MIN_PROBE_SIZE);
            long until = System.nanoTime() + PROBE_INTERVAL_NANOS;
            long left;
            while (!answered && (left = until - System.nanoTime()) > 0) {
                int h = a.await(left, TimeUnit.NANOSECONDS);
                if (h != FramePort.NONE) {
                    answered = PingPongFrames.isProbeEcho(a, h);
                    a.release(h);
                }
            }
        }
        if (answered) {
            int h;
            while ((h = a.await(PROBE_DRAIN_NANOS, TimeUnit.NANOSECONDS)) != FramePort.NONE) {
                a.release(h);
            }
        }
        return answered;
    }

    /** Sends, waiting out back-pressure (bounded). */
    static void send(FramePort port, long dst, long src, int seq, int size) {
        long deadline = 0;
        IdleStrategy idle = null;
        while (!PingPongFrames.send(port, dst, src, seq, size)) {
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + FRAME_TIMEOUT_NANOS;
            } else if (now - deadline > 0) {
                throw new IllegalStateException(port.name() + ": no TX buffer freed within "
                    + FRAME_TIMEOUT_NANOS / 1_000_000 + " ms (" + port.counters() + ")");
            }
            if (idle == null) { // made only under back-pressure: a send that goes out at once allocates nothing
                idle = new BackoffIdle(99, 0, 10_000L, 10_000L); // spin 99, then park 10 us
            }
            idle.idle();
        }
    }

    /** Receives the frame with sequence number {@code seq} and releases it. */
    static void expect(FramePort port, int seq, int size) throws InterruptedException {
        expect(port, FrameWait.BLOCK, seq, size);
    }

    /**
     * Receives the frame with sequence number {@code seq}, waiting as {@code wait} says, and releases it. Good frames
     * of another protocol are skipped: on a real link the kernel's own ARP (or anything broadcast) reaches the card
     * too; a damaged frame or a ping-pong frame out of turn still fails the run.
     */
    static void expect(FramePort port, FrameWait wait, int seq, int size) throws InterruptedException {
        long deadline = System.nanoTime() + FRAME_TIMEOUT_NANOS;
        int h;
        for (;;) {
            long left = deadline - System.nanoTime();
            h = left > 0 ? wait.next(port, left) : FramePort.NONE;
            if (h == FramePort.NONE) {
                throw new IllegalStateException(port.name() + ": frame " + seq + " did not arrive within "
                    + FRAME_TIMEOUT_NANOS / 1_000_000 + " ms (" + port.counters() + ")");
            }
            if (!PingPongFrames.isOtherProtocol(port, h)) {
                break;
            }
            port.release(h);
        }
        int got = PingPongFrames.check(port, h, size);
        port.release(h);
        if (got != seq) {
            throw new IllegalStateException(port.name() + ": expected frame " + seq + ", got " + got);
        }
    }
}
