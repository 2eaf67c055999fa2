package io.nicbridge.sim.dec21140;

import static io.nicbridge.bridge.queue.Dec21140DescriptorWalker.FETCH_BUS_ERROR;
import static io.nicbridge.bridge.queue.Dec21140DescriptorWalker.FETCH_CARD_OWNED;
import static io.nicbridge.bridge.queue.Dec21140DescriptorWalker.FETCH_HOST_OWNED;
import static io.nicbridge.contract.Dec21140.*;

import io.nicbridge.bridge.memory.BusError;
import io.nicbridge.bridge.memory.DmaView;
import io.nicbridge.bridge.queue.Dec21140DescriptorWalker;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.spi.InterruptLine;
import io.nicbridge.sim.engine.FrameFifo;
import io.nicbridge.sim.engine.SimTimer;
import io.nicbridge.sim.ethernet.WirePort;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The 21140 chip alone: CSR write and read handlers, the transmit and receive processes, the address filter,
 * the serial ROM and the general-purpose timer, as one single-threaded state machine (the shape of QEMU's
 * {@code hw/net/tulip.c}). It holds no lock, no volatile and no thread: {@link Dec21140Model}, the shell, calls
 * it from one thread at a time (under its lock) and owns everything concurrent - the register hooks, the
 * doorbells, the wire's sink, the engine's kicks and the re-entrancy of inline engines.
 *
 * <h2>Inputs and outputs</h2>
 * <pre>
 *   shell --- csrWrite / csrRead(now) -----&gt;  one handler per CSR (see {@link Dec21140Model})
 *   shell --- step() ----------------------&gt;  TX process, then RX process; the shell's pending events
 *                                              (doorbells, timer expiries) taken where the chip looks at them
 *   shell --- gpTimerExpired() ------------&gt;  CSR11 expiry
 *   core  --- timers (armAfter/cancel) ----&gt;  TX/RX DMA delays, transmit auto-poll, CSR11 (the shell's SimTimers)
 *   core  --- DmaView accesses ------------&gt;  descriptors and buffers; a failed access is a BusError code = FBE
 *   core  --- WirePort.transmit -----------&gt;  frames the transmit process built
 *   core  --- Registers (raw) / INTA -------&gt;  the CSR file the host reads; the interrupt line
 *   core  --- Dec21140Trace ----------------&gt;  every TS/RS change (as QEMU's tulip_update_ts/_rs trace)
 * </pre>
 * Time comes in: the core never reads a clock; it arms relative delays on the timers it was given, and a CSR11
 * read is passed the current time. Every access to host memory goes through the {@link DmaView}'s accesses, so
 * host memory that is unregistered or freed is a {@link BusError} code handled as CSR5.FBE, never an exception.
 *
 * <h2>Descriptor handoff</h2>
 * The walker reads word 0 with acquire before the other words, and hands a descriptor back by writing word 0
 * (status, OWN clear) with release after every byte of its buffers was written (receive) or read (transmit), and
 * never touches it again (docs/hardware-facts.md A.7). {@code Dec21140DmaOrderTest} records the accesses and
 * checks this order.
 */
final class Dec21140Core {
    private static final Logger LOG = LoggerFactory.getLogger(Dec21140Core.class);

    /** Pending-event bits the shell collects from other threads and {@link #step} takes where the chip looks. */
    static final int EVENT_TX_TIMER = 1;
    static final int EVENT_TX_POLL = 1 << 1;
    static final int EVENT_RX_TIMER = 1 << 2;
    static final int EVENT_RX_POLL = 1 << 3;
    /** The half-duplex wire finished the frame ({@link WirePort#PENDING}); its TDES0 status is in wireStatus. */
    static final int EVENT_TX_WIRE = 1 << 5;

    /** The shell's pending events, as the core sees them. */
    interface Events {
        /** Clears {@code events} and says whether any of them was pending. */
        boolean take(int events);
    }

    private static final int[] RESET_VALUES = {
        CSR0_RESET, CSR1_RESET, CSR2_RESET, CSR3_RESET, CSR4_RESET, CSR5_RESET, CSR6_RESET, CSR7_RESET,
        CSR8_RESET, CSR9_RESET, CSR10_RESET, CSR11_RESET, CSR12_RESET, CSR13_RESET, CSR14_RESET, CSR15_RESET};
    /** CSR8 bits that are counters (cleared on read); the bits above read as the reset value's ones. */
    private static final int CSR8_COUNTER_BITS = CSR8_MFC_MASK | CSR8_MFO | CSR8_FOC_MASK | CSR8_OCO;
    private static final int CSR15_WRITABLE = CSR15_JBD | CSR15_HUJ | CSR15_JCK | CSR15_RWD | CSR15_RWR;
    private static final int SUMMARY_BITS = CSR5_NIS | CSR5_AIS;
    private static final int RX_KEEP_ON_TRUNCATION = RDES0_MF | RDES0_FF | RDES0_FT;
    private static final ValueLayout.OfInt FCS_LAYOUT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** TDES0 of a frame sent while the PHY had no carrier (A.6): no carrier, loss of carrier, error summary. */
    static final int TDES0_NO_CARRIER = TDES0_NC | TDES0_LO | TDES0_ES;

    /** CSR6.TR thresholds in bytes, at 100 Mb/s and with CSR6.TTM (10 Mb/s) (docs/hardware-facts.md A.4). */
    private static final int[] TX_THRESHOLDS_100MB = {128, 256, 512, 1024};
    private static final int[] TX_THRESHOLDS_10MB = {72, 96, 128, 160};

    private static final int TX_IDLE = 0;
    private static final int TX_WAIT_START = 1;
    private static final int TX_WAIT_END = 2;
    /** On a half-duplex hub: the MAC is deferring, colliding, backing off; the wire tells when it is done. */
    private static final int TX_WAIT_WIRE = 3;
    /** Threshold mode, a frame that will underflow: waiting for the wire to start on its fragment. */
    private static final int TX_UNDERFLOW = 4;
    /** TDES0 bits the transmit process set before the half-duplex wire reports its own. */
    private static final int TX_STATUS_KEPT_BY_WIRE = TDES0_NO_CARRIER | TDES0_UF;
    private static final int RX_IDLE = 0;
    private static final int RX_WAIT_DMA = 1;

    private final String name;
    private final Registers registers;
    private final DmaView dma;
    private final InterruptLine interrupt;
    private final boolean virtual;
    private final Dec21140Timing timing;
    private final Dec21140Counters counters;
    private final Dec21140DescriptorWalker txWalker;
    private final Dec21140DescriptorWalker rxWalker;
    private final Dec21140Srom srom;
    private final Dec21140AddressFilter filter = new Dec21140AddressFilter();
    private final FrameFifo rxFifo;
    /** The frame the receive process is working on, taken off the FIFO (the chip's DMA staging). */
    private final byte[] rxFrame = new byte[Dec21140Model.RX_MAX_FRAME];
    private final MemorySegment rxFrameSegment = MemorySegment.ofArray(rxFrame);
    private final CRC32 crc = new CRC32();
    private final byte[] txFifo = new byte[Dec21140Model.TX_FIFO_BYTES];
    private final MemorySegment txFifoSegment = MemorySegment.ofArray(txFifo);
    private final byte[] setupBuffer = new byte[SETUP_FRAME_SIZE];
    private final MemorySegment setupSegment = MemorySegment.ofArray(setupBuffer);
    private final SimTimer txTimer;
    private final SimTimer rxTimer;
    private final SimTimer gpTimer;
    private final SimTimer autoPollTimer;

    private WirePort port;
    private java.util.function.IntSupplier wireStatus = () -> 0;
    private Dec21140Trace trace = Dec21140Trace.NONE;
    private Events events = none -> false;
    private boolean passAgain;
    private int generation;
    private int txState = TS_STOPPED;
    private int rxState = RS_STOPPED;
    private int txPhase = TX_IDLE;
    private int rxPhase = RX_IDLE;
    private boolean txInFrame;
    /** ST was cleared while a frame was in flight: the process stops (TPS) once its descriptor is closed. */
    private boolean txStopPending;
    /** SR was cleared while a frame's DMA was under way: the process stops (RPS) once it is in host memory. */
    private boolean rxStopPending;
    private boolean txJabber;
    private boolean txAddFcs;
    private boolean txPad;
    private int txLength;
    private int txReadBytes;
    private int txFrameDescriptors;
    private int txStatus;
    /** An underflowing frame: the bytes that reach the wire before the FIFO runs dry, and when it runs dry. */
    private int txFragmentBytes;
    private long txFragmentStartNanos;
    private long txFragmentDryNanos;
    private boolean rxFilterFailed;
    /** The staged frame is what the receive watchdog let in of a longer one: RDES0.RW, CSR5.RWT, no CRC check. */
    private boolean rxWatchdogCut;
    private boolean rxStaged;
    private int rxLength;
    private int gpioDirection;
    private int gpioOutputs;
    private int gpioInputs = CSR12_RESET & CSR12_PINS_MASK;
    /** The PHY's carrier: a cable to a live segment (a wire state, not reset by CSR0.SWR). */
    private boolean carrier = true;
    private int gpCount;
    private boolean gpContinuous;
    private long gpTick;
    private int csr9Written = CSR9_RESET;
    private long lastBusErrorAddress;
    private int lastBusErrorCode;

    /**
     * @param registers the CSR file (the shell's window; the core stores into it raw)
     * @param dma       the card's DMA master port: every descriptor and buffer access goes through it
     * @param rxFifo    the receive FIFO the shell fills from the wire
     * @param txTimer, rxTimer, autoPollTimer, gpTimer  timers whose expiry the shell turns into events or calls
     */
    Dec21140Core(String name, byte[] mac, Registers registers, DmaView dma, InterruptLine interrupt, boolean virtual,
                 Dec21140Timing timing, Dec21140Counters counters, FrameFifo rxFifo, SimTimer txTimer,
                 SimTimer rxTimer, SimTimer autoPollTimer, SimTimer gpTimer) {
        this.name = name;
        this.registers = registers;
        this.dma = dma;
        this.interrupt = interrupt;
        this.virtual = virtual;
        this.timing = timing;
        this.counters = counters;
        this.rxFifo = rxFifo;
        this.txTimer = txTimer;
        this.rxTimer = rxTimer;
        this.autoPollTimer = autoPollTimer;
        this.gpTimer = gpTimer;
        this.srom = new Dec21140Srom(mac);
        this.txWalker = new Dec21140DescriptorWalker(dma);
        this.rxWalker = new Dec21140DescriptorWalker(dma);
        reset();
    }

    /** The shell's pending events and the wire port the transmit process sends on. Setup-time, once. */
    void connect(Events pending, WirePort wirePort, java.util.function.IntSupplier wireStatus) {
        this.events = pending;
        this.port = wirePort;
        this.wireStatus = wireStatus;
    }

    /**
     * The TDES0 status bits of a frame the half-duplex wire finished (docs/hardware-facts.md A.7 TDES0): CC (6:3)
     * counts its collisions (a 4-bit counter: 16 reads as 0, and the 21140 leaves it invalid with EC); a late
     * collision abandons the frame with LC|ES, the 16th collision with EC|ES. No carrier (NC) and loss of carrier
     * (LO) come from the card's own PHY, not from the wire's report: see {@link #TDES0_NO_CARRIER}.
     */
    static int transmitStatus(io.nicbridge.sim.ethernet.TransmitListener.Result result, int collisions) {
        int cc = (collisions << TDES0_CC_SHIFT) & TDES0_CC_MASK;
        return switch (result) {
            case SENT -> cc;
            case LATE_COLLISION -> cc | TDES0_LC | TDES0_ES;
            case EXCESSIVE_COLLISIONS -> TDES0_EC | TDES0_ES;
        };
    }

    /** Installs the state-change hook ({@link Dec21140Trace#NONE} to remove it). */
    void trace(Dec21140Trace hook) {
        this.trace = hook;
    }

    Dec21140Srom srom() {
        return srom;
    }

    int filterMode() {
        return filter.mode();
    }

    long lastBusErrorAddress() {
        return lastBusErrorAddress;
    }

    int lastBusErrorCode() {
        return lastBusErrorCode;
    }

    void gpioInputs(int pins) {
        gpioInputs = pins & CSR12_PINS_MASK;
    }

    /**
     * The signal-detect inputs follow the carrier; the other input pins keep their levels. Without carrier a frame
     * still goes out (into a cable that leads nowhere) and its descriptor is closed with {@link #TDES0_NO_CARRIER}.
     */
    void carrier(boolean up) {
        carrier = up;
        int sense = SMC9332_GPIO_SD_100MB | SMC9332_GPIO_SD_10MB;
        gpioInputs = up ? gpioInputs | (CSR12_RESET & sense) : gpioInputs & ~sense;
    }

    /** The card is closed: timers cancelled, both processes stopped. */
    void close() {
        cancelTimers();
        traceTx(TS_STOPPED);
        traceRx(RS_STOPPED);
        txState = TS_STOPPED;
        rxState = RS_STOPPED;
    }

    /** Whether the last {@link #step} left work for another pass at once (the TX pass limit, a looped-back frame). */
    boolean passAgain() {
        return passAgain;
    }

    // =============================================================== one pass of the processes

    /**
     * One pass: the events in the order the chip looks at them, then the transmit process (up to
     * {@link Dec21140Model#Dec21140Model.TX_DESCRIPTORS_PER_PASS} descriptors), then the receive process.
     *
     * @return work done (descriptors, frames, timer completions)
     */
    int step() {
        passAgain = false;
        int work = 0;
        if (events.take(EVENT_TX_TIMER)) {
            work++;
            if (txPhase == TX_WAIT_START) {
                putOnWire();
            } else if (txPhase == TX_WAIT_END) {
                closeTransmitFrame();
            } else if (txPhase == TX_UNDERFLOW) {
                putFragmentOnWire();
            }
        }
        if (events.take(EVENT_TX_WIRE) && txPhase == TX_WAIT_WIRE) {
            work++;
            wireDone(wireStatus.getAsInt());
        }
        if (events.take(EVENT_TX_POLL)) {
            if (txState == TS_SUSPENDED) {
                autoPollTimer.cancel();
                setTxState(TS_FETCH_DESC);
            }
        }
        work += transmitWork();
        if (events.take(EVENT_RX_TIMER)) {
            if (rxPhase == RX_WAIT_DMA) {
                rxPhase = RX_IDLE;
                if (rxStaged && rxState != RS_STOPPED) {
                    work++;
                    deliverStaged();
                }
            }
        }
        if (rxStopPending && rxPhase == RX_IDLE) {
            stopReceive();
        }
        if (events.take(EVENT_RX_POLL)) {
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
        while (txState != TS_STOPPED && txState != TS_SUSPENDED && txPhase == TX_IDLE && !txStopPending) {
            if (descriptors == Dec21140Model.TX_DESCRIPTORS_PER_PASS) {
                passAgain = true; // let receive work run, then come back
                break;
            }
            setTxState(TS_FETCH_DESC);
            int fetch = txWalker.fetch();
            if (fetch == FETCH_BUS_ERROR) {
                descriptorBusError(txWalker);
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
                if (!handBack(txWalker, 0)) {
                    break;
                }
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
        if (!handBack(txWalker, 0)) {
            return;
        }
        counters.txDescriptors++;
        counters.txNullDescriptors++;
        if ((control & TDES1_IC) != 0) {
            raise(CSR5_TI);
        }
        txWalker.advance();
    }

    /** Reads one transmit buffer into the FIFO. @return false after a bus error (the process is stopped) */
    private boolean readTransmitBuffer(long bus, int size) {
        int fcs = txAddFcs ? ETH_FCS_LEN : 0;
        boolean fits = !txJabber && txLength + size + fcs <= Dec21140Model.TX_FIFO_BYTES;
        // Past the FIFO the jabber timer cuts the frame off: the rest is still read (bounds-checked), and discarded.
        int r = fits ? dma.copyFromBus(bus, txFifoSegment, txLength, size) : dma.translate(bus, size);
        if (r < 0) {
            counters.busErrorDrops++;
            txInFrame = false;
            fatalBusError(bus, r);
            return false;
        }
        txReadBytes += size;
        if (fits) {
            txLength += size;
        } else {
            txJabber = true;
        }
        return true;
    }

    /** The LS descriptor is loaded and its buffers read: pad, add the FCS, and send (now or after the DMA time). */
    private void finishFrame() {
        if (txJabber) { // closeTransmitFrame stops the process after it
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
        if (underflows(start)) { // the FIFO runs dry mid-frame: a fragment, UF, and closeTransmitFrame suspends (UNF)
            counters.txUnderflows++;
            txStatus = TDES0_UF | TDES0_ES;
            setTxState(TS_WAIT_END);
            txPhase = TX_UNDERFLOW;
            txTimer.armAfter(txFragmentStartNanos);
            return;
        }
        if (start > 0) {
            txPhase = TX_WAIT_START;
            txTimer.armAfter(start);
            return;
        }
        putOnWire();
    }

    /**
     * Threshold mode (CSR6.SF clear) in virtual time: the MAC starts sending once CSR6.TR's threshold of bytes is in
     * the FIFO, and the rest must keep ahead of the wire. The DMA is taken as uniform over the frame ({@code
     * dmaNanos} for its {@code R = txReadBytes} bytes, byte k in the FIFO at dmaNanos * k / R), the wire as 80 ns a
     * byte (CSR6.PS, 100 Mb/s) or 800 (10 Mb/s). The wire starts at dmaNanos * thr / R and needs byte k by then +
     * k * w; the deficit is worst at the last byte, so the frame underflows when dmaNanos * (R - thr) &gt; R * R * w,
     * running dry at byte k* = dmaNanos * thr / (dmaNanos - R * w). Store-and-forward (SF) never underflows, nor does
     * a frame no longer than the threshold; real time has no DMA rate to compare, so it never underflows either.
     * The k* bytes that reached the wire before the FIFO ran dry go out as a fragment ({@link #putFragmentOnWire}).
     *
     * @return whether the frame underflows; if so {@link #txFragmentBytes}, {@link #txFragmentStartNanos} (from now
     *     to the wire's start, when the fragment is put on the wire) and {@link #txFragmentDryNanos} (from now to the
     *     moment the FIFO runs dry, when the descriptor is closed) are set
     */
    private boolean underflows(long dmaNanos) {
        int csr6 = registers.loadRaw(CSR6);
        if (!virtual || (csr6 & CSR6_SF) != 0) {
            return false;
        }
        int tr = (csr6 & CSR6_TR_MASK) >>> CSR6_TR_SHIFT;
        long threshold = ((csr6 & CSR6_TTM) != 0 ? TX_THRESHOLDS_10MB : TX_THRESHOLDS_100MB)[tr];
        long bytes = txReadBytes;
        long byteNanos = (csr6 & CSR6_PS) != 0 ? ETH_BYTE_TIME_NS_100MB : ETH_BYTE_TIME_NS_10MB;
        long wireNanos = bytes * byteNanos;
        if (bytes <= threshold || dmaNanos * (bytes - threshold) <= bytes * wireNanos) {
            return false;
        }
        double dryByte = (double) dmaNanos * threshold / (dmaNanos - wireNanos);
        txFragmentBytes = (int) Math.min(Math.floor(dryByte), Dec21140Model.TX_FIFO_BYTES - ETH_FCS_LEN);
        txFragmentStartNanos = Math.ceilDiv(dmaNanos * threshold, bytes);
        txFragmentDryNanos = Math.max(txFragmentStartNanos, (long) Math.ceil(dmaNanos * dryByte / bytes));
        return true;
    }

    /**
     * The wire starts on an underflowing frame: what the FIFO held before it ran dry goes out as a fragment, ended
     * with an FCS that cannot match (the inverted CRC of its bytes), so every receiver drops it as a CRC error (a runt
     * under 64 bytes). The model's wire carries a frame whole, so the fragment is put on it at the wire's start, and
     * the descriptor is closed (UF|ES, UNF) when the FIFO runs dry. In loopback it comes back into our own receiver.
     */
    private void putFragmentOnWire() {
        txPhase = TX_IDLE;
        int length = buildFragment();
        int om = (registers.loadRaw(CSR6) & CSR6_OM_MASK) >>> CSR6_OM_SHIFT;
        if (om != OM_NORMAL) {
            loopBack(length);
        } else {
            int gen = generation;
            long onWire = port.transmit(txFifoSegment, 0, length);
            if (gen != generation) {
                return; // the host reset the chip from inside the wire's delivery (inline engines)
            }
            noCarrier();
            if (onWire == WirePort.PENDING) {
                txPhase = TX_WAIT_WIRE; // the hub ends it; the descriptor is closed after that (wireDone)
                return;
            }
        }
        long dry = txFragmentDryNanos - txFragmentStartNanos;
        if (dry > 0) {
            txPhase = TX_WAIT_END;
            txTimer.armAfter(dry);
            return;
        }
        closeTransmitFrame();
    }

    /** Ends the fragment in the FIFO with the inverted CRC of its bytes. @return its length on the wire */
    private int buildFragment() {
        int sent = txFragmentBytes;
        crc.reset();
        crc.update(txFifo, 0, sent);
        txFifoSegment.set(FCS_LAYOUT, sent, ~(int) crc.getValue());
        return sent + ETH_FCS_LEN;
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
        noCarrier();
        if (onWire == WirePort.PENDING) {
            txPhase = TX_WAIT_WIRE; // deferring, colliding, backing off: EVENT_TX_WIRE ends it
            return;
        }
        long close = virtual ? Math.max(0, onWire) + timing.transmitCloseNanos() : 0;
        if (close > 0) {
            txPhase = TX_WAIT_END;
            txTimer.armAfter(close);
            return;
        }
        closeTransmitFrame();
    }

    /**
     * The half-duplex wire is done with the frame: sent after {@code CC} collisions, or abandoned (late or 16th
     * collision; the transmit process closes the descriptor with ES and goes on with the next, as the 21140 does).
     */
    private void wireDone(int status) {
        txStatus = status | (txStatus & TX_STATUS_KEPT_BY_WIRE);
        long close = timing.transmitCloseNanos();
        if (close > 0) {
            txPhase = TX_WAIT_END;
            txTimer.armAfter(close);
            return;
        }
        closeTransmitFrame();
    }

    /**
     * The frame just went out: without carrier the transmitter never heard its own signal back, so TDES0 reports no
     * carrier and loss of carrier (A.6; Linux counts either as tx_carrier_errors). Loopback frames never reach the
     * PHY and are not checked.
     */
    private void noCarrier() {
        if (!carrier) {
            counters.txNoCarrier++;
            txStatus |= TDES0_NO_CARRIER;
        }
    }

    private void loopBack(int length) {
        counters.txLoopback++;
        if ((registers.loadRaw(CSR6) & CSR6_SR) == 0) {
            counters.rxWhileStopped.incrementAndGet();
        } else if (rxFifo.offer(txFifoSegment, 0, length) < 0) { // QueueCode.FULL
            counters.rxFifoOverflows.incrementAndGet();
            countFifoOverflow();
        } else {
            passAgain = true; // receive it in this same service call
        }
    }

    /** Writes the LS descriptor's status (OWN clear, release), raises TI if asked, moves on. */
    private void closeTransmitFrame() {
        txPhase = TX_IDLE;
        if (txState != TS_STOPPED) {
            setTxState(TS_CLOSE_DESC);
        }
        boolean ic = (txWalker.control() & TDES1_IC) != 0;
        boolean jabber = txJabber;
        boolean underflow = (txStatus & TDES0_UF) != 0;
        if (!handBack(txWalker, txStatus)) {
            return;
        }
        counters.txDescriptors++;
        txInFrame = false;
        txJabber = false;
        txLength = 0;
        if (ic) {
            raise(CSR5_TI);
        }
        txWalker.advance();
        if (txStopPending || jabber) {
            // the stop the host asked for while this frame was in flight, reported only now; or the jabber timer,
            // which aborts the transmit process into the stopped state (TJT, then TPS: Linux restarts on TxDied)
            stopTransmit();
        } else if (underflow && txState != TS_STOPPED) {
            setTxState(TS_SUSPENDED); // A.3: TS 6 is suspended by underflow as well; a poll demand resumes it
            raise(CSR5_UNF);
        } else if (txState != TS_STOPPED) {
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
            int r = dma.copyFromBus(bus, setupSegment, 0, SETUP_FRAME_SIZE);
            if (r < 0) {
                fatalBusError(bus, r);
                return;
            }
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
        if (!handBack(txWalker, status)) {
            return;
        }
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
        while (rxState != RS_STOPPED && rxPhase == RX_IDLE && !rxStopPending) {
            if (rxStaged) { // stopped while its DMA was pending, restarted since
                deliverStaged();
                continue;
            }
            int len = rxFifo.peekLength();
            if (len < 0) {
                break;
            }
            frames++;
            boolean cut = len > Dec21140Model.RX_MAX_FRAME; // the FIFO's extra byte: see Dec21140Model.frameArrived
            if (cut) {
                len = Dec21140Model.RX_MAX_FRAME;
            }
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
            rxWatchdogCut = cut;
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
            descriptorBusError(rxWalker);
        }
    }

    /** Moves the staged frame into host buffers (docs/hardware-facts.md A.7, receive). */
    private void deliverStaged() {
        int len = rxLength;
        byte[] f = rxFrame;
        MemorySegment frame = rxFrameSegment;
        boolean wasSuspended = rxState == RS_SUSPENDED;
        setRxState(RS_FETCH_DESC);
        int fetch = rxWalker.fetch();
        if (fetch == FETCH_BUS_ERROR) {
            dropHead();
            counters.busErrorDrops++;
            descriptorBusError(rxWalker);
            return;
        }
        if (fetch == FETCH_HOST_OWNED) {
            dropHead();
            counters.rxMissed++;
            countMissedFrame();
            setRxState(RS_SUSPENDED);
            if (!wasSuspended) { // RU marks the transition into suspended, not every frame missed while in it
                raise(CSR5_RU);
            }
            return;
        }
        int flags = receiveFlags(f, len);
        setRxState(RS_QUEUE_FIFO);
        int written = 0;
        int used = 0;
        boolean first = true;
        boolean early = false;
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
                    early = earlyReceive(early, written, len);
                }
                int n2 = Math.min(len - written, size2);
                if (n2 > 0) {
                    if (!receiveCopy(rxWalker.buffer2Address(), frame, written, n2)) {
                        return;
                    }
                    written += n2;
                    early = earlyReceive(early, written, len);
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
                if (!handBack(rxWalker, fin)) {
                    dropHead();
                    counters.busErrorDrops++;
                    return;
                }
                rxWalker.advance();
                frameReceived(len, flags);
                setRxState(RS_WAIT_PACKET);
                return;
            }
            if (used == Dec21140Model.RX_DESCRIPTORS_PER_FRAME) {
                if (!handBack(rxWalker, truncated(status, written, flags))) {
                    dropHead();
                    counters.busErrorDrops++;
                    return;
                }
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
                descriptorBusError(rxWalker);
            }
            return;
        }
    }

    /**
     * ERI (A.3): the frame's first data buffer is full and more of the frame follows. Set after the copy that filled
     * the first buffer the frame went into; RI, raised when the frame is closed, clears it again (see {@link
     * #raiseReceived}). The model moves a frame into host memory in one step, so the two coincide and the line is
     * evaluated once, after RI: ERI is seen only when the frame never closes (a bus error in a later buffer stops
     * the receive process with FBE), which is where it tells the host that part of the frame landed.
     *
     * @return whether ERI was set for this frame
     */
    private boolean earlyReceive(boolean already, int written, int len) {
        if (already || written == len) {
            return already;
        }
        registers.getAndBitwiseOrRaw(CSR5, CSR5_ERI); // the summary and the line follow with RI or FBE
        return true;
    }

    /** RI (with {@code also}): the frame is closed; RI clears ERI on the 21140A. */
    private void raiseReceived(int also) {
        registers.getAndBitwiseAndRaw(CSR5, ~CSR5_ERI);
        raise(CSR5_RI | also);
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
        if (rxWatchdogCut) {
            flags |= RDES0_RW; // its FCS never arrived: no CRC check
        } else if (!fcsValid(f, len)) {
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
        if ((flags & RDES0_RW) != 0) { // cut by the receive watchdog: received in part, with RW
            counters.rxDescriptors++;
            counters.rxOversize.incrementAndGet();
            counters.rxBytes += len;
            rxStaged = false;
            raiseReceived(CSR5_RWT);
            return;
        }
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
        raiseReceived(0);
    }

    private void frameTruncated(int written) {
        counters.rxTruncated++;
        counters.rxBytes += written;
        rxStaged = false;
        raiseReceived(0);
    }

    private void dropHead() {
        rxStaged = false;
    }

    /**
     * Hands the fetched descriptor back (word 0 := status, OWN clear, release). Memory gone since the fetch
     * (unregistered, or freed while registered) is a bus error, reported as CSR5.FBE.
     *
     * @return false after a bus error (both processes are stopped)
     */
    private boolean handBack(Dec21140DescriptorWalker walker, int status) {
        int r = walker.complete(status);
        if (r < 0) {
            fatalBusError(walker.currentAddress(), r);
            return false;
        }
        return true;
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
        int r = dma.copyToBus(frame, from, bus, n);
        if (r < 0) {
            dropHead();
            counters.busErrorDrops++;
            fatalBusError(bus, r);
            return false;
        }
        return true;
    }

    // =============================================================== CSR8 counters (any thread, CAS)

    private void countMissedFrame() {
        countMissedFrame(registers);
    }

    private void countFifoOverflow() {
        countFifoOverflow(registers);
    }

    /** CSR8 missed-frame counter +1 (saturating with MFO); lock-free, any thread. */
    static void countMissedFrame(Registers registers) {
        while (true) {
            int v = registers.loadRaw(CSR8);
            int c = v & CSR8_MFC_MASK;
            int nv = c == CSR8_MFC_MASK ? v | CSR8_MFO : (v & ~CSR8_MFC_MASK) | (c + 1);
            if (registers.compareAndSetRaw(CSR8, v, nv)) {
                return;
            }
        }
    }

    /** CSR8 FIFO-overflow counter +1 (saturating with OCO); lock-free, any thread (the wire's sink counts too). */
    static void countFifoOverflow(Registers registers) {
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

    // =============================================================== CSR5, interrupts, bus errors

    private void setTxState(int ts) {
        traceTx(ts);
        txState = ts;
        int v = registers.loadRaw(CSR5);
        registers.storeRaw(CSR5, (v & ~CSR5_TS_MASK) | (ts << CSR5_TS_SHIFT));
    }

    private void setRxState(int rs) {
        traceRx(rs);
        rxState = rs;
        int v = registers.loadRaw(CSR5);
        registers.storeRaw(CSR5, (v & ~CSR5_RS_MASK) | (rs << CSR5_RS_SHIFT));
    }

    private void traceTx(int ts) {
        if (ts != txState) {
            trace.stateChanged(Dec21140Trace.TRANSMIT, txState, ts);
        }
    }

    private void traceRx(int rs) {
        if (rs != rxState) {
            trace.stateChanged(Dec21140Trace.RECEIVE, rxState, rs);
        }
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

    /** The walker's fetch failed: its current address and reason (a misaligned pointer, no region, freed...). */
    private void descriptorBusError(Dec21140DescriptorWalker walker) {
        int code = walker.lastErrorCode();
        fatalBusError(walker.currentAddress(), code == 0 ? BusError.NO_REGION : code);
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
        txStopPending = false;
        rxStopPending = false;
        rxPhase = RX_IDLE;
        if (txInFrame || txPhase == TX_WAIT_START) { // read but never sent
            txInFrame = false;
            counters.busErrorDrops++;
        }
        txPhase = TX_IDLE;
        traceTx(TS_STOPPED);
        traceRx(RS_STOPPED);
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
        events.take(EVENT_TX_TIMER | EVENT_RX_TIMER); // an expiry already posted is void too
    }

    private void cancelTimers() {
        cancelProcessTimers();
        gpTimer.cancel();
    }

    // =============================================================== register writes (one place per CSR)

    /** CSR0.SWR, and the state the card is built in: every CSR to its A.1 reset value, both processes stopped. */
    private void reset() {
        generation++;
        cancelTimers();
        if (txInFrame || txPhase != TX_IDLE) {
            counters.txAbortedFrames++;
        }
        txPhase = TX_IDLE;
        rxPhase = RX_IDLE;
        txStopPending = false;
        rxStopPending = false;
        txInFrame = false;
        txLength = 0;
        counters.rxFlushed += rxFifo.clear() + (rxStaged ? 1 : 0);
        rxStaged = false;
        for (int i = 0; i < RESET_VALUES.length; i++) {
            registers.storeRaw(i * CSR_STRIDE, RESET_VALUES[i]);
        }
        traceTx(TS_STOPPED);
        traceRx(RS_STOPPED);
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
        events.take(EVENT_TX_POLL | EVENT_RX_POLL);
        refreshInterrupt();
    }

    /** A reset the host did not ask for (the bus's RST#, a power glitch): the state CSR0.SWR leaves. */
    void hardwareReset() {
        reset();
        LOG.debug("21140 '{}': hardware reset", name);
    }

    private void writeCsr0(int value) {
        if ((value & CSR0_SWR) != 0) {
            reset();
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
        events.take(EVENT_TX_TIMER);
        if (txPhase == TX_WAIT_START) {
            txPhase = TX_IDLE;
            counters.txFrames++;
            counters.txBytes += txLength;
            port.transmit(txFifoSegment, 0, txLength);
            noCarrier();
        } else if (txPhase == TX_UNDERFLOW) {
            txPhase = TX_IDLE;
            port.transmit(txFifoSegment, 0, buildFragment());
            noCarrier();
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
            txStopPending = false; // started again before a pending stop took effect: it never happens
            if (txState == TS_STOPPED) {
                setTxState(TS_FETCH_DESC);
                work = true;
            }
        } else if (txState != TS_STOPPED && !txStopPending) {
            autoPollTimer.cancel();
            if (txPhase != TX_IDLE) {
                // A frame is on its way to the wire: it finishes, its descriptor is closed, and only then TS reads 0
                // (tulip_stop_rxtx polls for that); no descriptor write lands after the stop is reported.
                txStopPending = true;
            } else {
                if (txInFrame) { // part of a frame read, its LS not yet seen: thrown away
                    txInFrame = false;
                    counters.txAbortedFrames++;
                }
                stopTransmit();
            }
        }
        if ((nv & CSR6_SR) != 0) {
            rxStopPending = false;
            if (rxState == RS_STOPPED) {
                setRxState(RS_WAIT_PACKET);
                work = true;
            }
        } else if (rxState != RS_STOPPED && !rxStopPending) {
            if (rxPhase == RX_WAIT_DMA) {
                rxStopPending = true; // the frame being moved into host memory finishes first, then RS reads 0
            } else {
                stopReceive();
            }
        }
        return work;
    }

    private void stopTransmit() {
        txStopPending = false;
        setTxState(TS_STOPPED);
        raise(CSR5_TPS);
    }

    private void stopReceive() {
        rxStopPending = false;
        setRxState(RS_STOPPED);
        raise(CSR5_RPS);
    }

    private void writeCsr7(int value) {
        registers.storeRaw(CSR7, value);
        refreshInterrupt();
    }

    /** CSR8 read: the counters, cleared by the read; lock-free, any thread (the wire's sink counts into it). */
    static int readAndClearCsr8(Registers registers) {
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
        if (v != CSR9_RESET) { // (until the host writes CSR9 it reads its A.1 reset value)
            // No PHY on the board: the pulled-up MDIO line reads 1 while the chip listens (MII), else what it drives
            // (MDO), so an MII read returns all ones, as Linux's tulip_find_mii expects of a board without one.
            v = (v & (CSR9_MII | CSR9_MDO)) != 0 ? v | CSR9_MDI : v & ~CSR9_MDI;
        }
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
        gpTick = (registers.loadRaw(CSR6) & CSR6_PS) != 0 ? Dec21140Model.GP_TICK_100MB_NANOS : Dec21140Model.GP_TICK_10MB_NANOS;
        if (gpCount != 0) {
            gpTimer.armAfter(gpCount * gpTick);
        }
    }

    private int readCsr11(int stored, long now) {
        int remaining = 0;
        if (gpCount != 0 && gpTimer.isArmed()) {
            long left = gpTimer.deadline() - now;
            remaining = (int) Math.max(0, Math.min(gpCount, (left + gpTick - 1) / gpTick));
        }
        return (stored & ~CSR11_TIM_MASK) | remaining;
    }

    /** The CSR11 timer ran out: GTE, and in continuous mode the count starts again. */
    void gpTimerExpired() {
        if (gpCount == 0) {
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

    // =============================================================== the CSR dispatch (one handler per CSR)

    /**
     * A host write of a hooked CSR other than the doorbells CSR1/CSR2 (which the shell turns into events).
     *
     * @return true when the write gave the processes new work (a process started)
     */
    boolean csrWrite(int offset, int value) {
        switch (offset) {
            case CSR0 -> writeCsr0(value);
            case CSR3 -> writeListBase(CSR3, value, false);
            case CSR4 -> writeListBase(CSR4, value, true);
            case CSR5 -> writeCsr5(value);
            case CSR6 -> {
                return writeCsr6(value);
            }
            case CSR7 -> writeCsr7(value);
            case CSR8 -> { } // read-only: the counters only clear by being read
            case CSR9 -> writeCsr9(value);
            case CSR11 -> writeCsr11(value);
            case CSR12 -> writeCsr12(value);
            case CSR15 -> writeCsr15(value);
            default -> throw new IllegalStateException("CSR offset 0x" + Integer.toHexString(offset)
                + " is hooked but has no write handler");
        }
        return false;
    }

    /** A host read of CSR9, CSR11 or CSR12 (CSR8 is {@link #readAndClearCsr8}); {@code now} for the CSR11 count. */
    int csrRead(int offset, int storedValue, long now) {
        return switch (offset) {
            case CSR9 -> readCsr9();
            case CSR11 -> readCsr11(storedValue, now);
            case CSR12 -> readCsr12();
            default -> storedValue;
        };
    }

    @Override
    public String toString() {
        return "Dec21140Core[" + name + "]";
    }
}
