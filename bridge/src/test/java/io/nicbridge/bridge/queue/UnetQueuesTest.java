package io.nicbridge.bridge.queue;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Single-threaded behaviour of the U-Net queue views: layout, handoff words, back-pressure, wrap-around, misuse. */
class UnetQueuesTest {
    private static final ValueLayout.OfInt BE = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    private Arena arena;
    private MemorySegment page;
    private MemorySegment rq;

    @BeforeEach
    void setUp() {
        arena = Arena.ofConfined();
        page = arena.allocate(EP_PAGE_SIZE, 64);
        rq = arena.allocate(RQ_LEN_DEFAULT * RECV_DESC_SIZE, 64);
    }

    @AfterEach
    void tearDown() {
        arena.close();
    }

    private static void assertMessage(Class<? extends Throwable> type, String fragment, Executable call) {
        Throwable t = assertThrows(type, call);
        assertTrue(t.getMessage().contains(fragment), () -> "message '" + t.getMessage() + "' should mention '" + fragment + "'");
    }

    @Test
    void sendDescriptorLayoutIsBigEndianWithValidLast() {
        UnetSendQueue user = new UnetSendQueue(page);
        long d = user.claim();
        assertEquals(SQ_OFS, d);
        user.putBuffer(d, 0, 0x1000, 1500);
        user.putBuffer(d, 5, 0x2000, 10);
        assertEquals(0, page.get(BE, EPCB_SQ_PROD_OFS), "nothing published before commit");
        assertEquals(0, page.get(BE, d) & TX_VALID);
        user.commit(d, 1510, 5, 6, false);
        assertEquals(TX_VALID | 6 << 24 | 5 << 16 | 1510, page.get(BE, d));
        assertEquals((byte) 0x86, page.get(ValueLayout.JAVA_BYTE, d), "VALID and nbufs are the first byte big-endian");
        assertEquals(1, page.get(BE, EPCB_SQ_PROD_OFS));
        assertEquals(0x2000, page.get(BE, d + 8 + 40));

        UnetNiSendQueue ni = new UnetNiSendQueue(page);
        long n = ni.poll();
        assertEquals(d, n);
        assertTrue(ni.isValid(n));
        assertEquals(1510, ni.length(n));
        assertEquals(5, ni.channel(n));
        assertEquals(6, ni.nbufs(n));
        assertFalse(ni.isInline(n));
        assertEquals(0x1000, ni.bufferOffset(n, 0));
        assertEquals(1500, ni.bufferLength(n, 0));
        assertEquals(QueueCode.EMPTY, user.pollCompletion(), "not completed yet");
        ni.complete(n, TX_STATUS_SENT);
        assertFalse(ni.isValid(n));
        assertEquals(1, page.get(BE, EPCB_SQ_CONS_OFS));
        assertEquals(TX_STATUS_SENT, user.pollCompletion());
        assertEquals(QueueCode.EMPTY, user.pollCompletion());
        assertEquals(QueueCode.EMPTY, ni.poll());
        assertEquals(1, user.completedOk());
    }

    @Test
    void inlineSendCarriesUpToFortyBytes() {
        UnetSendQueue user = new UnetSendQueue(page);
        MemorySegment msg = arena.allocate(40);
        for (int i = 0; i < 40; i++) {
            msg.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
        }
        assertTrue(user.offerInline(9, msg, 0, 40) >= 0);
        UnetNiSendQueue ni = new UnetNiSendQueue(page);
        long n = ni.poll();
        assertTrue(ni.isInline(n));
        assertEquals(0, ni.nbufs(n));
        MemorySegment out = arena.allocate(40);
        ni.copyInline(n, out, 0, 40);
        assertEquals(-1, msg.mismatch(out));
    }

    @Test
    void sendQueueIsFullAtThirtyTwoAndErrorsAreCounted() {
        UnetSendQueue user = new UnetSendQueue(page);
        UnetNiSendQueue ni = new UnetNiSendQueue(page);
        for (int i = 0; i < SQ_LEN; i++) {
            assertTrue(user.offer(i & 63, i * 64, 64) >= 0);
        }
        assertEquals(QueueCode.FULL, user.offer(0, 0, 64), "32 in flight: full");
        assertEquals(QueueCode.FULL, user.claim());
        long n = ni.poll();
        ni.complete(n, TX_STATUS_BAD_CHANNEL);
        assertTrue(user.offer(0, 0, 64) >= 0, "claim() collects the completed descriptor itself");
        assertEquals(1, user.completedWithError());
        assertEquals(SQ_LEN, user.inFlight());
    }

    @Test
    void sendQueueCountersWrapAroundUnsigned() {
        page.set(BE, EPCB_SQ_PROD_OFS, 0xFFFF_FFF0);
        page.set(BE, EPCB_SQ_CONS_OFS, 0xFFFF_FFF0);
        UnetSendQueue user = new UnetSendQueue(page);
        UnetNiSendQueue ni = new UnetNiSendQueue(page);
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < SQ_LEN; i++) {
                assertTrue(user.offer(1, (round * SQ_LEN + i) * 64, 64) >= 0, "round " + round + " entry " + i);
            }
            assertEquals(QueueCode.FULL, user.offer(1, 0, 64), "full across the wrap");
            for (int i = 0; i < SQ_LEN; i++) {
                long n = ni.poll();
                assertEquals(SQ_OFS + (long) ((0xFFFF_FFF0 + round * SQ_LEN + i) & (SQ_LEN - 1)) * SEND_DESC_SIZE, n);
                assertEquals((round * SQ_LEN + i) * 64, ni.bufferOffset(n, 0));
                ni.complete(n, TX_STATUS_SENT);
            }
            assertEquals(QueueCode.EMPTY, ni.poll());
            while (user.pollCompletion() >= 0) {
                // collect
            }
        }
        assertEquals(0xFFFF_FFF0 + 3 * SQ_LEN, page.get(BE, EPCB_SQ_PROD_OFS));
        assertEquals(0xFFFF_FFF0 + 3 * SQ_LEN, page.get(BE, EPCB_SQ_CONS_OFS));
        assertEquals(3 * SQ_LEN, user.completedOk());
    }

    @Test
    void freeQueueRoundTripFullAndWrap() {
        page.set(BE, EPCB_FQ_PROD_OFS, 0xFFFF_FFF0);
        page.set(BE, EPCB_FQ_CONS_OFS, 0xFFFF_FFF0);
        UnetFreeQueue user = new UnetFreeQueue(page);
        UnetNiFreeQueue ni = new UnetNiFreeQueue(page);
        assertEquals(QueueCode.EMPTY, ni.poll());
        for (int i = 0; i < FQ_LEN; i++) {
            assertTrue(user.offer(i * 64, 2048 + i) >= 0);
        }
        assertEquals(QueueCode.FULL, user.offer(0, 64), "128 entries: full");
        assertEquals(0, user.remainingCapacity());
        assertEquals(FQ_LEN, ni.available());
        for (int i = 0; i < FQ_LEN; i++) {
            assertTrue(ni.poll() >= 0);
            assertEquals(i * 64, ni.offset());
            assertEquals(2048 + i, ni.length());
        }
        assertEquals(QueueCode.EMPTY, ni.poll());
        assertEquals(0xFFFF_FFF0 + FQ_LEN, page.get(BE, EPCB_FQ_CONS_OFS));
        assertEquals(FQ_LEN, user.remainingCapacity());
        // Entry 0 of the queue after the wrap sits at the slot of index 0x70 = 112.
        assertEquals(0xFFFF_FFF0 & (FQ_LEN - 1), 112);
    }

    @Test
    void receiveQueueHandoffBothWays() {
        page.set(BE, EPCB_RQ_CONS_OFS, 0xFFFF_FFFE);
        page.set(BE, EPCB_RQ_PROD_SHADOW_OFS, 0xFFFF_FFFE);
        UnetReceiveQueue user = new UnetReceiveQueue(rq, 0, RQ_LEN_DEFAULT, page);
        UnetNiReceiveQueue ni = new UnetNiReceiveQueue(rq, 0, RQ_LEN_DEFAULT, page);
        assertEquals(QueueCode.EMPTY, user.poll());
        for (int m = 0; m < 4; m++) {
            long d = ni.claim();
            assertEquals((long) ((0xFFFF_FFFE + m) & (RQ_LEN_DEFAULT - 1)) * RECV_DESC_SIZE, d);
            ni.putBuffer(d, 0, 0x4000 + m * 64, 100 + m);
            ni.putStatus(d, 0, 7, 1);
            ni.putTimestamp(d, 0x1_0000_0002L + m);
            assertEquals(QueueCode.EMPTY, user.poll(), "body written, VALID not yet");
            ni.publish(d, 100 + m, 3, 1, 0);
            long u = user.poll();
            assertEquals(d, u);
            assertEquals(u, user.poll(), "polling again returns the held descriptor");
            assertEquals(100 + m, user.length(u));
            assertEquals(3, user.channel(u));
            assertEquals(1, user.nbufs(u));
            assertEquals(0x4000 + m * 64, user.bufferOffset(u, 0));
            assertEquals(7, user.userToUser(u));
            assertEquals(1, user.cpi(u));
            assertEquals(0, user.errorCode(u));
            assertFalse(user.isError(u) || user.isInline(u));
            assertEquals(0x1_0000_0002L + m, user.timestampMicros(u));
            user.release(u);
            assertEquals(0, rq.get(BE, d) & RX_VALID);
        }
        assertEquals(0xFFFF_FFFE + 4, page.get(BE, EPCB_RQ_CONS_OFS));
        assertEquals(0xFFFF_FFFE + 4, page.get(BE, EPCB_RQ_PROD_SHADOW_OFS));
    }

    @Test
    void receiveQueueOverrunWhenTheUserHasNotConsumed() {
        UnetReceiveQueue user = new UnetReceiveQueue(rq, 0, 4, page);
        UnetNiReceiveQueue ni = new UnetNiReceiveQueue(rq, 0, 4, page);
        for (int m = 0; m < 4; m++) {
            long d = ni.claim();
            ni.publish(d, 0, 0, 0, RX_ERROR);
        }
        assertEquals(QueueCode.FULL, ni.claim(), "slot 0 still VALID: RQ_OVERRUN");
        assertEquals(1, ni.overruns());
        long u = user.poll();
        assertTrue(user.isError(u));
        user.release(u);
        assertTrue(ni.claim() >= 0);
    }

    @Test
    void impossibleIndicesFromThePeerAreNotTrusted() {
        UnetNiSendQueue ni = new UnetNiSendQueue(page);
        page.set(BE, EPCB_SQ_PROD_OFS, 1000); // a user claiming 1000 posted descriptors in a 32-entry queue
        assertEquals(QueueCode.PEER_CORRUPT, ni.poll(), "not EMPTY: the user broke the contract");
        assertEquals(1, ni.protocolErrors());
        UnetFreeQueue user = new UnetFreeQueue(page);
        page.set(BE, EPCB_FQ_CONS_OFS, 5); // the NI claiming to have consumed entries never posted
        assertEquals(QueueCode.PEER_CORRUPT, user.offer(0, 64), "not FULL: waiting would not help");
        assertEquals(1, user.protocolErrors());
        UnetSendQueue sender = new UnetSendQueue(page);
        page.set(BE, EPCB_SQ_CONS_OFS, 0x7000_0000);
        assertEquals(QueueCode.PEER_CORRUPT, sender.pollCompletion(), "sq_cons ahead of what was posted");
        assertEquals(1, sender.protocolErrors());
    }

    @Test
    void badInputAtTheBoundaries() {
        UnetSendQueue user = new UnetSendQueue(page);
        assertMessage(IllegalArgumentException.class, "channel must be 0..63, was 64", () -> user.offer(64, 0, 10));
        assertMessage(IllegalArgumentException.class, "length must be 0..65535", () -> user.offer(1, 0, 65536));
        long d = user.claim();
        assertMessage(IllegalArgumentException.class, "nbufs must be 1..6, was 7", () -> user.commit(d, 10, 1, 7, false));
        assertMessage(IllegalArgumentException.class, "inline length must be at most 40", () -> user.commit(d, 41, 1, 0, true));
        assertMessage(IndexOutOfBoundsException.class, "buffer index must be 0..5, was 6", () -> user.putBuffer(d, 6, 0, 1));
        assertMessage(IndexOutOfBoundsException.class, "body word must be 1..15", () -> user.putWord(d, 0, 1));
        assertMessage(IllegalArgumentException.class, "not the held descriptor", () -> user.commit(d + 64, 10, 1, 1, false));
        user.commit(d, 10, 1, 1, false);
        assertMessage(IllegalStateException.class, "no descriptor is held", () -> user.commit(d, 10, 1, 1, false));
        assertMessage(IllegalArgumentException.class, "64-byte aligned", () -> new UnetFreeQueue(page).offer(32, 100));
        assertMessage(IllegalArgumentException.class, "must not be 0", () -> new UnetFreeQueue(page).offer(64, 0));
        assertMessage(IllegalArgumentException.class, "segment holds only 2048 bytes",
                () -> new UnetSendQueue(page.asSlice(0, 2048)));
        assertMessage(IllegalArgumentException.class, "power of two", () -> new UnetReceiveQueue(rq, 0, 48, page));
        assertMessage(IllegalArgumentException.class, "receive queue of 64 descriptors",
                () -> new UnetReceiveQueue(rq, 64, 64, page));
        assertMessage(IllegalArgumentException.class, "4-byte aligned", () -> new UnetReceiveQueue(rq, 2, 4, page));
        UnetNiReceiveQueue ni = new UnetNiReceiveQueue(rq, 0, 64, page);
        long r = ni.claim();
        assertMessage(IllegalArgumentException.class, "flags may hold only", () -> ni.publish(r, 1, 1, 1, RX_VALID));
        assertMessage(IllegalArgumentException.class, "nbufs must be 0..6", () -> ni.publish(r, 1, 1, 7, 0));
        assertMessage(IllegalArgumentException.class, "inline length", () -> ni.publish(r, 41, 1, 0, RX_INLINE));
        assertEquals(0, rq.get(BE, r), "rejected publish wrote nothing");
        UnetReceiveQueue u = new UnetReceiveQueue(rq, 0, 64, page);
        assertMessage(IllegalStateException.class, "no descriptor is held", () -> u.release(0));
    }
}
