package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.sim.atm.Aal5;
import io.nicbridge.sim.atm.AtmCells;
import io.nicbridge.sim.atm.CellLink;
import io.nicbridge.sim.engine.InlineEngine;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 16: a PDU of several cells takes free buffers cell by cell; if other PDUs filled the receive queue before its
 * last cell, it used to be dropped at the end and the buffers it had taken were never reported - lost to the process.
 * The firmware now reserves the PDU's receive-queue entry at its first cell (or discards the PDU before it takes any
 * buffer), so every buffer taken from the free queue is listed in some entry. Driven through the contract only:
 * board RAM, host memory, cells.
 */
class Sba200ReceiveQueueReservationTest {
    private static final long BUS = 0x10_0000;
    private static final int SEG = 0x0;
    private static final int RQ = 0x8000;
    private static final int RQ_LEN = 4;
    private static final ValueLayout.OfInt BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int LONG_VCI = 50;
    private static final int SHORT_VCI = 51;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment host = arena.allocate(0x10000, 4096);
    private final InlineEngine engine = new InlineEngine();
    private final Sba200Model card;
    private final Registers ram;
    private final int page = Sba200Model.pageOffset(0);
    private int fqProd;

    Sba200ReceiveQueueReservationTest() {
        DmaSpace dma = Sba200Model.newDmaSpace("reservation.dma");
        dma.registerAt("host", host, BUS);
        card = new Sba200Model("reservation", engine.timeBase(), dma, Sba200Timing.WIRE_ONLY);
        card.attach(engine, CellLink.builder(engine.timeBase(), (c, o) -> { }).build());
        ram = card.ram();
        assertEquals(CMD_STATUS_DONE, command(OP_EP_CREATE, 0, (int) BUS + SEG, 0x4000, (int) BUS + RQ, RQ_LEN));
        assertEquals(CMD_STATUS_DONE, command(OP_CH_OPEN, 0, 0, 0, 40, LONG_VCI));
        assertEquals(CMD_STATUS_DONE, command(OP_CH_OPEN, 0, 1, 0, 41, SHORT_VCI));
        for (int b = 0; b < 8; b++) {
            freeBuffer(64 * b, 64);
        }
    }

    @AfterEach
    void close() {
        card.close();
        engine.close();
        arena.close();
    }

    @Test
    void aPduStartedWithRoomKeepsItsEntryAndReportsEveryBufferItTook() {
        byte[][] cells = cells(LONG_VCI, 150); // 4 cells, 3 buffers of 64
        for (int c = 0; c < cells.length - 1; c++) {
            inject(cells[c]);
        }
        assertEquals(2, fqCons(), "the first 96 bytes are in two buffers already");
        for (int m = 0; m < RQ_LEN; m++) {
            inject(cells(SHORT_VCI, 10 + m)[0]);
        }
        assertEquals(1, counter(UG_CNT_DROP_RQ_FULL_OFS), "the fourth short PDU finds only the reserved entry");
        inject(cells[cells.length - 1]);

        for (int m = 0; m < RQ_LEN - 1; m++) {
            assertEquals(RX_VALID | RX_INLINE | 1 << RX_CHAN_SHIFT | 10 + m, w0(m));
        }
        assertEquals(RX_VALID | 3 << RX_NBUFS_SHIFT | 150, w0(3), "the long PDU got its entry");
        int listed = 0;
        for (int b = 0; b < 3; b++) {
            assertEquals(64 * b, word(3, 2 + 2 * b), "buffer " + b);
            listed += word(3, 3 + 2 * b);
            for (int i = 0; i < word(3, 3 + 2 * b); i++) {
                assertEquals((byte) (64 * b + i), host.get(ValueLayout.JAVA_BYTE, SEG + 64L * b + i));
            }
        }
        assertEquals(150, listed);
        assertEquals(3, fqCons(), "every buffer taken from the free queue is listed in an entry");
        assertEquals(0, counter(UG_CNT_DROP_NO_FREE_BUF_OFS));
        assertEquals(RQ_LEN, counter(UG_CNT_PDUS_RX_OFS));
    }

    @Test
    void aPduStartedWithoutRoomTakesNoBuffer() {
        for (int m = 0; m < RQ_LEN; m++) {
            inject(cells(SHORT_VCI, 10 + m)[0]);
        }
        for (byte[] cell : cells(LONG_VCI, 150)) {
            inject(cell);
        }
        assertEquals(1, counter(UG_CNT_DROP_RQ_FULL_OFS));
        assertEquals(0, fqCons(), "discarded before it took a buffer");
    }

    @Test
    void closingTheChannelMidPduReleasesTheReservation() {
        byte[][] cells = cells(LONG_VCI, 150);
        inject(cells[0]);
        assertEquals(CMD_STATUS_DONE, command(OP_CH_CLOSE, 0, 0, 0, 0, 0));
        for (int m = 0; m < RQ_LEN; m++) {
            inject(cells(SHORT_VCI, 10 + m)[0]);
        }
        assertEquals(0, counter(UG_CNT_DROP_RQ_FULL_OFS), "no entry stays reserved for a PDU that cannot end");
        assertEquals(RQ_LEN, counter(UG_CNT_PDUS_RX_OFS));
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private int command(int op, int... args) {
        int prod = ram.read(UG_OFS + UG_CMD_PROD_OFS);
        int slot = CMDQ_OFS + (prod & (CMDQ_LEN - 1)) * CMD_SIZE;
        for (int a = 0; a < args.length; a++) {
            ram.write(slot + CMD_ARG_OFS + 4 * a, args[a]);
        }
        ram.write(slot + CMD_OP_OFS, op);
        ram.write(slot + CMD_STATUS_OFS, CMD_STATUS_PENDING);
        ram.write(UG_OFS + UG_CMD_PROD_OFS, prod + 1); // the doorbell: the inline engine runs the command now
        return ram.read(slot + CMD_STATUS_OFS) & CMD_STATUS_MASK;
    }

    private void freeBuffer(int offset, int length) {
        int slot = page + FQ_OFS + (fqProd & (FQ_LEN - 1)) * FQ_ENTRY_SIZE;
        ram.write(slot, offset);
        ram.write(slot + 4, length);
        ram.write(page + EPCB_FQ_PROD_OFS, ++fqProd);
    }

    private int fqCons() {
        return ram.read(page + EPCB_FQ_CONS_OFS);
    }

    private long counter(int ugOffset) {
        return card.counter(ugOffset);
    }

    private int word(int entry, int w) {
        return host.get(BE, RQ + (long) entry * RQ_ENTRY_SIZE + 4L * w);
    }

    private int w0(int entry) {
        return word(entry, 0);
    }

    private void inject(byte[] cell) {
        card.cellArrived(MemorySegment.ofArray(cell), 0);
    }

    /** The AAL5 cells of a PDU of {@code length} bytes 0, 1, 2, ... on VPI 0. */
    private static byte[][] cells(int vci, int length) {
        MemorySegment pdu = MemorySegment.ofArray(new byte[Aal5.cells(length) * AtmCells.PAYLOAD_SIZE]);
        for (int i = 0; i < length; i++) {
            pdu.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        int n = Aal5.frame(pdu, 0, length, 0) / AtmCells.PAYLOAD_SIZE;
        byte[][] cells = new byte[n][];
        for (int c = 0; c < n; c++) {
            MemorySegment cell = MemorySegment.ofArray(new byte[AtmCells.CELL_SIZE]);
            AtmCells.writeHeader(cell, 0, AtmCells.header(0, vci, c == n - 1 ? PTI_AUU : 0, 0));
            MemorySegment.copy(pdu, (long) c * AtmCells.PAYLOAD_SIZE, cell, AtmCells.HEADER_SIZE,
                AtmCells.PAYLOAD_SIZE);
            cells[c] = cell.toArray(ValueLayout.JAVA_BYTE);
        }
        return cells;
    }
}
