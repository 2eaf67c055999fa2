package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.sim.atm.AtmCells;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

class Sba200ReceiveTest {
    private static final int RX_VCI = 200;

    /** A rig with one endpoint (segment 64 KiB, RQ of rqLen) and channel 0 receiving on VCI 200. */
    private static final class Rx implements AutoCloseable {
        final CardRig r = CardRig.inline();
        final Sba200Endpoint ep;
        final Pair.Side side;
        final int ch;

        Rx(int rqLen) {
            ep = r.endpoint(64 * 1024, rqLen);
            ch = r.kernel.openChannel(ep, 0, 100, RX_VCI);
            side = new Pair.Side(ep, ch);
        }

        void deliver(byte[] payload) {
            r.injectAll(r.cellsOf(0, RX_VCI, payload));
        }

        int fqCons() {
            return r.epcb(ep, EPCB_FQ_CONS_OFS);
        }

        @Override
        public void close() {
            r.close();
        }
    }

    @Test
    void singleCellMessagesAreInlineAndTakeNoBuffer() {
        try (Rx x = new Rx(8)) {
            x.side.postBuffers(0, 4, 1024);
            for (int len : new int[] {1, 39, 40}) {
                byte[] m = Pair.bytes(len, len + 1);
                x.deliver(m);
                long d = x.side.rq.poll();
                assertTrue(d >= 0, "delivered " + len);
                assertTrue(x.side.rq.isInline(d));
                assertFalse(x.side.rq.isError(d));
                assertEquals(0, x.side.rq.nbufs(d));
                assertEquals(x.ch, x.side.rq.channel(d));
                assertEquals(0, x.side.rq.userToUser(d));
                assertEquals(0, x.side.rq.cpi(d));
                assertArrayEquals(m, x.side.payload(d));
                x.side.rq.release(d);
            }
            assertEquals(0, x.fqCons(), "no free buffer consumed");
            assertEquals(3, x.r.counter(UG_CNT_PDUS_RX_OFS));
        }
    }

    @Test
    void longerMessagesFillFreeBuffersInOrder() {
        try (Rx x = new Rx(8)) {
            x.side.postBuffers(0, 16, 64);
            byte[] m41 = Pair.bytes(41, 2);
            x.deliver(m41);
            long d = x.side.rq.poll();
            assertFalse(x.side.rq.isInline(d));
            assertEquals(1, x.side.rq.nbufs(d));
            assertEquals(0, x.side.rq.bufferOffset(d, 0));
            assertEquals(41, x.side.rq.bufferLength(d, 0));
            assertArrayEquals(m41, x.side.payload(d));
            x.side.rq.release(d);

            byte[] m300 = Pair.bytes(300, 3);
            x.deliver(m300);
            d = x.side.rq.poll();
            assertEquals(300, x.side.rq.length(d));
            assertEquals(5, x.side.rq.nbufs(d));
            int[] lens = {64, 64, 64, 64, 44};
            for (int i = 0; i < 5; i++) {
                assertEquals(64 * (i + 1), x.side.rq.bufferOffset(d, i), "free-queue order");
                assertEquals(lens[i], x.side.rq.bufferLength(d, i));
            }
            assertArrayEquals(m300, x.side.payload(d));
            assertEquals(6, x.fqCons());
            assertEquals(0, x.side.seg.get(ValueLayout.JAVA_BYTE, 64 * 5 + 44), "nothing beyond LEN is written");
        }
    }

    @Test
    void tooManyBuffersNoBuffersAndBadFreeBuffer() {
        try (Rx x = new Rx(8)) {
            x.side.postBuffers(0, 8, 64);
            x.deliver(Pair.bytes(500, 1)); // needs 8 buffers of 64
            long d = x.side.rq.poll();
            assertTrue(x.side.rq.isError(d));
            assertEquals(RX_ERR_TOO_MANY_BUFS, x.side.rq.errorCode(d));
            assertEquals(6, x.side.rq.nbufs(d), "the buffers taken are listed so they can be recycled");
            x.side.rq.release(d);

            x.deliver(Pair.bytes(100, 1)); // 2 buffers left: 100 fits
            d = x.side.rq.poll();
            assertFalse(x.side.rq.isError(d));
            x.side.rq.release(d);

            x.deliver(Pair.bytes(100, 1)); // none left
            d = x.side.rq.poll();
            assertEquals(RX_ERR_NO_BUFFERS, x.side.rq.errorCode(d));
            assertEquals(0, x.side.rq.nbufs(d));
            assertEquals(1, x.r.counter(UG_CNT_DROP_NO_FREE_BUF_OFS));
            assertEquals(1, x.r.epcb(x.ep, EPCB_DROP_NO_FREE_BUF_OFS));
            assertEquals(EP_NO_FREE_BUF, x.r.epcb(x.ep, EPCB_EP_STATUS_OFS) & EP_NO_FREE_BUF);
            x.side.rq.release(d);

            // A free buffer outside the segment, and one misaligned: refused, never written.
            assertTrue(x.side.fq.offer(64 * 1024 - 64, 128));
            x.deliver(Pair.bytes(100, 1));
            d = x.side.rq.poll();
            assertEquals(RX_ERR_DMA, x.side.rq.errorCode(d));
            x.side.rq.release(d);
            // The user-side view refuses a misaligned offset, so write the entry the way a buggy process could.
            MemorySegment page = x.ep.page();
            var be = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
            int fqProd = page.get(be, EPCB_FQ_PROD_OFS);
            page.set(be, FQ_OFS + (fqProd & (FQ_LEN - 1)) * 8L, 4100);
            page.set(be, FQ_OFS + (fqProd & (FQ_LEN - 1)) * 8L + 4, 128);
            page.set(be, EPCB_FQ_PROD_OFS, fqProd + 1);
            x.deliver(Pair.bytes(100, 1));
            d = x.side.rq.poll();
            assertEquals(RX_ERR_DMA, x.side.rq.errorCode(d));
            assertEquals(2, x.r.counter(UG_CNT_DMA_ERRORS_OFS));
            assertEquals(EP_SEGFAULT, x.r.epcb(x.ep, EPCB_EP_STATUS_OFS) & EP_SEGFAULT);
            assertEquals(4, x.r.epcb(x.ep, EPCB_RX_ERRORS_OFS));
        }
    }

    @Test
    void unknownVciVpiMismatchHecAndOamCells() {
        try (Rx x = new Rx(8)) {
            x.r.injectAll(x.r.cellsOf(0, 300, Pair.bytes(10, 1)));
            x.r.injectAll(x.r.cellsOf(1, RX_VCI, Pair.bytes(10, 1)));
            x.r.injectAll(x.r.cellsOf(0, 5, Pair.bytes(10, 1)));
            assertEquals(3, x.r.counter(UG_CNT_DROP_UNKNOWN_VCI_OFS));
            List<byte[]> cells = x.r.cellsOf(0, RX_VCI, Pair.bytes(10, 1));
            cells.get(0)[1] ^= 0x04; // header bit: the HEC no longer matches
            x.r.injectAll(cells);
            assertEquals(1, x.r.counter(UG_CNT_HEC_ERRORS_OFS));
            byte[] oam = new byte[53];
            AtmCells.writeHeader(MemorySegment.ofArray(oam), 0, AtmCells.header(0, RX_VCI, PTI_OAM_F5_E2E, 0));
            x.r.injectAll(List.of(oam));
            assertEquals(-1, x.side.rq.poll(), "nothing delivered");
            assertEquals(5, x.r.counter(UG_CNT_CELLS_RX_OFS));
        }
    }

    @Test
    void crcAndLengthErrorsOnCorruptedAndLostCells() {
        try (Rx x = new Rx(8)) {
            x.side.postBuffers(0, 32, 256);
            List<byte[]> cells = x.r.cellsOf(0, RX_VCI, Pair.bytes(130, 1)); // 3 cells
            cells.get(1)[20] ^= 0x01;
            x.r.injectAll(cells);
            long d = x.side.rq.poll();
            assertEquals(RX_ERR_CRC, x.side.rq.errorCode(d));
            assertEquals(1, x.r.counter(UG_CNT_AAL5_CRC_ERRORS_OFS));
            x.side.rq.release(d);

            cells = x.r.cellsOf(0, RX_VCI, Pair.bytes(130, 1));
            cells.remove(1); // a middle cell lost: 2 cells where LEN needs 3
            x.r.injectAll(cells);
            d = x.side.rq.poll();
            assertEquals(RX_ERR_LENGTH, x.side.rq.errorCode(d));
            assertEquals(1, x.r.counter(UG_CNT_LENGTH_ERRORS_OFS));
            x.side.rq.release(d);

            cells = x.r.cellsOf(0, RX_VCI, Pair.bytes(130, 1));
            cells.remove(2); // the last cell lost: the next PDU is glued on and fails its check
            x.r.injectAll(cells);
            assertEquals(-1, x.side.rq.poll(), "no end of PDU yet");
            x.deliver(Pair.bytes(20, 1));
            d = x.side.rq.poll();
            assertTrue(x.side.rq.isError(d));
            assertEquals(RX_ERR_LENGTH, x.side.rq.errorCode(d), "3 cells where LEN = 20 needs 1");
            x.side.rq.release(d);
            assertEquals(3, x.r.counter(UG_CNT_AAL5_CRC_ERRORS_OFS) + x.r.counter(UG_CNT_LENGTH_ERRORS_OFS));

            byte[] ok = Pair.bytes(77, 4);
            x.deliver(ok);
            d = x.side.rq.poll();
            assertFalse(x.side.rq.isError(d), "reassembly recovers with the next PDU");
            assertArrayEquals(ok, x.side.payload(d));

            x.side.rq.release(d);
            // Length field 0 (abort) in a correctly CRC'd PDU is a length error too.
            x.r.injectAll(x.r.cellsOf(0, RX_VCI, new byte[0]));
            d = x.side.rq.poll();
            assertTrue(x.side.rq.isInline(d) == false && x.side.rq.isError(d));
            assertEquals(RX_ERR_LENGTH, x.side.rq.errorCode(d));
            assertEquals(3, x.r.counter(UG_CNT_LENGTH_ERRORS_OFS));
        }
    }

    @Test
    void receiveQueueOverrunIsDroppedAndCounted() {
        try (Rx x = new Rx(2)) {
            x.side.postBuffers(0, 8, 256);
            x.deliver(Pair.bytes(8, 1));
            x.deliver(Pair.bytes(8, 2));
            x.deliver(Pair.bytes(8, 3)); // both slots still VALID
            assertEquals(1, x.r.counter(UG_CNT_DROP_RQ_FULL_OFS));
            assertEquals(1, x.r.epcb(x.ep, EPCB_DROP_RQ_OVERRUN_OFS));
            assertEquals(EP_RQ_OVERRUN, x.r.epcb(x.ep, EPCB_EP_STATUS_OFS) & EP_RQ_OVERRUN);
            x.deliver(Pair.bytes(500, 3)); // multi-cell PDU starting while full: discarded before it takes buffers
            assertEquals(2, x.r.counter(UG_CNT_DROP_RQ_FULL_OFS));
            assertEquals(0, x.fqCons());
            long d = x.side.rq.poll();
            assertArrayEquals(Pair.bytes(8, 1), x.side.payload(d));
            x.side.rq.release(d);
            d = x.side.rq.poll();
            assertArrayEquals(Pair.bytes(8, 2), x.side.payload(d));
            x.side.rq.release(d);
            x.deliver(Pair.bytes(8, 4));
            d = x.side.rq.poll();
            assertArrayEquals(Pair.bytes(8, 4), x.side.payload(d), "the queue works again once drained");
        }
    }

    @Test
    void upcallModesSetThePendingMaskAndRaiseTheLine() {
        try (Rx x = new Rx(8)) {
            x.r.kernel.upcallMode(x.ep, UPCALL_NONEMPTY);
            x.deliver(Pair.bytes(4, 1));
            assertTrue(x.ep.upcallPending(), "pending bit set");
            assertFalse(x.r.card.interrupt().isAsserted(), "interrupts disabled in the UG block");
            x.ep.clearUpcallPending();
            assertFalse(x.ep.upcallPending(), "write 1 to clear");
            x.r.kernel.interrupts(true);
            x.deliver(Pair.bytes(4, 2));
            assertTrue(x.ep.upcallPending());
            assertTrue(x.r.card.interrupt().isAsserted());
            assertEquals(BCR_INTR_PENDING, x.r.card.bcr().read(BCR_OFS));
            x.r.card.bcr().write(BCR_OFS, BCR_CLEAR_INTR);
            x.ep.clearUpcallPending();
            // All pending messages are consumed in one upcall.
            int n = 0;
            for (long d; (d = x.side.rq.poll()) >= 0; n++) {
                x.side.rq.release(d);
            }
            assertEquals(2, n);

            x.r.kernel.upcallMode(x.ep, UPCALL_ALMOST_FULL); // fires at 6 of 8 outstanding
            for (int i = 0; i < 5; i++) {
                x.deliver(Pair.bytes(4, i));
            }
            assertFalse(x.ep.upcallPending(), "5 of 8 is not almost full");
            x.deliver(Pair.bytes(4, 9));
            assertTrue(x.ep.upcallPending(), "6 of 8 is");
            assertTrue(x.r.card.interrupt().isAsserted());

            x.r.kernel.upcallMode(x.ep, UPCALL_NONE);
            x.ep.clearUpcallPending();
            x.r.card.bcr().write(BCR_OFS, BCR_CLEAR_INTR);
            x.deliver(Pair.bytes(4, 1));
            assertFalse(x.ep.upcallPending());
            assertFalse(x.r.card.interrupt().isAsserted());
        }
    }
}
