package io.nicbridge.bench.pingpong;

import static io.nicbridge.contract.Dec21140.ETH_ADDR_LEN;

import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One-way throughput between two {@link FramePort}s: a sender thread (the caller) claims and commits numbered
 * ping-pong frames as fast as back-pressure allows for a fixed time; a receiver thread awaits, checks and releases
 * them, and keeps a bitmap of the sequence numbers it saw, so every frame is accounted for:
 * <pre>
 *   sender (caller)                                receiver thread
 *   seq 0,1,2,... --claim/compose/commit--&gt;  wire  --await/check/release--&gt; seen[seq] (bitmap, preallocated)
 *                                                  seq already seen      -&gt; duplicate
 *                                                  seq below the highest -&gt; reordered (arrived late)
 *   lost = sent - distinct sequence numbers seen
 * </pre>
 * The rate is taken at the receiver, over its receive window (first to last frame), as kernel UDP's is in
 * {@code UdpBaseline.frameRate}. Everything the loops touch (bitmap, counters) is allocated before they start.
 */
public final class OneWayFlood {
    /** The receiver stops once the sender has finished and nothing arrived for this long. */
    static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Upper bound of the sender's rate the bitmap is sized for; the sender stops early if it ever gets there. */
    static final long MAX_FRAMES_PER_SECOND = 8_000_000L;
    private static final ValueLayout.OfInt SEQ = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort TYPE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private OneWayFlood() {
    }

    /**
     * What one flood achieved.
     *
     * @param frameBytes    frame size without FCS
     * @param sent          frames committed by the sender
     * @param received      good frames of this flood the receiver took (duplicates included)
     * @param distinct      distinct sequence numbers among them
     * @param duplicates    frames whose sequence number had been seen before
     * @param reordered     frames that arrived after a frame with a higher sequence number
     * @param foreign       frames that were not this flood's (other EtherType, bad status or size, unknown number)
     * @param backPressure  times the sender found no TX buffer free
     * @param sendNanos     how long the sender sent
     * @param windowNanos   first to last frame at the receiver
     */
    public record Result(int frameBytes, long sent, long received, long distinct, long duplicates, long reordered,
                         long foreign, long backPressure, long sendNanos, long windowNanos) {
        /** @return frames sent but never received */
        public long lost() {
            return sent - distinct;
        }

        /** @return distinct frames per second at the receiver, over its receive window */
        public double framesPerSecond() {
            return windowNanos <= 0 ? 0 : distinct * 1e9 / windowNanos;
        }

        /** @return frame bits (without FCS, preamble or gap) per second at the receiver, in Mbit/s */
        public double megabitsPerSecond() {
            return framesPerSecond() * frameBytes * 8 / 1e6;
        }

        /** @return frames per second the sender committed */
        public double sentPerSecond() {
            return sendNanos <= 0 ? 0 : sent * 1e9 / sendNanos;
        }
    }

    /** The receiver's bitmap of sequence numbers, sized once for a flood duration and reused across sizes. */
    public static final class SeenMap {
        private final long[] bits;
        private final int capacity;

        /** @param durationNanos the longest flood this map must cover */
        public SeenMap(long durationNanos) {
            long frames = Math.max(1L << 16, (durationNanos / 1_000_000L + 1) * (MAX_FRAMES_PER_SECOND / 1000));
            if (frames > Integer.MAX_VALUE - 64) {
                throw new IllegalArgumentException("a flood of " + durationNanos / 1e9 + " s is too long to track"
                    + " every frame (at most " + (Integer.MAX_VALUE / MAX_FRAMES_PER_SECOND) + " s)");
            }
            this.capacity = (int) frames;
            this.bits = new long[(capacity + 63) / 64];
        }

        /** @return how many sequence numbers the map can hold; the sender stops there */
        public int capacity() {
            return capacity;
        }

        void clear() {
            java.util.Arrays.fill(bits, 0L);
        }

        /** @return true when {@code seq} was not yet marked */
        boolean mark(int seq) {
            long mask = 1L << (seq & 63);
            int word = seq >>> 6;
            long w = bits[word];
            if ((w & mask) != 0) {
                return false;
            }
            bits[word] = w | mask;
            return true;
        }
    }

    /**
     * Floods {@code rx} from {@code tx} for {@code durationNanos}, then waits until the receiver went quiet.
     *
     * @param txProgress   run by the sender when it finds no TX buffer, so an inline card whose kernel TX ring was
     *                     full gets a thread to finish its descriptors (null: the card has its own thread)
     * @throws IllegalStateException when the receiver thread failed
     */
    public static Result run(FramePort tx, long dstMac, long srcMac, Runnable txProgress, FramePort rx,
                             FrameWait rxWait, int size, long durationNanos, SeenMap seen)
        throws InterruptedException {
        Objects.requireNonNull(seen, "seen");
        if (size < PingPongFrames.MIN_SIZE || size > tx.maxFrameLength()) {
            throw new IllegalArgumentException("frame size must be " + PingPongFrames.MIN_SIZE + ".."
                + tx.maxFrameLength() + ", was " + size);
        }
        seen.clear();
        Receiver receiver = new Receiver(rx, rxWait, size, seen);
        Thread rxThread = Thread.ofPlatform().name("flood-rx-" + rx.name()).daemon().unstarted(receiver);
        rxThread.start();
        long sent = 0;
        long backPressure = 0;
        long limit = seen.capacity();
        long start = System.nanoTime();
        long deadline = start + durationNanos;
        long now;
        // Spin 16, yield 48, then park 20 us per failed send; made once per run, reset by every frame that goes out.
        IdleStrategy idle = new BackoffIdle(16, 48, 20_000L, 20_000L);
        do {
            // The clock is read every 32 attempts: nanoTime would otherwise be a visible part of the loop.
            for (int i = 0; i < 32 && sent < limit; i++) {
                if (PingPongFrames.send(tx, dstMac, srcMac, (int) sent, size)) {
                    sent++;
                    idle.reset();
                } else {
                    backPressure++;
                    if (txProgress != null) {
                        txProgress.run(); // an inline card gets a poll before the sender backs off
                    }
                    idle.idle();
                }
            }
            now = System.nanoTime();
        } while (now < deadline && sent < limit && receiver.failure.get() == null);
        tx.flush(); // a port that batches its doorbell still holds the last frames
        long sendNanos = now - start;
        receiver.senderDone = true;
        rxThread.join(TimeUnit.NANOSECONDS.toMillis(PingPongLoops.FRAME_TIMEOUT_NANOS));
        if (rxThread.isAlive()) {
            rxThread.interrupt();
            rxThread.join(1_000);
            throw new IllegalStateException(rx.name() + ": the flood receiver did not stop");
        }
        Throwable f = receiver.failure.get();
        if (f != null) {
            throw new IllegalStateException(rx.name() + ": flood receiver failed: " + f.getMessage(), f);
        }
        return new Result(size, sent, receiver.received, receiver.distinct, receiver.duplicates, receiver.reordered,
            receiver.foreign, backPressure, sendNanos, receiver.lastNanos - receiver.firstNanos);
    }

    /** Takes frames until the sender is done and the wire is quiet; counts and classifies each one. */
    private static final class Receiver implements Runnable {
        private final FramePort port;
        private final FrameWait wait;
        private final int size;
        private final SeenMap seen;
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        volatile boolean senderDone;
        long received;
        long distinct;
        long duplicates;
        long reordered;
        long foreign;
        long firstNanos;
        long lastNanos;

        Receiver(FramePort port, FrameWait wait, int size, SeenMap seen) {
            this.port = port;
            this.wait = Objects.requireNonNull(wait, "wait");
            this.size = size;
            this.seen = seen;
        }

        @Override
        public void run() {
            try {
                int highest = -1;
                long quietSince = System.nanoTime();
                while (true) {
                    int h = wait.next(port, QUIET_NANOS);
                    long now = System.nanoTime();
                    if (h == FramePort.NONE) {
                        if (senderDone && now - quietSince >= QUIET_NANOS) {
                            return;
                        }
                        continue;
                    }
                    quietSince = now;
                    int seq = sequence(h);
                    port.release(h);
                    if (seq < 0 || seq >= seen.capacity()) {
                        foreign++;
                        continue;
                    }
                    if (received == 0) {
                        firstNanos = now;
                    }
                    lastNanos = now;
                    received++;
                    if (!seen.mark(seq)) {
                        duplicates++;
                    } else {
                        distinct++;
                    }
                    if (seq < highest) {
                        reordered++;
                    } else {
                        highest = seq;
                    }
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }

        /** @return the frame's sequence number, or -1 when it is not a good flood frame of the right size */
        private int sequence(int h) {
            MemorySegment b = port.rxBuffer(h);
            if (port.rxStatus(h) != FrameStatus.OK || port.rxLength(h) != size
                || (b.get(TYPE, 2L * ETH_ADDR_LEN) & 0xFFFF) != PingPongFrames.ETHERTYPE) {
                return -1;
            }
            return b.get(SEQ, PingPongFrames.SEQ_OFFSET);
        }
    }
}
