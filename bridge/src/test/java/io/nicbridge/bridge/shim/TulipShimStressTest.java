package io.nicbridge.bridge.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.driver.tulip.TulipStatistics.Counter;
import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Many frames both ways at once through two shim-served 21140s on a veth pair, every frame's sequence number and
 * every byte checked. Two runs:
 * <ul>
 *   <li><b>windowed</b>: a sender never has more frames outstanding than the peer's receive ring holds, so nothing may
 *       be lost at all: every frame arrives once, in order, intact;</li>
 *   <li><b>flood</b>: senders go as fast as back-pressure allows; frames may be lost, but only where a counter says
 *       so (the card's missed frames when its ring is full, the kernel's drops), and never duplicated or
 *       reordered: per direction, received + counted losses = sent.</li>
 * </ul>
 * A receiver is done when every frame has arrived or been counted lost; no quiet period is guessed. (It once gave up
 * 500 ms after its sender finished and counted the rest as lost: under CPU pressure frames still on their way, or
 * kernel drops the shim had not yet read, then made received + counted losses disagree with sent. The shim now reads
 * the kernel's drops before its card thread sleeps, so an idle card's counters are exact.)
 * The suite sends {@value #DEFAULT_FRAMES} frames per direction per run; the environment variable
 * {@code NICBRIDGE_SHIM_STRESS_FRAMES=N} (or {@code -Dnicbridge.shim.stressFrames=N}) changes that, e.g.
 * {@code NICBRIDGE_SHIM_STRESS_FRAMES=2000000 ./mvnw -B -pl bridge -am verify -Dtest=TulipShimStressTest
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class TulipShimStressTest {
    static final int DEFAULT_FRAMES = 100_000;
    static final int FRAMES = Integer.getInteger("nicbridge.shim.stressFrames",
        Integer.parseInt(System.getenv().getOrDefault("NICBRIDGE_SHIM_STRESS_FRAMES", "" + DEFAULT_FRAMES)));
    /** How long a sender or receiver may go without progress before the run is stuck (and fails, saying where). */
    static final long TIMEOUT = TimeUnit.SECONDS.toNanos(10);
    static final ValueLayout.OfInt SEQ = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** bytes 0..255 twice and more: a frame's payload from byte 18 on is RAMP[(seq + 18) & 0xFF ...]. */
    static final MemorySegment RAMP = ramp();

    static MemorySegment ramp() {
        byte[] r = new byte[256 + 2048];
        for (int i = 0; i < r.length; i++) {
            r[i] = (byte) i;
        }
        return MemorySegment.ofArray(r);
    }

    static int lengthOf(int seq) {
        return 60 + (int) ((seq * 7919L) % (1514 - 60 + 1)); // every length from 60 to 1514, scattered
    }

    @ParameterizedTest
    @ValueSource(strings = {"afpacket", "afxdp"})
    void windowedTrafficBothWaysLosesNothing(String target) throws Exception {
        ShimTestSupport.assumeShimAndVeth(target);
        Result r = run(target, 32, true);
        for (int dir = 0; dir < 2; dir++) {
            assertEquals(FRAMES, r.received[dir], r.describe(dir));
            assertEquals(0, r.gaps[dir], r.describe(dir));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"afpacket", "afxdp"})
    void floodBothWaysLosesOnlyWhatTheCountersAccountFor(String target) throws Exception {
        ShimTestSupport.assumeShimAndVeth(target);
        Result r = run(target, Integer.MAX_VALUE, false);
        for (int dir = 0; dir < 2; dir++) {
            assertEquals(FRAMES, r.received[dir] + r.gaps[dir], r.describe(dir));
            assertEquals(r.gaps[dir], r.countedLosses[dir], "every lost frame is counted: " + r.describe(dir));
        }
    }

    /** Per direction (0 = A to B, 1 = B to A). */
    static final class Result {
        final long[] received = new long[2];
        final long[] gaps = new long[2];
        final long[] countedLosses = new long[2];
        final String[] counters = new String[2];
        long nanos;

        String describe(int dir) {
            return (dir == 0 ? "A->B" : "B->A") + ": sent " + FRAMES + ", received " + received[dir] + ", gaps "
                + gaps[dir] + ", counted losses " + countedLosses[dir] + "; " + counters[dir];
        }
    }

    private Result run(String target, int window, boolean windowed) throws Exception {
        Result r = new Result();
        try (VethPair veth = VethPair.builder().ipv4(false).create();
             ShimCard cardA = ShimTestSupport.card(target, veth, true, "rx-ring=1024");
             ShimCard cardB = ShimTestSupport.card(target, veth, false, "rx-ring=1024");
             TulipDriver a = ShimTestSupport.driver(cardA, TulipConfig.defaults());
             TulipDriver b = ShimTestSupport.driver(cardB, TulipConfig.defaults())) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong[] delivered = {new AtomicLong(), new AtomicLong()};
            Thread[] threads = {
                sender(a, veth.macA(), veth.macB(), delivered[0], window, failure),
                receiver(b, 0, r, delivered[0], () -> countedLosses(cardB, cardA), failure),
                sender(b, veth.macB(), veth.macA(), delivered[1], window, failure),
                receiver(a, 1, r, delivered[1], () -> countedLosses(cardA, cardB), failure)};
            long start = System.nanoTime();
            for (Thread t : threads) {
                t.start();
            }
            for (Thread t : threads) {
                t.join();
            }
            r.nanos = System.nanoTime() - start;
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            ShimCard[] receivers = {cardB, cardA};
            TulipDriver[] rxDrivers = {b, a};
            for (int dir = 0; dir < 2; dir++) {
                ShimStatistics s = receivers[dir].statistics();
                rxDrivers[dir].acknowledge(); // counts CSR8 missed frames not yet read
                long missed = rxDrivers[dir].statistics().get(Counter.RX_MISSED);
                assertEquals(s.rxMissed(), missed, "CSR8 and the shim agree on missed frames");
                r.countedLosses[dir] = countedLosses(receivers[dir], dir == 0 ? cardA : cardB);
                r.counters[dir] = s + " " + rxDrivers[dir].counters();
            }
            System.out.printf("%s: %d frames each way in %.2f s (%.0f frames/s per direction)%n  %s%n  %s%n",
                windowed ? "windowed" : "flood", FRAMES, r.nanos / 1e9, FRAMES / (r.nanos / 1e9), r.describe(0),
                r.describe(1));
        }
        return r;
    }

    private static Thread sender(TulipDriver d, MacAddress src, MacAddress dst, AtomicLong delivered,
                                 int window, AtomicReference<Throwable> failure) {
        return Thread.ofPlatform().name(d.name() + "-send").unstarted(() -> {
            try {
                IdleStrategy idle = new BackoffIdle(50, 50, 20_000L, 20_000L);
                long deadline = System.nanoTime() + TIMEOUT;
                for (int seq = 0; seq < FRAMES && failure.get() == null; ) {
                    int h = seq - delivered.get() < window ? d.claim() : FramePort.NONE;
                    if (h == FramePort.NONE) {
                        idle.idle();
                        if (System.nanoTime() > deadline) {
                            throw new AssertionError(d.name() + ": stuck at frame " + seq + " " + d.counters());
                        }
                        continue;
                    }
                    idle.reset();
                    deadline = System.nanoTime() + TIMEOUT;
                    int length = lengthOf(seq);
                    MemorySegment b = d.txBuffer(h);
                    dst.writeTo(b, 0);
                    src.writeTo(b, 6);
                    b.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 12, (short) 0x88B5);
                    b.set(SEQ, 14, seq);
                    MemorySegment.copy(RAMP, (seq + 18) & 0xFF, b, 18, length - 18);
                    d.commit(h, length);
                    seq++;
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        });
    }

    /**
     * Frames of one direction that a counter says were lost: the receiving card's missed frames (no free descriptor),
     * the kernel's drops on its RX ring and frames too long for a ring slot, and the sending card's frames the kernel
     * refused.
     */
    private static long countedLosses(ShimCard receiving, ShimCard sending) {
        ShimStatistics s = receiving.statistics();
        return s.rxMissed() + s.rxDropKernel() + s.rxDropTruncated() + sending.statistics().txDropKernel();
    }

    /**
     * Checks every frame as it comes. It stops when each frame has either arrived or been counted lost (received +
     * counted losses reach the frames sent: a flood's lost tail ends the run as soon as the counters say so, with no
     * guessed quiet time), or, failing that, after {@link #TIMEOUT} without a frame: then the assertions report what
     * neither arrived nor was counted.
     */
    private static Thread receiver(TulipDriver d, int dir, Result r, AtomicLong delivered, LongSupplier losses,
                                   AtomicReference<Throwable> failure) {
        return Thread.ofPlatform().name(d.name() + "-recv").unstarted(() -> {
            try {
                int expected = 0;
                long lastProgress = System.nanoTime();
                while (expected < FRAMES && failure.get() == null) {
                    int h = d.await(100, TimeUnit.MILLISECONDS);
                    if (h == FramePort.NONE) {
                        long quiet = System.nanoTime() - lastProgress;
                        if (r.received[dir] + losses.getAsLong() >= FRAMES || quiet > TIMEOUT) {
                            r.gaps[dir] += FRAMES - expected;
                            break;
                        }
                        continue;
                    }
                    lastProgress = System.nanoTime();
                    MemorySegment b = d.rxBuffer(h);
                    int seq = b.get(SEQ, 14);
                    if (seq < expected) {
                        throw new AssertionError("frame " + seq + " after " + (expected - 1)
                            + ": duplicated or reordered");
                    }
                    int length = lengthOf(seq);
                    if (d.rxStatus(h) != FrameStatus.OK || d.rxLength(h) != length
                        || MemorySegment.mismatch(b, 18, length, RAMP, (seq + 18) & 0xFF,
                            ((seq + 18) & 0xFF) + length - 18) != -1) {
                        throw new AssertionError("frame " + seq + " damaged: status "
                            + FrameStatus.describe(d.rxStatus(h)) + ", length " + d.rxLength(h) + " of " + length);
                    }
                    d.release(h);
                    r.gaps[dir] += seq - expected;
                    r.received[dir]++;
                    expected = seq + 1;
                    delivered.lazySet(expected);
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        });
    }

}
