package io.nicbridge.bench.jmh;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.bridge.driver.unet.UnetKernelDriver;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.sim.atm.Aal5;
import io.nicbridge.sim.atm.AtmCells;
import io.nicbridge.sim.atm.CellLink;
import io.nicbridge.sim.engine.InlineEngine;
import io.nicbridge.sim.sba200.Sba200Card;
import io.nicbridge.sim.sba200.Sba200Model;
import io.nicbridge.sim.sba200.Sba200Timing;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Per-cell costs of the emulated SBA-200's ATM layer:
 * <ul>
 *   <li>{@code aal5CrcPerCell}: the AAL5 CRC-32 over one 48-byte cell payload (table-driven);</li>
 *   <li>{@code hecPerCell}: the header's CRC-8;</li>
 *   <li>{@code segmentCellPerCell}: building one cell from a CPCS-PDU (header word, HEC, 48-byte payload copy) as
 *       the firmware's segmentation loop does;</li>
 *   <li>{@code vciDemuxPerCell}: a cell through the card's receive side up to the VCI demux decision (ingress FIFO,
 *       service pass, HEC check, demux-table lookup, counted drop of a VCI no channel registered);</li>
 *   <li>{@code receiveInlineCellPerCell}: a complete single-cell PDU on an open channel: FIFO, HEC, demux, CRC,
 *       inline write into the host receive queue, VALID published (the benchmark consumes the entry).</li>
 * </ul>
 * The card runs on an inline engine, so each cell is processed on the benchmark thread. Expect 0 B/op.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AtmCellBench {
    private static final ValueLayout.OfInt BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Arena arena;
    private MemorySegment pdu;
    private MemorySegment cell;
    private MemorySegment unknownVciCell;
    private MemorySegment inlineCell;
    private InlineEngine engine;
    private Sba200Card card;
    private UnetKernelDriver kernel;
    private CommSegment segment;
    private UnetEndpoint endpoint;
    private MemorySegment rq;
    private MemorySegment page;
    private int rqIndex;
    private int header;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        pdu = arena.allocate(48 * 22, 64);
        for (int i = 0; i < 1000; i++) {
            pdu.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        Aal5.frame(pdu, 0, 1000, 0);
        cell = arena.allocate(AtmCells.CELL_SIZE, 8);
        header = AtmCells.header(0, 100, 0, 0);

        engine = new InlineEngine();
        Sba200Model model = new Sba200Model("bench", engine.timeBase(), Sba200Model.newDmaSpace("bench.dma"),
            Sba200Timing.WIRE_ONLY);
        CellLink link = CellLink.builder(engine.timeBase(), (c, o) -> { }).build();
        model.attach(engine, link);
        card = new Sba200Card(DeviceSpec.parse("emu:sba200"), model, 0, () -> { });
        kernel = UnetKernelDriver.open(card, card.bcr(), engine::poll);
        segment = CommSegment.allocate("bench segment", 4096);
        endpoint = kernel.createEndpoint(segment, 64);
        kernel.openChannel(endpoint, 0, 0, 100, 200);
        // The benchmark plays the process with raw stores (no API cost in the figure): the card's part only.
        rq = endpoint.receiveQueueSegment();
        page = endpoint.page();

        unknownVciCell = arena.allocate(AtmCells.CELL_SIZE, 8);
        AtmCells.writeHeader(unknownVciCell, 0, AtmCells.header(0, 300, 0, 0));
        inlineCell = arena.allocate(AtmCells.CELL_SIZE, 8);
        MemorySegment one = arena.allocate(48, 8);
        one.fill((byte) 0x42);
        Aal5.frame(one, 0, 32, 0);
        AtmCells.writeHeader(inlineCell, 0, AtmCells.header(0, 200, PTI_AUU, 0));
        MemorySegment.copy(one, 0, inlineCell, 5, 48);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        kernel.close();
        segment.close();
        card.close();
        engine.close();
        arena.close();
    }

    @Benchmark
    public int aal5CrcPerCell() {
        return Aal5.crcUpdate(Aal5.CRC_INIT, pdu, 48, 48);
    }

    @Benchmark
    public int hecPerCell() {
        return AtmCells.hec(++header);
    }

    @Benchmark
    public MemorySegment segmentCellPerCell() {
        AtmCells.writeHeader(cell, 0, header);
        MemorySegment.copy(pdu, 96, cell, AtmCells.HEADER_SIZE, AtmCells.PAYLOAD_SIZE);
        return cell;
    }

    @Benchmark
    public void vciDemuxPerCell() {
        card.model().cellArrived(unknownVciCell, 0);
    }

    @Benchmark
    public int receiveInlineCellPerCell() {
        card.model().cellArrived(inlineCell, 0);
        // The process consumes the entry: VALID cleared, rq_cons advanced.
        long d = (long) (rqIndex & 63) * RECV_DESC_SIZE;
        int w0 = rq.get(BE, d);
        rq.set(BE, d, 0);
        page.set(BE, EPCB_RQ_CONS_OFS, ++rqIndex);
        return w0;
    }
}
