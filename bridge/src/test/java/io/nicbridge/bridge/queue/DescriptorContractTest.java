package io.nicbridge.bridge.queue;

import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.queue.Dec21140DescriptorRing.Direction;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing.ListMode;
import io.nicbridge.contract.Dec21140;
import io.nicbridge.contract.Dec21140Desc;
import io.nicbridge.contract.Sba200Unet;
import io.nicbridge.contract.Sba200UnetBuf;
import io.nicbridge.contract.Sba200UnetEpcb;
import io.nicbridge.contract.Sba200UnetFqEntry;
import io.nicbridge.contract.Sba200UnetRecvDesc;
import io.nicbridge.contract.Sba200UnetSendDesc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The queue views against the generated device contract: what they write is what the header's structs say, read
 * back through the generated accessors (which carry the header's own byte order), and the facts the views rely on
 * to share code between directions hold in the header.
 */
class DescriptorContractTest {
    private Arena arena;

    @BeforeEach
    void setUp() {
        arena = Arena.ofConfined();
    }

    @AfterEach
    void tearDown() {
        arena.close();
    }

    @Test
    void dec21140ReceiveAndTransmitWordsShareTheBitsTheRingAndWalkerNameOnce() {
        assertEquals(Dec21140.RDES0_OWN, Dec21140.TDES0_OWN);
        assertEquals(Dec21140.RDES1_RER, Dec21140.TDES1_TER);
        assertEquals(Dec21140.RDES1_RCH, Dec21140.TDES1_TCH);
        assertEquals(Dec21140.RDES1_RBS1_MASK, Dec21140.TDES1_TBS1_MASK);
        assertEquals(Dec21140.RDES1_RBS1_SHIFT, Dec21140.TDES1_TBS1_SHIFT);
        assertEquals(Dec21140.RDES1_RBS2_MASK, Dec21140.TDES1_TBS2_MASK);
        assertEquals(Dec21140.RDES1_RBS2_SHIFT, Dec21140.TDES1_TBS2_SHIFT);
        assertEquals(31, Dec21140DescriptorRing.MAX_SKIP_LONGWORDS, "CSR0.DSL is a 5-bit field");
        assertEquals(Dec21140.DESC_SIZE + 3 * Dec21140.DSL_UNIT_BYTES, Dec21140DescriptorRing.stride(3));
    }

    @Test
    void dec21140LittleEndianRingMatchesTheGeneratedStructAndTheLargestReceiveBufferIs2044() {
        MemorySegment mem = arena.allocate(4 * Dec21140Desc.BYTE_SIZE, 16);
        Dec21140DescriptorRing ring = new Dec21140DescriptorRing(mem, 0x1000, 4, 0, Direction.RECEIVE, ListMode.RING);
        ring.arm(3, 0x2000, 2044, 0x3000, 1024);
        long d = ring.offsetOf(3);
        assertEquals(Dec21140.RDES0_OWN, Dec21140Desc.des0Acquire(mem, d));
        assertEquals(Dec21140.RDES1_RER | 1024 << Dec21140.RDES1_RBS2_SHIFT | 2044 << Dec21140.RDES1_RBS1_SHIFT,
                Dec21140Desc.des1(mem, d));
        assertEquals(0x2000, Dec21140Desc.des2(mem, d));
        assertEquals(0x3000, Dec21140Desc.des3(mem, d));
        assertThrows(IllegalArgumentException.class, () -> ring.arm(0, 0x2000, 2048));
        assertThrows(IllegalArgumentException.class, () -> ring.arm(0, 0x2000, 2046));
    }

    @Test
    void unetSendAndReceiveDescriptorsShareWordPositions() {
        assertEquals(Sba200Unet.SEND_DESC_SIZE, Sba200Unet.RECV_DESC_SIZE);
        assertEquals(Sba200Unet.RECV_DESC_SIZE, Sba200Unet.RQ_ENTRY_SIZE);
        assertEquals(16, UnetDescriptors.DESC_WORDS);
        assertEquals(63, UnetDescriptors.MAX_CHANNEL);
        assertEquals(Sba200UnetSendDesc.BUFS_LENGTH, Sba200Unet.MAX_BUFS);
        assertEquals(Sba200UnetRecvDesc.BUFS_LENGTH, Sba200Unet.MAX_BUFS);
        assertEquals(Sba200Unet.SEND_DESC_INLINE_SIZE, Sba200Unet.INLINE_MAX);
        assertEquals(Sba200Unet.RECV_DESC_INLINE_SIZE, Sba200Unet.INLINE_MAX);
    }

    @Test
    void unetSendAndFreeQueuesMatchTheGeneratedStructs() {
        MemorySegment page = arena.allocate(Sba200Unet.EP_PAGE_SIZE, 64);
        UnetSendQueue sq = new UnetSendQueue(page);
        long d = sq.claim();
        assertEquals(Sba200Unet.SQ_OFS, d);
        sq.putBuffer(d, 2, 0x40, 300);
        sq.commit(d, 300, 17, 3, false);
        assertEquals(1, Sba200UnetEpcb.sqProdAcquire(page, 0));
        int w0 = Sba200UnetSendDesc.w0Acquire(page, d);
        assertEquals(Sba200Unet.TX_VALID, w0 & Sba200Unet.TX_VALID);
        assertEquals(300, (w0 & Sba200Unet.TX_LENGTH_MASK) >>> Sba200Unet.TX_LENGTH_SHIFT);
        assertEquals(17, (w0 & Sba200Unet.TX_CHAN_MASK) >>> Sba200Unet.TX_CHAN_SHIFT);
        assertEquals(3, (w0 & Sba200Unet.TX_NBUFS_MASK) >>> Sba200Unet.TX_NBUFS_SHIFT);
        assertEquals(Sba200Unet.TX_STATUS_PENDING, Sba200UnetSendDesc.status(page, d));
        assertEquals(0x40, Sba200UnetBuf.offset(page, Sba200UnetSendDesc.bufsBase(d, 2)));
        assertEquals(300, Sba200UnetBuf.length(page, Sba200UnetSendDesc.bufsBase(d, 2)));

        UnetNiSendQueue ni = new UnetNiSendQueue(page);
        assertEquals(d, ni.poll());
        ni.complete(d, Sba200Unet.TX_STATUS_SEG_BOUNDS);
        assertEquals(1, Sba200UnetEpcb.sqConsAcquire(page, 0));
        assertEquals(Sba200Unet.TX_STATUS_SEG_BOUNDS, Sba200UnetSendDesc.status(page, d));
        assertEquals(0, Sba200UnetSendDesc.w0(page, d) & Sba200Unet.TX_VALID);

        UnetFreeQueue fq = new UnetFreeQueue(page);
        assertTrue(fq.offer(0x1C0, 2048) >= 0);
        assertEquals(1, Sba200UnetEpcb.fqProdAcquire(page, 0));
        assertEquals(0x1C0, Sba200UnetFqEntry.offset(page, Sba200Unet.FQ_OFS));
        assertEquals(2048, Sba200UnetFqEntry.length(page, Sba200Unet.FQ_OFS));
        UnetNiFreeQueue nfq = new UnetNiFreeQueue(page);
        assertTrue(nfq.poll() >= 0);
        assertEquals(1, Sba200UnetEpcb.fqConsAcquire(page, 0));
    }

    @Test
    void unetReceiveDescriptorMatchesTheGeneratedStructIncludingTheUint64Timestamp() {
        MemorySegment page = arena.allocate(Sba200Unet.EP_PAGE_SIZE, 64);
        MemorySegment rq = arena.allocate(4L * Sba200Unet.RECV_DESC_SIZE, Sba200Unet.RQ_ALIGN);
        UnetNiReceiveQueue ni = new UnetNiReceiveQueue(rq, 0, 4, page);
        long d = ni.claim();
        ni.putBuffer(d, 5, 0x80, 48);
        ni.putStatus(d, Sba200Unet.RX_ERR_CRC, 0xAB, 0xCD);
        ni.putTimestamp(d, 0x0123_4567_89AB_CDEFL);
        ni.publish(d, 1000, 42, 6, Sba200Unet.RX_ERROR);
        assertEquals(1, Sba200UnetEpcb.rqProdShadowAcquire(page, 0));

        int w0 = Sba200UnetRecvDesc.w0Acquire(rq, d);
        assertEquals(Sba200Unet.RX_VALID | Sba200Unet.RX_ERROR, w0 & (Sba200Unet.RX_VALID | Sba200Unet.RX_ERROR
                | Sba200Unet.RX_INLINE));
        assertEquals(1000, (w0 & Sba200Unet.RX_LENGTH_MASK) >>> Sba200Unet.RX_LENGTH_SHIFT);
        assertEquals(42, (w0 & Sba200Unet.RX_CHAN_MASK) >>> Sba200Unet.RX_CHAN_SHIFT);
        assertEquals(6, (w0 & Sba200Unet.RX_NBUFS_MASK) >>> Sba200Unet.RX_NBUFS_SHIFT);
        int w1 = Sba200UnetRecvDesc.w1(rq, d);
        assertEquals(Sba200Unet.RX_ERR_CRC, (w1 & Sba200Unet.RX_ERR_MASK) >>> Sba200Unet.RX_ERR_SHIFT);
        assertEquals(0xAB, (w1 & Sba200Unet.RX_UU_MASK) >>> Sba200Unet.RX_UU_SHIFT);
        assertEquals(0xCD, (w1 & Sba200Unet.RX_CPI_MASK) >>> Sba200Unet.RX_CPI_SHIFT);
        assertEquals(0x80, Sba200UnetBuf.offset(rq, Sba200UnetRecvDesc.bufsBase(d, 5)));
        assertEquals(48, Sba200UnetBuf.length(rq, Sba200UnetRecvDesc.bufsBase(d, 5)));
        // uint64_t timestamp_us at +56, big-endian: w14 is the high word, w15 the low word.
        assertEquals(0x0123_4567_89AB_CDEFL, Sba200UnetRecvDesc.timestampUs(rq, d));
        ValueLayout.OfInt be = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
        assertEquals(0x0123_4567, rq.get(be, d + Sba200UnetRecvDesc.OFFSET_TIMESTAMP_US));
        assertEquals(0x89AB_CDEF, rq.get(be, d + Sba200UnetRecvDesc.OFFSET_TIMESTAMP_US + 4));

        UnetReceiveQueue user = new UnetReceiveQueue(rq, 0, 4, page);
        assertEquals(d, user.poll());
        assertEquals(0x0123_4567_89AB_CDEFL, user.timestampMicros(d));
        assertEquals(Sba200Unet.RX_ERR_CRC, user.errorCode(d));
        user.release(d);
        assertEquals(1, Sba200UnetEpcb.rqConsAcquire(page, 0));
        assertEquals(0, Sba200UnetRecvDesc.w0(rq, d) & Sba200Unet.RX_VALID);
    }

    @Test
    void aLittleEndianReceiveQueueStoresTheTimestampAsOneLittleEndianUint64() {
        MemorySegment page = arena.allocate(Sba200Unet.EP_PAGE_SIZE, 64);
        MemorySegment rq = arena.allocate(2L * Sba200Unet.RECV_DESC_SIZE, Sba200Unet.RQ_ALIGN);
        UnetNiReceiveQueue ni = new UnetNiReceiveQueue(rq, 0, 2, page, ByteOrder.LITTLE_ENDIAN);
        long d = ni.claim();
        ni.putTimestamp(d, 0x0123_4567_89AB_CDEFL);
        ni.publish(d, 1, 1, 1, 0);
        long at = d + Sba200UnetRecvDesc.OFFSET_TIMESTAMP_US;
        assertEquals(0x0123_4567_89AB_CDEFL, rq.get(ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN), at));
        assertEquals((byte) 0xEF, rq.get(ValueLayout.JAVA_BYTE, at), "least significant byte first");
        UnetReceiveQueue user = new UnetReceiveQueue(rq, 0, 2, page, ByteOrder.LITTLE_ENDIAN);
        assertEquals(d, user.poll());
        assertEquals(0x0123_4567_89AB_CDEFL, user.timestampMicros(d));
    }
}
