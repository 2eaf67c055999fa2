package io.nicbridge.bridge.driver.medusa;

import static io.nicbridge.bridge.driver.medusa.MedusaStatistics.Counter.*;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import io.nicbridge.bridge.port.PortCounters;
import io.nicbridge.bridge.port.PortReadiness;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.bridge.spi.CardFailedException;
import io.nicbridge.bridge.spi.InterruptHandler;
import io.nicbridge.bridge.spi.InterruptLine;
import io.nicbridge.bridge.spi.NonReentrantInterruptHandler;
import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.bridge.time.DriverWaits;
import io.nicbridge.bridge.time.WaitClock;
import io.nicbridge.contract.Medusa;
import io.nicbridge.contract.MedusaBufStatus;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Host driver of the HP Medusa FDDI adapter (contract: docs/hardware-facts.md C.2, {@code medusa.h}), as a
 * {@link FramePort}.
 *
 * <p>The card has no DMA: 128 buffers of 8 KiB sit in its 1 MiB buffer RAM and the host moves data by
 * programmed I/O ({@link MedusaPio}). The driver therefore does what the paper's single-copy stack did:
 * <ul>
 *   <li><b>send</b> ({@link #send}): the user's data is copied by PIO straight into an on-board transmit
 *       buffer while the card's checksum unit sums it (PIO_CKSUM); the headers go in by PIO too; LEN is
 *       written into the buffer status table and the buffer number is pushed into TX_FIFO. Raw frames may
 *       also be built in place ({@link #claim}/{@link #txBuffer}/{@link #commit});</li>
 *   <li><b>reclaim</b> ({@link #reclaim}): TXDONE_FIFO entries give transmit buffers back to the driver's pool
 *       (and forwarded receive buffers back to the FREE FIFO), like the paper's "collect TX buffers" step that
 *       runs on every send;</li>
 *   <li><b>receive</b> ({@link #poll}): pop RX_FIFO, read the frame in place ({@link #rxBuffer}) or copy it out
 *       to host memory by PIO ({@link #copyOut}), then {@link #release} pushes the buffer back into FREE_FIFO.
 *       A received frame can also be sent on without any copy ({@link #forward}).</li>
 * </ul>
 *
 * <h2>Window layout the driver uses</h2>
 * <pre>
 *  0x000000  buffer n at n x 0x2000; the frame starts at FRAME_OFS (3 or 0): [pad][FC][DA 6][SA 6][INFO ...]
 *  0x100000  registers (CTRL, ISR/IMR, MAC, TREQ, TX/TXDONE/RX/FREE FIFOs, PIO_CKSUM, counters)
 *  0x100800  buffer status table: entry n = LEN | STAT | RXCK | TSTAMP (16 B, big-endian)
 * </pre>
 * The card's {@link Card#registers()} window must be the whole 2 MiB window (register offsets are
 * {@code REGS_OFS + reg}); buffer RAM is reached through the {@link MedusaPio} the card provides.
 *
 * <h2>Ownership</h2>
 * Every buffer's holder is tracked in {@link MedusaBufferState} (see the diagram there). Handles are buffer
 * numbers. Handoffs to the card: the buffer contents and its LEN entry are written first, then the buffer number
 * is pushed with a release write to TX_FIFO / FREE_FIFO. Handoffs from the card: RX_FIFO / TXDONE_FIFO are read
 * with acquire, and only then LEN/STAT and the frame. A FIFO entry naming a buffer the card does not own is the
 * card's fault: it is counted ({@code RX_BAD_FIFO_ENTRIES} / {@code TX_BAD_FIFO_ENTRIES}) and skipped, so it can
 * never hand the application a buffer twice.
 *
 * <h2>Readiness ({@link #readinessListener})</h2>
 * In {@link MedusaConfig.InterruptMode#INTERRUPT} the driver owns the line's edge handler: on each edge it reads ISR,
 * writes it back (write-1-to-clear, so the line can rise again) and tells the {@link PortReadiness} listener
 * RX_READY / RX_ERR as {@link PortReadiness#FRAME_ARRIVED} and TX_DONE / TX_ERR as {@link PortReadiness#TX_SPACE}
 * (transmit buffers come back through TXDONE_FIFO, which {@link #claim} reclaims). The handler runs on the card's
 * thread and counts nothing of the receiving thread's: RX_DROP_NOBUF and RING_CHANGE are handed over as bits
 * ({@code deferredIsr}, one atomic OR) and counted by the next {@link #poll()}. A polling driver (IMR = 0) returns
 * false.
 *
 * <h2>Watchdog and board resets ({@link #watchdog})</h2>
 * The card says nothing when it is reset behind the driver's back (a power glitch, a bus reset): its FIFOs and
 * registers simply return to their reset values, and the station leaves the ring. So a periodic timer on the
 * driver's {@link Scheduler}, as a network driver's watchdog is, reads CTRL at every tick, whether or not anything is
 * queued (a station that only receives is found too: off the ring it receives nothing, and its peers would
 * retransmit to it for ever). A CTRL without the RX_EN, TX_EN and RING_JOIN the driver wrote is a reset (a card that
 * runs reads them back as written, so a healthy card is never reset), and the driver re-initialises the card as
 * {@link #open} does (RESET, address, T_Req, checksum start, IMR, CTRL), pushes its receive buffers into FREE_FIFO
 * again (those the application holds go back on release) and re-queues, in their original order, the transmit
 * buffers the card forgot: their frames are still in buffer RAM (a logic reset keeps memory), only LEN is written
 * again. A frame the card had on the ring at the reset may so go out twice. Frames the card had stored and not yet
 * handed over through RX_FIFO are lost with the FIFO; the card's own counters (reset to 0) are the only trace of
 * them. With the card running, a frame queued at the previous tick with no TXDONE since is a transmit timeout, only
 * counted: FDDI recovers a lost token by itself. A reset is found within one period of it. The timer runs on the
 * scheduler's thread, which must be the driver's sending and receiving thread; a virtual world with a watchdog never
 * runs idle (run it until a condition or a time).
 *
 * <h2>Threads</h2>
 * As {@link FramePort}: one sending thread (claim/commit/abort/send/reclaim) and one receiving thread
 * (poll/await/rx.../copyOut/release). {@link #forward} is both a receive and a send: call it from a thread that
 * does both (the usual single-threaded event loop). Nothing on these paths allocates. A readiness listener and an
 * interrupt listener exclude each other (both are the line's one handler).
 */
public final class MedusaDriver implements FramePort {
    private static final Logger LOG = LoggerFactory.getLogger(MedusaDriver.class);

    /** The largest standard frame (FC..INFO, no FCS): 4500 minus the 4-byte FCS ({@link #maxFrameLength()}). */
    public static final int MAX_FRAME = Medusa.MAX_FRAME - Medusa.FDDI_FCS_LEN;
    /** FC + DA + SA. */
    public static final int MAC_HEADER = Medusa.FDDI_MAC_HEADER_LEN;
    /** The broadcast address (all ones; the same in canonical and native bit order). */
    public static final long BROADCAST = 0xFFFF_FFFF_FFFFL;

    private static final int R = Medusa.REGS_OFS;
    private static final int REG_CTRL = R + Medusa.REG_CTRL;
    private static final int REG_ISR = R + Medusa.REG_ISR;
    private static final int REG_IMR = R + Medusa.REG_IMR;
    private static final int REG_TX_FIFO = R + Medusa.REG_TX_FIFO;
    private static final int REG_TXDONE_FIFO = R + Medusa.REG_TXDONE_FIFO;
    private static final int REG_RX_FIFO = R + Medusa.REG_RX_FIFO;
    private static final int REG_FREE_FIFO = R + Medusa.REG_FREE_FIFO;
    private static final int REG_PIO_CKSUM = R + Medusa.REG_PIO_CKSUM;
    private static final int BUFFERS = Medusa.BUF_COUNT;
    private static final int IRQ_ALL = Medusa.INT_RX_READY | Medusa.INT_TX_DONE | Medusa.INT_RX_DROP_NOBUF
        | Medusa.INT_RING_CHANGE | Medusa.INT_TX_ERR | Medusa.INT_RX_ERR;
    private static final long RESET_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final VarHandle STATE = MethodHandles.arrayElementVarHandle(byte[].class);
    private static final VarHandle DEFERRED_ISR;
    private static final int READY_RX = Medusa.INT_RX_READY | Medusa.INT_RX_ERR | Medusa.INT_RX_DROP_NOBUF;
    private static final int READY_TX = Medusa.INT_TX_DONE | Medusa.INT_TX_ERR;

    static {
        try {
            DEFERRED_ISR = MethodHandles.lookup().findVarHandle(MedusaDriver.class, "deferredIsr", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    private static final byte S_TX_FREE = (byte) MedusaBufferState.HOST_TX_FREE.ordinal();
    private static final byte S_CLAIMED = (byte) MedusaBufferState.HOST_CLAIMED.ordinal();
    private static final byte S_CARD_TX = (byte) MedusaBufferState.CARD_TX.ordinal();
    private static final byte S_CARD_FREE = (byte) MedusaBufferState.CARD_FREE.ordinal();
    private static final byte S_HOST_RX = (byte) MedusaBufferState.HOST_RX.ordinal();
    private static final byte S_FORWARD = (byte) MedusaBufferState.CARD_TX_FORWARD.ordinal();

    private final Card card;
    private final Registers regs;
    private final MemorySegment window;
    private final MedusaPio pio;
    private final MedusaConfig config;
    private final InterruptLine line;
    private final int frameOffset;
    private final long stationAddress;
    private final String name;
    private final int maxFrame;
    /**
     * The longest frame the card stores for this configuration (C.2: the ring's largest frame, less the FCS unless it
     * is kept, within the buffer); a longer one is stored truncated to it. A sender's longest frame
     * ({@code maxFrame}) can be shorter: its own FRAME_OFS takes from the same 8 KiB.
     */
    private final int maxReceived;
    private final PortCounters counters = new PortCounters();
    private final MedusaStatistics stats;

    /** Holder of every buffer (MedusaBufferState ordinals), accessed with release/acquire. */
    private final byte[] state = new byte[BUFFERS];
    /** Per buffer: the frame slice (from FRAME_OFS to the end of the 8 KiB buffer), made once at open. */
    private final MemorySegment[] frames = new MemorySegment[BUFFERS];
    /** Per buffer: the maxFrameLength()-byte slice handed out by txBuffer. */
    private final MemorySegment[] txFrames = new MemorySegment[BUFFERS];
    /** Receiving thread: LEN and FrameStatus of each held received frame, read once at poll. */
    private final int[] rxLength = new int[BUFFERS];
    private final int[] rxStatus = new int[BUFFERS];
    /** Sending thread: each transmit buffer's LEN and queueing order, to re-queue it after a card reset. */
    private final int[] txLength = new int[BUFFERS];
    private final long[] txSequence = new long[BUFFERS];
    private final int[] requeue = new int[BUFFERS];
    private long txQueued;
    private long txCompleted;
    /** CTRL as the driver last wrote it. */
    private int ctrl;
    private Timer watchdog;
    private long watchdogNanos;
    /** Every wait and timeout, on the driver's clock ({@link #timeOn}; the wall clock until then). */
    private final DriverWaits waits;
    /** At the last watchdog tick: TXDONEs so far, and whether a frame was outstanding. */
    private long completedAtTick;
    private boolean pendingAtTick;
    /** Receiving thread: the back-off while {@link #await} polls; made once, so waiting allocates nothing. */
    private final IdleStrategy rxWaitIdle = BackoffIdle.cardWait(WAIT_PARK_NANOS);
    /** Sending thread: the driver's free transmit buffers, a stack (most recently used first: warm lines). */
    private final int[] freeTx;
    private int freeTxTop;
    /** Sending thread: FC, DA, SA and the caller's protocol header staged for one PIO copy. */
    private final MemorySegment headerStage = MemorySegment.ofArray(new byte[Medusa.BUF_SIZE]);
    private volatile boolean closed;
    private final InterruptHandler lineHandler = new NonReentrantInterruptHandler(this::serviceInterrupt);
    private volatile MedusaInterruptListener listener;
    private final InterruptHandler readinessHandler = new NonReentrantInterruptHandler(this::serviceReadiness);
    private volatile PortReadiness readiness;
    /** ISR bits the readiness handler acknowledged, for the receiving thread to count. */
    private volatile int deferredIsr;

    /** Runs on each interrupt, in the card's thread, after the driver acknowledged ISR. */
    @FunctionalInterface
    public interface MedusaInterruptListener {
        /**
         * @param driver the interrupted driver; the listener is its receiving (and may be its sending) thread
         * @param isr    the ISR bits that were set (already cleared on the card)
         */
        void onInterrupt(MedusaDriver driver, int isr);
    }

    private MedusaDriver(Card card, MedusaPio pio, MedusaConfig config) {
        this.card = card;
        this.regs = card.registers();
        this.window = regs.window();
        this.pio = pio;
        this.config = config;
        this.line = card.interrupt();
        this.frameOffset = config.frameOffset();
        this.stationAddress = config.stationAddress();
        this.name = "medusa-driver[" + card.name() + "]";
        this.waits = new DriverWaits(name);
        this.maxFrame = config.maxFrameLength();
        this.maxReceived = Math.min(Medusa.BUF_SIZE - frameOffset,
            (config.longFrames() ? Medusa.MAX_FRAME_LONG : Medusa.MAX_FRAME)
                - (config.keepFcs() ? 0 : Medusa.FDDI_FCS_LEN));
        this.stats = new MedusaStatistics(regs, R);
        this.freeTx = new int[config.transmitBuffers()];
        for (int n = 0; n < BUFFERS; n++) {
            long base = (long) n * Medusa.BUF_SIZE + frameOffset;
            frames[n] = window.asSlice(base, Medusa.BUF_SIZE - frameOffset);
            txFrames[n] = window.asSlice(base, maxFrame);
        }
    }

    /**
     * Opens the driver on a Medusa card whose PIO path is the card object itself.
     *
     * @throws IllegalArgumentException when the card does not implement {@link MedusaPio} or is not a Medusa
     */
    public static MedusaDriver open(Card card, MedusaConfig config) {
        Objects.requireNonNull(card, "card");
        if (!(card instanceof MedusaPio pio)) {
            throw new IllegalArgumentException("card " + card.name() + " (" + card.getClass().getName()
                + ") offers no Medusa PIO path; use open(card, pio, config)");
        }
        return open(card, pio, config);
    }

    /**
     * Initialises the card per docs/hardware-facts.md C.2 ("Init"): RESET; station address; T_Req; RX checksum start;
     * every receive buffer number into FREE_FIFO; clear ISR and PIO_CKSUM; IMR; CTRL with RX_EN, TX_EN and
     * RING_JOIN (and the configured frame offset, promiscuous, KEEP_FCS and RX checksum bits).
     *
     * @throws IllegalArgumentException when the card's ID register does not read "MDSA" or its window is not
     *                                  the 2 MiB Medusa window
     * @throws IllegalStateException    when RESET does not clear within a second
     */
    public static MedusaDriver open(Card card, MedusaPio pio, MedusaConfig config) {
        Objects.requireNonNull(card, "card");
        Objects.requireNonNull(pio, "pio");
        Objects.requireNonNull(config, "config");
        Registers regs = card.registers();
        if (regs.size() != Medusa.WINDOW_SIZE) {
            throw new IllegalArgumentException("card " + card.name() + ": register window is " + regs.size()
                + " bytes; a Medusa window is " + Medusa.WINDOW_SIZE + " bytes (buffer RAM + registers + table)");
        }
        int id = regs.read(R + Medusa.REG_ID);
        if (id != Medusa.ID_VALUE) {
            throw new IllegalArgumentException("card " + card.name() + ": ID register reads 0x"
                + Integer.toHexString(id) + ", not 0x" + Integer.toHexString(Medusa.ID_VALUE) + " (\"MDSA\")");
        }
        MedusaDriver d = new MedusaDriver(card, pio, config);
        d.initialise();
        return d;
    }

    private void initialise() {
        resetAndAddress();
        int rx = config.receiveBuffers();
        for (int n = 0; n < BUFFERS; n++) {
            if (n < rx) {
                STATE.setRelease(state, n, S_CARD_FREE);
                regs.writeRelease(REG_FREE_FIFO, n);
            } else {
                state[n] = S_TX_FREE;
            }
        }
        // Highest first onto the stack so that the lowest-numbered transmit buffer is used first.
        freeTxTop = 0;
        for (int n = BUFFERS - 1; n >= rx; n--) {
            freeTx[freeTxTop++] = n;
        }
        ctrl = Medusa.CTRL_RX_EN | Medusa.CTRL_TX_EN | Medusa.CTRL_RING_JOIN;
        ctrl |= config.frameOffset3() ? Medusa.CTRL_FRAME_OFS3 : 0;
        ctrl |= config.promiscuous() ? Medusa.CTRL_PROMISC : 0;
        ctrl |= config.keepFcs() ? Medusa.CTRL_KEEP_FCS : 0;
        ctrl |= config.receiveChecksum() ? Medusa.CTRL_RX_CKSUM_EN : 0;
        ctrl |= config.longFrames() ? Medusa.CTRL_LONG_FRAMES : 0;
        enable();
        LOG.info("{}: initialised, station {} ({} receive / {} transmit buffers, T_Req {} us, frame offset {})",
            card.name(), formatAddress(stationAddress), rx, freeTxTop, config.treqMicros(), frameOffset);
    }

    /** Init steps 1 and 2: RESET (waited for), station address, T_Req, receive checksum start. */
    private void resetAndAddress() {
        regs.write(REG_CTRL, Medusa.CTRL_RESET);
        long deadline = waits.nanoTime() + RESET_TIMEOUT_NANOS;
        IdleStrategy idle = BackoffIdle.cardWait(WAIT_PARK_NANOS); // bring-up: allocating here is fine
        try {
            while ((regs.read(REG_CTRL) & Medusa.CTRL_RESET) != 0) {
                if (waits.expired(deadline)) {
                    throw new IllegalStateException(card.name() + ": CTRL.RESET did not self-clear within 1 s");
                }
                waits.pause(idle, deadline);
            }
        } finally {
            waits.end(); // also when it throws: a deadline event left armed would stand in for the next wait's
        }
        long mac = config.stationAddress();
        regs.write(R + Medusa.REG_MACADDR_HI, (int) (mac >>> 32) & Medusa.MACADDR_HI_MASK);
        regs.write(R + Medusa.REG_MACADDR_LO, (int) mac);
        regs.write(R + Medusa.REG_TREQ_US, config.treqMicros());
        regs.write(R + Medusa.REG_RXCK_START, config.receiveChecksumStart());
    }

    /** Init steps 4 and 5: clear ISR and PIO_CKSUM, IMR, CTRL := {@link #ctrl} (enables and joins the ring). */
    private void enable() {
        regs.write(REG_PIO_CKSUM, 0);
        regs.write(REG_ISR, IRQ_ALL);
        regs.write(REG_IMR, config.interruptMode() == MedusaConfig.InterruptMode.INTERRUPT ? IRQ_ALL : 0);
        regs.write(REG_CTRL, ctrl);
    }

    // ================================================================================================ send side

    @Override
    public int claim() {
        ensureOpen();
        if (freeTxTop == 0) {
            reclaim(); // the paper's "collect TX buffers" step, done only when the pool runs dry
            if (freeTxTop == 0) {
                counters.recordTxBackPressure();
                stats.increment(TX_BACK_PRESSURE);
                return NONE;
            }
        }
        int n = freeTx[--freeTxTop];
        STATE.setRelease(state, n, S_CLAIMED);
        return n;
    }

    @Override
    public MemorySegment txBuffer(int handle) {
        expect(handle, S_CLAIMED, "claimed by the caller");
        return txFrames[handle];
    }

    /**
     * Copies host memory by PIO into a claimed transmit buffer at {@code frameOffset} (0 = FC), the way the
     * single-copy stack fills a frame: the card's checksum unit sums the bytes on their way (PIO_CKSUM is cleared
     * before the copy and read after it). Commit the buffer afterwards as usual.
     *
     * @return the folded ones'-complement sum of the copied bytes as they landed in buffer RAM (0..0xFFFF; see
     *     {@link #send} for the byte lanes), 0 for an empty copy
     * @throws IllegalStateException    when {@code handle} is not claimed by the caller, or the port is closed
     * @throws IllegalArgumentException when the range is outside the frame or the source
     */
    public int copyIntoClaimed(int handle, int frameOffset, MemorySegment src, long srcOffset, int length) {
        expect(handle, S_CLAIMED, "claimed by the caller");
        if (frameOffset < 0 || length < 0 || frameOffset > maxFrame - length) {
            throw new IllegalArgumentException(name + ": copy of [" + frameOffset + ", " + frameOffset + " + " + length
                + ") is outside the " + maxFrame + "-byte frame of buffer " + handle);
        }
        checkRange("source", src, srcOffset, length);
        return pioCopyIn(handle * Medusa.BUF_SIZE + this.frameOffset + frameOffset, src, srcOffset, length);
    }

    /** PIO copy into buffer RAM with the checksum unit summing it; counts the bytes. Sending thread. */
    private int pioCopyIn(int windowOffset, MemorySegment src, long srcOffset, int length) {
        if (length == 0) {
            return 0;
        }
        regs.write(REG_PIO_CKSUM, 0);
        pio.copyToCard(src, srcOffset, windowOffset, length);
        stats.add(PIO_BYTES_IN, length);
        return regs.read(REG_PIO_CKSUM) & Medusa.PIO_CKSUM_MASK;
    }

    /**
     * Hands a claimed buffer to the card: LEN into the buffer status table, then the buffer number into TX_FIFO
     * (release: the frame bytes and LEN are visible to the card before it sees the number).
     */
    @Override
    public void commit(int handle, int length) {
        expect(handle, S_CLAIMED, "claimed by the caller");
        if (length < 1 || length > maxFrame) {
            throw new IllegalArgumentException(name + ": frame length " + length + " is outside [1, " + maxFrame
                + "] (FC..INFO without the FCS" + (config.longFrames() ? ", long frames" : "; an FDDI frame is at most "
                + Medusa.MAX_FRAME + " bytes") + ")");
        }
        transmit(handle, length, S_CARD_TX);
    }

    private void transmit(int n, int length, byte newState) {
        MedusaBufStatus.len(window, statusEntry(n), length);
        txLength[n] = length;
        txSequence[n] = txQueued++;
        STATE.setRelease(state, n, newState);
        regs.writeRelease(REG_TX_FIFO, n); // the doorbell: the card may now read LEN and the frame
        counters.recordTx(length);
        stats.increment(TX_FRAMES);
        stats.add(TX_BYTES, length);
    }

    @Override
    public void abort(int handle) {
        expect(handle, S_CLAIMED, "claimed by the caller");
        STATE.setRelease(state, handle, S_TX_FREE);
        freeTx[freeTxTop++] = handle;
    }

    /**
     * Single-copy send of one frame: {@code FC, DA, SA(this station), header[0..headerLength), payload}.
     * The payload is copied by PIO straight from host memory into an on-board buffer; the card's checksum
     * unit sums it on the way (PIO_CKSUM is cleared before and read after the payload copy). The header
     * (the caller's protocol header, e.g. LLC/SNAP + transport) follows by PIO, then LEN and TX_FIFO.
     *
     * <p>The returned sum is the card's folded ones'-complement sum of the payload as it landed in buffer RAM
     * (big-endian halfwords by window address: a payload starting at an odd window address is summed
     * byte-swapped, as the hardware would).
     *
     * @param destination 48-bit canonical address, or {@link #BROADCAST} for every station on the ring
     * @param fc          frame control byte (e.g. {@code Medusa.FC_LLC_ASYNC_DEFAULT})
     * @return the payload's PIO checksum (0..0xFFFF), or {@link #NONE} when no transmit buffer is free
     *         (back-pressure: reclaim happened already; retry later)
     * @throws IllegalArgumentException on a bad address, FC, range or a frame over {@link #MAX_FRAME}
     */
    public int send(long destination, int fc, MemorySegment header, long headerOffset, int headerLength,
                    MemorySegment payload, long payloadOffset, int payloadLength) {
        ensureOpen();
        checkAddress(destination);
        if ((fc & ~0xFF) != 0) {
            throw new IllegalArgumentException(name + ": FC 0x" + Integer.toHexString(fc) + " is not a byte");
        }
        checkRange("header", header, headerOffset, headerLength);
        checkRange("payload", payload, payloadOffset, payloadLength);
        int length = MAC_HEADER + headerLength + payloadLength;
        if (length > maxFrame) {
            throw new IllegalArgumentException(name + ": frame of " + length + " bytes (13 MAC + " + headerLength
                + " header + " + payloadLength + " payload) exceeds the " + maxFrame + "-byte maximum"
                + (config.longFrames() ? " of a long frame" : " (FDDI's 4500 bytes less the FCS)"));
        }
        int n = claim();
        if (n == NONE) {
            return NONE;
        }
        int base = n * Medusa.BUF_SIZE + frameOffset;
        int sum = pioCopyIn(base + MAC_HEADER + headerLength, payload, payloadOffset, payloadLength);
        MemorySegment stage = headerStage;
        stageMacHeader(stage, fc, destination);
        if (headerLength > 0) {
            MemorySegment.copy(header, headerOffset, stage, MAC_HEADER, headerLength);
        }
        pio.copyToCard(stage, 0, base, MAC_HEADER + headerLength);
        stats.add(PIO_BYTES_IN, (long) MAC_HEADER + headerLength);
        if (destination == BROADCAST) {
            stats.increment(TX_BROADCASTS);
        }
        transmit(n, length, S_CARD_TX);
        return sum;
    }

    private void stageMacHeader(MemorySegment stage, int fc, long destination) {
        stage.set(JAVA_BYTE, 0, (byte) fc);
        putAddress(stage, Medusa.FRAME_DA_OFS, destination);
        putAddress(stage, Medusa.FRAME_SA_OFS, stationAddress);
    }

    private static void putAddress(MemorySegment seg, long offset, long address) {
        for (int i = 0; i < 6; i++) {
            seg.set(JAVA_BYTE, offset + i, (byte) (address >>> (40 - 8 * i)));
        }
    }

    /**
     * Sends a received frame on without copying it: DA (and SA, to this station) are rewritten by PIO in the
     * on-board buffer, which then goes straight into TX_FIFO. After its TXDONE the buffer returns to the FREE
     * FIFO (it was a receive buffer). This is how the latency test's ring of nodes passes one message along.
     *
     * @throws IllegalStateException when {@code handle} is not a received frame held by the caller
     */
    public void forward(int handle, long destination) {
        expect(handle, S_HOST_RX, "a received frame held by the caller");
        checkAddress(destination);
        int length = rxLength[handle];
        if (length < MAC_HEADER || length > maxFrame) {
            throw new IllegalArgumentException(name + ": received frame in buffer " + handle + " is " + length
                + " bytes; only frames of [" + MAC_HEADER + ", " + maxFrame + "] bytes can be forwarded");
        }
        int base = handle * Medusa.BUF_SIZE + frameOffset;
        for (int i = 0; i < 6; i++) {
            pio.putByte(base + Medusa.FRAME_DA_OFS + i, (byte) (destination >>> (40 - 8 * i)));
            pio.putByte(base + Medusa.FRAME_SA_OFS + i, (byte) (stationAddress >>> (40 - 8 * i)));
        }
        stats.add(PIO_BYTES_IN, 12);
        stats.increment(TX_FORWARDS);
        if (destination == BROADCAST) {
            stats.increment(TX_BROADCASTS);
        }
        transmit(handle, length, S_FORWARD);
    }

    /**
     * Pops every TXDONE_FIFO entry: transmit buffers go back to the driver's pool, forwarded receive buffers back
     * into the FREE FIFO; entries with the ERROR bit are counted as transmit errors. Sending thread.
     *
     * @return entries reclaimed
     */
    public int reclaim() {
        int reclaimed = 0;
        for (;;) {
            int entry = regs.readAcquire(REG_TXDONE_FIFO); // acquire: the card's completion precedes what follows
            if ((entry & Medusa.FIFO_VALID) == 0) {
                return reclaimed;
            }
            int n = entry & Medusa.FIFO_BUF_MASK;
            byte s = (byte) STATE.getAcquire(state, n);
            if (s == S_CARD_TX) {
                STATE.setRelease(state, n, S_TX_FREE);
                freeTx[freeTxTop++] = n;
            } else if (s == S_FORWARD) {
                STATE.setRelease(state, n, S_CARD_FREE);
                regs.writeRelease(REG_FREE_FIFO, n);
                stats.increment(FREE_PUSHES);
            } else {
                stats.increment(TX_BAD_FIFO_ENTRIES);
                continue;
            }
            reclaimed++;
            txCompleted++;
            stats.increment(TX_DONE);
            if ((entry & Medusa.FIFO_ERROR) != 0) {
                stats.increment(TX_ERRORS);
                counters.recordTxError();
            }
        }
    }

    // ================================================================= watchdog, board resets

    /**
     * Installs the periodic watchdog (see the class comment) on {@code scheduler}, whose thread must be the driver's
     * sending and receiving thread, and arms its first tick. Setup-time, once; the ticks allocate nothing.
     *
     * @param periodNanos the tick: a reset is found within one; longer than the ring's worst token rotation and
     *                    re-initialisation (a few TTRTs), so a frame queued for a whole one is a timeout
     * @throws IllegalArgumentException for a period that is not positive
     * @throws IllegalStateException    when a watchdog is already installed
     */
    public void watchdog(Scheduler scheduler, long periodNanos) {
        Objects.requireNonNull(scheduler, "scheduler");
        if (periodNanos <= 0) {
            throw new IllegalArgumentException("watchdog periodNanos must be > 0, was " + periodNanos);
        }
        ensureOpen();
        if (watchdog != null) {
            throw new IllegalStateException(name + ": the watchdog is already installed");
        }
        watchdogNanos = periodNanos;
        watchdog = scheduler.newTimer(name + ".watchdog", this::watchdogTick);
        completedAtTick = txCompleted;
        pendingAtTick = txQueued != txCompleted;
        watchdog.armAfter(periodNanos);
    }

    /** The watchdog's period, or 0 when none is installed. */
    public long watchdogNanos() {
        return watchdog == null ? 0 : watchdogNanos;
    }

    private void watchdogTick() {
        if (closed || line.failure() != null) {
            return; // a failed card answers nothing: close() reports it
        }
        int running = regs.read(REG_CTRL);
        int wanted = Medusa.CTRL_RX_EN | Medusa.CTRL_TX_EN | Medusa.CTRL_RING_JOIN;
        if ((running & wanted) != (ctrl & wanted)) {
            LOG.warn("{}: CTRL 0x{} (written 0x{}): the card was reset; re-initialising it", name,
                Integer.toHexString(running), Integer.toHexString(ctrl));
            reinitialise();
        } else {
            reclaim();
            if (pendingAtTick && txQueued != txCompleted && txCompleted == completedAtTick) {
                stats.increment(TX_TIMEOUTS);
                LOG.warn("{}: transmit timeout, card running (STATUS 0x{}): waiting for the ring", name,
                    Integer.toHexString(regs.read(R + Medusa.REG_STATUS)));
            }
        }
        completedAtTick = txCompleted;
        pendingAtTick = txQueued != txCompleted;
        watchdog.armAfter(watchdogNanos);
    }

    /**
     * Brings a card that lost its state back to what the driver had (see the class comment). Sending and receiving
     * thread; allocation-free.
     */
    private void reinitialise() {
        stats.increment(CARD_RESETS);
        counters.recordCardReset();
        resetAndAddress();
        int pending = 0;
        for (int n = 0; n < BUFFERS; n++) {
            byte s = (byte) STATE.getAcquire(state, n);
            if (s == S_CARD_FREE) {
                regs.writeRelease(REG_FREE_FIFO, n);
                stats.increment(FREE_PUSHES);
            } else if (s == S_CARD_TX || s == S_FORWARD) {
                // insertion by queueing order: at most 128 entries, once per reset
                int k = pending++;
                while (k > 0 && txSequence[requeue[k - 1]] > txSequence[n]) {
                    requeue[k] = requeue[k - 1];
                    k--;
                }
                requeue[k] = n;
            }
        }
        for (int k = 0; k < pending; k++) {
            int n = requeue[k];
            MedusaBufStatus.len(window, statusEntry(n), txLength[n]); // the reset cleared the status table
            regs.writeRelease(REG_TX_FIFO, n);
        }
        stats.add(TX_REQUEUED, pending);
        enable();
        PortReadiness r = readiness;
        if (r != null) {
            r.onReady(PortReadiness.FRAME_ARRIVED | PortReadiness.TX_SPACE);
        }
    }

    // ============================================================================================= receive side

    @Override
    public int poll() {
        ensureOpen();
        if (deferredIsr != 0) {
            // what the readiness handler acknowledged since the last poll (several edges fold into one count)
            countAcknowledged((int) DEFERRED_ISR.getAndSet(this, 0));
        }
        for (;;) {
            int entry = regs.readAcquire(REG_RX_FIFO); // acquire: LEN, STAT and the frame are the card's writes
            if ((entry & Medusa.FIFO_VALID) == 0) {
                return NONE;
            }
            int n = entry & Medusa.FIFO_BUF_MASK;
            if ((byte) STATE.getAcquire(state, n) != S_CARD_FREE) {
                stats.increment(RX_BAD_FIFO_ENTRIES);
                continue;
            }
            long entryBase = statusEntry(n);
            int length = MedusaBufStatus.len(window, entryBase) & Medusa.LEN_MASK;
            int bits = (MedusaBufStatus.stat(window, entryBase) & Medusa.STAT_CODE_MASK) >>> Medusa.STAT_CODE_SHIFT;
            int fs = frameStatus(bits);
            if (length < MAC_HEADER || length > maxReceived) {
                // LEN is the card's word: a length past the buffer would send copyOut (PIO) into the next buffer, or
                // past buffer RAM into the registers, and would go up as a frame no ring carries.
                stats.increment(RX_BAD_LENGTHS);
                fs |= FrameStatus.LENGTH_ERROR;
                length = Math.min(length, maxReceived);
            }
            rxLength[n] = length;
            rxStatus[n] = fs;
            STATE.setRelease(state, n, S_HOST_RX);
            stats.increment(RX_FRAMES);
            stats.add(RX_BYTES, length);
            if (fs == FrameStatus.OK) {
                counters.recordRx(length); // PortCounters: good frames in rxFrames, errored ones in rxErrors only
            } else {
                counters.recordRxError();
            }
            return n;
        }
    }

    /**
     * Maps the STAT condition bits ({@code MEDUSA_STAT_*_BIT}: DONE, FCS_ERR, E, A, C, TRUNCATED) to
     * {@link FrameStatus}. A and C are informational; E (a station upstream saw an error) counts as a CRC error;
     * an entry without DONE was never completed by the card, a length error.
     */
    private int frameStatus(int bits) {
        int fs = FrameStatus.OK;
        if ((bits & Medusa.STAT_FCS_ERR_BIT) != 0) {
            stats.increment(RX_FCS_ERRORS);
            fs |= FrameStatus.CRC_ERROR;
        }
        if ((bits & Medusa.STAT_TRUNCATED_BIT) != 0) {
            stats.increment(RX_TRUNCATED);
            fs |= FrameStatus.TRUNCATED;
        }
        if ((bits & Medusa.STAT_E_BIT) != 0 && (bits & Medusa.STAT_FCS_ERR_BIT) == 0) {
            stats.increment(RX_OTHER_ERRORS);
            fs |= FrameStatus.CRC_ERROR;
        }
        if ((bits & Medusa.STAT_DONE_BIT) == 0) {
            stats.increment(RX_OTHER_ERRORS);
            fs |= FrameStatus.LENGTH_ERROR;
        }
        return fs;
    }

    @Override
    public int await(long timeout, TimeUnit unit) throws InterruptedException {
        try {
            return awaitOn(waits.nanoTime() + unit.toNanos(timeout));
        } finally {
            waits.end();
        }
    }

    /**
     * Puts every wait and timeout of this driver - {@link #await}, the reset wait - on {@code scheduler}'s clock
     * (issue 16): in virtual time a timeout is virtual nanoseconds, and between looks a wait runs {@code progress}
     * (one event of the world, e.g. the engine's {@code step}) instead of parking, so a virtual run never waits on
     * the wall clock. Without this, waits are wall-clock time. Setup-time, on the thread that runs the world; waits
     * must then be made from that thread, outside its events.
     *
     * @throws IllegalStateException when a clock is already set
     */
    public void timeOn(Scheduler scheduler, Runnable progress) {
        ensureOpen();
        waits.timeOn(scheduler, progress);
    }

    /** The clock of this driver's waits and timeouts. */
    public WaitClock clock() {
        return waits.clock();
    }


    private int awaitOn(long deadline) throws InterruptedException {
        rxWaitIdle.reset();
        for (;;) {
            int h = poll();
            if (h != NONE) {
                return h;
            }
            long remaining = deadline - waits.nanoTime();
            if (remaining <= 0) {
                return NONE;
            }
            if (waits.isVirtual()) {
                // The card moves only as the world runs: step it (up to the deadline's own event), never park.
                line.checkCard();
                waits.pause(rxWaitIdle, deadline);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            } else if (config.interruptMode() == MedusaConfig.InterruptMode.INTERRUPT) {
                // Acknowledge, look again, then sleep: a frame stored after the second look raises RX_READY and
                // the line again (the card pushes RX_FIFO before it sets ISR), so no wake-up is lost.
                acknowledge();
                h = poll();
                if (h != NONE) {
                    return h;
                }
                line.await(Math.min(remaining, 1_000_000L), TimeUnit.NANOSECONDS);
            } else {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                line.checkCard(); // polling waits without the line: ask whether the card still works
                rxWaitIdle.idle();
            }
        }
    }

    /** @return the whole frame buffer of a held received frame, in place in buffer RAM (no copy, no checksum) */
    @Override
    public MemorySegment rxBuffer(int handle) {
        expect(handle, S_HOST_RX, "a received frame held by the caller");
        return frames[handle];
    }

    @Override
    public int rxLength(int handle) {
        expect(handle, S_HOST_RX, "a received frame held by the caller");
        return rxLength[handle];
    }

    @Override
    public int rxStatus(int handle) {
        expect(handle, S_HOST_RX, "a received frame held by the caller");
        return rxStatus[handle];
    }

    /** @return the card's receive checksum (RXCK) of a held frame: the sum from RXCK_START to LEN */
    public int rxChecksum(int handle) {
        expect(handle, S_HOST_RX, "a received frame held by the caller");
        return MedusaBufStatus.rxck(window, statusEntry(handle)) & Medusa.RXCK_SUM_MASK;
    }

    /** @return the 48-bit source address of a held frame (read in place) */
    public long rxSource(int handle) {
        expect(handle, S_HOST_RX, "a received frame held by the caller");
        return address(frames[handle], Medusa.FRAME_SA_OFS);
    }

    /** @return the 48-bit destination address of a held frame (read in place) */
    public long rxDestination(int handle) {
        expect(handle, S_HOST_RX, "a received frame held by the caller");
        return address(frames[handle], Medusa.FRAME_DA_OFS);
    }

    private static long address(MemorySegment frame, long offset) {
        long a = 0;
        for (int i = 0; i < 6; i++) {
            a = (a << 8) | (frame.get(JAVA_BYTE, offset + i) & 0xFF);
        }
        return a;
    }

    /**
     * Copies part of a held received frame out of buffer RAM into host memory by PIO (the receive half of
     * single copy); the card's checksum unit sums the copied bytes.
     *
     * @param frameOffset first frame byte to copy (0 = FC)
     * @return the PIO checksum of the copied bytes (0..0xFFFF)
     * @throws IllegalArgumentException when the range is not inside the frame or the destination
     */
    public int copyOut(int handle, int frameOffset, MemorySegment dst, long dstOffset, int length) {
        expect(handle, S_HOST_RX, "a received frame held by the caller");
        int frameLength = rxLength[handle];
        if (frameOffset < 0 || length < 0 || frameOffset > frameLength - length) {
            throw new IllegalArgumentException(name + ": copy of [" + frameOffset + ", " + frameOffset + " + "
                + length + ") is outside the " + frameLength + "-byte frame in buffer " + handle);
        }
        checkRange("destination", dst, dstOffset, length);
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException(name + ": destination segment is read-only");
        }
        regs.write(REG_PIO_CKSUM, 0);
        pio.copyFromCard(handle * Medusa.BUF_SIZE + this.frameOffset + frameOffset, dst, dstOffset, length);
        stats.increment(RX_COPY_OUTS);
        stats.add(PIO_BYTES_OUT, length);
        return regs.read(REG_PIO_CKSUM) & Medusa.PIO_CKSUM_MASK;
    }

    /** Gives a received buffer back to the card: FREE_FIFO push, release (the host is done reading it). */
    @Override
    public void release(int handle) {
        expect(handle, S_HOST_RX, "a received frame held by the caller");
        STATE.setRelease(state, handle, S_CARD_FREE);
        regs.writeRelease(REG_FREE_FIFO, handle);
        stats.increment(FREE_PUSHES);
    }

    // ============================================================================================== interrupts

    /**
     * Reads ISR and writes the bits seen back (write-1-to-clear), counting RX_DROP_NOBUF and RING_CHANGE.
     *
     * @return the ISR bits that were set
     */
    public int acknowledge() {
        int isr = regs.read(REG_ISR);
        if (isr != 0) {
            regs.write(REG_ISR, isr);
            countAcknowledged(isr);
        }
        return isr;
    }

    /** Counts acknowledged ISR bits: the interrupt, RX_DROP_NOBUF (also a port rxDrop) and RING_CHANGE. */
    private void countAcknowledged(int isr) {
        stats.increment(INTERRUPTS);
        if ((isr & Medusa.INT_RX_DROP_NOBUF) != 0) {
            stats.increment(RX_NOBUF_EVENTS);
            counters.recordRxDrop();
        }
        if ((isr & Medusa.INT_RING_CHANGE) != 0) {
            stats.increment(RING_CHANGES);
        }
    }

    /**
     * Installs (or with {@code null} removes) a listener that runs on each interrupt in the card's thread (the
     * virtual-time scheduler thread in virtual mode), after the driver acknowledged ISR. The listener is then the
     * receiving thread; it may also send. Needs {@link MedusaConfig.InterruptMode#INTERRUPT}.
     */
    public void onInterrupt(MedusaInterruptListener l) {
        if (config.interruptMode() != MedusaConfig.InterruptMode.INTERRUPT) {
            throw new IllegalStateException(name + ": an interrupt listener needs InterruptMode.INTERRUPT; this"
                + " driver polls (IMR = 0)");
        }
        ensureOpen();
        if (l != null && readiness != null) {
            throw new IllegalStateException(name + ": a readiness listener owns the interrupt line; remove it first");
        }
        listener = l;
        line.handler(l == null ? null : lineHandler);
        if (l != null && line.isAsserted()) {
            lineHandler.onInterrupt(line); // an edge that came before the handler was installed
        }
    }

    /**
     * {@inheritDoc} Needs {@link MedusaConfig.InterruptMode#INTERRUPT} (a polling driver has no line: returns false);
     * see the class comment for what the handler does on the card's thread.
     */
    @Override
    public boolean readinessListener(PortReadiness l) {
        ensureOpen();
        if (config.interruptMode() != MedusaConfig.InterruptMode.INTERRUPT) {
            return false;
        }
        if (l != null && listener != null) {
            throw new IllegalStateException(name + ": an interrupt listener owns the interrupt line; remove it first");
        }
        readiness = l;
        line.handler(l == null ? null : readinessHandler);
        if (l != null && line.isAsserted()) {
            readinessHandler.onInterrupt(line); // an edge that came before the handler was installed
        }
        return true;
    }

    /** One readiness round on the card's thread: acknowledge ISR, leave the counting to the receiving thread. */
    private void serviceReadiness() {
        int isr = regs.read(REG_ISR);
        if (isr != 0) {
            regs.write(REG_ISR, isr);
            DEFERRED_ISR.getAndBitwiseOr(this, isr);
        }
        PortReadiness l = readiness;
        if (l != null && !closed) {
            l.onReady(((isr & READY_RX) != 0 ? PortReadiness.FRAME_ARRIVED : 0)
                | ((isr & READY_TX) != 0 ? PortReadiness.TX_SPACE : 0));
        }
    }

    /** One round of service for {@link NonReentrantInterruptHandler}: acknowledge ISR, then tell the listener. */
    private void serviceInterrupt() {
        MedusaInterruptListener l = listener;
        int isr = acknowledge();
        if (l != null && !closed) {
            l.onInterrupt(this, isr);
        }
    }

    // =================================================================================================== state

    /** @return who holds buffer {@code buffer} (0..127) */
    public MedusaBufferState ownership(int buffer) {
        checkBuffer(buffer);
        return MedusaBufferState.of((byte) STATE.getAcquire(state, buffer));
    }

    /** @return buffers currently in {@code s} */
    public int count(MedusaBufferState s) {
        int c = 0;
        for (int n = 0; n < BUFFERS; n++) {
            if ((byte) STATE.getAcquire(state, n) == (byte) s.ordinal()) {
                c++;
            }
        }
        return c;
    }

    /** @return transmit buffers in the driver's free pool (sending thread) */
    public int freeTransmitBuffers() {
        return freeTxTop;
    }

    /** @return the frame's first byte offset inside a buffer (FRAME_OFS: 3 or 0) */
    public int frameOffset() {
        return frameOffset;
    }

    public long stationAddress() {
        return stationAddress;
    }

    public MedusaConfig config() {
        return config;
    }

    public Card card() {
        return card;
    }

    public MedusaStatistics statistics() {
        return stats;
    }

    @Override
    public PortCounters counters() {
        return counters;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int maxFrameLength() {
        return maxFrame;
    }

    public boolean isClosed() {
        return closed;
    }

    /** Leaves the ring and stops the card (CTRL = frame offset only, IMR = 0). Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (watchdog != null) {
            watchdog.cancel();
        }
        listener = null;
        readiness = null;
        line.handler(null);
        try {
            regs.write(REG_IMR, 0);
            regs.write(REG_CTRL, config.frameOffset3() ? Medusa.CTRL_FRAME_OFS3 : 0);
        } catch (CardFailedException e) {
            LOG.warn("{}: closing on a failed card: {}", card.name(), e.getMessage()); // nothing left to stop
        }
        LOG.info("{}: closed; {}", card.name(), counters);
    }

    // ================================================================================================= helpers

    private static long statusEntry(int n) {
        return Medusa.BUF_STATUS_OFS + (long) n * Medusa.BUF_STATUS_ENTRY_SIZE;
    }

    /** Every port call starts here: a closed port, or a failed card (one volatile read), refuses before acting. */
    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
        line.checkCard();
    }

    /** Handles die with the port: after close none is claimed or held, so a late commit cannot reach the card. */
    private void expect(int handle, byte required, String what) {
        ensureOpen();
        if (handle < 0 || handle >= BUFFERS) {
            throw new IllegalStateException(name + ": handle " + handle + " is not a buffer number in [0, "
                + (BUFFERS - 1) + "], so not " + what);
        }
        byte s = (byte) STATE.getAcquire(state, handle);
        if (s != required) {
            throw new IllegalStateException(name + ": buffer " + handle + " is " + MedusaBufferState.of(s)
                + ", not " + what);
        }
    }

    private void checkBuffer(int handle) {
        if (handle < 0 || handle >= BUFFERS) {
            throw new IllegalArgumentException(name + ": handle " + handle + " is not a buffer number in [0, "
                + (BUFFERS - 1) + "]");
        }
    }

    private void checkAddress(long address) {
        if ((address & ~0xFFFF_FFFF_FFFFL) != 0) {
            throw new IllegalArgumentException(name + ": destination 0x" + Long.toHexString(address)
                + " does not fit 48 bits");
        }
    }

    private void checkRange(String what, MemorySegment seg, long offset, int length) {
        if (length < 0) {
            throw new IllegalArgumentException(name + ": " + what + " length " + length + " is negative");
        }
        if (length == 0) {
            return;
        }
        if (seg == null) {
            throw new IllegalArgumentException(name + ": " + what + " segment is null");
        }
        if (offset < 0 || offset > seg.byteSize() - length) {
            throw new IllegalArgumentException(name + ": " + what + " range [" + offset + ", " + offset + " + "
                + length + ") is outside its " + seg.byteSize() + "-byte segment");
        }
    }

    /** The park of a driver wait once its spins and yields are spent (every wait loop backs off: two shared cores). */
    private static final long WAIT_PARK_NANOS = 50_000L;

    /** @return e.g. {@code "02-00-00-00-00-01"} (allocates: setup and diagnostics only) */
    public static String formatAddress(long address) {
        StringBuilder sb = new StringBuilder(17);
        for (int i = 0; i < 6; i++) {
            if (i > 0) {
                sb.append('-');
            }
            int b = (int) (address >>> (40 - 8 * i)) & 0xFF;
            sb.append(Character.forDigit(b >>> 4, 16)).append(Character.forDigit(b & 15, 16));
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return name + " " + config;
    }
}
