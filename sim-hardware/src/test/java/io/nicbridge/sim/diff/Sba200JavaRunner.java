package io.nicbridge.sim.diff;

import static io.nicbridge.contract.Sba200Unet.*;
import static io.nicbridge.sim.diff.Sba200Scenario.BUS;
import static io.nicbridge.sim.diff.Sba200Scenario.ENDPOINTS;
import static io.nicbridge.sim.diff.Sba200Scenario.MEM;
import static io.nicbridge.sim.diff.Sba200Scenario.RQ_AREA;
import static io.nicbridge.sim.diff.Sba200Scenario.SEG_AREA;
import static io.nicbridge.sim.diff.Sba200Scenario.SEG_STRIDE;

import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.sim.atm.Aal5;
import io.nicbridge.sim.atm.AtmCells;
import io.nicbridge.sim.atm.CellLink;
import io.nicbridge.sim.engine.DeviceEngine;
import io.nicbridge.sim.engine.DeviceModel;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.RealTimeBase;
import io.nicbridge.sim.engine.WorkSignal;
import io.nicbridge.sim.sba200.Sba200Model;
import io.nicbridge.sim.sba200.Sba200Timing;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * The Java half of the U-Net firmware differential test: runs a {@link Sba200Scenario} on the emulated SBA-200
 * ({@link Sba200Model}, real time) through its contract only - board RAM and BCR register windows, the DMA space,
 * cells in and out - and returns the trace described in {@link Sba200Scenario}.
 * native-headers/src/test/c/shim/diff/sba200_diff_runner.c prints the same trace for the shim's C card.
 *
 * <p>The model is serviced explicitly after every operation until it has no work left, as the C runner calls the
 * card's work(); its engine's kicks are no-ops, so no pass ever runs in the middle of an operation. Received PDUs
 * are framed as AAL5 (UU 0, CPI 0) and cut into cells here; transmitted cells are reassembled per VCI and each PDU
 * traced once its last cell is out, with " BADPDU" if its trailer's length or CRC is wrong.
 */
final class Sba200JavaRunner {
    private static final ValueLayout.OfInt BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int HEARTBEAT = UG_OFS + UG_HEARTBEAT_OFS;

    private final StringBuilder out = new StringBuilder();
    private final MemorySegment mem;
    private final MemorySegment pdu;
    private final MemorySegment cell;
    private final Sba200Model card;
    private final Registers ram;
    private final int[] posted = new int[ENDPOINTS];
    /** Transmitted cells per VCI until the PDU's last one. */
    private final Map<Integer, java.io.ByteArrayOutputStream> reassembly = new HashMap<>();

    private Sba200JavaRunner(Arena arena) {
        RealTimeBase time = new RealTimeBase();
        mem = arena.allocate(MEM, 4096);
        pdu = arena.allocate((long) Aal5.MAX_CELLS * AtmCells.PAYLOAD_SIZE, 8);
        cell = arena.allocate(AtmCells.CELL_SIZE, 8);
        DmaSpace dma = Sba200Model.newDmaSpace("diff.dma");
        dma.registerAt("host", mem, BUS);
        card = new Sba200Model("diff", time, dma, Sba200Timing.WIRE_ONLY);
        card.attach(new ExplicitEngine(time), CellLink.builder(time, this::cellSent).propagationNanos(0).build());
        ram = card.ram();
    }

    static boolean endOfStep(String traceLine) {
        return traceLine.matches("\\d+ BCR .*");
    }

    static String trace(List<String> lines) {
        try (Arena arena = Arena.ofShared()) {
            Sba200JavaRunner runner = new Sba200JavaRunner(arena);
            try {
                return runner.run(lines);
            } finally {
                runner.card.close();
            }
        }
    }

    private String run(List<String> lines) {
        int k = 0;
        for (String line : lines) {
            String[] t = line.trim().split(" ");
            switch (t[0]) {
                case "W" -> ram.write(num(t[1]), num(t[2]));
                case "B" -> card.bcr().write(BCR_OFS, num(t[1]));
                case "K" -> command(t);
                case "P" -> {
                    int off = num(t[1]);
                    int len = num(t[2]);
                    int seed = num(t[3]);
                    for (int i = 0; i < len; i++) {
                        mem.set(ValueLayout.JAVA_BYTE, off + i, (byte) (i * 7 + seed));
                    }
                }
                case "T" -> sendDescriptor(t);
                case "TD" -> {
                    int ep = num(t[1]);
                    int p = Sba200Model.pageOffset(ep);
                    ram.write(p + EPCB_SQ_PROD_OFS, ram.read(p + EPCB_SQ_PROD_OFS) + posted[ep]);
                    posted[ep] = 0;
                }
                case "F" -> freeBuffer(num(t[1]), num(t[2]), num(t[3]));
                case "RX" -> receive(num(t[1]), num(t[2]), num(t[3]), num(t[4]));
                case "C" -> consume(num(t[1]), num(t[2]), num(t[3]));
                case "END" -> dump();
                default -> throw new IllegalArgumentException("unknown scenario operation: " + line);
            }
            while (card.service() > 0) {
                // until the firmware has nothing left to do, as the C runner's work() loop
            }
            out.append(k++).append(" BCR ").append(hex(card.bcr().read(BCR_OFS)))
                .append(" PEND ").append(hex(ram.read(UG_OFS + UG_UPCALL_PENDING_OFS)))
                .append(" CONS ").append(Integer.toUnsignedString(ram.read(UG_OFS + UG_CMD_CONS_OFS))).append('\n');
        }
        return out.toString();
    }

    /** Decimal, or "@X" = bus address of memory offset X; as the 32-bit word the contract has. */
    private static int num(String s) {
        return (int) (s.startsWith("@") ? BUS + Long.parseLong(s.substring(1)) : Long.parseLong(s));
    }

    private static String hex(int v) {
        return Integer.toHexString(v);
    }

    private static long crc(MemorySegment s, long off, long len) {
        CRC32 c = new CRC32();
        c.update(s.asSlice(off, len).asByteBuffer());
        return c.getValue();
    }

    private void command(String[] t) {
        int prod = ram.read(UG_OFS + UG_CMD_PROD_OFS);
        int cons = ram.read(UG_OFS + UG_CMD_CONS_OFS);
        if (Integer.compareUnsigned(prod - cons, CMDQ_LEN) >= 0) {
            out.append("KFULL\n");
            return;
        }
        int slot = CMDQ_OFS + (prod & (CMDQ_LEN - 1)) * CMD_SIZE;
        for (int a = 0; a < 5; a++) {
            ram.write(slot + CMD_ARG_OFS + 4 * a, num(t[2 + a]));
        }
        ram.write(slot + CMD_ARG_OFS + 20, 0);
        ram.write(slot + CMD_OP_OFS, num(t[1]));
        ram.write(slot + CMD_STATUS_OFS, CMD_STATUS_PENDING);
        ram.write(UG_OFS + UG_CMD_PROD_OFS, prod + 1);
    }

    private void sendDescriptor(String[] t) {
        int ep = num(t[1]);
        int p = Sba200Model.pageOffset(ep);
        int prod = ram.read(p + EPCB_SQ_PROD_OFS) + posted[ep];
        if (Integer.compareUnsigned(prod - ram.read(p + EPCB_SQ_CONS_OFS), SQ_LEN) >= 0) {
            out.append("SQFULL ").append(ep).append('\n');
            return;
        }
        int d = p + SQ_OFS + (prod & (SQ_LEN - 1)) * SEND_DESC_SIZE;
        for (int w = 2; w < 14; w++) {
            ram.write(d + 4 * w, num(t[1 + w]));
        }
        ram.write(d + SEND_DESC_STATUS_OFS, TX_STATUS_PENDING);
        ram.write(d + SEND_DESC_W0_OFS, num(t[2]));
        posted[ep]++;
    }

    private void freeBuffer(int ep, int off, int len) {
        int p = Sba200Model.pageOffset(ep);
        int prod = ram.read(p + EPCB_FQ_PROD_OFS);
        if (Integer.compareUnsigned(prod - ram.read(p + EPCB_FQ_CONS_OFS), FQ_LEN) >= 0) {
            out.append("FQFULL ").append(ep).append('\n');
            return;
        }
        int slot = p + FQ_OFS + (prod & (FQ_LEN - 1)) * FQ_ENTRY_SIZE;
        ram.write(slot, off);
        ram.write(slot + 4, len);
        ram.write(p + EPCB_FQ_PROD_OFS, prod + 1);
    }

    /** The process's receive loop (see {@link Sba200Scenario}: "C ep n L"). */
    private void consume(int ep, int n, int recycle) {
        int p = Sba200Model.pageOffset(ep);
        int rqLen = ram.read(p + EPCB_RQ_LEN_OFS);
        if (rqLen == 0) {
            return;
        }
        int q = RQ_AREA + ep * 0x1000;
        int segment = SEG_AREA + ep * SEG_STRIDE;
        int[] offsets = new int[MAX_BUFS];
        for (int k = 0; k < n; k++) {
            int cons = ram.read(p + EPCB_RQ_CONS_OFS);
            int e = q + (cons & (rqLen - 1)) * RQ_ENTRY_SIZE;
            int w0 = mem.get(BE, e);
            if ((w0 & RX_VALID) == 0) {
                return;
            }
            out.append("RQ ").append(ep).append(' ').append(hex(w0)).append(' ').append(hex(mem.get(BE, e + 4)));
            int len = (w0 & RX_LENGTH_MASK) >>> RX_LENGTH_SHIFT;
            int nbufs = (w0 & RX_NBUFS_MASK) >>> RX_NBUFS_SHIFT;
            int listed = 0;
            if ((w0 & RX_INLINE) != 0) {
                out.append(" I");
                for (int i = 0; i < len && i < INLINE_MAX; i++) {
                    out.append(String.format("%02x", mem.get(ValueLayout.JAVA_BYTE, e + RECV_DESC_INLINE_OFS + i)));
                }
            } else {
                for (int b = 0; b < nbufs && b < MAX_BUFS; b++) {
                    long off = Integer.toUnsignedLong(mem.get(BE, e + 8 + 8 * b));
                    long blen = Integer.toUnsignedLong(mem.get(BE, e + 12 + 8 * b));
                    out.append(' ').append(off).append(':').append(blen).append(':')
                        .append(off + blen <= SEG_STRIDE ? Long.toHexString(crc(mem, segment + off, blen)) : "oob");
                    offsets[listed++] = (int) off;
                }
            }
            out.append('\n');
            mem.set(BE, e, 0);
            ram.write(p + EPCB_RQ_CONS_OFS, cons + 1);
            for (int b = 0; recycle != 0 && b < listed; b++) {
                freeBuffer(ep, offsets[b], recycle);
            }
        }
    }

    /** A PDU from the network as AAL5 cells (the C side gets the same PDU as one frame). */
    private void receive(int vpi, int vci, int len, int seed) {
        for (int i = 0; i < len; i++) {
            pdu.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + seed));
        }
        int total = Aal5.frame(pdu, 0, len, 0);
        int cells = total / AtmCells.PAYLOAD_SIZE;
        for (int c = 0; c < cells; c++) {
            AtmCells.writeHeader(cell, 0, AtmCells.header(vpi, vci, c == cells - 1 ? PTI_AUU : 0, 0));
            MemorySegment.copy(pdu, (long) c * AtmCells.PAYLOAD_SIZE, cell, AtmCells.HEADER_SIZE,
                AtmCells.PAYLOAD_SIZE);
            card.cellArrived(cell, 0);
        }
    }

    /** The uplink's sink: cells reassembled per VCI; a PDU is traced when its last cell is out. */
    private void cellSent(MemorySegment c, long at) {
        int header = AtmCells.readHeader(c, at);
        java.io.ByteArrayOutputStream buffer = reassembly.computeIfAbsent(AtmCells.vpi(header) << 16
            | AtmCells.vci(header), key -> new java.io.ByteArrayOutputStream());
        buffer.writeBytes(c.asSlice(at + AtmCells.HEADER_SIZE, AtmCells.PAYLOAD_SIZE).toArray(ValueLayout.JAVA_BYTE));
        if (!AtmCells.isLastOfPdu(header)) {
            return;
        }
        MemorySegment bytes = MemorySegment.ofArray(buffer.toByteArray());
        buffer.reset();
        long last = bytes.byteSize() - AtmCells.PAYLOAD_SIZE;
        int len = Aal5.trailerLength(bytes, last);
        boolean good = Aal5.cells(len) * (long) AtmCells.PAYLOAD_SIZE == bytes.byteSize()
            && Aal5.crc(bytes, 0, bytes.byteSize() - 4) == Aal5.trailerCrc(bytes, last);
        out.append("TX ").append(AtmCells.vpi(header)).append(' ').append(AtmCells.vci(header)).append(' ')
            .append(len).append(' ').append(Long.toHexString(crc(bytes, 0, Math.min(len, bytes.byteSize()))))
            .append(good ? "" : " BADPDU").append('\n');
    }

    private void dump() {
        for (int off = 0; off < RAM_SIZE; off += 4) {
            int v = ram.read(off);
            if (v != 0 && off != HEARTBEAT) {
                out.append("R ").append(hex(off)).append(' ').append(hex(v)).append('\n');
            }
        }
        for (int off = 0; off < SEG_AREA; off += 4) {
            boolean timestamp = off >= RQ_AREA && off < RQ_AREA + ENDPOINTS * 0x1000
                && (off & (RQ_ENTRY_SIZE - 1)) >= RECV_DESC_TIMESTAMP_OFS;
            int v = mem.get(BE, off);
            if (v != 0 && !timestamp) {
                out.append("M ").append(hex(off)).append(' ').append(hex(v)).append('\n');
            }
        }
        for (int off = SEG_AREA; off < SEG_AREA + ENDPOINTS * SEG_STRIDE; off += 0x400) {
            out.append("S ").append(hex(off)).append(' ').append(Long.toHexString(crc(mem, off, 0x400))).append('\n');
        }
    }

    /** The runner drives the model itself: kicks do nothing, {@link Sba200Model#service()} is called per step. */
    private record ExplicitEngine(RealTimeBase timeBase) implements DeviceEngine {
        @Override
        public EngineMode mode() {
            return EngineMode.INLINE;
        }

        @Override
        public WorkSignal attach(DeviceModel model) {
            return () -> { };
        }

        @Override
        public void close() {
        }
    }
}
