package io.nicbridge.bridge.queue;

import static io.nicbridge.contract.Dec21140.BUFFER_SIZE_MAX;
import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.memory.DmaSpace;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The card-side views run against memory a buggy or hostile host/user can scribble on. Whatever is in that
 * memory, they must only return their documented results (bus error, empty, overrun, protocol error) and never
 * throw or touch memory outside what the DMA view and the queue regions allow.
 */
class PeerGarbageTest {
    private static final long SEED = 0x5EED_2114_0L;
    private Arena arena;

    @BeforeEach
    void setUp() {
        arena = Arena.ofConfined();
    }

    @AfterEach
    void tearDown() {
        arena.close();
    }

    private static void scribble(MemorySegment s, SplittableRandom rnd) {
        for (long o = 0; o + 4 <= s.byteSize(); o += 4) {
            s.set(ValueLayout.JAVA_INT_UNALIGNED, o, rnd.nextInt());
        }
    }

    @Test
    void walkerOverRandomDescriptorsOnlyReportsBusErrorsOrOwnership() {
        SplittableRandom rnd = new SplittableRandom(SEED);
        long base = 0x4000;
        MemorySegment mem = arena.allocate(4096, 64);
        DmaSpace dma = new DmaSpace("21140");
        dma.registerAt("list", mem, base);
        Dec21140DescriptorWalker w = new Dec21140DescriptorWalker(dma);
        int busErrors = 0;
        int cardOwned = 0;
        for (int run = 0; run < 2000; run++) {
            scribble(mem, rnd);
            // Aim some word-3 pointers back into the list so chains go somewhere, others anywhere.
            for (int d = 0; d < 4096 / 16; d += 1 + rnd.nextInt(3)) {
                mem.set(ValueLayout.JAVA_INT_UNALIGNED, d * 16L + 12, (int) (base + rnd.nextInt(4096)));
            }
            w.setSkipLength(rnd.nextInt(32));
            w.setListBase(base + (rnd.nextInt(256) * 16L));
            for (int step = 0; step < 64; step++) {
                int f = w.fetch();
                if (f == Dec21140DescriptorWalker.FETCH_BUS_ERROR) {
                    busErrors++;
                    break;
                }
                if (f == Dec21140DescriptorWalker.FETCH_HOST_OWNED) {
                    break;
                }
                assertEquals(Dec21140DescriptorWalker.FETCH_CARD_OWNED, f);
                cardOwned++;
                long next = w.nextAddress();
                assertTrue(next >= 0 && next <= 0xFFFF_FFFFL, "a 32-bit bus address");
                assertTrue(w.buffer1Size() <= BUFFER_SIZE_MAX && w.buffer2Size() <= BUFFER_SIZE_MAX);
                w.complete(rnd.nextInt() & 0x7FFF_FFFF);
                w.advance();
            }
        }
        assertTrue(busErrors > 100, "random pointers mostly leave the mapped region: " + busErrors);
        assertTrue(cardOwned > 100, "and some walks do follow card-owned descriptors: " + cardOwned);
        assertEquals(busErrors, w.busErrors());
        assertTrue(dma.busErrors() > 0 && dma.busErrors() <= busErrors,
                "the DMA space counts the translation failures (misaligned pointers stop in the walker)");
    }

    @Test
    void niSideQueuesOverRandomMemoryNeverThrow() {
        SplittableRandom rnd = new SplittableRandom(SEED + 1);
        MemorySegment page = arena.allocate(EP_PAGE_SIZE, 64);
        MemorySegment rq = arena.allocate(16L * RECV_DESC_SIZE, 64);
        long sent = 0;
        long popped = 0;
        long received = 0;
        long errors = 0;
        for (int run = 0; run < 3000; run++) {
            scribble(page, rnd);
            scribble(rq, rnd);
            if (rnd.nextBoolean()) {
                // Plausible-looking indices (some just over the limit), garbage descriptors.
                ValueLayout.OfInt be = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
                page.set(be, EPCB_SQ_PROD_OFS, page.get(be, EPCB_SQ_CONS_OFS) + rnd.nextInt(40));
                page.set(be, EPCB_FQ_PROD_OFS, page.get(be, EPCB_FQ_CONS_OFS) + rnd.nextInt(140));
            }
            UnetNiSendQueue sq = new UnetNiSendQueue(page);
            UnetNiFreeQueue fq = new UnetNiFreeQueue(page);
            UnetNiReceiveQueue nrq = new UnetNiReceiveQueue(rq, 0, 16, page);
            for (int k = 0; k < 40; k++) {
                long d = sq.poll();
                if (d >= 0) {
                    assertTrue(d >= SQ_OFS && d + SEND_DESC_SIZE <= SQ_OFS + SQ_LEN * SEND_DESC_SIZE);
                    sq.length(d);
                    sq.nbufs(d);
                    sq.bufferOffset(d, 5);
                    sq.complete(d, sq.isValid(d) ? TX_STATUS_SENT : TX_STATUS_BAD_CHANNEL);
                    sent++;
                }
                if (fq.poll() >= 0) {
                    popped++;
                }
                long r = nrq.claim();
                if (r >= 0) {
                    nrq.publish(r, 10, 1, 1, 0);
                    received++;
                }
            }
            errors += sq.protocolErrors() + fq.protocolErrors();
        }
        assertTrue(errors > 1000, "most random indices are impossible and counted: " + errors);
        assertTrue(sent > 0 && popped > 0 && received > 0, "plausible random indices are served");
    }

    @Test
    void userSideQueuesOverRandomNiIndicesNeverThrow() {
        SplittableRandom rnd = new SplittableRandom(SEED + 2);
        MemorySegment page = arena.allocate(EP_PAGE_SIZE, 64);
        for (int run = 0; run < 3000; run++) {
            page.fill((byte) 0);
            UnetSendQueue sq = new UnetSendQueue(page);
            UnetFreeQueue fq = new UnetFreeQueue(page);
            for (int k = 0; k < 40; k++) {
                page.set(ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN), EPCB_SQ_CONS_OFS,
                        rnd.nextBoolean() ? rnd.nextInt() : sq.producerIndex() - rnd.nextInt(40));
                page.set(ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN), EPCB_FQ_CONS_OFS,
                        rnd.nextBoolean() ? rnd.nextInt() : fq.producerIndex() - rnd.nextInt(200));
                sq.offer(1, 64, 64);
                sq.pollCompletion();
                fq.offer(64, 64);
                assertTrue(Integer.compareUnsigned(sq.inFlight(), SQ_LEN) <= 0, "never more in flight than slots");
            }
        }
    }
}
