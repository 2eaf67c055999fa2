package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.sim.atm.Aal5;
import io.nicbridge.sim.atm.AtmCells;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class Sba200TransmitTest {
    static final ValueLayout.OfInt BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Writes a raw send descriptor (bypassing the user-side checks) and advances sq_prod; returns its status. */
    static int postRaw(CardRig r, UnetEndpoint ep, int w0, int... pairs) {
        // Raw page writes, as a buggy or malicious process could make them; the doorbell is rung through the
        // board RAM registers like every doorbell.
        MemorySegment page = ep.page();
        int prod = page.get(BE, EPCB_SQ_PROD_OFS);
        long d = SQ_OFS + (long) (prod & (SQ_LEN - 1)) * SEND_DESC_SIZE;
        page.set(BE, d + 4, TX_STATUS_PENDING);
        for (int i = 0; i < pairs.length; i++) {
            page.set(BE, d + 8 + 4L * i, pairs[i]);
        }
        page.set(BE, d, w0);
        page.set(BE, EPCB_SQ_PROD_OFS, prod + 1);
        r.ringSendDoorbell(ep);
        r.settle();
        assertEquals(prod + 1, page.get(BE, EPCB_SQ_CONS_OFS), "the NI consumed the descriptor");
        assertEquals(0, page.get(BE, d) & TX_VALID, "VALID cleared by the NI");
        return page.get(BE, d + 4);
    }

    static int w0(int length, int chan, int nbufs, boolean inline) {
        return TX_VALID | (inline ? TX_INLINE : 0) | nbufs << TX_NBUFS_SHIFT | chan << TX_CHAN_SHIFT | length;
    }

    @Test
    void everySendStatus() {
        try (CardRig r = CardRig.inline()) {
            UnetEndpoint ep = r.endpoint(4096, 8);
            int ch = r.kernel.openChannel(ep, 0, 100, 200);
            assertEquals(TX_STATUS_SENT, postRaw(r, ep, w0(16, ch, 1, false), 0, 16));
            assertEquals(1, r.sent.size());
            assertEquals(TX_STATUS_BAD_CHANNEL, postRaw(r, ep, w0(16, ch + 1, 1, false), 0, 16));
            assertEquals(TX_STATUS_TOO_LONG, postRaw(r, ep, w0(41, ch, 0, true)));
            assertEquals(TX_STATUS_TOO_LONG, postRaw(r, ep, w0(16, ch, 1, false), 0, 70_000));
            assertEquals(TX_STATUS_BAD_DESC, postRaw(r, ep, w0(16, ch, 0, false), 0, 16), "nbufs 0");
            assertEquals(TX_STATUS_BAD_DESC, postRaw(r, ep, w0(16, ch, 7, false), 0, 16), "nbufs 7");
            assertEquals(TX_STATUS_BAD_DESC, postRaw(r, ep, w0(16, ch, 2, false), 0, 8, 64, 4), "sum 12 != 16");
            assertEquals(TX_STATUS_BAD_DESC, postRaw(r, ep, w0(16, ch, 1, false) & ~TX_VALID, 0, 16), "no VALID");
            assertEquals(0, r.epcb(ep, EPCB_EP_STATUS_OFS) & EP_SEGFAULT);
            assertEquals(TX_STATUS_SEG_BOUNDS, postRaw(r, ep, w0(16, ch, 1, false), 4090, 16));
            assertEquals(EP_SEGFAULT, r.epcb(ep, EPCB_EP_STATUS_OFS) & EP_SEGFAULT);
            assertEquals(TX_STATUS_SEG_BOUNDS, postRaw(r, ep, w0(16, ch, 1, false), 0xFFFF_FFF8, 16), "no wrap");
            assertEquals(TX_STATUS_SEG_BOUNDS, postRaw(r, ep, w0(32, ch, 2, false), 0, 16, 4095, 16), "second buffer");
            assertEquals(1, r.sent.size(), "rejected descriptors send nothing");
            assertEquals(10, r.counter(UG_CNT_TX_REJECTED_OFS));
            assertEquals(10, r.epcb(ep, EPCB_TX_REJECTED_OFS));
            assertEquals(1, r.counter(UG_CNT_PDUS_TX_OFS));
            assertEquals(TX_STATUS_BAD_DESC, postRaw(r, ep, w0(0, ch, 0, true)), "LEN 0 is AAL5's abort");
        }
    }

    @Test
    void endpointsAreServedRoundRobin() {
        try (CardRig r = new CardRig(io.nicbridge.sim.engine.EngineMode.VIRTUAL, Sba200Timing.WIRE_ONLY)) {
            UnetEndpoint e1 = r.endpoint(4096, 8);
            UnetEndpoint e2 = r.endpoint(4096, 8);
            Pair.Side s1 = new Pair.Side(e1, r.kernel.openChannel(e1, 0, 101, 201));
            Pair.Side s2 = new Pair.Side(e2, r.kernel.openChannel(e2, 0, 102, 202));
            for (int i = 0; i < 3; i++) {
                assertTrue(s1.sendInline(Pair.bytes(8, i)));
            }
            for (int i = 0; i < 3; i++) {
                assertTrue(s2.sendInline(Pair.bytes(8, i)));
            }
            r.settle();
            StringBuilder order = new StringBuilder();
            for (byte[] c : r.sent) {
                order.append(AtmCells.vci(AtmCells.readHeader(MemorySegment.ofArray(c), 0)) - 100);
            }
            assertEquals("121212", order.toString(), "one PDU per endpoint in turn");
        }
    }

    @Test
    void segmentMemoryGoneIsADmaErrorNotACrash() {
        try (CardRig r = CardRig.inline()) {
            var process = io.nicbridge.bridge.memory.CommSegment.allocate("dying process", 4096);
            UnetEndpoint ep = r.kernel.createEndpoint(process, 8);
            int ch = r.kernel.openChannel(ep, 0, 100, 200);
            Pair.Side side = new Pair.Side(ep, ch);
            side.postBuffers(0, 4, 1024);
            process.close(); // the process died with its segment still pinned
            assertEquals(TX_STATUS_DMA_ERROR, postRaw(r, ep, w0(16, ch, 1, false), 0, 16));
            r.injectAll(r.cellsOf(0, 200, Pair.bytes(100, 1)));
            long d = side.ep.poll();
            assertEquals(RX_ERR_DMA, side.ep.errorCode(d));
            assertEquals(2, r.counter(UG_CNT_DMA_ERRORS_OFS));
        }
    }

    @Test
    void aSegmentUnmappedUnderTheCardIsADmaError() {
        try (CardRig r = CardRig.inline()) {
            UnetEndpoint ep = r.endpoint(4096, 8);
            int ch = r.kernel.openChannel(ep, 0, 100, 200);
            Pair.Side side = new Pair.Side(ep, ch);
            side.postBuffers(0, 4, 1024);
            var dma = r.model.dma();
            long segBus = dma.busAddress(ep.segment());
            dma.unregister(segBus); // the kernel unmaps the segment while the endpoint is still active (its own bug)
            assertEquals(TX_STATUS_DMA_ERROR, postRaw(r, ep, w0(16, ch, 1, false), 0, 16));
            assertEquals(0, r.sent.size(), "nothing sent");
            r.injectAll(r.cellsOf(0, 200, Pair.bytes(100, 1)));
            long d = side.ep.poll();
            assertEquals(RX_ERR_DMA, side.ep.errorCode(d));
            assertEquals(2, r.counter(UG_CNT_DMA_ERRORS_OFS));
            side.ep.releaseKeepBuffers(d);

            dma.registerAt("segment again", ep.segment(), segBus); // mapped again: it works
            assertEquals(TX_STATUS_SENT, postRaw(r, ep, w0(16, ch, 1, false), 0, 16));
            assertEquals(2, r.counter(UG_CNT_DMA_ERRORS_OFS));
        }
    }

    /** Reassembles the recorded cells of one PDU, checking each header; returns the payload. */
    static byte[] checkCells(CardRig r, int from, int vpi, int vci, int length) {
        int cells = Aal5.cells(length);
        assertEquals(from + cells, r.sent.size(), "cells for " + length + " bytes");
        MemorySegment pdu = MemorySegment.ofArray(new byte[cells * 48]);
        for (int c = 0; c < cells; c++) {
            MemorySegment cell = MemorySegment.ofArray(r.sent.get(from + c));
            assertTrue(AtmCells.hecOk(cell, 0), "HEC of cell " + c);
            int h = AtmCells.readHeader(cell, 0);
            assertEquals(0, AtmCells.gfc(h));
            assertEquals(vpi, AtmCells.vpi(h));
            assertEquals(vci, AtmCells.vci(h));
            assertEquals(c == cells - 1 ? 1 : 0, AtmCells.pti(h), "PTI of cell " + c);
            assertEquals(0, AtmCells.clp(h));
            MemorySegment.copy(cell, 5, pdu, c * 48L, 48);
        }
        long last = (cells - 1) * 48L;
        assertEquals(length, Aal5.trailerLength(pdu, last));
        assertEquals(0, Aal5.trailerUu(pdu, last));
        assertEquals(0, Aal5.trailerCpi(pdu, last));
        assertEquals(Aal5.crc(pdu, 0, cells * 48L - 4), Aal5.trailerCrc(pdu, last));
        for (long i = length; i < cells * 48L - 8; i++) {
            assertEquals(0, pdu.get(ValueLayout.JAVA_BYTE, i), "pad byte " + i);
        }
        return pdu.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void segmentationCellCountsHeadersAndTrailer() {
        try (CardRig r = CardRig.inline()) {
            UnetEndpoint ep = r.endpoint(70_000, 8);
            int ch = r.kernel.openChannel(ep, 7, 100, 200);
            for (int length : new int[] {1, 40, 41, 47, 48, 88, 89, 1000, 4096, 65535}) {
                byte[] data = Pair.bytes(length, length);
                MemorySegment.copy(MemorySegment.ofArray(data), 0, ep.segment(), 64, length);
                int before = r.sent.size();
                long cellsBefore = r.counter(UG_CNT_CELLS_TX_OFS);
                assertEquals(TX_STATUS_SENT, postRaw(r, ep, w0(length, ch, 1, false), 64, length));
                assertArrayEquals(data, checkCells(r, before, 7, 100, length), "payload of " + length);
                assertEquals(Aal5.cells(length), r.counter(UG_CNT_CELLS_TX_OFS) - cellsBefore);
            }
        }
    }

    @Test
    void gatherFromSixBuffersAndInline() {
        try (CardRig r = CardRig.inline()) {
            UnetEndpoint ep = r.endpoint(8192, 8);
            int ch = r.kernel.openChannel(ep, 0, 100, 200);
            byte[] all = Pair.bytes(600, 3);
            int[] pairs = new int[12];
            int at = 0;
            for (int i = 0; i < 6; i++) {
                int off = 7000 - i * 1000; // out of order in the segment
                MemorySegment.copy(MemorySegment.ofArray(all), at, ep.segment(), off, 100);
                pairs[2 * i] = off;
                pairs[2 * i + 1] = 100;
                at += 100;
            }
            assertEquals(TX_STATUS_SENT, postRaw(r, ep, w0(600, ch, 6, false), pairs));
            assertArrayEquals(all, checkCells(r, 0, 0, 100, 600));

            byte[] small = Pair.bytes(40, 9);
            // Through the endpoint API now, on a second endpoint (the first one's send queue was written raw, behind
            // its API's back), sending on the same transmit VCI once the first endpoint's channel is closed (the card
            // refuses a transmit VCI in use).
            r.kernel.closeChannel(ep, ch);
            UnetEndpoint api = r.endpoint(4096, 8);
            Pair.Side side = new Pair.Side(api, r.kernel.openChannel(api, 0, 100, 201));
            assertTrue(side.sendInline(small));
            r.settle();
            assertEquals(TX_STATUS_SENT, side.ep.pollSendCompletion());
            assertArrayEquals(small, checkCells(r, Aal5.cells(600), 0, 100, 40));
        }
    }
}
