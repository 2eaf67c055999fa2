package io.nicbridge.bench.unet;

import static io.nicbridge.contract.Sba200Unet.INLINE_MAX;
import static io.nicbridge.contract.Sba200Unet.SQ_LEN;

import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import io.nicbridge.sim.sba200.Sba200Timing;
import io.nicbridge.sim.testbed.UnetApiTestbed;

/**
 * The raw U-Net experiments of the paper's Figures 3 and 4 on two emulated SBA-200s across the emulated switch,
 * through the bridge's U-Net API: a ping-pong (round trip vs message size) and a one-way stream (bandwidth vs
 * message size). Messages of at most 40 bytes go inline (single cell), longer ones from the communication segment
 * into free buffers - the paper's raw U-Net.
 *
 * <p>Virtual time: the hosts poll their receive queues and cost nothing; every nanosecond of the result is the
 * card model ({@link Sba200Timing}: i960 poll latency, send set-up, DMA per byte) plus the fibers (cell time at
 * 140 Mbit/s, propagation, the switch's store-and-forward of each cell).
 */
public final class UnetRuns {
    /** Receive buffers: 5 KB messages need at most 6 of these (the contract's MAX_BUFS). */
    static final int RX_BUFFER = 1024;
    static final int RX_AREA = 128 * 1024;
    static final int RX_BUFFERS = 96;
    private static final long LIMIT_NANOS = 10_000_000_000L;

    private UnetRuns() {
    }

    static UnetApiTestbed testbed(EngineMode mode, long seed, Sba200Timing timing) {
        UnetApiTestbed t = UnetApiTestbed.builder(mode).seed(seed).timing(timing).receiveQueue(256).build();
        t.a().postReceiveBuffers(RX_AREA, RX_BUFFERS, RX_BUFFER);
        t.b().postReceiveBuffers(RX_AREA, RX_BUFFERS, RX_BUFFER);
        return t;
    }

    static boolean send(UnetEndpoint ep, int size) {
        return size <= INLINE_MAX
                ? ep.sendInline(UnetApiTestbed.CHANNEL, ep.segment(), 0, size)
                : ep.send(UnetApiTestbed.CHANNEL, 0, size);
    }

    /**
     * Virtual-time round trips of {@code size}-byte messages: A sends, B polls and echoes, A polls.
     *
     * @return {min, max} round trip in simulated nanoseconds over {@code count} exchanges after {@code warmup}
     */
    public static long[] virtualRoundTrip(int size, int warmup, int count, long seed, Sba200Timing timing) {
        return virtualRoundTrip(size, warmup, count, seed, timing, null);
    }

    /**
     * {@link #virtualRoundTrip(int, int, int, long, Sba200Timing)}, recording the PDUs card A sends and receives
     * into {@code capture} (SunATM, simulated time; null: no capture).
     */
    public static long[] virtualRoundTrip(int size, int warmup, int count, long seed, Sba200Timing timing,
                                          PcapWriter capture) {
        try (UnetApiTestbed t = testbed(EngineMode.VIRTUAL, seed, timing)) {
            t.cardA().model().capture(capture);
            VirtualTimeEngine v = t.virtualEngine();
            UnetEndpoint a = t.a();
            UnetEndpoint b = t.b();
            v.runUntilIdle();
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            for (int i = 0; i < warmup + count; i++) {
                long start = v.timeBase().nanoTime();
                require(send(a, size), "A's send queue is full");
                require(v.runUntil(() -> b.poll() >= 0, start + LIMIT_NANOS), "B received nothing");
                check(b, size);
                b.release(b.poll());
                require(send(b, size), "B's send queue is full");
                require(v.runUntil(() -> a.poll() >= 0, start + LIMIT_NANOS), "A received nothing");
                long rtt = v.timeBase().nanoTime() - start;
                check(a, size);
                a.release(a.poll());
                a.reapSends();
                b.reapSends();
                if (i >= warmup) {
                    min = Math.min(min, rtt);
                    max = Math.max(max, rtt);
                }
                v.runUntilIdle(); // completions drain: every round starts from an idle card
            }
            return new long[] {min, max};
        }
    }

    private static void check(UnetEndpoint ep, int size) {
        long d = ep.poll();
        if (ep.isError(d) || ep.length(d) != size || ep.isInline(d) != (size <= INLINE_MAX)) {
            throw new IllegalStateException("endpoint " + ep.id() + " received a bad message: length " + ep.length(d)
                    + ", inline " + ep.isInline(d) + ", error code " + ep.errorCode(d) + " (expected " + size + " B)");
        }
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }

    /** Result of a one-way stream. */
    public record Stream(int size, int messages, long nanos, long received) {
        /** Payload bandwidth in Mbit/s. */
        public double mbits() {
            return received * (double) size * 8.0 / nanos * 1e3;
        }
    }

    /**
     * Virtual-time stream: A keeps its send queue full of {@code size}-byte messages, B polls and releases them
     * (re-posting its buffers); the time runs from the first send to the arrival of the last message.
     */
    public static Stream virtualStream(int size, int messages, long seed, Sba200Timing timing) {
        return virtualStream(size, messages, seed, timing, null);
    }

    /** {@link #virtualStream(int, int, long, Sba200Timing)}, capturing card A's PDUs (null: no capture). */
    public static Stream virtualStream(int size, int messages, long seed, Sba200Timing timing, PcapWriter capture) {
        try (UnetApiTestbed t = testbed(EngineMode.VIRTUAL, seed, timing)) {
            t.cardA().model().capture(capture);
            VirtualTimeEngine v = t.virtualEngine();
            UnetEndpoint a = t.a();
            UnetEndpoint b = t.b();
            v.runUntilIdle();
            StreamState s = new StreamState(a, b, messages, v);
            long start = v.timeBase().nanoTime();
            while (s.received < messages) {
                while (s.sent < messages && a.sendsInFlight() < SQ_LEN) {
                    require(send(a, size), "A's send queue is full");
                    s.sent++;
                }
                require(v.runUntil(s::progress, start + LIMIT_NANOS), "the stream stalled");
            }
            if (b.receiveErrors(io.nicbridge.contract.Sba200Unet.RX_ERR_NO_BUFFERS) > 0) {
                throw new IllegalStateException("B ran out of receive buffers");
            }
            return new Stream(size, messages, s.lastArrival - start, s.received);
        }
    }

    /** The stream's state, read by the run-until condition after every simulated event. */
    private static final class StreamState {
        final UnetEndpoint a;
        final UnetEndpoint b;
        final int messages;
        final VirtualTimeEngine v;
        int sent;
        int received;
        long lastArrival;

        StreamState(UnetEndpoint a, UnetEndpoint b, int messages, VirtualTimeEngine v) {
            this.a = a;
            this.b = b;
            this.messages = messages;
            this.v = v;
        }

        /** Drains B, collects A's completions; true when A can send more or everything arrived. */
        boolean progress() {
            for (long d = b.poll(); d >= 0; d = b.poll()) {
                if (b.isError(d)) {
                    throw new IllegalStateException("B received an error descriptor, code " + b.errorCode(d));
                }
                b.release(d);
                received++;
                lastArrival = v.timeBase().nanoTime();
            }
            a.reapSends();
            return received >= messages || (sent < messages && a.sendsInFlight() < SQ_LEN);
        }
    }

    /**
     * Real time, inline engine: wall-clock nanoseconds per message (one way) of a ping-pong between the two
     * endpoints - the software cost of the U-Net API plus the emulated card and switch (AAL5 CRC, cells, HEC),
     * all on this thread. The exchange loop is warmed up (compiled) first; the result is the best of
     * {@code repetitions} timed runs of {@code count} round trips (the machine is shared: the best run is the one
     * least disturbed).
     */
    public static double inlineNanosPerMessage(int size, int warmup, int count, int repetitions) {
        try (UnetApiTestbed t = testbed(EngineMode.INLINE, 1, Sba200Timing.WIRE_ONLY)) {
            UnetEndpoint a = t.a();
            UnetEndpoint b = t.b();
            var engine = t.engine();
            exchange(a, b, engine, size, warmup);
            double best = Double.MAX_VALUE;
            for (int r = 0; r < repetitions; r++) {
                long start = System.nanoTime();
                exchange(a, b, engine, size, count);
                best = Math.min(best, (System.nanoTime() - start) / (2.0 * count));
            }
            return best;
        }
    }

    private static void exchange(UnetEndpoint a, UnetEndpoint b, io.nicbridge.sim.engine.DeviceEngine engine, int size,
                                 int n) {
        for (int i = 0; i < n; i++) {
            send(a, size);
            long d;
            while ((d = b.poll()) < 0) {
                engine.poll();
            }
            b.release(d);
            send(b, size);
            while ((d = a.poll()) < 0) {
                engine.poll();
            }
            a.release(d);
            a.reapSends();
            b.reapSends();
        }
    }
}
