package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.memory.DmaView;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.bridge.driver.unet.UnetKernelDriver;
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
import java.util.function.UnaryOperator;

/**
 * One SBA-200 whose uplink records every cell (with its arrival time), and a way to inject cells into it, driven by
 * the bridge's kernel driver (the one host stack).
 */
final class CardRig implements AutoCloseable {
    final Arena arena = Arena.ofShared();
    final DeviceEngine engine;
    final Sba200Model model;
    final Sba200Card card;
    final UnetKernelDriver kernel;
    private final List<CommSegment> segments = new ArrayList<>();
    final CellLink uplink;
    final List<byte[]> sent = new ArrayList<>();
    final List<Long> sentAt = new ArrayList<>();

    CardRig(EngineMode mode, Sba200Timing timing) {
        this(mode, timing, UnaryOperator.identity());
    }

    /**
     * A rig whose firmware's DMA port is {@code busTap} applied to the card's DMA space (e.g. a
     * {@link io.nicbridge.sim.testing.RecordingDmaView}).
     */
    CardRig(EngineMode mode, Sba200Timing timing, UnaryOperator<DmaView> busTap) {
        engine = Engines.create(mode, 7, mode == EngineMode.THREADED ? new io.nicbridge.bridge.idle.BackoffIdle() : null);
        model = new Sba200Model("rig", engine.timeBase(), Sba200Model.newDmaSpace("rig.dma"), timing, busTap);
        uplink = CellLink.builder(engine.timeBase(), (c, o) -> {
            sent.add(c.asSlice(o, AtmCells.CELL_SIZE).toArray(ValueLayout.JAVA_BYTE));
            sentAt.add(engine.timeBase().nanoTime());
        }).propagationNanos(0).build();
        model.attach(engine, uplink);
        card = new Sba200Card(DeviceSpec.parse("emu:sba200"), model, 0, () -> { });
        kernel = UnetKernelDriver.open(card, card.bcr(), Sba200Network.driverProgress(engine));
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

    /** A communication segment of (at least, page-rounded) {@code bytes}, closed with the rig. */
    CommSegment segment(long bytes) {
        CommSegment s = CommSegment.allocate("rig segment " + segments.size(), bytes);
        segments.add(s);
        return s;
    }

    UnetEndpoint endpoint(int segmentBytes, int rqLen) {
        return kernel.createEndpoint(segment(segmentBytes), rqLen);
    }

    /** Opens channel {@code ch} of {@code ep} on VPI 0 with the given VCIs; returns {@code ch}. */
    int channel(UnetEndpoint ep, int ch, int txVci, int rxVci) {
        kernel.openChannel(ep, ch, 0, txVci, rxVci);
        return ch;
    }

    /**
     * Rings {@code ep}'s send doorbell the way the card sees it: the current {@code sq_prod} of its page written
     * through the board-RAM {@link io.nicbridge.bridge.regs.Registers} (for tests that write raw descriptors).
     */
    void ringSendDoorbell(UnetEndpoint ep) {
        int page = EP_PAGE_BASE + ep.id() * EP_PAGE_SIZE;
        card.registers().writeRelease(page + EPCB_SQ_PROD_OFS, epcb(ep, EPCB_SQ_PROD_OFS));
    }

    /** The UG upcall-pending mask (kernel view). */
    int upcallPending() {
        return card.registers().read(UG_OFS + UG_UPCALL_PENDING_OFS);
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

    int epcb(UnetEndpoint ep, int offset) {
        return ep.page().get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), offset);
    }

    @Override
    public void close() {
        kernel.close();
        card.close();
        engine.close();
        for (CommSegment s : segments) {
            s.close();
        }
        arena.close();
    }
}
