package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.queue.QueueCode;
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
        final UnetEndpoint ep;
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
                long d = x.side.ep.poll();
                assertTrue(d >= 0, "delivered " + len);
                assertTrue(x.side.ep.isInline(d));
                assertFalse(x.side.ep.isError(d));
                assertEquals(0, x.side.ep.bufferCount(d));
                assertEquals(x.ch, x.side.ep.channel(d));
                assertEquals(0, x.side.ep.receiveQueueSegment().get(ValueLayout.JAVA_INT_UNALIGNED
                    .withOrder(java.nio.ByteOrder.BIG_ENDIAN), d + 4) & 0xFFFF, "UU and CPI bytes 0");
                assertArrayEquals(m, x.side.payload(d));
                x.side.ep.releaseKeepBuffers(d);
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
            long d = x.side.ep.poll();
            assertFalse(x.side.ep.isInline(d));
            assertEquals(1, x.side.ep.bufferCount(d));
            assertEquals(0, x.side.ep.bufferOffset(d, 0));
            assertEquals(41, x.side.ep.bufferLength(d, 0));
            assertArrayEquals(m41, x.side.payload(d));
            x.side.ep.releaseKeepBuffers(d);

            byte[] m300 = Pair.bytes(300, 3);
            x.deliver(m300);
            d = x.side.ep.poll();
            assertEquals(300, x.side.ep.length(d));
            assertEquals(5, x.side.ep.bufferCount(d));
            int[] lens = {64, 64, 64, 64, 44};
            for (int i = 0; i < 5; i++) {
                assertEquals(64 * (i + 1), x.side.ep.bufferOffset(d, i), "free-queue order");
                assertEquals(lens[i], x.side.ep.bufferLength(d, i));
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
            long d = x.side.ep.poll();
            assertTrue(x.side.ep.isError(d));
            assertEquals(RX_ERR_TOO_MANY_BUFS, x.side.ep.errorCode(d));
            assertEquals(6, x.side.ep.bufferCount(d), "the buffers taken are listed so they can be recycled");
            x.side.ep.releaseKeepBuffers(d);

            x.deliver(Pair.bytes(100, 1)); // 2 buffers left: 100 fits
            d = x.side.ep.poll();
            assertFalse(x.side.ep.isError(d));
            x.side.ep.releaseKeepBuffers(d);

            x.deliver(Pair.bytes(100, 1)); // none left
            d = x.side.ep.poll();
            assertEquals(RX_ERR_NO_BUFFERS, x.side.ep.errorCode(d));
            assertEquals(0, x.side.ep.bufferCount(d));
            assertEquals(1, x.r.counter(UG_CNT_DROP_NO_FREE_BUF_OFS));
            assertEquals(1, x.r.epcb(x.ep, EPCB_DROP_NO_FREE_BUF_OFS));
            assertEquals(EP_NO_FREE_BUF, x.r.epcb(x.ep, EPCB_EP_STATUS_OFS) & EP_NO_FREE_BUF);
            x.side.ep.releaseKeepBuffers(d);

            // A free buffer outside the segment, and one misaligned: refused, never written.
            assertTrue(x.side.ep.offerFreeBufferUnchecked(64 * 1024 - 64, 128));
            x.deliver(Pair.bytes(100, 1));
            d = x.side.ep.poll();
            assertEquals(RX_ERR_DMA, x.side.ep.errorCode(d));
            x.side.ep.releaseKeepBuffers(d);
            // The user-side view refuses a misaligned offset, so write the entry the way a buggy process could.
            MemorySegment page = x.ep.page();
            var be = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
            int fqProd = page.get(be, EPCB_FQ_PROD_OFS);
            page.set(be, FQ_OFS + (fqProd & (FQ_LEN - 1)) * 8L, 4100);
            page.set(be, FQ_OFS + (fqProd & (FQ_LEN - 1)) * 8L + 4, 128);
            page.set(be, EPCB_FQ_PROD_OFS, fqProd + 1);
            x.deliver(Pair.bytes(100, 1));
            d = x.side.ep.poll();
            assertEquals(RX_ERR_DMA, x.side.ep.errorCode(d));
            assertEquals(2, x.r.counter(UG_CNT_DMA_ERRORS_OFS));
            assertEquals(EP_SEGFAULT, x.r.epcb(x.ep, EPCB_EP_STATUS_OFS) & EP_SEGFAULT);
            assertEquals(4, x.r.epcb(x.ep, EPCB_RX_ERRORS_OFS));
        }
    }

    @Test
    void aReceiveQueueUnmappedUnderTheCardIsADmaErrorAndNothingIsPublished() {
        try (Rx x = new Rx(8)) {
            x.side.postBuffers(0, 4, 1024);
            DmaSpace dma = x.r.model.dma();
            MemorySegment rq = x.ep.receiveQueueSegment();
            long rqBus = dma.busAddress(rq);
            dma.unregister(rqBus); // the kernel unmaps the queue while the endpoint is still active (its own bug)

            x.deliver(Pair.bytes(20, 1)); // inline: the claim reads the entry's w0 and fails
            x.deliver(Pair.bytes(300, 2)); // buffered: its entry is reserved, then the claim fails
            assertEquals(2, x.r.counter(UG_CNT_DMA_ERRORS_OFS), "one DMA error per message");
            assertEquals(0, x.r.counter(UG_CNT_DROP_RQ_FULL_OFS), "not an overrun");
            assertEquals(0, x.r.counter(UG_CNT_PDUS_RX_OFS));
            assertEquals(0, x.r.epcb(x.ep, EPCB_RQ_PROD_SHADOW_OFS), "nothing published");
            assertEquals(QueueCode.EMPTY, x.side.ep.poll());

            // Mapped again, the queue works: no entry was left reserved, rq_prod did not move.
            dma.registerAt("rq again", rq, rqBus);
            for (int len : new int[] {20, 300}) {
                byte[] m = Pair.bytes(len, len);
                x.deliver(m);
                long d = x.side.ep.poll();
                assertTrue(d >= 0, "delivered " + len);
                assertFalse(x.side.ep.isError(d));
                assertArrayEquals(m, x.side.payload(d));
                x.side.ep.release(d);
            }
            assertEquals(2, x.r.counter(UG_CNT_DMA_ERRORS_OFS));
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
            assertEquals(QueueCode.EMPTY, x.side.ep.poll(), "nothing delivered");
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
            long d = x.side.ep.poll();
            assertEquals(RX_ERR_CRC, x.side.ep.errorCode(d));
            assertEquals(1, x.r.counter(UG_CNT_AAL5_CRC_ERRORS_OFS));
            x.side.ep.releaseKeepBuffers(d);

            cells = x.r.cellsOf(0, RX_VCI, Pair.bytes(130, 1));
            cells.remove(1); // a middle cell lost: 2 cells where LEN needs 3
            x.r.injectAll(cells);
            d = x.side.ep.poll();
            assertEquals(RX_ERR_LENGTH, x.side.ep.errorCode(d));
            assertEquals(1, x.r.counter(UG_CNT_LENGTH_ERRORS_OFS));
            x.side.ep.releaseKeepBuffers(d);

            cells = x.r.cellsOf(0, RX_VCI, Pair.bytes(130, 1));
            cells.remove(2); // the last cell lost: the next PDU is glued on and fails its check
            x.r.injectAll(cells);
            assertEquals(QueueCode.EMPTY, x.side.ep.poll(), "no end of PDU yet");
            x.deliver(Pair.bytes(20, 1));
            d = x.side.ep.poll();
            assertTrue(x.side.ep.isError(d));
            assertEquals(RX_ERR_LENGTH, x.side.ep.errorCode(d), "3 cells where LEN = 20 needs 1");
            x.side.ep.releaseKeepBuffers(d);
            assertEquals(3, x.r.counter(UG_CNT_AAL5_CRC_ERRORS_OFS) + x.r.counter(UG_CNT_LENGTH_ERRORS_OFS));

            byte[] ok = Pair.bytes(77, 4);
            x.deliver(ok);
            d = x.side.ep.poll();
            assertFalse(x.side.ep.isError(d), "reassembly recovers with the next PDU");
            assertArrayEquals(ok, x.side.payload(d));

            x.side.ep.releaseKeepBuffers(d);
            // Length field 0 (abort) in a correctly CRC'd PDU is a length error too.
            x.r.injectAll(x.r.cellsOf(0, RX_VCI, new byte[0]));
            d = x.side.ep.poll();
            assertTrue(x.side.ep.isInline(d) == false && x.side.ep.isError(d));
            assertEquals(RX_ERR_LENGTH, x.side.ep.errorCode(d));
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
            long d = x.side.ep.poll();
            assertArrayEquals(Pair.bytes(8, 1), x.side.payload(d));
            x.side.ep.releaseKeepBuffers(d);
            d = x.side.ep.poll();
            assertArrayEquals(Pair.bytes(8, 2), x.side.payload(d));
            x.side.ep.releaseKeepBuffers(d);
            x.deliver(Pair.bytes(8, 4));
            d = x.side.ep.poll();
            assertArrayEquals(Pair.bytes(8, 4), x.side.payload(d), "the queue works again once drained");
        }
    }

    /**
     * Issue 16: cells the uplink offers while the ingress FIFO is full are lost, and counted in the card's own
     * statistics ({@code drop_fifo_overflow}, through GET_STATS), not only in the model's Java accessor. (Before: the
     * card's counters did not show them.)
     */
    @Test
    void cellsLostToAFullInputFifoAreCountedInTheCardsStatistics() {
        try (CardRig r = new CardRig(io.nicbridge.sim.engine.EngineMode.VIRTUAL, Sba200Timing.WIRE_ONLY)) {
            r.settle();
            byte[] cell = r.cellsOf(0, 999, Pair.bytes(8, 1)).get(0); // an unknown VCI: processed, then dropped
            int lost = 10;
            for (int i = 0; i < Sba200Model.DEFAULT_INGRESS_CELLS + lost; i++) {
                r.inject(cell); // the virtual engine does not run meanwhile: the i960 is behind the fibre
            }
            r.settle();
            assertEquals(lost, r.model.ingressOverflows());
            assertEquals(lost, r.counter(UG_CNT_DROP_FIFO_OVERFLOW_OFS));
            assertEquals(Sba200Model.DEFAULT_INGRESS_CELLS, r.counter(UG_CNT_CELLS_RX_OFS), "the rest were received");
            assertEquals(lost, r.kernel.readStatistics().dropFifoOverflow(), "GET_STATS copies it");
            r.inject(cell);
            r.settle();
            assertEquals(lost, r.counter(UG_CNT_DROP_FIFO_OVERFLOW_OFS), "counted once");
        }
    }

    /**
     * Issue 16, the paper's upcall conditions (3.1): each is edge-triggered - NONEMPTY signals the delivery that made
     * the queue non-empty, not the ones that follow while the process has not caught up; ALMOST_FULL signals the
     * delivery that crossed 3/4 of RQ_LEN, once; both bits together signal on either edge. (Before: NONEMPTY
     * signalled every delivery, ALMOST_FULL every delivery at or above the threshold, and mode 3 was refused.)
     */
    @Test
    void upcallConditionsAreEdgeTriggeredAndCombine() {
        try (Rx x = new Rx(8)) {
            int bit = 1 << x.ep.id();
            x.r.kernel.execute(OP_EP_UPCALL, x.ep.id(), UPCALL_NONEMPTY, 0, 0, 0, 0); // interrupts off: the mask only
            x.deliver(Pair.bytes(4, 1));
            assertEquals(bit, x.r.upcallPending(), "empty -> non-empty");
            x.r.card.registers().write(UG_OFS + UG_UPCALL_PENDING_OFS, bit);
            x.deliver(Pair.bytes(4, 2));
            x.deliver(Pair.bytes(4, 3));
            assertEquals(0, x.r.upcallPending(), "still non-empty: no new edge");
            drain(x, 3);
            x.deliver(Pair.bytes(4, 4));
            assertEquals(bit, x.r.upcallPending(), "drained, then non-empty again");
            x.r.card.registers().write(UG_OFS + UG_UPCALL_PENDING_OFS, bit);
            drain(x, 1);

            x.r.kernel.execute(OP_EP_UPCALL, x.ep.id(), UPCALL_ALMOST_FULL, 0, 0, 0, 0);
            for (int i = 0; i < 5; i++) {
                x.deliver(Pair.bytes(4, i));
            }
            assertEquals(0, x.r.upcallPending(), "5 of 8 outstanding, and no non-empty signal in this mode");
            x.deliver(Pair.bytes(4, 5));
            assertEquals(bit, x.r.upcallPending(), "6 of 8 crosses 3/4");
            x.r.card.registers().write(UG_OFS + UG_UPCALL_PENDING_OFS, bit);
            x.deliver(Pair.bytes(4, 6));
            assertEquals(0, x.r.upcallPending(), "7 of 8: above, but no new crossing");
            drain(x, 7);

            assertEquals(CMD_STATUS_DONE, x.r.kernel.execute(OP_EP_UPCALL, x.ep.id(), UPCALL_BOTH, 0, 0, 0, 0)
                & CMD_STATUS_MASK, "both conditions at once");
            int edges = 0;
            for (int i = 0; i < 7; i++) {
                x.deliver(Pair.bytes(4, i));
                if (x.r.upcallPending() != 0) {
                    edges |= 1 << i;
                    x.r.card.registers().write(UG_OFS + UG_UPCALL_PENDING_OFS, bit);
                }
            }
            assertEquals(1 | 1 << 5, edges, "signalled at the 1st (non-empty) and the 6th (almost full) delivery");
        }
    }

    private static void drain(Rx x, int expected) {
        int n = 0;
        for (long d; (d = x.side.ep.poll()) >= 0; n++) {
            x.side.ep.releaseKeepBuffers(d);
        }
        assertEquals(expected, n);
    }

    @Test
    void upcallModesSetThePendingMaskAndRaiseTheLine() {
        try (Rx x = new Rx(8)) {
            int bit = 1 << x.ep.id();
            // The firmware's side first, with interrupts off: EP_UPCALL as a raw command, the UG mask read directly.
            x.r.kernel.execute(OP_EP_UPCALL, x.ep.id(), UPCALL_NONEMPTY, 0, 0, 0, 0);
            x.deliver(Pair.bytes(4, 1));
            assertEquals(bit, x.r.upcallPending(), "pending bit set");
            assertFalse(x.r.card.interrupt().isAsserted(), "interrupts disabled in the UG block");
            x.r.card.registers().write(UG_OFS + UG_UPCALL_PENDING_OFS, bit);
            assertEquals(0, x.r.upcallPending(), "write 1 to clear");
            x.side.ep.releaseKeepBuffers(x.side.ep.poll()); // empty again: the next delivery is a non-empty edge

            // With interrupts on, the driver's handler takes the edge: acknowledges it through the BCR, reads and
            // clears the mask, and signals the endpoint.
            x.r.kernel.interrupts(true);
            x.deliver(Pair.bytes(4, 2));
            assertEquals(1, x.r.kernel.interruptEdges());
            assertEquals(1, x.ep.signals(), "the endpoint was signalled");
            assertEquals(0, x.r.upcallPending(), "the driver cleared the mask");
            assertFalse(x.r.card.interrupt().isAsserted(), "and acknowledged the line");
            assertEquals(0, x.r.card.bcr().read(BCR_OFS));
            // All pending messages are consumed in one pass.
            int n = 0;
            for (long d; (d = x.side.ep.poll()) >= 0; n++) {
                x.side.ep.releaseKeepBuffers(d);
            }
            assertEquals(1, n);

            // The line and the BCR as the card drives them, without the driver's handler.
            x.r.card.interrupt().handler(null);
            x.r.kernel.setUpcallMode(x.ep, UPCALL_ALMOST_FULL); // fires at 6 of 8 outstanding
            for (int i = 0; i < 5; i++) {
                x.deliver(Pair.bytes(4, i));
            }
            assertEquals(0, x.r.upcallPending(), "5 of 8 is not almost full");
            x.deliver(Pair.bytes(4, 9));
            assertEquals(bit, x.r.upcallPending(), "6 of 8 is");
            assertTrue(x.r.card.interrupt().isAsserted());
            assertEquals(BCR_INTR_PENDING, x.r.card.bcr().read(BCR_OFS));
            x.r.card.bcr().write(BCR_OFS, BCR_CLEAR_INTR);
            assertFalse(x.r.card.interrupt().isAsserted());

            x.r.kernel.setUpcallMode(x.ep, UPCALL_NONE);
            x.r.card.registers().write(UG_OFS + UG_UPCALL_PENDING_OFS, bit);
            x.deliver(Pair.bytes(4, 1));
            assertEquals(0, x.r.upcallPending());
            assertFalse(x.r.card.interrupt().isAsserted());
        }
    }
}
