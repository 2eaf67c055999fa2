package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;

import io.nicbridge.bridge.memory.BusError;
import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.memory.DmaView;
import io.nicbridge.bridge.regs.RegisterSideEffects;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.spi.InterruptLine;
import io.nicbridge.sim.engine.DeviceEngine;
import io.nicbridge.sim.engine.DeviceModel;
import io.nicbridge.sim.engine.FrameFifo;
import io.nicbridge.sim.engine.TimeBase;
import io.nicbridge.sim.engine.WorkSignal;
import io.nicbridge.sim.ethernet.EthernetWire;
import io.nicbridge.sim.ethernet.FrameSink;
import io.nicbridge.sim.ethernet.TransmitListener;
import io.nicbridge.sim.ethernet.WirePort;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The emulated DEC 21140: its CSRs, its transmit and receive processes, its serial ROM, address filter and
 * general-purpose timer, behaving as the chip does for a real driver (docs/hardware-facts.md section A). The chip
 * is {@link Dec21140Core}; this class is the shell that lets engines, host threads and wires reach it.
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
 * <h2>The chip and its shell</h2>
 * The chip itself is {@link Dec21140Core}: single-threaded, no locks, time passed in. This class is its shell:
 * it owns what is concurrent, and nothing else. The engine runs {@link #service()} on one thread at a time;
 * register hooks run on host threads; {@link #frameArrived} runs on the wire's threads; timers fire on the
 * engine's. Every call into the core holds the shell's lock (a monitor: no allocation, re-entrant, so an
 * interrupt handler that runs in the card's thread may write CSRs). The poll-demand doorbells, the timers of
 * the processes and the wire's sink never take it: they post a bit in one pending-event word and kick the
 * {@link WorkSignal}, so two cards transmitting to each other on two threads cannot deadlock; the core takes
 * each bit where the chip looks at it. A re-entrant call of {@code service()} (an inline engine delivering this
 * card's own frame's reply while it is still transmitting) only records that there is more work; the outer call
 * loops.
 *
 * <p>Nothing here catches a runtime exception as a card event. Host memory that is unregistered, or freed while
 * still registered, is a {@link BusError} code the core reports as CSR5.FBE, because every access checks its
 * region first. Only an arena closed by another thread between that check and the access itself (a host breaking
 * {@link DmaSpace}'s unregister-before-close rule concurrently) gets FFM's {@link IllegalStateException}; it
 * leaves {@code service()} and the engine fails the card (as {@code ThreadedEngine} does for any model failure).
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
 *       TDES0 = TO|ES and CSR5.TJT (the jabber timer), and the transmit process stops (TPS); frames of
 *       1519..2048 bytes are sent as they are; in threshold mode (CSR6.SF clear) in virtual time, a frame whose DMA
 *       falls behind the wire underflows: TDES0 = UF|ES, CSR5.UNF, the process suspends</li>
 *   <li>setup frame with TBS1 != 192: filter unchanged, TDES0 = ES; a correct one: TDES0 = 0</li>
 *   <li>receive: a descriptor with both sizes 0 is skipped (DE|ES, no FS/LS); runts under 64 bytes are dropped
 *       unless CSR6.PB (then delivered with RF); frames over 1518 delivered with TL; over 2048 cut there by the
 *       receive watchdog, delivered with RW|TL and CSR5.RWT; a bad FCS is delivered with CE; frames that find no
 *       descriptor are counted in CSR8 and suspend the process, with one RU per suspension</li>
 * </ul>
 *
 * <h2>Time</h2>
 * In virtual time the card's own work takes the {@link Dec21140Timing} it was given, and a transmit descriptor is
 * completed when the wire says the frame has left. In real time it uses {@link Dec21140Timing#ZERO} and completes
 * at once. CSR11 ticks every 81.92 us with CSR6.PS set (100 Mb/s port) and 204.8 us without (10 Mb/s): the DEC
 * figures as recalled [R], chosen here as the model.
 */
public final class Dec21140Model implements DeviceModel, FrameSink, TransmitListener, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Dec21140Model.class);

    /** Transmit FIFO size: frames whose length with FCS exceeds it trip the jabber timer. */
    public static final int TX_FIFO_BYTES = RX_WATCHDOG_BYTES;
    /**
     * Frames the receive FIFO holds. The real 21140 has a 2 KiB receive FIFO; this one holds more so that a
     * threaded engine's scheduling delay is not mistaken for an overflow. Overflows still count in CSR8.
     */
    public static final int RX_FIFO_FRAMES = 32;
    /** Longest frame the receive process takes in; the receive watchdog cuts longer ones here. */
    public static final int RX_MAX_FRAME = RX_WATCHDOG_BYTES;
    /** Transmit descriptors processed per pass before receive work gets its turn (QEMU's limit per poll). */
    public static final int TX_DESCRIPTORS_PER_PASS = 128;
    /** Receive descriptors one frame may use before it is cut off (DE); bounds a ring of empty descriptors. */
    public static final int RX_DESCRIPTORS_PER_FRAME = 64;
    /** CSR11 tick with CSR6.PS set (100 Mb/s port). */
    public static final long GP_TICK_100MB_NANOS = 81_920;
    /** CSR11 tick with CSR6.PS clear (10 Mb/s port). */
    public static final long GP_TICK_10MB_NANOS = 204_800;

    private static final VarHandle EVENTS;

    static {
        try {
            EVENTS = MethodHandles.lookup().findVarHandle(Dec21140Model.class, "events", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

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
    /** One byte over RX_MAX_FRAME: a frame stored that long is one the receive watchdog cut (see frameArrived). */
    private final FrameFifo rxFifo = new FrameFifo(RX_FIFO_FRAMES, RX_MAX_FRAME + 1);
    /** The chip; every call into it holds {@link #lock}. */
    private final Dec21140Core core;

    /** Pending {@code Dec21140Core.EVENT_*} bits: posted by any thread, taken by the core under the lock. */
    @SuppressWarnings("unused") // through EVENTS
    private volatile int events;
    private volatile WorkSignal signal;
    private volatile WirePort port;
    /** TDES0 status of the frame a half-duplex wire last finished; posted with EVENT_TX_WIRE. */
    private volatile int wireStatus;
    private volatile boolean closed;

    // ---- guarded by lock
    private boolean inService;
    private boolean moreWork;

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
        this(name, macAddress, timeBase, virtualTiming, UnaryOperator.identity());
    }

    /**
     * As above, with the chip's DMA master port wrapped by {@code busTap} (tests record the chip's accesses).
     */
    Dec21140Model(String name, byte[] macAddress, TimeBase timeBase, Dec21140Timing virtualTiming,
                  UnaryOperator<DmaView> busTap) {
        this.name = Objects.requireNonNull(name, "name");
        this.mac = Objects.requireNonNull(macAddress, "macAddress").clone();
        this.timeBase = Objects.requireNonNull(timeBase, "timeBase");
        this.virtual = timeBase.isVirtual();
        this.timing = virtual ? Objects.requireNonNull(virtualTiming, "virtualTiming") : Dec21140Timing.ZERO;
        this.dma = new DmaSpace(name);
        this.interrupt = new InterruptLine(name + ".inta");
        MemorySegment window = MemorySegment.ofArray(new int[CSR_WINDOW_SIZE / Integer.BYTES]);
        this.registers = new Registers(name + ".csr", window, ByteOrder.LITTLE_ENDIAN, new CsrHooks(),
            CSR0, CSR1, CSR2, CSR3, CSR4, CSR5, CSR6, CSR7, CSR8, CSR9, CSR11, CSR12, CSR15);
        this.core = new Dec21140Core(name, mac, registers, Objects.requireNonNull(busTap.apply(dma), "busTap"),
            interrupt, virtual, timing, counters, rxFifo,
            timeBase.newTimer(name + ".tx", () -> post(Dec21140Core.EVENT_TX_TIMER)),
            timeBase.newTimer(name + ".rx", () -> post(Dec21140Core.EVENT_RX_TIMER)),
            timeBase.newTimer(name + ".tap", () -> post(Dec21140Core.EVENT_TX_POLL)),
            timeBase.newTimer(name + ".gptimer", this::gpTimerExpired));
    }

    /** Attaches the card to an engine (which services it) and a wire (its PHY). Setup-time, once. */
    public void attach(DeviceEngine engine, EthernetWire wire) {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(wire, "wire");
        WorkSignal s = engine.attach(this);
        connect(s, wire.attach(name, this, this));
    }

    /** Connects the card to the signal that gets it serviced and to its wire port. Setup-time, once. */
    public void connect(WorkSignal workSignal, WirePort wirePort) {
        Objects.requireNonNull(workSignal, "workSignal");
        Objects.requireNonNull(wirePort, "wirePort");
        synchronized (lock) {
            if (signal != null) {
                throw new IllegalStateException("card '" + name + "' is already connected");
            }
            core.connect(this::take, wirePort, () -> wireStatus);
            this.port = wirePort;
            this.signal = workSignal;
        }
        LOG.debug("21140 '{}' connected to wire port '{}', {} time, {}", name, wirePort.name(),
            virtual ? "virtual" : "real", timing.describe());
    }

    /**
     * Installs a hook called on every transmit and receive process state change (CSR5.TS/RS), in the card's
     * service thread; {@link Dec21140Trace#NONE} removes it. Setup or diagnostics, not per frame.
     */
    public void trace(Dec21140Trace hook) {
        Objects.requireNonNull(hook, "hook");
        synchronized (lock) {
            core.trace(hook);
        }
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
        return core.srom();
    }

    /** @return the address filter mode the last setup frame selected, or {@link Dec21140AddressFilter#MODE_NONE} */
    public int filterMode() {
        synchronized (lock) {
            return core.filterMode();
        }
    }

    /** Bus address of the last DMA access that failed (diagnostics). */
    public long lastBusErrorAddress() {
        synchronized (lock) {
            return core.lastBusErrorAddress();
        }
    }

    /** {@link BusError} code of the last DMA access that failed, 0 before the first. */
    public int lastBusErrorCode() {
        synchronized (lock) {
            return core.lastBusErrorCode();
        }
    }

    /** Sets the levels that CSR12 input pins read (bits 7:0; pins configured as outputs read back what was written). */
    public void gpioInputs(int pins) {
        synchronized (lock) {
            core.gpioInputs(pins);
        }
    }

    /**
     * A fault a simulation injects: the chip is reset without its driver asking (the bus's RST#, a power glitch,
     * a board watchdog), exactly as CSR0.SWR resets it (docs/hardware-facts.md A.1/A.2): every CSR to its reset
     * value, so both processes are stopped (CSR5.TS/RS = 0, CSR6.SR/ST = 0), CSR3/CSR4 forget the lists, CSR7
     * masks every interrupt, the address filter is empty and CSR8's counts are gone; the frame being transmitted
     * is cut off ({@link Dec21140Counters#txAbortedFrames()}) and the receive FIFO is flushed
     * ({@link Dec21140Counters#rxFlushed()}). Descriptors stay as they are in host memory: the chip simply stops
     * walking them. The serial ROM keeps its contents. Any thread; a no-op on a closed card.
     */
    public void hardwareReset() {
        synchronized (lock) {
            if (!closed) {
                core.hardwareReset();
            }
        }
    }

    /** Stops the card: timers cancelled, frames from the wire ignored. Idempotent. */
    @Override
    public void close() {
        closed = true;
        synchronized (lock) {
            core.close();
        }
    }

    // =============================================================== events and kicks (any thread, no lock)

    private void post(int event) {
        EVENTS.getAndBitwiseOr(this, event);
        kick();
    }

    /** The core's side of the event word: a plain volatile read first, so an idle check costs no atomic. */
    private boolean take(int event) {
        return (events & event) != 0 && ((int) EVENTS.getAndBitwiseAnd(this, ~event) & event) != 0;
    }

    private void kick() {
        WorkSignal s = signal;
        if (s != null && !closed) {
            s.kick();
        }
    }

    private void gpTimerExpired() {
        synchronized (lock) {
            if (!closed) {
                core.gpTimerExpired();
            }
        }
    }

    // =============================================================== the wire's side

    /**
     * The PHY's signal detect: with carrier the SMC9332's signal-detect inputs (CSR12 bits 6 and 7, A.0) read as
     * after reset, high; without, low. Linux's media timer reads bit 6 for our SROM's 100BASE-TX block (command
     * 0x006D) every 2 seconds and turns the carrier off and on from it.
     */
    @Override
    public void carrier(boolean up) {
        synchronized (lock) {
            core.carrier(up);
        }
    }

    /**
     * A frame arrived from the wire (destination .. FCS). Copied into the receive FIFO; never blocks, never takes
     * the model's lock (see the class comment), allocation-free. The receiver's state is read from the CSR file
     * as the host last wrote it.
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
        if (length < 0) { // no wire delivers that; counted, never thrown at the wire's thread
            counters.rxOversize.incrementAndGet();
            return;
        }
        // Longer than RX_MAX_FRAME: the receive watchdog cuts it there (A.6 RDES0.RW); its first bytes are received.
        // The FIFO keeps one byte more than it delivers, which marks the cut for the receive process.
        int kept = Math.min(length, RX_MAX_FRAME + 1);
        if (rxFifo.offer(frame, offset, kept) < 0) { // QueueCode.FULL
            counters.rxFifoOverflows.incrementAndGet();
            Dec21140Core.countFifoOverflow(registers);
            return;
        }
        kick();
    }

    /**
     * A half-duplex wire finished our frame (after collisions and backoff, or abandoned): its TDES0 status goes to
     * the core through the event word, like every other thing the wire tells the card. No lock.
     */
    @Override
    public void transmitDone(Result result, int collisions) {
        wireStatus = Dec21140Core.transmitStatus(result, collisions);
        post(Dec21140Core.EVENT_TX_WIRE);
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
                    work += core.step();
                } while ((moreWork || core.passAgain()) && !closed);
            } finally {
                inService = false;
            }
            return work;
        }
    }

    /** The hooks the {@link Registers} window dispatches to: exactly one call per host access. */
    private final class CsrHooks implements RegisterSideEffects {
        @Override
        public int onRead(int offset, int storedValue) {
            if (offset == CSR8) {
                return Dec21140Core.readAndClearCsr8(registers); // lock-free: the wire's sink counts into it too
            }
            if (offset != CSR9 && offset != CSR11 && offset != CSR12) {
                return storedValue;
            }
            synchronized (lock) {
                return core.csrRead(offset, storedValue, timeBase.nanoTime());
            }
        }

        @Override
        public void onWrite(int offset, int value) {
            switch (offset) {
                case CSR1 -> post(Dec21140Core.EVENT_TX_POLL); // doorbells: no lock (see the class comment)
                case CSR2 -> post(Dec21140Core.EVENT_RX_POLL);
                default -> {
                    boolean work;
                    synchronized (lock) {
                        work = core.csrWrite(offset, value);
                    }
                    if (work) {
                        kick();
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
