package io.nicbridge.sim.dec21140;

import static io.nicbridge.bridge.queue.Dec21140DescriptorWalker.FETCH_BUS_ERROR;
import static io.nicbridge.bridge.queue.Dec21140DescriptorWalker.FETCH_CARD_OWNED;
import static io.nicbridge.bridge.queue.Dec21140DescriptorWalker.FETCH_HOST_OWNED;
import static io.nicbridge.contract.Dec21140.*;

import io.nicbridge.bridge.memory.BusError;
import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.memory.DmaView;
import io.nicbridge.bridge.queue.Dec21140DescriptorWalker;
import io.nicbridge.bridge.regs.RegisterSideEffects;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.spi.InterruptLine;
import io.nicbridge.sim.engine.DeviceEngine;
import io.nicbridge.sim.engine.DeviceModel;
import io.nicbridge.sim.engine.FrameFifo;
import io.nicbridge.sim.engine.SimTimer;
import io.nicbridge.sim.engine.TimeBase;
import io.nicbridge.sim.engine.WorkSignal;
import io.nicbridge.sim.ethernet.EthernetWire;
import io.nicbridge.sim.ethernet.FrameSink;
import io.nicbridge.sim.ethernet.WirePort;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The emulated DEC 21140: its CSRs, its transmit and receive processes, its serial ROM, address filter and
 * general-purpose timer, behaving as the chip does for a real driver (docs/hardware-facts.md section A).
 *
 * <h2>The three faces of the card</h2>
 * <pre>
 *   host driver --- registers() -----&gt; 128-byte CSR window (16 CSRs at 8-byte stride, LE); hooks below
 *               &lt;-- interrupt() -----  INTA: high while CSR5 &amp; CSR7 &amp; (NIS|AIS) != 0
 *   card DMA   ---- dma() -----------&gt; descriptors and buffers, by bus address only; a miss = CSR5.FBE
 *   wire       ---- WirePort --------&gt; frames the transmit process built (destination .. FCS)
 *              &lt;--- FrameSink -------  frames for the receive FIFO (copied in; any thread)
 * </pre>
 *
 * <h2>Register side effects (one place per CSR)</h2>
 * <pre>
 *  CSR0  write: SWR = software reset (every CSR to the A.1 reset value); DSL to both walkers; rest stored
 *  CSR1  write: transmit poll demand (leaves TS suspended)          read: 0xFFFFFFFF
 *  CSR2  write: receive poll demand (leaves RS suspended)           read: 0xFFFFFFFF
 *  CSR3/4 write: list base (bits 1:0 ignored) - only while that process is stopped, else ignored and counted
 *  CSR5  write: 1 clears bits 0..16 (and 26, 27); RS, TS, EB read-only; NIS/AIS are recomputed summaries
 *  CSR6  write: SR/ST start and stop the processes (TS/RS drop to 0 at once, TPS/RPS raised);
 *               HP, HO, IF are read-only and follow the last setup frame; OM 01/10 (internal/external
 *               loopback): transmitted frames go to our own receive FIFO, not to the wire, and are received
 *               with RDES0.DT = OM; frames from the wire are ignored meanwhile
 *  CSR7  write: interrupt mask; the line is re-evaluated
 *  CSR8  read:  missed frames (15:0, overflow 16), FIFO overflows (27:17, overflow 28); cleared by the read
 *  CSR9  write/read: SROM pins (Dec21140Srom); DO reads back in bit 3 while SR selects the SROM
 *  CSR11 write: GP timer count (15:0) + CON (16); read: ticks left. Expiry raises GTE.
 *  CSR12 write: pin values, or with GPC (bit 8) the direction mask; read: outputs as written, inputs external
 *  CSR15 write: watchdog bits JBD, HUJ, JCK, RWD, RWR stored
 * </pre>
 *
 * <h2>Threads and ordering</h2>
 * The engine runs {@link #service()} (the processes) on one thread at a time; register hooks run on host threads;
 * {@link #frameArrived} runs on the wire's threads. Everything that changes CSR5, CSR6 or a process state holds the
 * model's lock (a monitor: no allocation, re-entrant, so an interrupt handler that runs in the card's thread may
 * write CSRs). The poll-demand doorbells and the wire's sink never take it: they set a flag or enqueue, then kick
 * the {@link WorkSignal}, so two cards transmitting to each other on two threads cannot deadlock. A re-entrant call
 * of {@code service()} (an inline engine delivering this card's own frame's reply while it is still transmitting)
 * only records that there is more work; the outer call loops.
 *
 * <p>Descriptor handoff: the walker reads word 0 with acquire before the other words, and hands a descriptor
 * back by writing word 0 with release after the buffer data (docs/hardware-facts.md A.7).
 *
 * <h2>Defined outcomes for bad input</h2>
 * <ul>
 *   <li>descriptor or buffer address outside the DMA space, straddling a region end, or a receive buffer that is
 *       not longword aligned: CSR5.FBE with EB = master abort (no region, wrap, freed) or target abort (past a
 *       region's end, misaligned); both processes stop; the frame in flight is dropped and counted</li>
 *   <li>transmit: zero-length descriptor outside a frame: handed back with status 0 (Linux's erratum dummy);
 *       an FS..LS frame of 0 bytes: not sent, TDES0 = ES; a frame over 2048 bytes with FCS: not sent,
 *       TDES0 = TO|ES and CSR5.TJT (the jabber timer); frames of 1519..2048 bytes are sent as they are</li>
 *   <li>setup frame with TBS1 != 192: filter unchanged, TDES0 = ES; a correct one: TDES0 = 0</li>
 *   <li>receive: a descriptor with both sizes 0 is skipped (DE|ES, no FS/LS); runts under 64 bytes are dropped
 *       unless CSR6.PB (then delivered with RF); frames over 1518 delivered with TL; over 2048 dropped with
 *       CSR5.RWT; a bad FCS is delivered with CE</li>
 * </ul>
 *
 * <h2>Time</h2>
 * In virtual time the card's own work takes the {@link Dec21140Timing} it was given, and a transmit descriptor is
 * completed when the wire says the frame has left. In real time it uses {@link Dec21140Timing#ZERO} and completes
 * at once. CSR11 ticks every 81.92 us with CSR6.PS set (100 Mb/s port) and 204.8 us without (10 Mb/s): the DEC
 * figures as recalled [R], chosen here as the model.
 */
public final class Dec21140Model implements DeviceModel, FrameSink, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Dec21140Model.class);

    /** Transmit FIFO size: frames whose length with FCS exceeds it trip the jabber timer. */
    public static final int TX_FIFO_BYTES = RX_WATCHDOG_BYTES;
    /**
     * Frames the receive FIFO holds. The real 21140 has a 2 KiB receive FIFO; this one holds more so that a
     * threaded engine's scheduling delay is not mistaken for an overflow. Overflows still count in CSR8.
     */
    public static final int RX_FIFO_FRAMES = 32;
    /** Longest frame the receive FIFO accepts; longer ones trip the receive watchdog. */
    public static final int RX_MAX_FRAME = RX_WATCHDOG_BYTES;
    /** Transmit descriptors processed per pass before receive work gets its turn (QEMU's limit per poll). */
    public static final int TX_DESCRIPTORS_PER_PASS = 128;
    /** Receive descriptors one frame may use before it is cut off (DE); bounds a ring of empty descriptors. */
    public static final int RX_DESCRIPTORS_PER_FRAME = 64;
    /** CSR11 tick with CSR6.PS set (100 Mb/s port). */
    public static final long GP_TICK_100MB_NANOS = 81_920;
    /** CSR11 tick with CSR6.PS clear (10 Mb/s port). */
    public static final long GP_TICK_10MB_NANOS = 204_800;

    private static final int[] RESET_VALUES = {
        CSR0_RESET, CSR1_RESET, CSR2_RESET, CSR3_RESET, CSR4_RESET, CSR5_RESET, CSR6_RESET, CSR7_RESET,
        CSR8_RESET, CSR9_RESET, CSR10_RESET, CSR11_RESET, CSR12_RESET, CSR13_RESET, CSR14_RESET, CSR15_RESET};
    /** CSR8 bits that are counters (cleared on read); the bits above read as the reset value's ones. */
    private static final int CSR8_COUNTER_BITS = CSR8_MFC_MASK | CSR8_MFO | CSR8_FOC_MASK | CSR8_OCO;
    private static final int CSR15_WRITABLE = CSR15_JBD | CSR15_HUJ | CSR15_JCK | CSR15_RWD | CSR15_RWR;
    private static final int SUMMARY_BITS = CSR5_NIS | CSR5_AIS;
    private static final int RX_KEEP_ON_TRUNCATION = RDES0_MF | RDES0_FF | RDES0_FT;
    private static final ValueLayout.OfInt FCS_LAYOUT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private static final int TX_IDLE = 0;
    private static final int TX_WAIT_START = 1;
    private static final int TX_WAIT_END = 2;
    private static final int RX_IDLE = 0;
    private static final int RX_WAIT_DMA = 1;

    private final String name;
    private final byte[] mac;
    private final Object lock = new Object();
    private final Registers registers;
    private final DmaSpace dma;
    private final InterruptLine interrupt;
    private final TimeBase timeBase;
    private final boolean virtual;
    private final Dec21140Timing timing;
    private final Dec21140Counters counters = new Dec21140Counters();
    private final Dec21140DescriptorWalker txWalker;
    private final Dec21140DescriptorWalker rxWalker;
    private final Dec21140Srom srom;
    private final Dec21140AddressFilter filter = new Dec21140AddressFilter();
    private final FrameFifo rxFifo = new FrameFifo(RX_FIFO_FRAMES, RX_MAX_FRAME);
    /** The frame the receive process is working on, taken off the FIFO (the chip's DMA staging). */
    private final byte[] rxFrame = new byte[RX_MAX_FRAME];
    private final MemorySegment rxFrameSegment = MemorySegment.ofArray(rxFrame);
    private final CRC32 crc = new CRC32();
    private final byte[] txFifo = new byte[TX_FIFO_BYTES];
    private final MemorySegment txFifoSegment = MemorySegment.ofArray(txFifo);
    private final byte[] setupBuffer = new byte[SETUP_FRAME_SIZE];
    private final MemorySegment setupSegment = MemorySegment.ofArray(setupBuffer);
    private final SimTimer txTimer;
    private final SimTimer rxTimer;
    private final SimTimer gpTimer;
    private final SimTimer autoPollTimer;
    private final AtomicBoolean watchdogPending = new AtomicBoolean();

    private volatile WorkSignal signal;
    private volatile WirePort port;
    private volatile boolean closed;
    private volatile boolean txPollDemand;
    private volatile boolean rxPollDemand;
    private volatile boolean txTimerDue;
    private volatile boolean rxTimerDue;

    // ---- guarded by lock
    private boolean inService;
    private boolean moreWork;
    private int generation;
    private int txState = TS_STOPPED;
    private int rxState = RS_STOPPED;
    private int txPhase = TX_IDLE;
    private int rxPhase = RX_IDLE;
    private boolean txInFrame;
    private boolean txJabber;
    private boolean txAddFcs;
    private boolean txPad;
    private int txLength;
    private int txReadBytes;
    private int txFrameDescriptors;
    private int txStatus;
    private boolean rxFilterFailed;
    private boolean rxStaged;
    private int rxLength;
    private int gpioDirection;
    private int gpioOutputs;
    private int gpioInputs = CSR12_RESET & CSR12_PINS_MASK;
    private int gpCount;
    private boolean gpContinuous;
    private long gpTick;
    private int csr9Written = CSR9_RESET;
    private long lastBusErrorAddress;
    private int lastBusErrorCode;

    /**
     * Creates the card, stopped and in its reset state. Connect it with {@link #attach} (or {@link #connect})
     * before the host starts it.
     *
     * @param name          e.g. {@code "dec21140#0"}
     * @param macAddress    6 bytes, stored in the serial ROM
     * @param timeBase      the world's clock and timers (the engine's)
     * @param virtualTiming the card's delays when {@code timeBase} is virtual; ignored (zero) in real time
     */
    public Dec21140Model(String name, byte[] macAddress, TimeBase timeBase, Dec21140Timing virtualTiming) {
        this.name = Objects.requireNonNull(name, "name");
        this.mac = Objects.requireNonNull(macAddress, "macAddress").clone();
        this.srom = new Dec21140Srom(mac);
        this.timeBase = Objects.requireNonNull(timeBase, "timeBase");
        this.virtual = timeBase.isVirtual();
        this.timing = virtual ? Objects.requireNonNull(virtualTiming, "virtualTiming") : Dec21140Timing.ZERO;
        this.dma = new DmaSpace(name);
        this.interrupt = new InterruptLine(name + ".inta");
        MemorySegment window = MemorySegment.ofArray(new int[CSR_WINDOW_SIZE / Integer.BYTES]);
        this.registers = new Registers(name + ".csr", window, ByteOrder.LITTLE_ENDIAN, new CsrHooks(),
            CSR0, CSR1, CSR2, CSR3, CSR4, CSR5, CSR6, CSR7, CSR8, CSR9, CSR11, CSR12, CSR15);
        this.txWalker = new Dec21140DescriptorWalker(dma);
        this.rxWalker = new Dec21140DescriptorWalker(dma);
        this.txTimer = timeBase.newTimer(name + ".tx", () -> {
            txTimerDue = true;
            kick();
        });
        this.rxTimer = timeBase.newTimer(name + ".rx", () -> {
            rxTimerDue = true;
            kick();
        });
        this.autoPollTimer = timeBase.newTimer(name + ".tap", () -> {
            txPollDemand = true;
            kick();
        });
        this.gpTimer = timeBase.newTimer(name + ".gptimer", this::gpTimerExpired);
        synchronized (lock) {
            resetLocked();
        }
    }

    /** Attaches the card to an engine (which services it) and a wire (its PHY). Setup-time, once. */
    public void attach(DeviceEngine engine, EthernetWire wire) {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(wire, "wire");
        WorkSignal s = engine.attach(this);
        connect(s, wire.attach(name, this));
    }

    /** Connects the card to the signal that gets it serviced and to its wire port. Setup-time, once. */
    public void connect(WorkSignal workSignal, WirePort wirePort) {
        Objects.requireNonNull(workSignal, "workSignal");
        Objects.requireNonNull(wirePort, "wirePort");
        if (signal != null) {
            throw new IllegalStateException("card '" + name + "' is already connected");
        }
        this.port = wirePort;
        this.signal = workSignal;
        LOG.debug("21140 '{}' connected to wire port '{}', {} time, {}", name, wirePort.name(),
            virtual ? "virtual" : "real", timing.describe());
    }

    @Override
    public String name() {
        return name;
    }

    /** The CSR window the driver uses. */
    public Registers registers() {
        return registers;
    }

    /** The host memory the card may reach; the driver registers its rings and buffers here. */
    public DmaSpace dma() {
        return dma;
    }

    public InterruptLine interrupt() {
        return interrupt;
    }

    public Dec21140Counters counters() {
        return counters;
    }

    /** The delays this card applies (zero in real time). */
    public Dec21140Timing timing() {
        return timing;
    }

    /** @return a copy of the station address in the SROM */
    public byte[] macAddress() {
        return mac.clone();
    }

    /** The serial ROM contents (image, words). */
    public Dec21140Srom srom() {
        return srom;
    }

    /** @return the address filter mode the last setup frame selected, or {@link Dec21140AddressFilter#MODE_NONE} */
    public int filterMode() {
        synchronized (lock) {
            return filter.mode();
        }
    }

    /** Bus address of the last DMA access that failed (diagnostics). */
    public long lastBusErrorAddress() {
        synchronized (lock) {
            return lastBusErrorAddress;
        }
    }

    /** {@link BusError} code of the last DMA access that failed, 0 before the first. */
    public int lastBusErrorCode() {
        synchronized (lock) {
            return lastBusErrorCode;
        }
    }

    /** Sets the levels that CSR12 input pins read (bits 7:0; pins configured as outputs read back what was written). */
    public void gpioInputs(int pins) {
        synchronized (lock) {
            gpioInputs = pins & CSR12_PINS_MASK;
        }
    }

    /** Stops the card: timers cancelled, frames from the wire ignored. Idempotent. */
    @Override
    public void close() {
        closed = true;
        synchronized (lock) {
            cancelTimers();
            txState = TS_STOPPED;
            rxState = RS_STOPPED;
        }
    }

    private void kick() {
        WorkSignal s = signal;
        if (s != null && !closed) {
            s.kick();
        }
    }

    // =============================================================== the wire's side

    /**
     * A frame arrived from the wire (destination .. FCS). Copied into the receive FIFO; never blocks, never takes
     * the model's lock (see the class comment), allocation-free.
     */
    @Override
    public void frameArrived(MemorySegment frame, long offset, int length) {
        if (closed) {
            return;
        }
        int csr6 = registers.loadRaw(CSR6);
        if ((csr6 & CSR6_SR) == 0) {
            counters.rxWhileStopped.incrementAndGet();
            return;
        }
        if ((csr6 & CSR6_OM_MASK) != 0) { // loopback: the receiver listens to the transmitter, not to the wire
            counters.rxDuringLoopback.incrementAndGet();
            return;
        }
        if (length > RX_MAX_FRAME || length < 0) {
            counters.rxOversize.incrementAndGet();
            watchdogPending.set(true);
            kick();
            return;
        }
        if (rxFifo.offer(frame, offset, length) < 0) { // QueueCode.FULL
            counters.rxFifoOverflows.incrementAndGet();
            countFifoOverflow();
            return;
        }
        kick();
    }

    // =============================================================== the engine's side

    @Override
    public int service() {
        synchronized (lock) {
            if (inService) { // re-entered from our own transmit (inline engines): let the outer call loop
                moreWork = true;
                return 0;
            }
            if (closed || signal == null) {
                return 0;
            }
            inService = true;
            int work = 0;
            try {
                do {
                    moreWork = false;
                    work += step();
                } while (moreWork && !closed);
            } catch (IllegalStateException | IndexOutOfBoundsException e) {
                // FFM refused an access: host memory freed under a stale DMA table. A bus error, never a crash.
                LOG.warn("21140 '{}': DMA access failed ({}); reporting a fatal bus error", name, e.toString());
                fatalBusError(lastBusErrorAddress, BusError.REGION_CLOSED);
            } finally {
                inService = false;
            }
            return work;
        }
    }

    private int step() {
        int work = 0;
        if (watchdogPending.getAndSet(false)) {
            raise(CSR5_RWT);
        }
        if (txTimerDue) {
            txTimerDue = false;
            work++;
            if (txPhase == TX_WAIT_START) {
                putOnWire();
            } else if (txPhase == TX_WAIT_END) {
                closeTransmitFrame();
            }
        }
        if (txPollDemand) {
            txPollDemand = false;
            if (txState == TS_SUSPENDED) {
                autoPollTimer.cancel();
                setTxState(TS_FETCH_DESC);
            }
        }
        work += transmitWork();
        if (rxTimerDue) {
            rxTimerDue = false;
            if (rxPhase == RX_WAIT_DMA) {
                rxPhase = RX_IDLE;
                if (rxStaged && rxState != RS_STOPPED) {
                    work++;
                    deliverStaged();
                }
            }
        }
        if (rxPollDemand) {
            rxPollDemand = false;
            if (rxState == RS_SUSPENDED) {
                pollReceiveDescriptor();
            }
        }
        work += receiveWork();
        return work;
    }

    // =============================================================== transmit process

    private int transmitWork() {
        int descriptors = 0;
        while (txState != TS_STOPPED && txState != TS_SUSPENDED && txPhase == TX_IDLE) {
            if (descriptors == TX_DESCRIPTORS_PER_PASS) {
                moreWork = true; // let receive work run, then come back
                break;
            }
            setTxState(TS_FETCH_DESC);
            int fetch = txWalker.fetch();
            if (fetch == FETCH_BUS_ERROR) {
                descriptorBusError(txWalker.currentAddress());
                break;
            }
            if (fetch == FETCH_HOST_OWNED) {
                suspendTransmit();
                break;
            }
            descriptors++;
            int control = txWalker.control();
            if ((control & TDES1_SET) != 0) {
                setupFrame(control);
                continue;
            }
            int size1 = txWalker.buffer1Size();
            int size2 = txWalker.buffer2Size();
            boolean first = (control & TDES1_FS) != 0;
            boolean last = (control & TDES1_LS) != 0;
            if (first) {
                if (txInFrame) { // the previous frame never got its LS descriptor
                    counters.txAbortedFrames++;
                }
                beginFrame(control);
            } else if (!txInFrame) {
                if (size1 == 0 && size2 == 0 && !last) {
                    nullDescriptor(control);
                    continue;
                }
                beginFrame(control); // no FS: the frame starts here
            }
            setTxState(TS_READ_BUFFER);
            txFrameDescriptors++;
            if (size1 > 0 && !readTransmitBuffer(txWalker.buffer1Address(), size1)) {
                break;
            }
            if (size2 > 0 && !readTransmitBuffer(txWalker.buffer2Address(), size2)) {
                break;
            }
            if (!last) {
                txWalker.complete(0);
                counters.txDescriptors++;
                txWalker.advance();
                continue;
            }
            finishFrame();
        }
        return descriptors;
    }

    private void beginFrame(int control) {
        txInFrame = true;
        txJabber = false;
        txLength = 0;
        txReadBytes = 0;
        txFrameDescriptors = 0;
        txAddFcs = (control & TDES1_AC) == 0;
        txPad = (control & TDES1_DPD) == 0;
    }

    private void nullDescriptor(int control) {
        txWalker.complete(0);
        counters.txDescriptors++;
        counters.txNullDescriptors++;
        if ((control & TDES1_IC) != 0) {
            raise(CSR5_TI);
        }
        txWalker.advance();
    }

    /** Reads one transmit buffer into the FIFO. @return false after a bus error (the process is stopped) */
    private boolean readTransmitBuffer(long bus, int size) {
        DmaView table = dma.snapshot();
        int r = table.translate(bus, size);
        if (r < 0) {
            counters.busErrorDrops++;
            txInFrame = false;
            fatalBusError(bus, r);
            return false;
        }
        txReadBytes += size;
        if (!txJabber) {
            int fcs = txAddFcs ? ETH_FCS_LEN : 0;
            if (txLength + size + fcs > TX_FIFO_BYTES) {
                txJabber = true; // the jabber timer cuts the frame off; the rest is read and discarded
            } else {
                MemorySegment.copy(table.region(r), table.offset(r, bus), txFifoSegment, txLength, size);
                txLength += size;
            }
        }
        return true;
    }

    /** The LS descriptor is loaded and its buffers read: pad, add the FCS, and send (now or after the DMA time). */
    private void finishFrame() {
        if (txJabber) {
            counters.txJabber++;
            txStatus = TDES0_TO | TDES0_ES;
            raise(CSR5_TJT);
            closeTransmitFrame();
            return;
        }
        if (txLength == 0) {
            counters.txEmptyFrames++;
            txStatus = TDES0_ES;
            closeTransmitFrame();
            return;
        }
        if (txPad && txLength < ETH_MIN_FRAME_NOFCS) {
            java.util.Arrays.fill(txFifo, txLength, ETH_MIN_FRAME_NOFCS, (byte) 0);
            txLength = ETH_MIN_FRAME_NOFCS;
        }
        if (txAddFcs) {
            crc.reset();
            crc.update(txFifo, 0, txLength);
            int fcs = (int) crc.getValue();
            txFifoSegment.set(FCS_LAYOUT, txLength, fcs); // the FCS goes out least significant byte first
            txLength += ETH_FCS_LEN;
        }
        txStatus = 0;
        long start = timing.transmitStartNanos(txFrameDescriptors, txReadBytes);
        if (start > 0) {
            txPhase = TX_WAIT_START;
            txTimer.armAfter(start);
            return;
        }
        putOnWire();
    }

    private void putOnWire() {
        txPhase = TX_IDLE;
        if (txState != TS_STOPPED) {
            setTxState(TS_WAIT_END);
        }
        int om = (registers.loadRaw(CSR6) & CSR6_OM_MASK) >>> CSR6_OM_SHIFT;
        if (om != OM_NORMAL) { // loopback: the frame never reaches the wire; it comes back into the receive FIFO
            loopBack(txLength);
            closeTransmitFrame();
            return;
        }
        int gen = generation;
        long onWire = port.transmit(txFifoSegment, 0, txLength);
        if (gen != generation) {
            return; // the host reset the chip from inside the wire's delivery (inline engines): nothing to close
        }
        counters.txFrames++;
        counters.txBytes += txLength;
        long close = virtual ? Math.max(0, onWire) + timing.transmitCloseNanos() : 0;
        if (close > 0) {
            txPhase = TX_WAIT_END;
            txTimer.armAfter(close);
            return;
        }
        closeTransmitFrame();
    }

    private void loopBack(int length) {
        counters.txLoopback++;
        if ((registers.loadRaw(CSR6) & CSR6_SR) == 0) {
            counters.rxWhileStopped.incrementAndGet();
        } else if (rxFifo.offer(txFifoSegment, 0, length) < 0) { // QueueCode.FULL
            counters.rxFifoOverflows.incrementAndGet();
            countFifoOverflow();
        } else {
            moreWork = true; // receive it in this same service call
        }
    }

    /** Writes the LS descriptor's status (OWN clear, release), raises TI if asked, moves on. */
    private void closeTransmitFrame() {
        txPhase = TX_IDLE;
        if (txState != TS_STOPPED) {
            setTxState(TS_CLOSE_DESC);
        }
        boolean ic = (txWalker.control() & TDES1_IC) != 0;
        txWalker.complete(txStatus);
        counters.txDescriptors++;
        txInFrame = false;
        txLength = 0;
        if (ic) {
            raise(CSR5_TI);
        }
        txWalker.advance();
        if (txState != TS_STOPPED) {
            setTxState(TS_FETCH_DESC);
        }
    }

    private void setupFrame(int control) {
        setTxState(TS_SETUP);
        int status;
        if (txWalker.buffer1Size() != SETUP_FRAME_SIZE) {
            counters.txSetupRejected++;
            status = TDES0_ES;
        } else {
            long bus = txWalker.buffer1Address();
            DmaView table = dma.snapshot();
            int r = table.translate(bus, SETUP_FRAME_SIZE);
            if (r < 0) {
                fatalBusError(bus, r);
                return;
            }
            MemorySegment.copy(table.region(r), table.offset(r, bus), setupSegment, 0, SETUP_FRAME_SIZE);
            int type = ((control & TDES1_FT1) != 0 ? 2 : 0) | ((control & TDES1_FT0) != 0 ? 1 : 0);
            filter.load(setupBuffer, 0, type);
            int ro = switch (type) {
                case FT_HASH -> CSR6_HP;
                case FT_INVERSE -> CSR6_IF;
                case FT_HASH_ONLY -> CSR6_HP | CSR6_HO;
                default -> 0;
            };
            registers.storeRaw(CSR6, (registers.loadRaw(CSR6) & ~CSR6_FILTER_RO_MASK) | ro);
            counters.txSetupFrames++;
            status = 0;
        }
        txWalker.complete(status);
        counters.txDescriptors++;
        if ((control & TDES1_IC) != 0) {
            raise(CSR5_TI);
        }
        txWalker.advance();
        setTxState(TS_FETCH_DESC);
    }

    private void suspendTransmit() {
        if (txInFrame) {
            counters.txUnderflowSuspends++;
        }
        setTxState(TS_SUSPENDED);
        raise(CSR5_TU);
        int tap = (registers.loadRaw(CSR0) & CSR0_TAP_MASK) >>> CSR0_TAP_SHIFT;
        if (tap != TAP_OFF) {
            autoPollTimer.armAfter(autoPollPeriod(tap));
        }
    }

    private static long autoPollPeriod(int tap) {
        return switch (tap) {
            case TAP_200US -> TAP1_PERIOD_NS;
            case TAP_800US -> TAP2_PERIOD_NS;
            case TAP_1600US -> TAP3_PERIOD_NS;
            case TAP_12_8US -> TAP4_PERIOD_NS;
            case TAP_25_6US -> TAP5_PERIOD_NS;
            case TAP_51_2US -> TAP6_PERIOD_NS;
            default -> TAP7_PERIOD_NS;
        };
    }

    // =============================================================== receive process

    private int receiveWork() {
        int frames = 0;
        while (rxState != RS_STOPPED && rxPhase == RX_IDLE) {
            if (rxStaged) { // stopped while its DMA was pending, restarted since
                deliverStaged();
                continue;
            }
            int len = rxFifo.peekLength();
            if (len < 0) {
                break;
            }
            frames++;
            MemorySegment.copy(rxFifo.peekSlot(), 0, rxFrameSegment, 0, len);
            rxFifo.release();
            byte[] f = rxFrame;
            int csr6 = registers.loadRaw(CSR6);
            if (len < ETH_ADDR_LEN || (len < ETH_MIN_FRAME && (csr6 & CSR6_PB) == 0)) {
                counters.rxRunts++;
                continue;
            }
            boolean group = (f[0] & 1) != 0;
            boolean pass = (csr6 & CSR6_PR) != 0 || (group && (csr6 & CSR6_PM) != 0) || filter.accepts(f, 0);
            if (!pass && (csr6 & CSR6_RA) == 0) {
                counters.rxFiltered++;
                continue;
            }
            rxFilterFailed = !pass;
            rxStaged = true;
            rxLength = len;
            long delay = timing.receiveNanos(len);
            if (delay > 0) {
                rxPhase = RX_WAIT_DMA;
                setRxState(RS_QUEUE_FIFO);
                rxTimer.armAfter(delay);
                break;
            }
            deliverStaged();
        }
        return frames;
    }

    /** CSR2 while suspended: look at the current descriptor again. */
    private void pollReceiveDescriptor() {
        int fetch = rxWalker.fetch();
        if (fetch == FETCH_CARD_OWNED) {
            setRxState(RS_WAIT_PACKET);
        } else if (fetch == FETCH_BUS_ERROR) {
            descriptorBusError(rxWalker.currentAddress());
        }
    }

    /** Moves the staged frame into host buffers (docs/hardware-facts.md A.7, receive). */
    private void deliverStaged() {
        int len = rxLength;
        byte[] f = rxFrame;
        MemorySegment frame = rxFrameSegment;
        setRxState(RS_FETCH_DESC);
        int fetch = rxWalker.fetch();
        if (fetch == FETCH_BUS_ERROR) {
            dropHead();
            counters.busErrorDrops++;
            descriptorBusError(rxWalker.currentAddress());
            return;
        }
        if (fetch == FETCH_HOST_OWNED) {
            dropHead();
            counters.rxMissed++;
            countMissedFrame();
            setRxState(RS_SUSPENDED);
            raise(CSR5_RU);
            return;
        }
        int flags = receiveFlags(f, len);
        setRxState(RS_QUEUE_FIFO);
        int written = 0;
        int used = 0;
        boolean first = true;
        while (true) {
            used++;
            int size1 = rxWalker.buffer1Size();
            int size2 = rxWalker.buffer2Size();
            int status;
            if (size1 == 0 && size2 == 0) {
                counters.rxZeroSizeDescriptors++;
                status = RDES0_DE | RDES0_ES;
            } else {
                int n1 = Math.min(len - written, size1);
                if (n1 > 0) {
                    if (!receiveCopy(rxWalker.buffer1Address(), frame, written, n1)) {
                        return;
                    }
                    written += n1;
                }
                int n2 = Math.min(len - written, size2);
                if (n2 > 0) {
                    if (!receiveCopy(rxWalker.buffer2Address(), frame, written, n2)) {
                        return;
                    }
                    written += n2;
                }
                status = first ? RDES0_FS : 0;
                first = false;
            }
            if (written == len) {
                setRxState(RS_CLOSE_DESC);
                int fin = status | RDES0_LS | (len << RDES0_FL_SHIFT) | flags;
                if ((fin & RDES0_ES_SOURCES) != 0) {
                    fin |= RDES0_ES;
                }
                rxWalker.complete(fin);
                rxWalker.advance();
                frameReceived(len, flags);
                setRxState(RS_WAIT_PACKET);
                return;
            }
            if (used == RX_DESCRIPTORS_PER_FRAME) {
                rxWalker.complete(truncated(status, written, flags));
                counters.rxDescriptors++;
                rxWalker.advance();
                frameTruncated(written);
                setRxState(RS_WAIT_PACKET);
                return;
            }
            long here = rxWalker.currentAddress();
            rxWalker.advance();
            int next = rxWalker.fetch();
            if (next == FETCH_CARD_OWNED) {
                writeStatus(here, status);
                continue;
            }
            // The frame does not fit the descriptors the host gave: cut it here (DE) and hand back what we have.
            writeStatus(here, truncated(status, written, flags));
            frameTruncated(written);
            if (next == FETCH_HOST_OWNED) {
                setRxState(RS_SUSPENDED);
                raise(CSR5_RU);
            } else {
                descriptorBusError(rxWalker.currentAddress());
            }
            return;
        }
    }

    private static int truncated(int status, int written, int flags) {
        return status | RDES0_LS | RDES0_DE | RDES0_ES | (written << RDES0_FL_SHIFT) | (flags & RX_KEEP_ON_TRUNCATION);
    }

    private int receiveFlags(byte[] f, int len) {
        // DT: in loopback mode every frame in the FIFO came from our own transmitter (the wire is ignored)
        int flags = ((registers.loadRaw(CSR6) & CSR6_OM_MASK) >>> CSR6_OM_SHIFT) << RDES0_DT_SHIFT;
        if (rxFilterFailed) {
            flags |= RDES0_FF;
        }
        if ((f[0] & 1) != 0) {
            flags |= RDES0_MF;
        }
        if (len >= ETH_HEADER_LEN && ((f[12] & 0xFF) << 8 | (f[13] & 0xFF)) > ETH_MAX_LENGTH_FIELD) {
            flags |= RDES0_FT;
        }
        if (len < ETH_MIN_FRAME) {
            flags |= RDES0_RF;
        }
        if (len > ETH_MAX_FRAME) {
            flags |= RDES0_TL;
        }
        if (!fcsValid(f, len)) {
            flags |= RDES0_CE;
        }
        return flags;
    }

    private boolean fcsValid(byte[] f, int len) {
        if (len < ETH_FCS_LEN) {
            return false;
        }
        crc.reset();
        crc.update(f, 0, len);
        // Running the CRC over data and its own FCS leaves the fixed residue (zlib form: 0x2144DF1C).
        return (int) crc.getValue() == FCS_RESIDUE;
    }

    private void frameReceived(int len, int flags) {
        counters.rxDescriptors++;
        counters.rxFrames++;
        counters.rxBytes += len;
        if ((flags & RDES0_CE) != 0) {
            counters.rxCrcErrors++;
        }
        if ((flags & RDES0_TL) != 0) {
            counters.rxTooLong++;
        }
        rxStaged = false;
        raise(CSR5_RI);
    }

    private void frameTruncated(int written) {
        counters.rxTruncated++;
        counters.rxBytes += written;
        rxStaged = false;
        raise(CSR5_RI);
    }

    private void dropHead() {
        rxStaged = false;
    }

    /** Writes an intermediate receive descriptor's status (OWN clear) with release, after its buffer data. */
    private void writeStatus(long descriptor, int status) {
        int r = dma.writeIntRelease(descriptor, status, ByteOrder.LITTLE_ENDIAN);
        if (r < 0) {
            fatalBusError(descriptor, r);
            return;
        }
        counters.rxDescriptors++;
    }

    private boolean receiveCopy(long bus, MemorySegment frame, int from, int n) {
        if ((bus & (DESC_ALIGN - 1)) != 0) { // receive buffers must be longword aligned (A.6)
            dropHead();
            counters.busErrorDrops++;
            counters.busErrors++;
            recordBusError(bus, BusError.MISALIGNED);
            stopOnBusError(EB_TARGET_ABORT);
            return false;
        }
        DmaView table = dma.snapshot();
        int r = table.translate(bus, n);
        if (r < 0) {
            dropHead();
            counters.busErrorDrops++;
            fatalBusError(bus, r);
            return false;
        }
        MemorySegment.copy(frame, from, table.region(r), table.offset(r, bus), n);
        return true;
    }

    // =============================================================== CSR8 counters (any thread, CAS)

    private void countMissedFrame() {
        while (true) {
            int v = registers.loadRaw(CSR8);
            int c = v & CSR8_MFC_MASK;
            int nv = c == CSR8_MFC_MASK ? v | CSR8_MFO : (v & ~CSR8_MFC_MASK) | (c + 1);
            if (registers.compareAndSetRaw(CSR8, v, nv)) {
                return;
            }
        }
    }

    private void countFifoOverflow() {
        int max = CSR8_FOC_MASK >>> CSR8_FOC_SHIFT;
        while (true) {
            int v = registers.loadRaw(CSR8);
            int c = (v & CSR8_FOC_MASK) >>> CSR8_FOC_SHIFT;
            int nv = c == max ? v | CSR8_OCO : (v & ~CSR8_FOC_MASK) | ((c + 1) << CSR8_FOC_SHIFT);
            if (registers.compareAndSetRaw(CSR8, v, nv)) {
                return;
            }
        }
    }

    // =============================================================== CSR5, interrupts, bus errors (under lock)

    private void setTxState(int ts) {
        txState = ts;
        int v = registers.loadRaw(CSR5);
        registers.storeRaw(CSR5, (v & ~CSR5_TS_MASK) | (ts << CSR5_TS_SHIFT));
    }

    private void setRxState(int rs) {
        rxState = rs;
        int v = registers.loadRaw(CSR5);
        registers.storeRaw(CSR5, (v & ~CSR5_RS_MASK) | (rs << CSR5_RS_SHIFT));
    }

    private void raise(int bits) {
        registers.getAndBitwiseOrRaw(CSR5, bits);
        refreshInterrupt();
    }

    /** Recomputes NIS/AIS (A.3: a source counts when set in CSR5 and enabled in CSR7) and drives INTA. */
    private void refreshInterrupt() {
        int csr5 = registers.loadRaw(CSR5);
        int csr7 = registers.loadRaw(CSR7);
        int active = csr5 & csr7;
        int summary = 0;
        if ((active & CSR5_NORMAL_SOURCES) != 0) {
            summary |= CSR5_NIS;
        }
        if ((active & CSR5_ABNORMAL_SOURCES) != 0) {
            summary |= CSR5_AIS;
        }
        int nv = (csr5 & ~SUMMARY_BITS) | summary;
        if (nv != csr5) {
            registers.storeRaw(CSR5, nv);
        }
        interrupt.update(nv, csr7 & SUMMARY_BITS);
    }

    private void descriptorBusError(long address) {
        int code = (address & (DESC_ALIGN - 1)) != 0 ? BusError.MISALIGNED : dma.lastErrorCode();
        fatalBusError(address, code == 0 ? BusError.NO_REGION : code);
    }

    private void fatalBusError(long address, int code) {
        counters.busErrors++;
        recordBusError(address, code);
        int eb = code == BusError.OUT_OF_REGION || code == BusError.MISALIGNED ? EB_TARGET_ABORT : EB_MASTER_ABORT;
        stopOnBusError(eb);
    }

    private void recordBusError(long address, int code) {
        lastBusErrorAddress = address;
        lastBusErrorCode = code;
        if (LOG.isDebugEnabled()) {
            LOG.debug("21140 '{}': fatal bus error {} at bus address 0x{}", name, BusError.name(code),
                Long.toHexString(address));
        }
    }

    /** FBE: the chip stops all DMA; both processes stop (TS = RS = 0) until the host restarts them or resets. */
    private void stopOnBusError(int eb) {
        cancelProcessTimers();
        rxPhase = RX_IDLE;
        if (txInFrame || txPhase == TX_WAIT_START) { // read but never sent
            txInFrame = false;
            counters.busErrorDrops++;
        }
        txPhase = TX_IDLE;
        txState = TS_STOPPED;
        rxState = RS_STOPPED;
        int v = registers.loadRaw(CSR5) & ~(CSR5_TS_MASK | CSR5_RS_MASK | CSR5_EB_MASK);
        registers.storeRaw(CSR5, v | (eb << CSR5_EB_SHIFT) | CSR5_FBE);
        refreshInterrupt();
    }

    private void cancelProcessTimers() {
        txTimer.cancel();
        rxTimer.cancel();
        autoPollTimer.cancel();
        txTimerDue = false;
        rxTimerDue = false;
    }

    private void cancelTimers() {
        cancelProcessTimers();
        gpTimer.cancel();
    }

    // =============================================================== register writes (one place per CSR)

    private void resetLocked() {
        generation++;
        cancelTimers();
        if (txInFrame || txPhase != TX_IDLE) {
            counters.txAbortedFrames++;
        }
        txPhase = TX_IDLE;
        rxPhase = RX_IDLE;
        txInFrame = false;
        txLength = 0;
        counters.rxFlushed += rxFifo.clear() + (rxStaged ? 1 : 0);
        rxStaged = false;
        for (int i = 0; i < RESET_VALUES.length; i++) {
            registers.storeRaw(i * CSR_STRIDE, RESET_VALUES[i]);
        }
        txState = TS_STOPPED;
        rxState = RS_STOPPED;
        txWalker.setSkipLength(0);
        rxWalker.setSkipLength(0);
        txWalker.setListBase(CSR4_RESET);
        rxWalker.setListBase(CSR3_RESET);
        filter.clear();
        srom.reset();
        csr9Written = CSR9_RESET;
        gpioDirection = 0;
        gpioOutputs = 0;
        gpCount = 0;
        gpContinuous = false;
        txPollDemand = false;
        rxPollDemand = false;
        refreshInterrupt();
    }

    private void writeCsr0(int value) {
        if ((value & CSR0_SWR) != 0) {
            resetLocked();
            LOG.debug("21140 '{}': software reset", name);
            return;
        }
        registers.storeRaw(CSR0, value);
        int dsl = (value & CSR0_DSL_MASK) >>> CSR0_DSL_SHIFT;
        txWalker.setSkipLength(dsl);
        rxWalker.setSkipLength(dsl);
    }

    private void writeListBase(int offset, int value, boolean transmit) {
        boolean stopped = transmit ? txState == TS_STOPPED : rxState == RS_STOPPED;
        if (!stopped) {
            counters.listBaseWritesIgnored++;
            return;
        }
        if (transmit) {
            if (txPhase != TX_IDLE) {
                flushTransmit(); // a frame still in flight from before the stop: finish it on the old list first
            }
            generation++; // a transmit() still on the stack (inline re-entry) must not close a descriptor now
        }
        int base = value & (transmit ? CSR4_ADDR_MASK : CSR3_ADDR_MASK);
        registers.storeRaw(offset, base);
        (transmit ? txWalker : rxWalker).setListBase(base & 0xFFFF_FFFFL);
    }

    private void flushTransmit() {
        txTimer.cancel();
        txTimerDue = false;
        if (txPhase == TX_WAIT_START) {
            txPhase = TX_IDLE;
            counters.txFrames++;
            counters.txBytes += txLength;
            port.transmit(txFifoSegment, 0, txLength);
        }
        closeTransmitFrame();
    }

    private void writeCsr5(int value) {
        registers.getAndBitwiseAndRaw(CSR5, ~(value & CSR5_W1C_MASK));
        refreshInterrupt();
    }

    /** @return true when the card has new work (a process started) */
    private boolean writeCsr6(int value) {
        int old = registers.loadRaw(CSR6);
        int nv = (value & ~CSR6_FILTER_RO_MASK) | (old & CSR6_FILTER_RO_MASK);
        registers.storeRaw(CSR6, nv);
        boolean work = false;
        if ((nv & CSR6_ST) != 0) {
            if (txState == TS_STOPPED) {
                setTxState(TS_FETCH_DESC);
                work = true;
            }
        } else if (txState != TS_STOPPED) {
            autoPollTimer.cancel();
            if (txInFrame && txPhase == TX_IDLE) { // part of a frame read, its LS not yet seen: thrown away
                txInFrame = false;
                counters.txAbortedFrames++;
            }
            setTxState(TS_STOPPED);
            raise(CSR5_TPS);
        }
        if ((nv & CSR6_SR) != 0) {
            if (rxState == RS_STOPPED) {
                setRxState(RS_WAIT_PACKET);
                work = true;
            }
        } else if (rxState != RS_STOPPED) {
            rxTimer.cancel(); // a frame waiting for DMA stays at the FIFO head until receive restarts
            rxTimerDue = false;
            rxPhase = RX_IDLE;
            setRxState(RS_STOPPED);
            raise(CSR5_RPS);
        }
        return work;
    }

    private void writeCsr7(int value) {
        registers.storeRaw(CSR7, value);
        refreshInterrupt();
    }

    private int readCsr8() {
        while (true) {
            int v = registers.loadRaw(CSR8);
            if (registers.compareAndSetRaw(CSR8, v, v & ~CSR8_COUNTER_BITS)) {
                return v;
            }
        }
    }

    private void writeCsr9(int value) {
        csr9Written = value;
        registers.storeRaw(CSR9, value);
        srom.pins(value);
    }

    private int readCsr9() {
        int v = csr9Written;
        if ((v & CSR9_SR) != 0) {
            v = (v & ~CSR9_SROM_DO) | (srom.dataOut() ? CSR9_SROM_DO : 0);
        }
        return v;
    }

    private void writeCsr11(int value) {
        registers.storeRaw(CSR11, value);
        gpTimer.cancel();
        gpCount = value & CSR11_TIM_MASK;
        gpContinuous = (value & CSR11_CON) != 0;
        gpTick = (registers.loadRaw(CSR6) & CSR6_PS) != 0 ? GP_TICK_100MB_NANOS : GP_TICK_10MB_NANOS;
        if (gpCount != 0) {
            gpTimer.armAfter(gpCount * gpTick);
        }
    }

    private int readCsr11(int stored) {
        int remaining = 0;
        if (gpCount != 0 && gpTimer.isArmed()) {
            long left = gpTimer.deadline() - timeBase.nanoTime();
            remaining = (int) Math.max(0, Math.min(gpCount, (left + gpTick - 1) / gpTick));
        }
        return (stored & ~CSR11_TIM_MASK) | remaining;
    }

    private void gpTimerExpired() {
        synchronized (lock) {
            if (closed || gpCount == 0) {
                return;
            }
            counters.gpTimerExpiries++;
            raise(CSR5_GTE);
            if (gpContinuous) {
                gpTimer.armAfter(gpCount * gpTick);
            } else {
                gpCount = 0;
            }
        }
    }

    private void writeCsr12(int value) {
        if ((value & CSR12_GPC) != 0) {
            gpioDirection = value & CSR12_PINS_MASK;
        } else {
            gpioOutputs = value & CSR12_PINS_MASK;
        }
    }

    private int readCsr12() {
        return (gpioOutputs & gpioDirection) | (gpioInputs & ~gpioDirection);
    }

    private void writeCsr15(int value) {
        registers.storeRaw(CSR15, (CSR15_RESET & ~CSR15_WRITABLE) | (value & CSR15_WRITABLE));
    }

    /** The hooks the {@link Registers} window dispatches to: exactly one call per host access. */
    private final class CsrHooks implements RegisterSideEffects {
        @Override
        public int onRead(int offset, int storedValue) {
            switch (offset) {
                case CSR8:
                    return readCsr8();
                case CSR9:
                    synchronized (lock) {
                        return readCsr9();
                    }
                case CSR11:
                    synchronized (lock) {
                        return readCsr11(storedValue);
                    }
                case CSR12:
                    synchronized (lock) {
                        return readCsr12();
                    }
                default:
                    return storedValue;
            }
        }

        @Override
        public void onWrite(int offset, int value) {
            switch (offset) {
                case CSR1 -> {
                    txPollDemand = true; // doorbell: no lock (see the class comment)
                    kick();
                }
                case CSR2 -> {
                    rxPollDemand = true;
                    kick();
                }
                case CSR6 -> {
                    boolean work;
                    synchronized (lock) {
                        work = writeCsr6(value);
                    }
                    if (work) {
                        kick();
                    }
                }
                default -> {
                    synchronized (lock) {
                        switch (offset) {
                            case CSR0 -> writeCsr0(value);
                            case CSR3 -> writeListBase(CSR3, value, false);
                            case CSR4 -> writeListBase(CSR4, value, true);
                            case CSR5 -> writeCsr5(value);
                            case CSR7 -> writeCsr7(value);
                            case CSR8 -> { } // read-only: the counters only clear by being read
                            case CSR9 -> writeCsr9(value);
                            case CSR11 -> writeCsr11(value);
                            case CSR12 -> writeCsr12(value);
                            case CSR15 -> writeCsr15(value);
                            default -> throw new IllegalStateException("CSR offset 0x" + Integer.toHexString(offset)
                                + " is hooked but has no write handler");
                        }
                    }
                }
            }
        }
    }

    @Override
    public String toString() {
        return "Dec21140Model[" + name + "]";
    }
}
