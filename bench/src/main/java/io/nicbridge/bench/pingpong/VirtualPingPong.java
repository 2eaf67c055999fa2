package io.nicbridge.bench.pingpong;

import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.sim.engine.VirtualTimeBase;
import org.HdrHistogram.Histogram;

/**
 * The ping-pong in virtual time: everything (cards, wire, both nodes) runs as events on the one scheduler thread.
 * The nodes are interrupt driven, as a kernel driver is: each node's {@link TulipDriver.TulipInterruptListener}
 * takes the received frames off the ring and sends the next one, so a round trip is measured on the simulated
 * clock, with no host timing in it at all.
 *
 * <p>The host clock is read only to report what the simulation costs: at the end of the warmup and after the
 * last reply, so {@link #measuredWallNanos()} covers the measured round trips alone. Opening the cards, the
 * setup frames and the warmup (where the JIT is still compiling driver, card and wire) are one-time costs; spread
 * over the round trips they would swamp the per-round-trip figure.
 */
public final class VirtualPingPong {
    private static final long EVENTS_PER_ROUND_TRIP_BOUND = 1_000;
    private final TulipDriver a;
    private final TulipDriver b;
    private final VirtualTimeBase time;
    private final int size;
    private final int warmup;
    private final int total;
    private final Histogram rtt;
    private final Progress progress;
    private final long macA;
    private final long macB;
    private int done;
    private long sentAt;
    private long minRtt = Long.MAX_VALUE;
    private long maxRtt = Long.MIN_VALUE;
    private long wallAtMeasureStart;
    private long measuredWallNanos = -1;
    private RuntimeException failure;

    public VirtualPingPong(TulipDriver a, TulipDriver b, VirtualTimeBase time, int size, int warmup, int count,
                           Histogram rtt, Progress progress) {
        this.a = a;
        this.b = b;
        this.time = time;
        this.size = size;
        this.warmup = warmup;
        this.total = warmup + count;
        this.rtt = rtt;
        this.progress = progress;
        this.macA = a.stationAddress().value();
        this.macB = b.stationAddress().value();
    }

    /** Runs the whole exchange. @return simulated nanoseconds from the first send to the last reply */
    public long run() {
        time.runUntilIdle(); // let both chips take their setup frames
        if (!a.isFilterLoaded() || !b.isFilterLoaded()) {
            throw new IllegalStateException("the setup frames were not processed before the ping-pong started");
        }
        b.onInterrupt(this::echo);
        a.onInterrupt(this::measure);
        long start = time.nanoTime();
        sentAt = start;
        if (warmup == 0) {
            wallAtMeasureStart = System.nanoTime();
        }
        if (!PingPongFrames.send(a, macB, macA, 0, size)) {
            throw new IllegalStateException(a.name() + ": no TX buffer for the first frame");
        }
        // A round trip is a handful of events (doorbells, DMA timers, wire deliveries, interrupts); the bound only
        // catches a world that never goes idle.
        time.runUntilIdle(Math.max(VirtualTimeBase.DEFAULT_MAX_EVENTS, (long) total * EVENTS_PER_ROUND_TRIP_BOUND));
        a.onInterrupt(null);
        b.onInterrupt(null);
        if (failure != null) {
            throw failure;
        }
        if (done != total) {
            throw new IllegalStateException("the virtual world went idle after " + done + " of " + total
                + " round trips: a frame was lost (A " + a.counters() + " " + a.statistics() + "; B " + b.counters()
                + " " + b.statistics() + ")");
        }
        return time.nanoTime() - start;
    }

    private void echo(TulipDriver port, int csr5) {
        int h;
        while (failure == null && (h = port.poll()) != FramePort.NONE) {
            try {
                int seq = PingPongFrames.check(port, h, size);
                port.release(h);
                if (!PingPongFrames.send(port, macA, macB, seq, size)) {
                    throw new IllegalStateException(port.name() + ": TX ring full while echoing frame " + seq);
                }
            } catch (RuntimeException e) {
                failure = e;
            }
        }
    }

    private void measure(TulipDriver port, int csr5) {
        int h;
        while (failure == null && (h = port.poll()) != FramePort.NONE) {
            try {
                int seq = PingPongFrames.check(port, h, size);
                port.release(h);
                if (seq != done) {
                    throw new IllegalStateException("expected reply " + done + ", got " + seq);
                }
                long now = time.nanoTime();
                long t = now - sentAt;
                if (done >= warmup) {
                    rtt.recordValue(t);
                    minRtt = Math.min(minRtt, t);
                    maxRtt = Math.max(maxRtt, t);
                }
                done++;
                if (done == warmup) {
                    wallAtMeasureStart = System.nanoTime(); // the next round trip is the first measured one
                } else if (done == total) {
                    measuredWallNanos = System.nanoTime() - wallAtMeasureStart;
                }
                progress.tick(done);
                if (done < total) {
                    sentAt = now;
                    if (!PingPongFrames.send(port, macB, macA, done, size)) {
                        throw new IllegalStateException(port.name() + ": TX ring full at frame " + done);
                    }
                }
            } catch (RuntimeException e) {
                failure = e;
            }
        }
    }

    /**
     * Host wall-clock nanoseconds spent on the measured round trips (after the warmup), or -1 before
     * {@link #run()} has completed them.
     */
    public long measuredWallNanos() {
        return measuredWallNanos;
    }

    /** Smallest measured simulated RTT (exact, not histogram-rounded). */
    public long minRtt() {
        return minRtt;
    }

    /** Largest measured simulated RTT (exact). */
    public long maxRtt() {
        return maxRtt;
    }
}
