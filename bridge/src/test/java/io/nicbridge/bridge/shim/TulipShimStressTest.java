package io.nicbridge.bridge.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.driver.tulip.TulipStatistics.Counter;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

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
 * The suite sends {@value #DEFAULT_FRAMES} frames per direction per run; the environment variable
 * {@code NICBRIDGE_SHIM_STRESS_FRAMES=N} (or {@code -Dnicbridge.shim.stressFrames=N}) changes that, e.g.
 * {@code NICBRIDGE_SHIM_STRESS_FRAMES=2000000 ./mvnw -B -pl bridge -am verify -Dtest=TulipShimStressTest
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class TulipShimStressTest {
    static final int DEFAULT_FRAMES = 100_000;
    static final int FRAMES = Integer.getInteger("nicbridge.shim.stressFrames",
        Integer.parseInt(System.getenv().getOrDefault("NICBRIDGE_SHIM_STRESS_FRAMES", "" + DEFAULT_FRAMES)));
    /** After its sender is done, how long a flood's receiver waits for more before it counts the rest as lost. */
    static final long TAIL_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
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

    @Test
    void windowedTrafficBothWaysLosesNothing() throws Exception {
        ShimTestSupport.assumeShimAndVeth();
        Result r = run(32, true);
        for (int dir = 0; dir < 2; dir++) {
            assertEquals(FRAMES, r.received[dir], r.describe(dir));
            assertEquals(0, r.gaps[dir], r.describe(dir));
        }
    }

    @Test
    void floodBothWaysLosesOnlyWhatTheCountersAccountFor() throws Exception {
        ShimTestSupport.assumeShimAndVeth();
        Result r = run(Integer.MAX_VALUE, false);
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

    private Result run(int window, boolean windowed) throws Exception {
        Result r = new Result();
        try (VethPair veth = VethPair.builder().ipv4(false).create();
             ShimCard cardA = ShimTestSupport.card(veth, true, "rx-ring=1024");
             ShimCard cardB = ShimTestSupport.card(veth, false, "rx-ring=1024");
             TulipDriver a = ShimTestSupport.driver(cardA, TulipConfig.defaults());
             TulipDriver b = ShimTestSupport.driver(cardB, TulipConfig.defaults())) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong[] delivered = {new AtomicLong(), new AtomicLong()};
            AtomicBoolean[] done = {new AtomicBoolean(), new AtomicBoolean()};
            Thread[] threads = {
                sender(a, veth.macA(), veth.macB(), delivered[0], done[0], window, failure),
                receiver(b, 0, r, delivered[0], done[0], failure),
                sender(b, veth.macB(), veth.macA(), delivered[1], done[1], window, failure),
                receiver(a, 1, r, delivered[1], done[1], failure)};
            long start = System.nanoTime();
            lastProgress[0] = start;
            lastProgress[1] = start;
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
                r.countedLosses[dir] = s.rxMissed() + s.rxDropKernel() + s.rxDropTruncated()
                    + (dir == 0 ? cardA : cardB).statistics().txDropKernel();
                r.counters[dir] = s + " " + rxDrivers[dir].counters();
            }
            System.out.printf("%s: %d frames each way in %.2f s (%.0f frames/s per direction)%n  %s%n  %s%n",
                windowed ? "windowed" : "flood", FRAMES, r.nanos / 1e9, FRAMES / (r.nanos / 1e9), r.describe(0),
                r.describe(1));
        }
        return r;
    }

    private static Thread sender(TulipDriver d, MacAddress src, MacAddress dst, AtomicLong delivered,
                                 AtomicBoolean done, int window, AtomicReference<Throwable> failure) {
        return Thread.ofPlatform().name(d.name() + "-send").unstarted(() -> {
            try {
                int idle = 0;
                long deadline = System.nanoTime() + TIMEOUT;
                for (int seq = 0; seq < FRAMES && failure.get() == null; ) {
                    int h = seq - delivered.get() < window ? d.claim() : FramePort.NONE;
                    if (h == FramePort.NONE) {
                        idle = backOff(idle);
                        if (System.nanoTime() > deadline) {
                            throw new AssertionError(d.name() + ": stuck at frame " + seq + " " + d.counters());
                        }
                        continue;
                    }
                    idle = 0;
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
            } finally {
                done.set(true);
            }
        });
    }

    private static Thread receiver(TulipDriver d, int dir, Result r, AtomicLong delivered, AtomicBoolean senderDone,
                                   AtomicReference<Throwable> failure) {
        return Thread.ofPlatform().name(d.name() + "-recv").unstarted(() -> {
            try {
                int expected = 0;
                while (expected < FRAMES && failure.get() == null) {
                    int h = d.await(100, TimeUnit.MILLISECONDS);
                    if (h == FramePort.NONE) {
                        // A flood may lose its last frames: once the sender is done and nothing came for a while,
                        // they are gaps like any other (and must be counted by the card or the kernel).
                        long quiet = System.nanoTime() - lastProgress[dir];
                        if (senderDone.get() && quiet > TAIL_NANOS || quiet > TIMEOUT) {
                            r.gaps[dir] += FRAMES - expected;
                            break;
                        }
                        continue;
                    }
                    lastProgress[dir] = System.nanoTime();
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

    /** When each direction's receiver last got a frame (a flood's tail may be lost: then it stops waiting). */
    private static final long[] lastProgress = new long[2];

    private static int backOff(int idle) {
        if (idle < 50) {
            Thread.onSpinWait();
        } else if (idle < 100) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(20_000L);
        }
        return idle + 1;
    }
}
