package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.bridge.driver.unet.UnetFixture.bytes;
import static io.nicbridge.bridge.driver.unet.UnetFixture.fill;
import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.queue.QueueCode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Sending and receiving through the endpoint API: statuses, inline and buffer reception, poll/await/upcall. */
class UnetEndpointTest {
    private static final int SEG = 64 * 1024;
    private static final int RX_AREA = 32 * 1024;
    private final UnetFixture f = new UnetFixture();
    private UnetEndpoint a;
    private UnetEndpoint b;

    @BeforeEach
    void open() {
        a = f.endpoint(0, SEG);
        b = f.endpoint(1, SEG);
        f.connect(a, 0, b, 0, 100, 101);
        assertEquals(16, b.postReceiveBuffers(RX_AREA, 16, 512));
        assertEquals(16, a.postReceiveBuffers(RX_AREA, 16, 512));
    }

    @AfterEach
    void close() {
        f.close();
    }

    @Test
    void singleCellMessageArrivesInlineWithoutUsingAFreeBuffer() {
        MemorySegment src = MemorySegment.ofArray(new byte[40]);
        fill(src, 0, 40, 3);
        int free = b.freeBuffersPosted();
        assertTrue(a.sendInline(0, src, 0, 40));
        assertEquals(TX_STATUS_SENT, a.pollSendCompletion());
        long d = b.poll();
        assertTrue(d >= 0);
        assertTrue(b.isInline(d));
        assertEquals(40, b.length(d));
        assertEquals(0, b.channel(d));
        assertEquals(0, b.bufferCount(d));
        MemorySegment dst = MemorySegment.ofArray(new byte[40]);
        assertEquals(40, b.copyTo(d, dst, 0));
        assertArrayEquals(bytes(src, 0, 40), bytes(dst, 0, 40));
        assertEquals(free, b.freeBuffersPosted(), "no free buffer consumed");
        assertEquals(d, b.poll(), "polling before release returns the same descriptor");
        b.release(d);
        assertEquals(QueueCode.EMPTY, b.poll());
        assertEquals(1, b.received());
        assertEquals(40, b.receivedBytes());
    }

    @Test
    void longerMessagesLandInFreeBuffersAndAreRecycledOnRelease() {
        fill(a.segment(), 0, 1500, 9);
        assertTrue(a.send(0, 0, 1500));
        assertEquals(TX_STATUS_SENT, a.pollSendCompletion());
        long d = b.poll();
        assertFalse(b.isInline(d));
        assertEquals(1500, b.length(d));
        assertEquals(3, b.bufferCount(d), "512-byte buffers: 512 + 512 + 476");
        assertEquals(512, b.bufferLength(d, 0));
        assertEquals(476, b.bufferLength(d, 2));
        assertEquals(13, b.freeBuffersPosted());
        MemorySegment dst = MemorySegment.ofArray(new byte[1500]);
        b.copyTo(d, dst, 0);
        assertArrayEquals(bytes(a.segment(), 0, 1500), bytes(dst, 0, 1500));
        MemorySegment part = MemorySegment.ofArray(new byte[100]);
        assertEquals(100, b.copyRange(d, 500, part, 0, 100), "a range across the buffer boundary");
        assertArrayEquals(bytes(a.segment(), 500, 100), bytes(part, 0, 100));
        b.release(d);
        assertEquals(16, b.freeBuffersPosted(), "all three buffers re-posted whole");
    }

    @Test
    void gatherSendFromSeveralSegmentBuffers() {
        fill(a.segment(), 0, 100, 1);
        fill(a.segment(), 4096, 200, 2);
        long s = a.claimSend();
        a.putSendBuffer(s, 0, 0, 100);
        a.putSendBuffer(s, 1, 4096, 200);
        a.commitSend(s, 300, 0, 2);
        assertEquals(TX_STATUS_SENT, a.pollSendCompletion());
        long d = b.poll();
        MemorySegment dst = MemorySegment.ofArray(new byte[300]);
        b.copyTo(d, dst, 0);
        assertArrayEquals(bytes(a.segment(), 0, 100), bytes(dst, 0, 100));
        assertArrayEquals(bytes(a.segment(), 4096, 200), bytes(dst, 100, 200));
        b.release(d);
    }

    @Test
    void everySendStatusIsSurfacedAndCounted() {
        assertTrue(a.send(0, 0, 64));
        assertEquals(TX_STATUS_SENT, a.pollSendCompletion());
        assertTrue(a.send(5, 0, 64)); // channel 5 never opened
        assertEquals(TX_STATUS_BAD_CHANNEL, a.pollSendCompletion());
        assertTrue(a.send(0, SEG - 10, 64)); // runs past the end of the segment
        assertEquals(TX_STATUS_SEG_BOUNDS, a.pollSendCompletion());
        assertEquals(EP_SEGFAULT, a.status() & EP_SEGFAULT);
        long s = a.claimSend();
        a.putSendBuffer(s, 0, 0, 100);
        a.commitSend(s, 60, 0, 1); // descriptor length disagrees with its buffers
        assertEquals(TX_STATUS_BAD_DESC, a.pollSendCompletion());
        s = a.claimSend();
        a.putSendBuffer(s, 0, 0, 70_000); // a buffer longer than any PDU
        a.commitSend(s, 100, 0, 1);
        assertEquals(TX_STATUS_TOO_LONG, a.pollSendCompletion());
        f.kernel.closeChannel(a, 0);
        assertTrue(a.send(0, 0, 64));
        assertEquals(TX_STATUS_BAD_CHANNEL, a.pollSendCompletion());
        assertEquals(1, a.sendCompletions(TX_STATUS_SENT));
        assertEquals(2, a.sendCompletions(TX_STATUS_BAD_CHANNEL));
        assertEquals(1, a.sendCompletions(TX_STATUS_SEG_BOUNDS));
        assertEquals(1, a.sendCompletions(TX_STATUS_TOO_LONG));
        assertEquals(1, a.sendCompletions(TX_STATUS_BAD_DESC));
        assertEquals(5, a.epcbWord(EPCB_TX_REJECTED_OFS));
        assertEquals(QueueCode.EMPTY, a.pollSendCompletion());

        f.kernel.openChannel(a, 0, 0, 100, 101);
        f.card.dma.unregister(a.segmentBusAddress()); // the segment vanishes from the card's DMA space
        assertTrue(a.send(0, 0, 64));
        assertEquals(TX_STATUS_DMA_ERROR, a.pollSendCompletion());
        assertEquals(1, a.sendCompletions(TX_STATUS_DMA_ERROR));
        f.card.dma.registerAt("again", a.segment(), a.segmentBusAddress());
        assertThrows(IllegalArgumentException.class, () -> a.sendInline(0, a.segment(), 0, 41));
        assertThrows(IllegalArgumentException.class, () -> a.send(64, 0, 10));
    }

    @Test
    void sendQueueFullIsBackPressureNotAnException() {
        f.card.holdTransmit = true; // the i960 is busy: nothing completes
        MemorySegment src = MemorySegment.ofArray(new byte[4]);
        for (int i = 0; i < SQ_LEN; i++) {
            assertTrue(a.sendInline(0, src, 0, 4));
        }
        assertEquals(SQ_LEN, a.sendsInFlight());
        assertFalse(a.sendInline(0, src, 0, 4), "full: back-pressure as a return value");
        assertFalse(a.send(0, 0, 64));
        assertEquals(QueueCode.FULL, a.claimSend());
        f.card.resumeTransmit();
        assertTrue(a.sendInline(0, src, 0, 4), "completions reaped, a slot is free again");
        assertEquals(SQ_LEN, a.sendCompletions(TX_STATUS_SENT));
        int n = 0;
        for (long d = b.poll(); d >= 0; d = b.poll()) {
            b.release(d);
            n++;
        }
        assertEquals(16, n, "RQ_LEN 16: the rest overran the receive queue");
    }

    @Test
    void aCardThatCorruptsSqConsIsReportedAsPeerCorruptNotAsBackPressure() {
        f.card.holdTransmit = true; // nothing completes: the send queue fills
        MemorySegment src = MemorySegment.ofArray(new byte[4]);
        for (int i = 0; i < SQ_LEN; i++) {
            assertTrue(a.sendInline(0, src, 0, 4));
        }
        ValueLayout.OfInt word = ValueLayout.JAVA_INT.withOrder(BYTE_ORDER);
        int produced = a.page().get(word, EPCB_SQ_PROD_OFS);
        a.page().set(word, EPCB_SQ_CONS_OFS, produced + 1000); // consumed more than was ever posted
        assertEquals(QueueCode.PEER_CORRUPT, a.pollSendCompletion());
        assertEquals(QueueCode.PEER_CORRUPT, a.claimSend(), "full, but the reap meets the impossible sq_cons");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> a.sendInline(0, src, 0, 4),
                "not false: reaping and retrying would never help");
        assertTrue(e.getMessage().contains("impossible"), e.getMessage());
        assertEquals(0, a.sendCompletions(TX_STATUS_SENT), "no completion was read from the corrupt index");
        assertEquals(5, a.peerProtocolErrors(), "every look counts: 1 poll, then a reap and a claim per call");
    }

    @Test
    void aCardThatCorruptsFqConsIsReportedWhenTheFreeQueueLooksFull() {
        ValueLayout.OfInt word = ValueLayout.JAVA_INT.withOrder(BYTE_ORDER);
        a.page().set(word, EPCB_FQ_CONS_OFS, a.page().get(word, EPCB_FQ_PROD_OFS) - 1000);
        int accepted = 0;
        IllegalStateException e = null;
        for (int i = 0; i <= FQ_LEN && e == null; i++) {
            try {
                assertTrue(a.offerFreeBufferUnchecked(RX_AREA, 512), "no back-pressure before the index is read");
                accepted++;
            } catch (IllegalStateException corrupt) {
                e = corrupt;
            }
        }
        assertNotNull(e, "the impossible fq_cons must surface once the cached index says full");
        assertEquals(FQ_LEN - 16, accepted, "the 16 buffers posted at set-up plus these fill the cached view");
        assertEquals(0, a.freeQueueFull(), "a corrupt index is not counted as a full free queue");
        assertEquals(1, a.peerProtocolErrors());
    }

    @Test
    void aRejectedSendOnAFullQueueReapsNothing() {
        MemorySegment src = MemorySegment.ofArray(new byte[4]);
        for (int i = 0; i < SQ_LEN; i++) {
            assertTrue(a.sendInline(0, src, 0, 4)); // the inline card completes each at once: SQ_LEN uncollected
        }
        assertEquals(SQ_LEN, a.sendsInFlight());
        assertThrows(IllegalArgumentException.class, () -> a.send(MAX_CHANNELS, 0, 64));
        assertThrows(IllegalArgumentException.class, () -> a.send(0, 0, MAX_PDU + 1));
        assertThrows(IllegalArgumentException.class, () -> a.sendInline(-1, src, 0, 4));
        assertEquals(SQ_LEN, a.sendsInFlight(), "a rejected call collected no completion");
        assertEquals(0, a.sendCompletions(TX_STATUS_SENT), "and counted none");
        assertTrue(a.send(0, 0, 64), "a valid call reaps to make room");
        assertEquals(SQ_LEN, a.sendCompletions(TX_STATUS_SENT));
    }

    @Test
    void postingReceiveBuffersRejectsARangeWhoseEndOverflows() {
        UnetEndpoint c = f.endpoint(2, SEG);
        // 64 + 64 * (2^25 - 1) + 64 = 2^31 + 64: past the segment, and past int if formed in int; near Long.MAX_VALUE
        // for the offset the long sum wrapped negative and passed the check before the fix.
        assertThrows(IllegalArgumentException.class, () -> c.postReceiveBuffers(64, 1 << 25, 64));
        assertThrows(IllegalArgumentException.class,
                () -> c.postReceiveBuffers(Long.MAX_VALUE & -FQ_BUF_ALIGN, 2, 64));
        assertThrows(IllegalArgumentException.class,
                () -> c.postReceiveBuffers(64, Integer.MAX_VALUE, Integer.MAX_VALUE - 64));
        assertEquals(0, c.freeBuffersPosted());
        assertEquals(1, c.postReceiveBuffers(SEG - 512, 1, 512), "the last buffer may end exactly at the segment's end");
    }

    @Test
    void postingNoBuffersDoesNotFixTheReceiveBufferSize() {
        UnetEndpoint c = f.endpoint(2, SEG);
        assertEquals(0, c.postReceiveBuffers(0, 0, 256));
        assertEquals(4, c.postReceiveBuffers(0, 4, 512), "the empty post did not latch 256 bytes");
        assertThrows(IllegalArgumentException.class, () -> c.postReceiveBuffers(4096, 1, 256));
    }

    @Test
    void copyingAnInlineMessageReturnsTheBytesActuallyCopied() {
        assertTrue(a.sendInline(0, MemorySegment.ofArray(new byte[40]), 0, 8));
        long d = b.poll();
        assertTrue(b.isInline(d));
        // A card that claims more than the descriptor can carry (the length word is the card's, not the host's).
        MemorySegment rq = b.receiveQueueSegment();
        java.lang.foreign.ValueLayout.OfInt w0 = java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(BYTE_ORDER);
        rq.set(w0, d, (rq.get(w0, d) & ~RX_LENGTH_MASK) | 100);
        assertEquals(100, b.length(d));
        MemorySegment dst = MemorySegment.ofArray(new byte[100]);
        assertEquals(INLINE_MAX, b.copyRange(d, 0, dst, 0, 100), "only the descriptor's 40 bytes exist");
        assertEquals(INLINE_MAX, b.copyTo(d, dst, 0));
        assertEquals(10, b.copyRange(d, 30, dst, 0, 100));
        assertEquals(0, b.copyRange(d, 50, dst, 0, 10), "past the inline bytes nothing is copied");
        b.release(d);
    }

    @Test
    void everyReceiveErrorIsSurfaced() {
        fill(a.segment(), 0, 200, 5);
        f.card.failNextReceive(RX_ERR_CRC);
        a.send(0, 0, 200);
        f.card.failNextReceive(RX_ERR_LENGTH);
        a.send(0, 0, 200);
        long d = b.poll();
        assertTrue(b.isError(d));
        assertEquals(RX_ERR_CRC, b.errorCode(d));
        b.release(d);
        d = b.poll();
        assertEquals(RX_ERR_LENGTH, b.errorCode(d));
        b.release(d);

        a.send(0, 0, 640); // two 512-byte buffers
        d = b.poll();
        assertFalse(b.isError(d));
        b.release(d);

        a.send(0, 0, 4000); // 8 buffers of 512 > 6
        d = b.poll();
        assertEquals(RX_ERR_TOO_MANY_BUFS, b.errorCode(d));
        b.release(d);

        UnetEndpoint c = f.endpoint(2, SEG);
        f.kernel.openChannel(a, 1, 0, 102, 103);
        f.kernel.openChannel(c, 0, 0, 103, 102);
        f.card.connect(102, 102);
        a.send(1, 0, 100); // c posted no free buffers
        d = c.poll();
        assertEquals(RX_ERR_NO_BUFFERS, c.errorCode(d));
        assertEquals(EP_NO_FREE_BUF, c.status() & EP_NO_FREE_BUF);
        assertEquals(1, c.epcbWord(EPCB_DROP_NO_FREE_BUF_OFS));
        c.release(d);

        assertTrue(c.offerFreeBufferUnchecked(SEG + 4096, 512)); // outside c's segment
        a.send(1, 0, 100);
        d = c.poll();
        assertEquals(RX_ERR_DMA, c.errorCode(d));
        c.releaseKeepBuffers(d);

        assertEquals(1, b.receiveErrors(RX_ERR_CRC));
        assertEquals(1, b.receiveErrors(RX_ERR_LENGTH));
        assertEquals(1, b.receiveErrors(RX_ERR_TOO_MANY_BUFS));
        assertEquals(1, c.receiveErrors(RX_ERR_NO_BUFFERS));
        assertEquals(1, c.receiveErrors(RX_ERR_DMA));
        assertEquals(1, f.kernel.readStatistics().aal5CrcErrors());
    }

    @Test
    void receiveQueueOverrunIsCountedByTheCard() {
        MemorySegment src = MemorySegment.ofArray(new byte[8]);
        for (int i = 0; i < 20; i++) { // RQ_LEN 16
            a.sendInline(0, src, 0, 8);
        }
        assertEquals(4, b.epcbWord(EPCB_DROP_RQ_OVERRUN_OFS));
        assertEquals(EP_RQ_OVERRUN, b.status() & EP_RQ_OVERRUN);
        int n = 0;
        for (long d = b.poll(); d >= 0; d = b.poll()) {
            b.release(d);
            n++;
        }
        assertEquals(16, n);
    }

    @Test
    void awaitTimesOutThenWakesOnArrivalFromAnotherThread() throws Exception {
        long t0 = System.nanoTime();
        assertEquals(QueueCode.EMPTY, b.await(20, TimeUnit.MILLISECONDS));
        assertTrue(System.nanoTime() - t0 >= 20_000_000L);
        assertEquals(UPCALL_NONEMPTY, b.upcallMode(), "blocking asked the kernel for non-empty signals");
        CountDownLatch waiting = new CountDownLatch(1);
        Thread sender = new Thread(() -> {
            try {
                waiting.await();
                Thread.sleep(30);
            } catch (InterruptedException e) {
                return;
            }
            a.sendInline(0, MemorySegment.ofArray(new byte[12]), 0, 12);
        });
        sender.start();
        waiting.countDown();
        long d = b.await(5, TimeUnit.SECONDS);
        sender.join();
        assertTrue(d >= 0);
        assertEquals(12, b.length(d));
        assertTrue(b.signals() >= 1, "woken by the card's signal");
        b.release(d);
    }

    @Test
    void oneUpcallConsumesEveryPendingMessage() {
        List<Integer> lengths = new ArrayList<>();
        b.upcall((ep, d) -> lengths.add(ep.length(d)), UPCALL_NONEMPTY);
        b.disableUpcalls();
        MemorySegment src = MemorySegment.ofArray(new byte[40]);
        for (int i = 1; i <= 5; i++) {
            a.sendInline(0, src, 0, i);
        }
        assertEquals(0, lengths.size(), "upcalls disabled: a critical section is atomic relative to reception");
        assertEquals(1, b.deferredSignals(), "one signal: the queue became non-empty once (edge-triggered)");
        assertFalse(b.upcallsEnabled());
        b.enableUpcalls();
        assertEquals(List.of(1, 2, 3, 4, 5), lengths);
        assertEquals(1, b.upcalls(), "one upcall for all five");
        assertEquals(5, b.upcallMessages());
        assertEquals(QueueCode.EMPTY, b.poll(), "the upcall released them");

        a.sendInline(0, src, 0, 7);
        assertEquals(List.of(1, 2, 3, 4, 5, 7), lengths, "enabled: the upcall runs on arrival");
        assertEquals(2, b.upcalls());
    }

    @Test
    void criticalSectionsNestAndUnbalancedEnableIsMisuse() {
        List<Integer> got = new ArrayList<>();
        b.upcall((ep, d) -> got.add(ep.length(d)), UPCALL_NONEMPTY);
        b.disableUpcalls();
        b.disableUpcalls();
        a.sendInline(0, MemorySegment.ofArray(new byte[4]), 0, 4);
        b.enableUpcalls();
        assertTrue(got.isEmpty(), "still inside the outer section");
        b.enableUpcalls();
        assertEquals(List.of(4), got);
        assertThrows(IllegalStateException.class, b::enableUpcalls);
    }

    @Test
    void anUpcallHandlerThatSendsAndDisablesDoesNotDeadlockOrRecurse() {
        // b echoes every message from inside its upcall (inline card: the echo re-enters the card)
        List<Integer> echoedAtA = new ArrayList<>();
        b.upcall((ep, d) -> {
            ep.disableUpcalls();
            ep.sendInline(0, MemorySegment.ofArray(new byte[40]), 0, ep.length(d));
            ep.enableUpcalls();
        }, UPCALL_NONEMPTY);
        a.upcall((ep, d) -> echoedAtA.add(ep.length(d)), UPCALL_NONEMPTY);
        a.sendInline(0, MemorySegment.ofArray(new byte[40]), 0, 9);
        assertEquals(List.of(9), echoedAtA);
        assertEquals(1, b.upcalls());
    }

    @Test
    void almostFullModeSignalsOnlyAtThreeQuarters() {
        List<Integer> got = new ArrayList<>();
        b.upcall((ep, d) -> got.add(ep.length(d)), UPCALL_ALMOST_FULL);
        MemorySegment src = MemorySegment.ofArray(new byte[8]);
        for (int i = 0; i < 11; i++) {
            a.sendInline(0, src, 0, 8);
        }
        assertTrue(got.isEmpty(), "11 of 16 is below 3/4");
        a.sendInline(0, src, 0, 8);
        assertEquals(12, got.size(), "the 12th reaches 3/4 and the upcall drains all of them");
    }

    @Test
    void theHotPathsAllocateNothing() {
        MemorySegment src = MemorySegment.ofArray(new byte[40]);
        MemorySegment dst = MemorySegment.ofArray(new byte[2048]);
        Runnable round = () -> {
            a.sendInline(0, src, 0, 32);
            long d = b.poll();
            b.copyTo(d, dst, 0);
            b.release(d);
            a.send(0, 0, 1024);
            d = b.poll();
            b.copyTo(d, dst, 0);
            b.release(d);
            a.reapSends();
        };
        for (int i = 0; i < 20_000; i++) {
            round.run(); // warm up (JIT, escape analysis)
        }
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 10_000; i++) {
            round.run();
        }
        long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 16 * 1024, "10,000 rounds (4 messages each way of the API) allocated " + allocated + " bytes");
    }
}
