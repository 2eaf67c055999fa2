package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.memory.DmaView;
import io.nicbridge.bridge.regs.RegisterSideEffects;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.spi.InterruptLine;
import io.nicbridge.sim.atm.AtmCells;
import io.nicbridge.sim.atm.CellLink;
import io.nicbridge.sim.atm.CellSink;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.engine.DeviceEngine;
import io.nicbridge.sim.engine.DeviceModel;
import io.nicbridge.sim.engine.FrameFifo;
import io.nicbridge.sim.engine.SimTimer;
import io.nicbridge.sim.engine.TimeBase;
import io.nicbridge.sim.engine.WorkSignal;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The emulated Fore SBA-200 running the U-Net firmware (docs/hardware-facts.md B.4, contract
 * {@code sba200_unet.h}): board RAM, BCR, the i960's polling loop, the AAL5 segmentation and reassembly engine and
 * the TAXI cell interface.
 *
 * <pre>
 *   kernel  --- ram() Registers (256 KiB, big-endian) --- UG block, command queue, VCI table      (hooks: cmd_prod
 *   process --- its endpoint page only (a 4 KiB slice) -- EPCB, send queue, free queue             doorbell,
 *   host    --- bcr() Registers (4 bytes) ---------------- reset / release / clear interrupt       sq_prod doorbells,
 *                                                                                                   pending W1C)
 *   service():  kernel commands -&gt; receive cells (demux, reassembly, RQ DMA) -&gt; send descriptors
 *               (checks, gather DMA, AAL5 framing + CRC-32, cells + HEC onto the uplink)
 *   DMA: every host access (segments, receive queues, GET_STATS) is one of the card's DmaSpace's accesses, at a
 *        bus address; segments and receive queues are validated once, at EP_CREATE, and their bus base and length
 *        kept in the i960's protection table; every offset is bounds-checked against that endpoint's own range -
 *        never another endpoint's. Memory unmapped or freed under the card is a BusError code: a DMA error.
 * </pre>
 *
 * <p><b>Send.</b> For each active endpoint (round robin) the firmware polls the send queue through
 * {@link UnetNiSendQueue}. A descriptor is rejected, with status and {@code tx_rejected} counted, when VALID is
 * missing, the length is 0 (AAL5's abort value), nbufs is 0 or &gt; 6, or the buffer lengths do not add up to
 * the length (BAD_DESC), the channel is not open (BAD_CHANNEL), an INLINE length exceeds 40 or a buffer length
 * 65535 (TOO_LONG), or a buffer leaves the segment (SEG_BOUNDS, and ep_status SEGFAULT). Otherwise the data is
 * gathered, framed as an AAL5 CPCS-PDU (UU 0, CPI 0, LEN, CRC-32), cut into cells (GFC 0, the channel's VPI/TX VCI,
 * PTI 000 and 001 on the last, CLP 0, HEC) and put on the uplink. Status SENT is written, then {@code sq_cons}
 * advanced: at once in real time; in virtual time when the firmware moves on to the next descriptor, which is
 * pipelined with the fiber (after the PDU's cells are fetched and its tail is about to leave; send and receive
 * share the one i960: {@link Sba200Timing}).
 *
 * <p><b>Receive.</b> Cells arrive through {@link #cellArrived} into a bounded ingress FIFO (any thread) and are
 * processed by {@code service()}: HEC check (bad: {@code hec_errors}), VCI demux through the RAM table (unknown or
 * VPI mismatch: {@code drop_unknown_vci}), per-VCI reassembly. A PDU of one cell with LEN &lt;= 40 goes INLINE into
 * the receive descriptor and takes no free buffer. Longer PDUs go into free-queue buffers (validated against the
 * segment; at most 6); the firmware holds each cell back by one so that on the last cell it knows LEN and writes
 * exactly LEN bytes, never pad or trailer. On the last cell CRC and LEN are checked; errors are delivered as ERROR
 * entries (code CRC, LENGTH, NO_BUFFERS, TOO_MANY_BUFS, DMA) that still list the buffers taken, so the process can
 * recycle them. A PDU of several cells reserves its receive-queue entry at its first cell; one that starts while the
 * queue is already full (counting the reserved entries) is discarded before it takes buffers (RQ overrun), so every
 * buffer taken is reported. A single-cell PDU that finds no entry beyond the reserved ones is dropped (RQ overrun).
 * Then the upcall condition is checked.
 *
 * <p><b>Upcalls.</b> Mode NONEMPTY signals on every delivery, ALMOST_FULL when at least 3/4 of RQ_LEN entries are
 * outstanding: the endpoint's bit is set in the UG pending mask (write 1 to clear) and, if UG intr_enable allows,
 * the interrupt line is raised (BCR bit 0x100 reads it; BCR write 0x04 lowers it). Command completion with the IRQ
 * bit raises it too.
 *
 * <p><b>Core and shell.</b> The firmware itself is {@link Sba200Firmware}: single-threaded, time passed in, host
 * memory reached only through the {@link DmaView} accesses, a {@link Sba200Trace} point on every state change. This
 * class is its shell: it owns the board RAM and BCR windows and their hooks, the ingress FIFO, the timers, the kicks
 * and the cross-thread flags (BCR reset/release, close).
 *
 * <p><b>Host memory gone.</b> Nothing here catches a runtime exception as a card event. A segment or receive queue
 * that is unmapped, or freed while still mapped, is a {@link io.nicbridge.bridge.memory.BusError} code the firmware
 * reports as a DMA error ({@code dma_errors}; TX_STATUS_DMA_ERROR, RX_ERR_DMA, or the message not delivered),
 * because every access checks its region first. Only memory freed by another thread between that check and the
 * access itself (breaking {@link DmaSpace}'s unregister-before-close rule concurrently) gets FFM's
 * {@link IllegalStateException}; it leaves {@code service()} and the engine fails the card.
 *
 * <p><b>Threads.</b> {@code service()} runs on one thread at a time (the engine's guarantee); register hooks and
 * {@link #cellArrived} run on host or link threads and only store, kick, or offer into the FIFO. Nothing on the
 * data path allocates.
 */
public final class Sba200Model implements DeviceModel, CellSink, AutoCloseable {
    /** [P] monitor version word the emulated boot monitor reports. */
    public static final int MONITOR_VERSION = 0x0001_0000;
    public static final int DEFAULT_INGRESS_CELLS = 4096;

    private final String name;
    private final TimeBase timeBase;
    private final boolean virtual;
    private final Sba200Timing timing;
    /**
     * Board RAM, the ingress FIFO and the firmware's staging buffers (~650 KiB). An automatic arena: processes keep
     * slices of board RAM (their endpoint pages) and other cards may still deliver cells after this card is
     * closed, so the memory is freed when the last of them lets go rather than under them.
     */
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment ram;
    private final Registers ramRegisters;
    private final Registers bcr;
    private final DmaSpace dma;
    private final InterruptLine irq;
    private final FrameFifo ingress;
    private final SimTimer pollTimer;
    private final SimTimer txDoneTimer;
    private final SimTimer rxTimer;
    private final Sba200Firmware firmware;

    private WorkSignal signal = () -> { };
    private volatile boolean resetAsserted;
    private volatile boolean bootPending;
    private volatile boolean closed;

    /**
     * @param dma    the card's DMA space: the host memory it may reach (segments, receive queues, GET_STATS)
     * @param timing virtual-time costs (ignored in real time)
     */
    public Sba200Model(String name, TimeBase timeBase, DmaSpace dma, Sba200Timing timing) {
        this(name, timeBase, dma, timing, UnaryOperator.identity());
    }

    /**
     * As above, with the firmware's DMA port - its accesses to host memory - wrapped by {@code busTap} (tests record
     * them to check the order of the receive handoff).
     */
    Sba200Model(String name, TimeBase timeBase, DmaSpace dma, Sba200Timing timing, UnaryOperator<DmaView> busTap) {
        this.name = Objects.requireNonNull(name, "name");
        this.timeBase = Objects.requireNonNull(timeBase, "timeBase");
        this.virtual = timeBase.isVirtual();
        this.dma = Objects.requireNonNull(dma, "dma");
        this.timing = Objects.requireNonNull(timing, "timing");
        DmaView port = Objects.requireNonNull(Objects.requireNonNull(busTap, "busTap").apply(dma), "busTap");
        this.ram = arena.allocate(RAM_SIZE, 4096);
        int[] hooked = new int[2 + MAX_ENDPOINTS];
        hooked[0] = UG_OFS + UG_CMD_PROD_OFS;
        hooked[1] = UG_OFS + UG_UPCALL_PENDING_OFS;
        for (int e = 0; e < MAX_ENDPOINTS; e++) {
            hooked[2 + e] = pageOffset(e) + EPCB_SQ_PROD_OFS;
        }
        this.ramRegisters = new Registers(name + ".ram", ram, ByteOrder.BIG_ENDIAN, new RamHooks(), hooked);
        this.bcr = new Registers(name + ".bcr", arena.allocate(BCR_RANGE_SIZE, 4), ByteOrder.BIG_ENDIAN,
            new BcrHooks(), BCR_OFS);
        this.irq = new InterruptLine(name + ".irq");
        this.ingress = new FrameFifo(arena, DEFAULT_INGRESS_CELLS, AtmCells.CELL_SIZE);
        this.pollTimer = timeBase.newTimer(name + ".i960-poll", this::kickNow);
        this.txDoneTimer = timeBase.newTimer(name + ".tx-done", this::txDone);
        this.rxTimer = timeBase.newTimer(name + ".rx-cell", this::kickNow);
        this.firmware = new Sba200Firmware(name, virtual, timing, arena, ram, ramRegisters, port, irq,
            ingress, txDoneTimer, rxTimer);
    }

    /**
     * A DMA space sized for this card: SBus DVMA is 32-bit, and every endpoint pins two regions (segment and
     * receive queue), plus room for the kernel's own buffers.
     */
    public static DmaSpace newDmaSpace(String name) {
        return new DmaSpace(name, io.nicbridge.bridge.memory.BusWidth.BITS_32, 2 * MAX_ENDPOINTS + 64);
    }

    /** Attaches the model to its engine and gives it the uplink it transmits cells on (setup). */
    public void attach(DeviceEngine engine, CellLink uplink) {
        Objects.requireNonNull(engine, "engine");
        if (engine.timeBase() != timeBase) {
            throw new IllegalArgumentException(name + " was built on another time base than the engine's");
        }
        firmware.uplink(Objects.requireNonNull(uplink, "uplink"));
        this.signal = engine.attach(this);
        signal.kick();
    }

    /**
     * Installs a tracer on the firmware ({@link Sba200Trace#NONE} to remove it): it sees every state change on the
     * engine's thread. Setup or test time, before the card runs or from the engine's thread.
     */
    public void trace(Sba200Trace tracer) {
        firmware.trace(Objects.requireNonNull(tracer, "tracer"));
    }

    // =============================================================================================== accessors

    @Override
    public String name() {
        return name;
    }

    /** The 256 KiB board-RAM window (kernel view). */
    public Registers ram() {
        return ramRegisters;
    }

    /** The 4-byte Board Control Register range. */
    public Registers bcr() {
        return bcr;
    }

    public DmaSpace dma() {
        return dma;
    }

    public InterruptLine interrupt() {
        return irq;
    }

    public Sba200Timing timing() {
        return timing;
    }

    public TimeBase timeBase() {
        return timeBase;
    }

    public CellLink uplink() {
        return firmware.uplink();
    }

    /**
     * The process's mapping of endpoint page {@code ep}: a 4 KiB slice of board RAM and nothing else (setup-time;
     * the kernel hands it to the owning process only).
     */
    public MemorySegment endpointPage(int ep) {
        checkEndpoint(ep);
        return ram.asSlice(pageOffset(ep), EP_PAGE_SIZE);
    }

    /** RAM offset of endpoint page {@code ep}. */
    public static int pageOffset(int ep) {
        return EP_PAGE_BASE + ep * EP_PAGE_SIZE;
    }

    /** A UG counter (offset relative to the UG block, e.g. {@code UG_CNT_CELLS_RX_OFS}), unsigned. */
    public long counter(int ugOffset) {
        return Integer.toUnsignedLong(ramRegisters.loadRaw(UG_OFS + ugOffset));
    }

    /** Impossible command producer values seen (more than CMDQ_LEN ahead); never trusted. */
    public long protocolErrors() {
        return firmware.protocolErrors();
    }

    /** Cells lost because the ingress FIFO was full. */
    public long ingressOverflows() {
        return ingress.overflows();
    }

    /**
     * Records every PDU sent (direction bit set) and every good PDU received as SunATM (LINKTYPE 123) records,
     * stamped by this card's clock (so one writer may collect the PDUs of several simulated worlds in turn).
     */
    public void capture(PcapWriter writer) {
        if (writer != null && writer.linkType() != PCAP_LINKTYPE_SUNATM) {
            throw new IllegalArgumentException("an SBA-200 capture needs LINKTYPE_SUNATM (123), the writer has "
                + writer.linkType());
        }
        firmware.capture(writer);
    }

    // =============================================================================================== doorbells

    /**
     * What a doorbell write does: the i960 notices it on its next polling pass, {@code pollLatencyNanos} later in
     * virtual time, at once in real time. The only way in is a write of {@code cmd_prod} or an {@code sq_prod}
     * through {@link #ram()} (the driver's doorbells; see {@code RamHooks}), so every doorbell is a register access
     * the backend sees. Allocation-free, any thread.
     */
    private void doorbell() {
        if (virtual && timing.pollLatencyNanos() > 0) {
            if (!pollTimer.isArmed()) {
                pollTimer.armAfter(timing.pollLatencyNanos());
            }
        } else {
            signal.kick();
        }
    }

    private void kickNow() {
        signal.kick();
    }

    /** The tx-done timer: the firmware completes the PDU on the fiber, then the next pass takes the next one. */
    private void txDone() {
        firmware.txDone();
        signal.kick();
    }

    @Override
    public void cellArrived(MemorySegment src, long offset) {
        if (ingress.offer(src, offset, AtmCells.CELL_SIZE) >= 0) {
            signal.kick();
        }
    }

    // =============================================================================================== service

    @Override
    public int service() {
        if (closed || resetAsserted) {
            return 0;
        }
        if (bootPending) {
            bootPending = false;
            firmware.boot();
        }
        return firmware.service(timeBase.nanoTime());
    }

    /**
     * A fault a simulation injects: the i960 restarts (a firmware crash caught by its watchdog, a power glitch) without
     * the host asking. The boot status reads COLD_START at once, and the firmware boots again at the card's next
     * service pass as after a BCR reset and release (docs/hardware-facts.md B.2, B.4): board RAM cleared (the UG block
     * rewritten, heartbeat 0, command queue indices 0, every endpoint page and the VCI table empty), every endpoint
     * and channel forgotten, the PDU being sent and the cells being reassembled lost, the ingress cells dropped, the
     * counters 0. Host memory (segments, receive queues) is untouched: only the card forgot it. The kernel driver finds
     * out through board RAM (see {@code UnetKernelDriver#watchdog}). Any thread; a no-op on a closed card.
     */
    public void hardwareReset() {
        if (closed) {
            return;
        }
        ramRegisters.storeRaw(MONITOR_OFS + MONITOR_BOOT_STATUS_OFS, BOOT_COLD_START);
        bootPending = true;
        signal.kick();
    }

    private static void checkEndpoint(int ep) {
        if (ep < 0 || ep >= MAX_ENDPOINTS) {
            throw new IllegalArgumentException("endpoint must be 0.." + (MAX_ENDPOINTS - 1) + ", was " + ep);
        }
    }

    /**
     * Stops the card: no more service passes, timers cancelled, the line lowered. Board RAM stays readable for
     * whoever still holds a slice of it (see {@link #arena}). Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        pollTimer.cancel();
        txDoneTimer.cancel();
        rxTimer.cancel();
        irq.lower();
    }

    @Override
    public String toString() {
        return "Sba200Model[" + name + (virtual ? ", virtual time" : ", real time") + "]";
    }

    // =============================================================================================== hooks

    /** Board RAM hooks: the doorbells (cmd_prod, every sq_prod) and the write-1-to-clear pending mask. */
    private final class RamHooks implements RegisterSideEffects {
        @Override
        public int onRead(int offset, int storedValue) {
            return storedValue;
        }

        @Override
        public void onWrite(int offset, int value) {
            if (offset == UG_OFS + UG_UPCALL_PENDING_OFS) {
                ramRegisters.getAndBitwiseAndRaw(offset, ~value);
                return;
            }
            ramRegisters.storeRaw(offset, value);
            doorbell();
        }
    }

    /** BCR: 0x01 assert reset, 0x00 release (the firmware boots), 0x04 clear the interrupt; reads bit 0x100. */
    private final class BcrHooks implements RegisterSideEffects {
        @Override
        public int onRead(int offset, int storedValue) {
            return irq.isAsserted() ? BCR_INTR_PENDING : 0;
        }

        @Override
        public void onWrite(int offset, int value) {
            if ((value & BCR_CLEAR_INTR) != 0) {
                irq.lower();
            }
            if ((value & BCR_RESET) != 0) {
                resetAsserted = true;
                ramRegisters.storeRaw(MONITOR_OFS + MONITOR_BOOT_STATUS_OFS, BOOT_COLD_START);
            } else if (value == BCR_RELEASE && resetAsserted) {
                bootPending = true;
                resetAsserted = false;
                signal.kick();
            }
        }
    }
}
