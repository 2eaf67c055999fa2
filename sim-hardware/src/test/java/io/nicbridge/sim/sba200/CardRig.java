package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.sim.atm.Aal5;
import io.nicbridge.sim.atm.AtmCells;
import io.nicbridge.sim.atm.CellLink;
import io.nicbridge.sim.engine.DeviceEngine;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.Engines;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/** One SBA-200 whose uplink records every cell (with its arrival time), and a way to inject cells into it. */
final class CardRig implements AutoCloseable {
    final Arena arena = Arena.ofShared();
    final DeviceEngine engine;
    final Sba200Model model;
    final Sba200Card card;
    final UnetKernel kernel;
    final CellLink uplink;
    final List<byte[]> sent = new ArrayList<>();
    final List<Long> sentAt = new ArrayList<>();

    CardRig(EngineMode mode, Sba200Timing timing) {
        engine = Engines.create(mode, 7, mode == EngineMode.THREADED ? new io.nicbridge.sim.engine.BackoffIdle() : null);
        model = new Sba200Model("rig", engine.timeBase(), Sba200Model.newDmaSpace("rig.dma"), timing);
        uplink = CellLink.builder(engine.timeBase(), (c, o) -> {
            sent.add(c.asSlice(o, AtmCells.CELL_SIZE).toArray(ValueLayout.JAVA_BYTE));
            sentAt.add(engine.timeBase().nanoTime());
        }).propagationNanos(0).build();
        model.attach(engine, uplink);
        card = new Sba200Card(DeviceSpec.parse("emu:sba200"), model, 0, () -> { });
        kernel = new UnetKernel(card, engine);
    }

    static CardRig inline() {
        return new CardRig(EngineMode.INLINE, Sba200Timing.WIRE_ONLY);
    }

    void settle() {
        if (engine instanceof VirtualTimeEngine v) {
            v.runUntilIdle();
        } else {
            engine.poll();
        }
    }

    Sba200Endpoint endpoint(int segmentBytes, int rqLen) {
        return kernel.createEndpoint(arena.allocate(segmentBytes, 64), rqLen);
    }

    /** Frames payload as AAL5 and injects its cells on (vpi, vci); returns the cells (53 bytes each). */
    List<byte[]> cellsOf(int vpi, int vci, byte[] payload) {
        MemorySegment pdu = arena.allocate(Aal5.cells(payload.length) * 48L + 48, 8);
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, pdu, 0, payload.length);
        int total = Aal5.frame(pdu, 0, payload.length, 0);
        List<byte[]> cells = new ArrayList<>();
        for (int c = 0; c < total / 48; c++) {
            MemorySegment cell = MemorySegment.ofArray(new byte[AtmCells.CELL_SIZE]);
            boolean last = c == total / 48 - 1;
            AtmCells.writeHeader(cell, 0, AtmCells.header(vpi, vci, last ? PTI_AUU : 0, 0));
            MemorySegment.copy(pdu, c * 48L, cell, 5, 48);
            cells.add(cell.toArray(ValueLayout.JAVA_BYTE));
        }
        return cells;
    }

    void inject(byte[] cell) {
        model.cellArrived(MemorySegment.ofArray(cell), 0);
    }

    void injectAll(List<byte[]> cells) {
        for (byte[] c : cells) {
            inject(c);
        }
        settle();
    }

    long counter(int ugOffset) {
        return model.counter(ugOffset);
    }

    int epcb(Sba200Endpoint ep, int offset) {
        return ep.page().get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), offset);
    }

    @Override
    public void close() {
        card.close();
        engine.close();
        arena.close();
    }
}
