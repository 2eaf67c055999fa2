package io.nicbridge.bridge.queue;

import static io.nicbridge.bridge.queue.Dec21140DescriptorRing.stride;
import static io.nicbridge.contract.Dec21140.*;
import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing.Direction;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing.ListMode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two threads hand millions of entries across each queue. The producer puts a sequence number and words derived
 * from it (with a checksum) in every entry; the consumer checks the exact sequence 0..N-1 and every word, so a
 * lost, duplicated or reordered entry, or a payload read before it was fully written (a torn or stale entry),
 * fails the test. Entry count: system property {@code nicbridge.stress.entries} (default 4,000,000).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OwnershipHandoffStressTest {
    private static final int N = Integer.getInteger("nicbridge.stress.entries", 4_000_000);
    private static final ValueLayout.OfInt BE = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    private static final long RING_BUS = 0x0100_0000L;

    private Arena arena;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    @BeforeEach
    void setUp() {
        arena = Arena.ofShared();
    }

    @AfterEach
    void tearDown() {
        arena.close();
    }

    /** Runs both sides on their own daemon threads and rethrows the first failure of either. */
    private void runPair(String name, Runnable producer, Runnable consumer) throws InterruptedException {
        runPair(name, N, producer, consumer);
    }

    private void runPair(String name, int entries, Runnable producer, Runnable consumer) throws InterruptedException {
        Thread p = Thread.ofPlatform().daemon().name(name + "-producer").unstarted(guard(producer));
        Thread c = Thread.ofPlatform().daemon().name(name + "-consumer").unstarted(guard(consumer));
        long start = System.nanoTime();
        p.start();
        c.start();
        p.join();
        c.join();
        Throwable t = failure.get();
        if (t != null) {
            fail(name + ": " + t, t);
        }
        System.out.printf("%s: %,d entries handed over in %d ms%n", name, entries, (System.nanoTime() - start) / 1_000_000);
    }

    private Runnable guard(Runnable r) {
        return () -> {
            try {
                r.run();
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        };
    }

    private boolean failed() {
        return failure.get() != null;
    }

    private static void check(boolean ok, String what, long seq) {
        if (!ok) {
            throw new AssertionError(what + " at sequence " + seq);
        }
    }

    // ------------------------------------------------------------------ DEC 21140

    private static int cardStatus(int seq) {
        return mix(seq ^ 0x5A5A_5A5A) & ~TDES0_OWN; // RDES0_OWN is the same bit
    }

    /**
     * The host side of a one-descriptor-per-frame 21140 stress run: posts entries 0..N-1 through {@code tryPost}
     * (false = ring full, try again) and reclaims each, checking the status the card wrote; backs off when idle.
     */
    private Runnable hostPostsAndReclaims(Dec21140DescriptorRing ring, java.util.function.IntPredicate tryPost) {
        return () -> {
            IdleStrategy backoff = new BackoffIdle(50, 50, 20_000L, 20_000L); // two busy threads share 2 cores
            int posted = 0;
            int reclaimed = 0;
            while (reclaimed < N && !failed()) {
                boolean progress = false;
                if (posted < N && tryPost.test(posted)) {
                    posted++;
                    progress = true;
                }
                int i = ring.reclaim();
                if (i >= 0) {
                    check(ring.status(i) == cardStatus(reclaimed), "status written by the card", reclaimed);
                    reclaimed++;
                    progress = true;
                }
                if (progress) {
                    backoff.reset();
                } else {
                    backoff.idle();
                }
            }
        };
    }

    /**
     * The card side: fetches descriptors 0..N-1 as they become card-owned, lets {@code verify} check descriptor
     * {@code seq}'s contents, then completes it with {@link #cardStatus} and advances; backs off while host-owned.
     */
    private Runnable cardWalksAndCompletes(Dec21140DescriptorWalker walker,
                                                  java.util.function.IntConsumer verify) {
        return () -> {
            IdleStrategy backoff = new BackoffIdle(50, 50, 20_000L, 20_000L); // two busy threads share 2 cores
            int seq = 0;
            while (seq < N && !failed()) {
                int f = walker.fetch();
                if (f == Dec21140DescriptorWalker.FETCH_HOST_OWNED) {
                    backoff.idle();
                    continue;
                }
                backoff.reset();
                check(f == Dec21140DescriptorWalker.FETCH_CARD_OWNED, "bus error", seq);
                verify.accept(seq);
                walker.complete(cardStatus(seq));
                walker.advance();
                seq++;
            }
        };
    }

    @Test
    void dec21140TransmitRingHostPostsCardWalksAndReturns() throws InterruptedException {
        int count = 64;
        int dsl = 2;
        MemorySegment mem = arena.allocate((long) count * stride(dsl), 64);
        Dec21140DescriptorRing ring = new Dec21140DescriptorRing(mem, RING_BUS, count, dsl, Direction.TRANSMIT, ListMode.RING);
        DmaSpace dma = new DmaSpace("21140");
        dma.registerAt("ring", mem, RING_BUS);
        Dec21140DescriptorWalker walker = new Dec21140DescriptorWalker(dma);
        walker.setSkipLength(dsl);
        walker.setListBase(RING_BUS);

        Runnable host = hostPostsAndReclaims(ring, posted -> {
            int sum = mix(posted);
            return ring.transmit(posted, posted & TDES1_TBS1_MASK, sum >>> 1, 1 + (sum & 0x3FF),
                (posted & 15) == 0 ? TDES1_IC : 0) >= 0;
        });
        Runnable card = cardWalksAndCompletes(walker, seq -> {
            int sum = mix(seq);
            check(walker.buffer1Address() == seq, "buffer 1 address", seq);
            check(walker.buffer1Size() == (seq & TDES1_TBS1_MASK), "buffer 1 size", seq);
            check(walker.buffer2Address() == (sum >>> 1), "buffer 2 address (checksum)", seq);
            check(walker.buffer2Size() == 1 + (sum & 0x3FF), "buffer 2 size", seq);
            check((walker.control() & (TDES1_FS | TDES1_LS)) == (TDES1_FS | TDES1_LS), "FS|LS", seq);
            check(((walker.control() & TDES1_IC) != 0) == ((seq & 15) == 0), "IC", seq);
        });
        runPair("dec21140-tx-ring", host, card);
        assertEquals(N, walker.completed());
        assertEquals(N, ring.reclaimedDescriptors());
    }

    @Test
    void dec21140ReceiveChainHostArmsCardFillsAndReturns() throws InterruptedException {
        int count = 32;
        MemorySegment mem = arena.allocate((long) count * DESC_SIZE, 64);
        Dec21140DescriptorRing ring = new Dec21140DescriptorRing(mem, RING_BUS, count, 0, Direction.RECEIVE,
                ListMode.CHAIN, ByteOrder.BIG_ENDIAN);
        DmaSpace dma = new DmaSpace("21140");
        dma.registerAt("ring", mem, RING_BUS);
        Dec21140DescriptorWalker walker = new Dec21140DescriptorWalker(dma, ByteOrder.BIG_ENDIAN);
        walker.setListBase(RING_BUS);

        Runnable host = hostPostsAndReclaims(ring,
            posted -> ring.postReceive(((long) posted << 2) & 0x7FFF_FFFCL, 4 * (1 + posted % 511)) >= 0);
        Runnable card = cardWalksAndCompletes(walker, seq -> {
            check(walker.buffer1Address() == (((long) seq << 2) & 0x7FFF_FFFCL), "buffer address", seq);
            check(walker.buffer1Size() == 4 * (1 + seq % 511), "buffer size", seq);
            check(walker.isChained() && walker.buffer2Size() == 0, "chain bit", seq);
        });
        runPair("dec21140-rx-chain", host, card);
        assertEquals(N, walker.completed());
    }

    @Test
    void dec21140MultiDescriptorFramesAppearToTheCardWhole() throws InterruptedException {
        int count = 16;
        int frames = N / 4;
        MemorySegment mem = arena.allocate((long) count * DESC_SIZE, 64);
        Dec21140DescriptorRing ring = new Dec21140DescriptorRing(mem, RING_BUS, count, 0, Direction.TRANSMIT, ListMode.RING);
        DmaSpace dma = new DmaSpace("21140");
        dma.registerAt("ring", mem, RING_BUS);
        Dec21140DescriptorWalker walker = new Dec21140DescriptorWalker(dma);
        walker.setListBase(RING_BUS);

        Runnable host = () -> {
            IdleStrategy backoff = new BackoffIdle(50, 50, 20_000L, 20_000L); // two busy threads share 2 cores
            int frame = 0;
            long reclaimed = 0;
            while ((frame < frames || ring.inFlight() > 0) && !failed()) {
                boolean progress = false;
                if (frame < frames) {
                    int parts = 1 + (frame & 3);
                    if (ring.claimTransmit(parts) >= 0) {
                        for (int k = 0; k < parts; k++) {
                            ring.addTransmitBuffers(frame, k + 1, mix(frame) >>> 1, parts);
                        }
                        ring.commitTransmit(TDES1_IC);
                        frame++;
                        progress = true;
                    }
                }
                if (ring.reclaim() >= 0) {
                    reclaimed++;
                    progress = true;
                }
                if (progress) {
                    backoff.reset();
                } else {
                    backoff.idle();
                }
            }
        };
        Runnable card = () -> {
            IdleStrategy backoff = new BackoffIdle(50, 50, 20_000L, 20_000L); // two busy threads share 2 cores
            int frame = 0;
            while (frame < frames && !failed()) {
                int f = walker.fetch();
                if (f == Dec21140DescriptorWalker.FETCH_HOST_OWNED) {
                    backoff.idle();
                    continue;
                }
                backoff.reset();
                int parts = 1 + (frame & 3);
                for (int k = 0; k < parts; k++) {
                    if (k > 0) {
                        // The chip is mid-frame: a host-owned descriptor here would be an underflow.
                        check(walker.fetch() == Dec21140DescriptorWalker.FETCH_CARD_OWNED,
                                "descriptor " + k + " of a committed frame still host-owned", frame);
                    }
                    int c = walker.control();
                    check(((c & TDES1_FS) != 0) == (k == 0), "FS", frame);
                    check(((c & TDES1_LS) != 0) == (k == parts - 1), "LS", frame);
                    check(walker.buffer1Address() == frame && walker.buffer1Size() == k + 1, "buffer 1", frame);
                    check(walker.buffer2Address() == (mix(frame) >>> 1) && walker.buffer2Size() == parts, "buffer 2", frame);
                    walker.complete(k == parts - 1 ? cardStatus(frame) : 0);
                    walker.advance();
                }
                frame++;
            }
        };
        runPair("dec21140-multi-descriptor (frames)", frames, host, card);
        assertEquals(0, ring.inFlight());
    }

    // ------------------------------------------------------------------ U-Net

    private static final int COUNTER_START = 0xFFFF_FFF0; // the 32-bit counters wrap early in every run

    @Test
    void unetSendQueueUserToNi() throws InterruptedException {
        MemorySegment page = arena.allocate(EP_PAGE_SIZE, 64);
        page.set(BE, EPCB_SQ_PROD_OFS, COUNTER_START);
        page.set(BE, EPCB_SQ_CONS_OFS, COUNTER_START);
        UnetSendQueue user = new UnetSendQueue(page);
        UnetNiSendQueue ni = new UnetNiSendQueue(page);

        Runnable producer = () -> {
            IdleStrategy backoff = new BackoffIdle(50, 50, 20_000L, 20_000L); // two busy threads share 2 cores
            int seq = 0;
            while (seq < N && !failed()) {
                long d = user.claim();
                if (d < 0) {
                    backoff.idle();
                    continue;
                }
                backoff.reset();
                int sum = 0;
                for (int w = 2; w < 13; w++) {
                    int v = w == 2 ? seq : mix(seq + w);
                    user.putWord(d, w, v);
                    sum += v * w;
                }
                user.putWord(d, 13, sum);
                user.commit(d, seq & 0xFFFF, seq & 63, 1 + Integer.remainderUnsigned(seq, 6), false);
                seq++;
            }
            while (user.inFlight() > 0 && !failed()) {
                if (user.pollCompletion() < 0) {
                    backoff.idle();
                }
            }
        };
        Runnable consumer = () -> {
            IdleStrategy backoff = new BackoffIdle(50, 50, 20_000L, 20_000L); // two busy threads share 2 cores
            int seq = 0;
            while (seq < N && !failed()) {
                long d = ni.poll();
                if (d < 0) {
                    backoff.idle();
                    continue;
                }
                backoff.reset();
                check(ni.isValid(d), "VALID", seq);
                check(ni.word(d, 2) == seq, "sequence number (lost, duplicated or reordered)", seq);
                int sum = 0;
                for (int w = 2; w < 13; w++) {
                    sum += ni.word(d, w) * w;
                }
                check(ni.word(d, 13) == sum, "checksum (torn descriptor)", seq);
                check(ni.length(d) == (seq & 0xFFFF) && ni.channel(d) == (seq & 63)
                        && ni.nbufs(d) == 1 + Integer.remainderUnsigned(seq, 6), "w0 fields", seq);
                ni.complete(d, TX_STATUS_SENT);
                seq++;
            }
        };
        runPair("unet-send-queue", producer, consumer);
        assertEquals(N, user.completedOk());
        assertEquals(COUNTER_START + N, page.get(BE, EPCB_SQ_CONS_OFS));
        assertEquals(0, ni.protocolErrors());
    }

    @Test
    void unetFreeQueueUserToNi() throws InterruptedException {
        MemorySegment page = arena.allocate(EP_PAGE_SIZE, 64);
        page.set(BE, EPCB_FQ_PROD_OFS, COUNTER_START);
        page.set(BE, EPCB_FQ_CONS_OFS, COUNTER_START);
        UnetFreeQueue user = new UnetFreeQueue(page);
        UnetNiFreeQueue ni = new UnetNiFreeQueue(page);

        Runnable producer = () -> {
            IdleStrategy backoff = new BackoffIdle(50, 50, 20_000L, 20_000L); // two busy threads share 2 cores
            int seq = 0;
            while (seq < N && !failed()) {
                if (user.offer(seq << 6, mix(seq) | 1) >= 0) {
                    seq++;
                    backoff.reset();
                } else {
                    backoff.idle();
                }
            }
        };
        Runnable consumer = () -> {
            IdleStrategy backoff = new BackoffIdle(50, 50, 20_000L, 20_000L); // two busy threads share 2 cores
            int seq = 0;
            while (seq < N && !failed()) {
                if (ni.poll() < 0) {
                    backoff.idle();
                    continue;
                }
                backoff.reset();
                check(ni.offset() == seq << 6, "offset (lost, duplicated or reordered)", seq);
                check(ni.length() == (mix(seq) | 1), "length (torn entry)", seq);
                seq++;
            }
        };
        runPair("unet-free-queue", producer, consumer);
        assertEquals(N, ni.popped());
        assertEquals(COUNTER_START + N, page.get(BE, EPCB_FQ_CONS_OFS));
    }

    @Test
    void unetReceiveQueueNiToUser() throws InterruptedException {
        MemorySegment page = arena.allocate(EP_PAGE_SIZE, 64);
        MemorySegment rq = arena.allocate((long) RQ_LEN_DEFAULT * RECV_DESC_SIZE, 64);
        page.set(BE, EPCB_RQ_CONS_OFS, COUNTER_START);
        page.set(BE, EPCB_RQ_PROD_SHADOW_OFS, COUNTER_START);
        UnetReceiveQueue user = new UnetReceiveQueue(rq, 0, RQ_LEN_DEFAULT, page);
        UnetNiReceiveQueue ni = new UnetNiReceiveQueue(rq, 0, RQ_LEN_DEFAULT, page);

        Runnable producer = () -> {
            IdleStrategy backoff = new BackoffIdle(50, 50, 20_000L, 20_000L); // two busy threads share 2 cores
            int seq = 0;
            while (seq < N && !failed()) {
                long d = ni.claim();
                if (d < 0) {
                    backoff.idle();
                    continue;
                }
                backoff.reset();
                int sum = 0;
                for (int w = 1; w < 15; w++) {
                    int v = w == 1 ? seq : mix(seq * 31 + w);
                    ni.putWord(d, w, v);
                    sum ^= Integer.rotateLeft(v, w);
                }
                ni.putWord(d, 15, sum);
                ni.publish(d, seq & 0xFFFF, seq & 63, Integer.remainderUnsigned(seq, 7), 0);
                seq++;
            }
        };
        Runnable consumer = () -> {
            IdleStrategy backoff = new BackoffIdle(50, 50, 20_000L, 20_000L); // two busy threads share 2 cores
            int seq = 0;
            while (seq < N && !failed()) {
                long d = user.poll();
                if (d < 0) {
                    backoff.idle();
                    continue;
                }
                backoff.reset();
                check(user.word(d, 1) == seq, "sequence number (lost, duplicated or reordered)", seq);
                int sum = 0;
                for (int w = 1; w < 15; w++) {
                    sum ^= Integer.rotateLeft(user.word(d, w), w);
                }
                check(user.word(d, 15) == sum, "checksum (torn descriptor)", seq);
                check(user.length(d) == (seq & 0xFFFF) && user.channel(d) == (seq & 63)
                        && user.nbufs(d) == Integer.remainderUnsigned(seq, 7), "w0 fields", seq);
                user.release(d);
                seq++;
            }
        };
        runPair("unet-receive-queue", producer, consumer);
        assertEquals(N, user.received());
        assertEquals(COUNTER_START + N, page.get(BE, EPCB_RQ_CONS_OFS));
    }

    /** A well-mixed 32-bit function of {@code x} (murmur3 finaliser), used as a payload checksum. */
    static int mix(int x) {
        x ^= x >>> 16;
        x *= 0x85EBCA6B;
        x ^= x >>> 13;
        x *= 0xC2B2AE35;
        x ^= x >>> 16;
        return x;
    }
}
