package io.nicbridge.bridge.driver.tulip;

import static io.nicbridge.contract.Dec21140.*;

import io.nicbridge.bridge.driver.tulip.TulipConfig.InterruptMode;
import io.nicbridge.bridge.driver.tulip.TulipStatistics.Counter;
import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.memory.BufferPool;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import io.nicbridge.bridge.port.PortCounters;
import io.nicbridge.bridge.port.PortReadiness;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing.Direction;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing;
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
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A host driver for the DEC 21140 "Tulip", written against the card SPI only (registers, DMA space, interrupt line),
 * so it runs unchanged on the emulated card and on a native shim. It uses the chip the way Linux's tulip driver does.
 *
 * <h2>Bring-up ({@link #open})</h2>
 * <ol>
 *   <li>CSR0 := SWR, wait for the reset to finish, then the bus mode: PBL, CAL, DSL (Linux's fallback PBL 8 / CAL 1).</li>
 *   <li>Station address from the serial ROM, bit-banged through CSR9 ({@link TulipSerialRom}).</li>
 *   <li>One {@link CommSegment} for everything the chip reaches, registered once in the card's {@link DmaSpace}:
 *   <pre>
 *   comm segment (64-byte aligned pieces)
 *   +-----------+-----------+-------------+-------------------------+-----------------------+
 *   | RX ring   | TX ring   | setup frame | RX buffers              | TX buffers            |
 *   | n x (16+  | m x (16+  | 192 B       | n x rxBufferSize (1540) | m x 1514 (stride 1536)|
 *   |  4 DSL) B |  4 DSL) B |             |                         |                       |
 *   +-----------+-----------+-------------+-------------------------+-----------------------+
 *   </pre>
 *   Rings in ring mode with RER/TER on the last entry and the next descriptor's bus address also in word 3 but
 *   RCH/TCH clear (Linux style), or in chain mode; every RX descriptor owns one buffer.</li>
 *   <li>CSR3/CSR4 := ring bases; CSR5 := ack; CSR7 := Linux's valid sources (interrupt mode) or 0 (polling).</li>
 *   <li>Setup frame queued as the first TX descriptor (perfect filter: up to 14 multicast, broadcast, station; hash
 *   filter beyond); CSR6 := MBO | PS | HBD | SF (+ FD/PR/PM) | SR | ST; CSR1 and CSR2 poll demands.</li>
 * </ol>
 *
 * <h2>Frames ({@link FramePort})</h2>
 * Transmit: {@link #claim()} takes a free TX buffer in the comm segment (reclaiming finished descriptors first:
 * TDES0 errors are counted like Linux's), the caller fills it in place, {@link #commit} posts one descriptor (FS|LS,
 * IC as chosen below) whose OWN bit is written last with release, then rings CSR1 (release).
 * No free buffer or descriptor is back-pressure: {@link #NONE}; so is a claim beyond {@link #claimLimit()} (ring - 1)
 * buffers held at once, which keeps entry 0 of the ring a reset starts afresh for the setup frame. Receive:
 * {@link #poll()} reads RDES0 of the next descriptor with acquire; once the card has cleared OWN the frame is the
 * caller's, in place, until
 * {@link #release(int)} re-arms that descriptor (RDES1..3 then RDES0 := OWN with release). A frame passes when
 * {@code (RDES0 & }{@link io.nicbridge.contract.Dec21140#LINUX_RX_ACCEPT_MASK LINUX_RX_ACCEPT_MASK}{@code ) == }
 * {@link io.nicbridge.contract.Dec21140#LINUX_RX_ACCEPT_VALUE LINUX_RX_ACCEPT_VALUE}; its length is FL - 4 (the chip
 * stores and counts the FCS); a frame failing the test is still delivered, with {@link FrameStatus} error bits, and
 * counted. Handles are ring indices, so nothing allocates per frame. The driver's books, not the descriptors, say
 * who holds what: a chip that sets OWN on a descriptor the host holds (a chip only clears it) is counted as
 * {@link TulipStatistics.Counter#CARD_PROTOCOL_VIOLATIONS}, and {@link #release(int)} takes the descriptor back and
 * re-arms it; the host's call never fails for it.
 *
 * <h2>Transmit interrupts and reclaim: our choice, not quite Linux's</h2>
 * <ul>
 *   <li><b>IC.</b> Linux's {@code tulip_start_xmit} asks for TI when the frames outstanding before this one are half
 *   the ring, when they reach ring - 2 (it stops the queue there), and always on the last ring entry (IC|TER). This
 *   driver asks at half and from ring - 2 on ({@link #commit}: outstanding descriptors, setup and dummy included),
 *   and not on the last entry: the ring puts TER there itself, and a TI at the wrap tells a sender nothing that the
 *   TU at the end of every burst (the chip suspends on the next host-owned descriptor) does not. Under light load
 *   no frame carries IC at all and TU alone reports completions, as in Linux.</li>
 *   <li><b>Reclaim.</b> Linux reclaims in its interrupt handler, on TI, TU, TPS or GTE. This driver reclaims on the
 *   sending thread, in {@link #claim} (and {@link #transmitInFlight}), because the TX ring and buffers belong to
 *   the sender ({@link FramePort}'s threads) and the line's handler must not touch them: on TI/TU the handler
 *   only tells a readiness listener {@link PortReadiness#TX_SPACE}.</li>
 * </ul>
 * Both rest on one guarantee, which {@code TulipDriverConformanceTest} checks: a claim refused for lack of
 * descriptors is always followed by a TI (the frame at ring - 2 carries IC) or a TU, so a sender waiting for
 * TX_SPACE is always woken, and the claim after it succeeds.
 *
 * <h2>Readiness ({@link #readinessListener})</h2>
 * In {@link InterruptMode#INTERRUPT} the driver owns the line's edge handler: on each edge it reads CSR5, writes the
 * set sources back (so the line can rise again) and tells the {@link PortReadiness} listener RI/RU as
 * {@link PortReadiness#FRAME_ARRIVED} and TI/TU as {@link PortReadiness#TX_SPACE} (Linux's IC rule puts TI on the
 * descriptors at half and nearly full ring, so a refused claim is always followed by a TI or TU). The handler runs
 * on the card's thread and touches nothing of the receiving thread: RU and FBE, which Linux handles in the
 * interrupt, are handed over as bits ({@code deferredCsr5}, one atomic OR) and counted by the next {@link #poll()}.
 * A polling driver (CSR7 = 0) has no line to signal with: it returns false.
 *
 * <h2>Watchdog and card resets ({@link #watchdog})</h2>
 * A periodic timer on the driver's {@link Scheduler} (virtual or real time), as Linux's netdev watchdog
 * ({@code dev_watchdog} runs every {@code watchdog_timeo} while the interface is up and calls {@code tulip_tx_timeout}
 * after {@code TX_TIMEOUT}, 4 s) and tulip's media timer (which reads the chip's CSRs every tick) are. Each tick
 * looks at the chip through its registers only:
 * <ul>
 *   <li>the health check: CSR6 reads back without the SR/ST the driver wrote (CSR6 is read/write; a reset, CSR0.SWR
 *       or the bus's reset, returns it to its reset value with both processes stopped, and CSR5.RS/TS read
 *       stopped): the chip lost its state. Every tick makes it, whether or not anything is pending, so a node that
 *       only receives is found too (its receive process stays stopped after a reset, and its peers would retransmit
 *       to it for ever). A chip that runs always reads back the driver's SR/ST, so a healthy chip is never reset.
 *       The driver re-initialises it as {@link #open} did (SWR, bus mode, both rings, CSR3/4/5/7, a setup
 *       frame with the current filter, CSR6) and re-posts, in their order and behind the setup frame, every frame it
 *       had accepted that the chip had not handed back (one it handed back was sent: it is reclaimed, not sent
 *       again), each with the length {@link #commit} accepted (kept by the driver: TDES1 is within the chip's reach,
 *       and a length read back from it could send past the buffer): a reset loses frames the chip held, and the chip
 *       may have sent the last one before the reset without handing it back, so a peer can see it twice (the protocol
 *       above tolerates duplicates).
 *       Frames that do not fit the ring beside the setup frame wait in the driver and are posted, first, as
 *       descriptors come back ({@link #claim} refuses meanwhile, and a claim kept across the reset that commits
 *       meanwhile queues behind them), so no accepted frame is lost and wire order is commit order. Received frames the
 *       chip had handed back but the host had not polled yet go with the chip's list: counted as
 *       {@link TulipStatistics.Counter#RX_LOST_IN_RESET} and as port drops. The reset itself is counted as
 *       {@link TulipStatistics.Counter#CARD_RESETS}.</li>
 *   <li>the transmit check: the driver reclaims; a transmission that was pending at the previous tick, with no
 *       descriptor come back since, is a timeout with the chip running (Linux's {@code tulip_tx_timeout_complete}):
 *       a transmit poll demand, counted as {@link TulipStatistics.Counter#TX_TIMEOUTS}.</li>
 * </ul>
 * A reset is therefore found within one period of it, and a stuck transmission within two periods of its commit. The
 * watchdog's timer runs on the scheduler's thread, which must be the driver's sending and receiving thread (a
 * {@code NodeRunner}'s, or the one thread of a virtual-time world); a virtual world with a watchdog never runs idle
 * (run it until a condition or a time).
 *
 * <h2>Threads</h2>
 * The {@link FramePort} contract: one sending thread, one receiving thread. The TX ring and buffers belong to the
 * sender, the RX ring to the receiver. With an interrupt listener ({@link #onInterrupt}) the listener runs in the
 * card's thread and is then the driver's receiving (and usually sending) thread, as in an interrupt handler. A
 * readiness listener and an interrupt listener exclude each other (both are the line's one handler).
 */
public final class TulipDriver implements FramePort {
    private static final Logger LOG = LoggerFactory.getLogger(TulipDriver.class);

    /** Largest frame {@link #commit} takes: a maximum Ethernet frame without the FCS the chip appends. */
    public static final int MAX_FRAME = ETH_MAX_FRAME - ETH_FCS_LEN;
    /** Longest single wait on the line in {@link #await} while an interrupt listener may acknowledge edges first. */
    static final long LISTENER_WAIT_SLICE_NANOS = 1_000_000L;
    private static final int ALIGN = 64;

    private static final byte TX_FREE = 0;
    private static final byte TX_CLAIMED = 1;
    private static final byte TX_IN_FLIGHT = 2;
    /** txOwner entries for descriptors that carry no TX buffer. */
    private static final int DESC_UNUSED = -1;
    private static final int DESC_SETUP = -2;
    private static final int DESC_DUMMY = -3;

    private static final byte RX_CARD = 0;
    private static final byte RX_HELD = 1;

    private static final int FS_LS = RDES0_FS | RDES0_LS;
    /** The FL bits Linux's accept test rejects (29:27, 0x38000000): a length no 2047-byte buffer holds. */
    private static final int RDES0_LENGTH_BITS = LINUX_RX_ACCEPT_MASK & RDES0_FL_MASK;

    private final String name;
    private final Card card;
    private final Registers regs;
    private final DmaSpace dma;
    private final InterruptLine line;
    private final TulipConfig config;
    private final MacAddress station;
    private final int romAddressBits;
    private final byte[] rom;
    private final PortCounters counters = new PortCounters();
    private final TulipStatistics stats = new TulipStatistics();

    private final CommSegment comm;
    private final long commBus;
    private final Dec21140DescriptorRing rxRing;
    private final Dec21140DescriptorRing txRing;
    private final MemorySegment setupFrame;
    private final long setupBus;

    // ---- receive side (receiving thread)
    private final int rxCount;
    private final int rxBufferSize;
    private final long[] rxBus;
    private final MemorySegment[] rxSlices;
    private final byte[] rxState;
    private final int[] rxLength;
    private final int[] rxStatus;
    private int rxNext;
    private int rxArmed;
    private boolean rxSuspended;
    /** The receiving thread's back-off while {@link #await} polls the ring: made once, so waiting allocates nothing. */
    private final IdleStrategy rxWaitIdle = BackoffIdle.cardWait(WAIT_PARK_NANOS);

    // ---- transmit side (sending thread)
    private final int txCount;
    private final long[] txBus;
    private final MemorySegment[] txSlices;
    private final byte[] txState;
    private final int[] txFree;
    private int txFreeTop;
    private int txClaimed;
    /** Open {@link #beginTransmitBurst} calls: while above 0, commits owe their CSR1 write to the burst's end. */
    private int transmitBurst;
    /**
     * How many buffers the host may hold claimed at once: one fewer than the ring. A claim reserves a descriptor for
     * its commit, and a card reset ({@link #reinitialise}) starts the ring afresh with those reservations kept and
     * the setup frame, which the chip needs before it filters anything, at entry 0 (no dummy there: the erratum is
     * about a setup frame behind a frame). With every descriptor reserved there would be no entry for it, and the
     * watchdog's tick could neither program the chip nor refuse: so claims never reserve the last descriptor. This
     * is Linux's slack (tulip_start_xmit stops the queue short of a full ring, "leave room for set_rx_mode()")
     * placed where it costs nothing: it limits only buffers held unposted; the ring still carries txCount frames in
     * flight, one claim and commit at a time. The hot path pays one int compare.
     */
    private final int claimLimit;
    private final int[] txOwner;
    /**
     * The length {@link #commit} accepted for each transmit buffer, by buffer: what a re-post after a reset sends.
     * Kept here because every descriptor word is within the card's reach (a broken or hostile chip may rewrite
     * TDES1), and a length read back from it could make the chip read past the buffer.
     */
    private final int[] txLength;
    private int txNext;
    /** Commits per transmit poll demand ({@link #transmitDemandBatch}); 1: every commit rings CSR1. */
    private int demandBatch = 1;
    private long transmitDemands;
    /** Commits whose descriptors are the chip's but that no CSR1 write has announced yet. Sending thread. */
    private int undemanded;
    private volatile int setupPending = -1;

    private int csr6;
    private volatile boolean closed;
    /** The multicast list of the last setup frame, re-sent when the chip is re-initialised after a reset. */
    private List<MacAddress> multicast;

    // ---- watchdog (the scheduler's thread = the sending and receiving thread)
    private Timer watchdog;
    private long watchdogNanos;
    /** Every wait and timeout, on the driver's clock ({@link #timeOn}; the wall clock until then). */
    private final DriverWaits waits;
    /** At the last tick: descriptors reclaimed so far, and whether a transmission was pending. */
    private long reclaimedAtTick;
    private boolean pendingAtTick;
    /**
     * Frames to re-post after a reset, oldest first: a circular queue of {@code requeueCount} buffers from
     * {@code requeueHead}. Those that did not fit the ring beside the setup frame wait here until descriptors come
     * back, and so does every frame committed while any waits (a claim kept across the reset), behind them: wire order
     * is commit order. Each buffer is in it at most once, so txCount entries hold them all; made once, so recovery
     * allocates nothing.
     */
    private final int[] requeue;
    private int requeueHead;
    private int requeueCount;

    // ---- interrupt listener (runs in the card's thread)
    private final InterruptHandler lineHandler = new NonReentrantInterruptHandler(this::serviceInterrupt);
    private volatile TulipInterruptListener listener;

    // ---- readiness listener (runs in the card's thread; hands CSR5 bits to the receiving thread)
    private static final VarHandle DEFERRED_CSR5;
    private static final int READY_RX = CSR5_RI | CSR5_RU;
    private static final int READY_TX = CSR5_TI | CSR5_TU;

    static {
        try {
            DEFERRED_CSR5 = MethodHandles.lookup().findVarHandle(TulipDriver.class, "deferredCsr5", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final InterruptHandler readinessHandler = new NonReentrantInterruptHandler(this::serviceReadiness);
    private volatile PortReadiness readiness;
    /** CSR5 sources the readiness handler acknowledged, for the receiving thread to count (RU, FBE, interrupts). */
    private volatile int deferredCsr5;

    /** Called on each interrupt (low-to-high edge of the card's line), after the driver acknowledged CSR5. */
    @FunctionalInterface
    public interface TulipInterruptListener {
        /**
         * @param driver the driver whose card interrupted
         * @param csr5   CSR5 as read before the acknowledgement (sources, RS, TS, EB)
         */
        void onInterrupt(TulipDriver driver, int csr5);
    }

    private TulipDriver(Card card, TulipConfig config) {
        this.card = card;
        this.config = config;
        this.name = "tulip(" + card.name() + ")";
        this.waits = new DriverWaits(name);
        this.regs = card.registers();
        this.dma = card.dma();
        this.line = card.interrupt();

        resetChip();
        this.romAddressBits = TulipSerialRom.probeAddressBits(regs);
        this.rom = TulipSerialRom.read(regs, romAddressBits, TulipSerialRom.READ_WORDS);
        this.station = TulipSerialRom.stationAddress(rom);
        if (!station.isValidStation()) {
            throw new IllegalStateException(card.name() + ": the serial ROM holds no usable station address (read "
                + station + " at byte " + TulipSerialRom.macOffset(rom) + "); is the ROM programmed?");
        }

        this.rxCount = config.rxRingSize();
        this.txCount = config.txRingSize();
        this.rxBufferSize = config.rxBufferSize();
        int stride = Dec21140DescriptorRing.stride(config.skipLongwords());
        long rxRingBytes = (long) rxCount * stride;
        long txRingBytes = (long) txCount * stride;
        long txStride = (MAX_FRAME + ALIGN - 1) & -ALIGN;
        long rxStride = ((long) rxBufferSize + ALIGN - 1) & -ALIGN;
        long bytes = rxRingBytes + txRingBytes + SETUP_FRAME_SIZE + rxStride * rxCount + txStride * txCount + 5L * ALIGN;
        this.comm = CommSegment.allocate(name + " comm", bytes);
        try {
            MemorySegment rxRingMemory = comm.carve(rxRingBytes, ALIGN);
            MemorySegment txRingMemory = comm.carve(txRingBytes, ALIGN);
            this.setupFrame = comm.carve(SETUP_FRAME_SIZE, ALIGN);
            BufferPool rxPool = comm.carvePool(name + " rx", rxCount, rxBufferSize, ALIGN);
            BufferPool txPool = comm.carvePool(name + " tx", txCount, MAX_FRAME, ALIGN);

            // One registration for everything the chip may reach; a DMA outside it is a bus error (CSR5 FBE).
            this.commBus = dma.register(name + " comm", comm.segment());
            this.rxRing = new Dec21140DescriptorRing(rxRingMemory, dma.busAddress(rxRingMemory), rxCount,
                config.skipLongwords(), Direction.RECEIVE, config.listMode());
            this.txRing = new Dec21140DescriptorRing(txRingMemory, dma.busAddress(txRingMemory), txCount,
                config.skipLongwords(), Direction.TRANSMIT, config.listMode());
            this.setupBus = dma.busAddress(setupFrame);

            this.rxBus = new long[rxCount];
            this.rxSlices = new MemorySegment[rxCount];
            this.rxState = new byte[rxCount];
            this.rxLength = new int[rxCount];
            this.rxStatus = new int[rxCount];
            for (int i = 0; i < rxCount; i++) {
                rxSlices[i] = rxPool.buffer(i);
                rxBus[i] = dma.busAddress(rxSlices[i]);
            }
            this.txBus = new long[txCount];
            this.txSlices = new MemorySegment[txCount];
            this.txState = new byte[txCount];
            this.txFree = new int[txCount];
            this.txOwner = new int[txCount];
            this.txLength = new int[txCount];
            for (int i = 0; i < txCount; i++) {
                txSlices[i] = txPool.buffer(i);
                txBus[i] = dma.busAddress(txSlices[i]);
                txFree[i] = txCount - 1 - i; // stack: buffer 0 on top
                txOwner[i] = DESC_UNUSED;
            }
            this.txFreeTop = txCount;
            this.claimLimit = txCount - 1; // TulipConfig.MIN_TX_RING (3) leaves the host two
            this.requeue = new int[txCount];
        } catch (RuntimeException e) {
            comm.close();
            throw e;
        }
        start();
    }

    /**
     * Resets the chip, reads its station address and starts it (see the class comment).
     *
     * @throws IllegalStateException when the chip does not leave reset or its ROM has no usable address
     */
    public static TulipDriver open(Card card, TulipConfig config) {
        Objects.requireNonNull(card, "card");
        Objects.requireNonNull(config, "config");
        return new TulipDriver(card, config);
    }

    /** {@link #open(Card, TulipConfig)} with {@link TulipConfig#defaults()}. */
    public static TulipDriver open(Card card) {
        return open(card, TulipConfig.defaults());
    }

    // ------------------------------------------------------------------ bring-up

    private void resetChip() {
        regs.write(CSR0, CSR0_SWR);
        long deadline = waits.nanoTime() + config.resetTimeoutNanos();
        IdleStrategy idle = BackoffIdle.cardWait(WAIT_PARK_NANOS); // bring-up: allocating here is fine
        try {
            while ((regs.read(CSR0) & CSR0_SWR) != 0) {
                if (waits.expired(deadline)) {
                    throw new IllegalStateException(card.name() + ": CSR0.SWR still set " + config.resetTimeoutNanos()
                        + " ns after a software reset; the chip did not come out of reset");
                }
                waits.pause(idle, deadline);
            }
        } finally {
            waits.end(); // also when it throws: a deadline event left armed would stand in for the next wait's
        }
        int busMode = config.burstLength() << CSR0_PBL_SHIFT & CSR0_PBL_MASK
            | config.cacheAlignment() << CSR0_CAL_SHIFT & CSR0_CAL_MASK
            | config.skipLongwords() << CSR0_DSL_SHIFT & CSR0_DSL_MASK;
        regs.write(CSR0, busMode);
    }

    private void start() {
        for (int i = 0; i < rxCount; i++) {
            rxRing.arm(i, rxBus[i], rxBufferSize); // handoff: RDES1..3, then RDES0 := OWN with release
            rxState[i] = RX_CARD;
        }
        rxArmed = rxCount;
        multicast = config.multicast();
        csr6 = CSR6_MBO | CSR6_PS | CSR6_HBD | CSR6_SF
            | (config.fullDuplex() ? CSR6_FD : 0)
            | (config.promiscuous() ? CSR6_PR | CSR6_PM : 0)
            | (config.allMulticast() ? CSR6_PM : 0);
        programChip();
        regs.writeRelease(CSR1, 0); // transmit poll demand: the setup frame
        regs.writeRelease(CSR2, 0); // receive poll demand: the armed ring
        LOG.info("{}: station {} (SROM {} address bits, MAC at byte {}), {}, comm segment {} bytes at bus 0x{}",
            name, station, romAddressBits, TulipSerialRom.macOffset(rom), config, comm.capacity(),
            Long.toHexString(commBus));
    }

    /**
     * Steps 4 and 5 of bring-up on a chip fresh out of reset, with the receive ring already armed and the transmit
     * ring empty: list bases, interrupts, the setup frame of {@link #multicast} at entry 0, and CSR6 := {@link #csr6}
     * with SR|ST. The poll demands are the caller's.
     */
    private void programChip() {
        regs.write(CSR3, (int) rxRing.busBase()); // list bases: written while both processes are stopped
        regs.write(CSR4, (int) txRing.busBase());
        boolean interrupts = config.interruptMode() == InterruptMode.INTERRUPT;
        regs.write(CSR5, LINUX_VALID_INTRS);     // clear anything left from before the reset
        regs.write(CSR7, interrupts ? LINUX_VALID_INTRS : 0);
        if (!queueSetupFrame(multicast)) {
            // Cannot happen: the ring is empty, nothing is pending, and claims reserve at most claimLimit entries.
            throw new IllegalStateException(name + ": a fresh TX ring of " + txCount + " entries with " + txClaimed
                + " claimed buffers has no room for a setup frame (claim limit " + claimLimit + ")");
        }
        csr6 |= CSR6_SR | CSR6_ST;
        regs.write(CSR6, csr6);
    }

    /**
     * Queues a setup frame for {@code multicast} (perfect filtering up to 14 addresses, hash filtering beyond),
     * preceded by Linux's dummy descriptor when it would not sit at ring entry 0. Sending thread.
     *
     * @return false when the previous setup frame is still being processed or the TX ring has no room (try again)
     */
    private boolean queueSetupFrame(List<MacAddress> multicast) {
        reclaimTransmit();
        int needed = txNext == 0 ? 1 : 2;
        if (setupPending >= 0 || txRing.freeDescriptors() - txClaimed < needed) {
            return false;
        }
        boolean perfect = TulipSetupFrame.fitsPerfect(multicast.size());
        if (perfect) {
            TulipSetupFrame.writePerfect(setupFrame, 0, station, multicast);
        } else {
            TulipSetupFrame.writeHash(setupFrame, 0, station, multicast);
        }
        int dummy = -1;
        if (txNext != 0) {
            // The chip erratum Linux works around: a setup frame must not follow a frame directly unless at entry 0.
            // The dummy (length 0, no FS/LS) is staged host-owned and handed over only after the setup descriptor,
            // so a polling chip never runs from the dummy into a half-written setup descriptor.
            dummy = txRing.stageTransmit(0, 0, 0);
            txOwner[dummy] = DESC_DUMMY;
            txNext = next(dummy, txCount);
        }
        int control = TDES1_SET | (perfect ? TDES1_FT_PERFECT : TDES1_FT_HASH);
        int setup = txRing.stageTransmit(setupBus, SETUP_FRAME_SIZE, control);
        txOwner[setup] = DESC_SETUP;
        txNext = next(setup, txCount);
        setupPending = setup;
        txRing.handOver(setup); // handoff: TDES1..3 and the frame bytes before OWN (release)
        if (dummy >= 0) {
            txRing.handOver(dummy);
        }
        return true;
    }

    // ------------------------------------------------------------------ filter, at run time

    /**
     * Loads a new multicast list (and the PR/PM bits) while running, the way Linux's set_rx_mode does. Sending
     * thread.
     *
     * @return false when a previous setup frame is still in flight or the TX ring is full: try again later
     */
    public boolean setReceiveFilter(List<MacAddress> multicast, boolean promiscuous, boolean allMulticast) {
        Objects.requireNonNull(multicast, "multicast");
        for (MacAddress a : multicast) {
            if (!a.isMulticast()) {
                throw new IllegalArgumentException("multicast list entry " + a + " is not a group address");
            }
        }
        checkOpen();
        List<MacAddress> list = List.copyOf(multicast);
        if (!queueSetupFrame(list)) {
            return false;
        }
        this.multicast = list;
        int mode = csr6 & ~LINUX_CSR6_FILTER_CLEAR | (promiscuous ? CSR6_PR | CSR6_PM : 0)
            | (allMulticast ? CSR6_PM : 0);
        csr6 = mode;
        regs.write(CSR6, mode);
        regs.writeRelease(CSR1, 0);
        return true;
    }

    /** @return true once the chip has processed the most recent setup frame (its descriptor is host-owned again) */
    public boolean isFilterLoaded() {
        int d = setupPending;
        return d < 0 || txRing.isHostOwned(d);
    }

    /**
     * Waits, backing off, until {@link #isFilterLoaded()}: frames sent before the chip took the setup frame would be
     * filtered by the old (empty) filter.
     *
     * @param progress run between looks: the card's progress hook when it has no thread of its own (an inline shim
     *                 card works only on the threads that call into it), or {@code null}
     * @return false when the timeout passed first
     */
    public boolean awaitFilterLoaded(long timeoutNanos, Runnable progress) {
        long deadline = waits.nanoTime() + timeoutNanos;
        IdleStrategy idle = BackoffIdle.cardWait(WAIT_PARK_NANOS); // once per filter load
        try {
            while (!isFilterLoaded()) {
                if (waits.expired(deadline)) {
                    return false;
                }
                if (progress != null) {
                    progress.run();
                }
                line.checkCard(); // a wait on memory: a failed card throws here instead of running into the timeout
                waits.pause(idle, deadline);
            }
            return true;
        } finally {
            waits.end();
        }
    }

    /**
     * Puts every wait and timeout of this driver - {@link #await}, {@link #awaitFilterLoaded}, the stop and reset
     * waits - on {@code scheduler}'s clock (issue 16): in virtual time a timeout is virtual nanoseconds, and between
     * looks a wait runs {@code progress} (one event of the world, e.g. the engine's {@code step}) instead of parking,
     * so a virtual run never waits on the wall clock. Without this, waits are wall-clock time. Setup-time, on the
     * thread that runs the world; waits must then be made from that thread, outside its events.
     *
     * @throws IllegalStateException when a clock is already set
     */
    public void timeOn(Scheduler scheduler, Runnable progress) {
        checkOpen();
        waits.timeOn(scheduler, progress);
    }

    /** The clock of this driver's waits and timeouts. */
    public WaitClock clock() {
        return waits.clock();
    }


    // ------------------------------------------------------------------ transmit

    /**
     * {@inheritDoc} Refused ({@link #NONE}, counted as back-pressure) while frames wait to be re-posted after a
     * reset, when no buffer or descriptor is free (a TI or TU follows: see the class comment), and when the host
     * already holds {@link #claimLimit()} claims (nothing from the chip follows: commit or abort one).
     */
    @Override
    public int claim() {
        checkOpen();
        reclaimTransmit();
        if (requeueCount > 0 || txClaimed == claimLimit || txFreeTop == 0
            || txRing.freeDescriptors() - txClaimed < 1) {
            flush(); // a batch waiting for its demand would otherwise hold the ring for ever
            counters.recordTxBackPressure();
            return NONE;
        }
        int b = txFree[--txFreeTop];
        txState[b] = TX_CLAIMED;
        txClaimed++;
        return b;
    }

    @Override
    public MemorySegment txBuffer(int handle) {
        checkClaimed(handle);
        return txSlices[handle];
    }

    @Override
    public void commit(int handle, int length) {
        checkClaimed(handle);
        if (length < 1 || length > MAX_FRAME) {
            throw new IllegalArgumentException(name + ": frame length must be 1.." + MAX_FRAME
                + " bytes (the chip appends the FCS and pads to 64), was " + length);
        }
        if (requeueCount > 0) {
            commitBehindRequeued(handle, length);
            return;
        }
        // TI at half ring and from ring - 2 on, not per frame and not at the wrap (see "Transmit interrupts and
        // reclaim" above for how this differs from Linux).
        int queued = txRing.inFlight();
        int half = txCount / 2;
        int flags = queued == half || queued >= txCount - 2 ? TDES1_IC : 0;
        // Handoff: TDES1..3 first, TDES0 := OWN last with release (inside transmit); the ring slot is reserved by
        // claim(), so this cannot be refused.
        int d = txRing.transmit(txBus[handle], length, 0, 0, flags);
        txOwner[d] = handle;
        txLength[handle] = length;
        txNext = next(d, txCount);
        txState[handle] = TX_IN_FLIGHT;
        txClaimed--;
        counters.recordTx(length);
        transmitPollDemand(); // after the descriptor is the card's
    }

    /*
     * The transmit poll demand (CSR1) after a commit. One demand is enough for many frames: the 21140's transmit
     * process walks the list until a descriptor the host owns (docs/hardware-facts.md A.7), so frames posted before
     * one write go out in one pass - and on the native shim's AF_XDP backend that pass ends in one kernel kick for
     * all of them, where a demand per commit costs a system call per frame. The driver may therefore owe the demand
     * (undemanded commits) in two ways, one state for both: inside a burst (beginTransmitBurst .. endTransmitBurst,
     * the deferred tail write of Linux's xmit_more, used by a sender that knows its frames), and per batch of
     * commits (transmitDemandBatch, for a stream that does not). A burst's end, flush() and a refused claim ring it
     * for whatever is owed, so no frame waits for a batch to fill.
     */
    private void transmitPollDemand() {
        if (++undemanded >= demandBatch && transmitBurst == 0) {
            demandTransmit();
        }
    }

    /**
     * Opens a transmit burst: the frames {@link #commit committed} until the matching {@link #endTransmitBurst()} are
     * posted at once (each descriptor the chip's), and CSR1 is written once, at the end, instead of per frame - the
     * deferred tail write of Linux's {@code xmit_more}. Bursts nest. Sending thread; allocation-free.
     */
    public void beginTransmitBurst() {
        checkOpen();
        transmitBurst++;
    }

    /**
     * Closes a transmit burst; the outermost close writes CSR1 once if a frame was committed in the burst (or is
     * still owed to a {@linkplain #transmitDemandBatch batch}).
     *
     * @throws IllegalStateException without a matching {@link #beginTransmitBurst()}
     */
    public void endTransmitBurst() {
        if (transmitBurst == 0) {
            throw new IllegalStateException(name + ": endTransmitBurst without beginTransmitBurst");
        }
        if (--transmitBurst == 0 && undemanded != 0 && !closed) {
            demandTransmit();
        }
    }

    /**
     * Rings the transmit poll demand (CSR1) once per {@code commits} commits instead of after every one, for a sender
     * that streams frames without marking bursts. Nothing waits for a batch to fill while the sender waits: a claim
     * refused for lack of buffers or descriptors rings the demand first, and a sender that stops committing calls
     * {@link #flush()}. Sending thread.
     *
     * @param commits 1 (the default: every commit rings CSR1) up to the TX ring's size
     * @throws IllegalArgumentException outside that range
     */
    public void transmitDemandBatch(int commits) {
        checkOpen();
        if (commits < 1 || commits > txCount) {
            throw new IllegalArgumentException(name + ": commits per transmit poll demand must be 1.." + txCount
                + " (the TX ring), was " + commits);
        }
        demandBatch = commits;
        flush();
    }

    /** Rings the transmit poll demand for every commit still owed one (a batch not full, an open burst's). */
    @Override
    public void flush() {
        checkOpen();
        if (undemanded != 0) {
            demandTransmit();
        }
    }

    /** Transmit poll demands rung so far (CSR1 writes for commits; the setup frame's and a reset's not counted). */
    public long transmitDemands() {
        return transmitDemands;
    }

    private void demandTransmit() {
        undemanded = 0;
        transmitDemands++;
        regs.writeRelease(CSR1, 0);
    }

    /**
     * A claim kept across a reset, committed while frames re-posted after it still wait: its reserved descriptor
     * would put it on the wire ahead of them, so it joins the re-post queue behind them instead, and what fits now
     * (with the descriptor it no longer reserves) is posted, oldest first.
     */
    private void commitBehindRequeued(int handle, int length) {
        txLength[handle] = length;
        txState[handle] = TX_IN_FLIGHT;
        txClaimed--;
        counters.recordTx(length);
        int tail = requeueHead + requeueCount;
        requeue[tail >= txCount ? tail - txCount : tail] = handle;
        requeueCount++;
        postRequeued();
        transmitPollDemand();
    }

    @Override
    public void abort(int handle) {
        checkClaimed(handle);
        txState[handle] = TX_FREE;
        txFree[txFreeTop++] = handle;
        txClaimed--;
    }

    /**
     * Takes back every descriptor the chip has finished with, counting TDES0 errors like Linux, then posts frames
     * waiting since a reset. Sending thread.
     */
    private void reclaimTransmit() {
        reclaimHandedBack();
        if (requeueCount > 0) {
            postRequeued();
        }
    }

    /** Takes back, oldest first, the descriptors the chip has handed back (OWN clear): their frames were sent. */
    private void reclaimHandedBack() {
        int d;
        while ((d = txRing.reclaim()) >= 0) { // acquire on TDES0: the status and buffer are the host's again
            int owner = txOwner[d];
            txOwner[d] = DESC_UNUSED;
            if (owner >= 0) {
                accountTransmit(txRing.status(d));
                txState[owner] = TX_FREE;
                txFree[txFreeTop++] = owner;
            } else if (owner == DESC_SETUP) {
                stats.increment(Counter.SETUP_FRAMES);
                if (setupPending == d) {
                    setupPending = -1;
                }
            }
        }
    }

    /**
     * Posts frames waiting since a reset, oldest first, into descriptors no claimed buffer has reserved. While any
     * waits, {@link #claim} refuses and {@link #commit} of a claim kept across the reset queues behind them, so a
     * frame committed later never overtakes them.
     */
    private void postRequeued() {
        while (requeueCount > 0 && txRing.freeDescriptors() - txClaimed > 0) {
            int b = requeue[requeueHead];
            requeueHead = next(requeueHead, txCount);
            requeueCount--;
            int flags = requeueCount == 0 ? TDES1_IC : 0; // a TI once the last one is out
            int d = txRing.transmit(txBus[b], txLength[b], 0, 0, flags); // the committed length, never TDES1
            txOwner[d] = b;
            txNext = next(d, txCount);
        }
    }

    private void accountTransmit(int tdes0) {
        if ((tdes0 & TDES0_ES) != 0) {
            stats.increment(Counter.TX_ERRORS);
            counters.recordTxError();
            if ((tdes0 & LINUX_TDES0_ABORTED) != 0) {
                stats.increment(Counter.TX_ABORTED);
            }
            if ((tdes0 & TDES0_EC) != 0) { // inside Linux's aborted count; apart here to see a busy hub
                stats.increment(Counter.TX_EXCESSIVE_COLLISIONS);
            }
            if ((tdes0 & LINUX_TDES0_CARRIER) != 0) {
                stats.increment(Counter.TX_CARRIER);
            }
            if ((tdes0 & LINUX_TDES0_WINDOW) != 0) {
                stats.increment(Counter.TX_WINDOW);
            }
            if ((tdes0 & LINUX_TDES0_FIFO) != 0) {
                stats.increment(Counter.TX_FIFO);
            }
            if ((tdes0 & LINUX_TDES0_HEARTBEAT) != 0 && !config.fullDuplex()) {
                stats.increment(Counter.TX_HEARTBEAT);
            }
        } else {
            stats.add(Counter.TX_COLLISIONS, (tdes0 & TDES0_CC_MASK) >>> TDES0_CC_SHIFT);
        }
    }

    /**
     * Transmit buffers the host may hold claimed at once: the ring size less the one descriptor kept for the setup
     * frame of a card reset (see {@code claimLimit}). Frames in flight are not limited by it.
     */
    public int claimLimit() {
        return claimLimit;
    }

    /** Frames committed and not yet reclaimed, plus setup and dummy descriptors. Sending thread. */
    public int transmitInFlight() {
        reclaimTransmit();
        return txRing.inFlight() + requeueCount;
    }

    // ------------------------------------------------------------------ receive

    @Override
    public int poll() {
        checkOpen();
        if (deferredCsr5 != 0) {
            // what the readiness handler acknowledged since the last poll (several edges fold into one count)
            countAcknowledged((int) DEFERRED_CSR5.getAndSet(this, 0));
        }
        for (;;) {
            int i = rxNext;
            if (rxState[i] != RX_CARD) {
                return NONE; // the application still holds it, so the chip stops here too
            }
            int status = rxRing.status(i); // acquire: pairs with the card's release of RDES0
            if ((status & RDES0_OWN) != 0) {
                return NONE;
            }
            rxNext = next(i, rxCount);
            rxArmed--;
            if (rxRing.isHostOwned(rxNext) && rxState[rxNext] == RX_CARD) {
                checkReceiveSuspended(); // the next one is complete too: a backlog, the chip may have run out
            }
            if ((status & FS_LS) != FS_LS) {
                // Part of a frame spread over several buffers (longer than a buffer): Linux drops it as a length
                // error. Give the descriptor straight back and look at the next one.
                stats.increment(Counter.RX_ERRORS);
                stats.increment(Counter.RX_LENGTH_ERRORS);
                counters.recordRxError();
                rxState[i] = RX_HELD;
                rearm(i);
                continue;
            }
            int length = Math.max(0, Dec21140DescriptorRing.frameLength(status) - ETH_FCS_LEN);
            int frameStatus = FrameStatus.OK;
            if (!Dec21140DescriptorRing.isGoodReceive(status) || length > ETH_MAX_FRAME) {
                frameStatus = receiveErrors(status, length);
            }
            if (length > rxBufferSize) {
                length = rxBufferSize;
                frameStatus |= FrameStatus.TRUNCATED;
            }
            if (frameStatus == FrameStatus.OK) {
                counters.recordRx(length);
            } else {
                counters.recordRxError();
            }
            rxState[i] = RX_HELD;
            rxLength[i] = length;
            rxStatus[i] = frameStatus;
            return i;
        }
    }

    /** Maps a failed RDES0 to {@link FrameStatus} bits and counts it the way Linux's tulip_rx does. */
    private int receiveErrors(int rdes0, int length) {
        stats.increment(Counter.RX_ERRORS);
        int fs = 0;
        if ((rdes0 & (RDES0_RF | RDES0_TL | RDES0_LENGTH_BITS)) != 0 || length > ETH_MAX_FRAME) {
            stats.increment(Counter.RX_LENGTH_ERRORS);
            fs |= FrameStatus.LENGTH_ERROR;
        }
        if ((rdes0 & RDES0_CE) != 0) {
            stats.increment(Counter.RX_CRC_ERRORS);
            fs |= FrameStatus.CRC_ERROR;
        }
        if ((rdes0 & RDES0_DB) != 0) {
            stats.increment(Counter.RX_FRAME_ERRORS);
        }
        if ((rdes0 & RDES0_OF) != 0) {
            stats.increment(Counter.RX_FIFO_ERRORS);
            fs |= FrameStatus.OVERRUN;
        }
        if ((rdes0 & RDES0_DE) != 0) {
            stats.increment(Counter.RX_TRUNCATED);
            fs |= FrameStatus.TRUNCATED;
        }
        if ((rdes0 & (RDES0_CS | RDES0_RW)) != 0) {
            stats.increment(Counter.RX_OTHER_ERRORS);
            fs |= (rdes0 & RDES0_RW) != 0 ? FrameStatus.LENGTH_ERROR : FrameStatus.CRC_ERROR;
        }
        return fs == 0 ? FrameStatus.LENGTH_ERROR : fs; // failed the accept test for a reason not named above
    }

    @Override
    public int await(long timeout, TimeUnit unit) throws InterruptedException {
        try {
            return awaitOn(waits.nanoTime() + unit.toNanos(timeout));
        } finally {
            waits.end();
        }
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
            } else if (config.interruptMode() == InterruptMode.INTERRUPT) {
                // Acknowledge first, then look at the ring again, then sleep: a frame completed after the second
                // look raises the line again (the card clears OWN before it sets RI), so no wake-up is lost.
                acknowledge();
                h = poll();
                if (h != NONE) {
                    return h;
                }
                // With an interrupt listener in another thread, it may acknowledge the edge first: wait in bounded
                // slices then. Otherwise this thread is the only one that acknowledges, and one wait for the whole
                // timeout is enough - and cheaper: in a VM, arming a short timer on every sleep costs microseconds.
                line.await(listener != null ? Math.min(remaining, LISTENER_WAIT_SLICE_NANOS) : remaining,
                    TimeUnit.NANOSECONDS);
            } else {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                line.checkCard(); // polling waits on memory, not on the line: ask whether the card still works
                rxWaitIdle.idle();
            }
        }
    }

    @Override
    public MemorySegment rxBuffer(int handle) {
        checkHeld(handle);
        return rxSlices[handle];
    }

    @Override
    public int rxLength(int handle) {
        checkHeld(handle);
        return rxLength[handle];
    }

    @Override
    public int rxStatus(int handle) {
        checkHeld(handle);
        return rxStatus[handle];
    }

    /** Raw RDES0 of a held receive descriptor, as the chip wrote it. */
    public int rxDescriptorStatus(int handle) {
        checkHeld(handle);
        return rxRing.status(handle);
    }

    @Override
    public void release(int handle) {
        checkHeld(handle);
        rearm(handle);
    }

    private void rearm(int i) {
        boolean starved = rxArmed == 0;
        if (!rxRing.isHostOwned(i)) {
            // The chip set OWN on a descriptor the host held (the driver's books say so: rxState): a chip may only
            // clear OWN. Count it, take the descriptor back and arm it as intended; the host's call goes on.
            stats.increment(Counter.CARD_PROTOCOL_VIOLATIONS);
            rxRing.takeBack(i);
        }
        rxRing.arm(i, rxBus[i], rxBufferSize); // handoff: RDES1..3, then RDES0 := OWN with release
        rxState[i] = RX_CARD;
        rxArmed++;
        if (starved || rxSuspended) {
            // The chip may be suspended (RU): count what it missed, then ask it to look at the ring again.
            rxSuspended = false;
            accountMissedFrames();
            stats.increment(Counter.RX_POLL_DEMANDS);
            regs.writeRelease(CSR2, 0);
        }
    }

    /** Reads CSR5 when a backlog suggests the chip ran out of descriptors; on RU counts CSR8 and acks RU. */
    private void checkReceiveSuspended() {
        int csr5 = regs.read(CSR5);
        if ((csr5 & CSR5_RU) != 0) {
            regs.write(CSR5, CSR5_RU);
            stats.increment(Counter.RX_SUSPENDS);
            rxSuspended = true;
            accountMissedFrames();
        }
    }

    /**
     * CSR8 is cleared by the read, so every missed frame is counted exactly once. With MFO set the 16-bit counter
     * saturated: the count is 0x10000, as Linux's {@code tulip_interrupt} adds ({@code missed & 0x10000 ? 0x10000 :
     * missed}), a lower bound of what was lost since the last read. Receiving thread.
     */
    private void accountMissedFrames() {
        int csr8 = regs.read(CSR8);
        int missed = (csr8 & CSR8_MFO) != 0 ? CSR8_MFC_MASK + 1 : (csr8 & CSR8_MFC_MASK) >>> CSR8_MFC_SHIFT;
        stats.add(Counter.RX_MISSED, missed);
        stats.add(Counter.RX_FIFO_OVERFLOWS, (csr8 & CSR8_FOC_MASK) >>> CSR8_FOC_SHIFT);
        for (int k = 0; k < missed; k++) {
            counters.recordRxDrop();
        }
    }

    /**
     * Reads CSR5 and acknowledges every source that is set ({@code CSR5 & }{@link
     * io.nicbridge.contract.Dec21140#LINUX_CSR5_ACK_MASK LINUX_CSR5_ACK_MASK}, as Linux does); counts RU (with CSR8)
     * and FBE. Receiving thread (or the interrupt listener's).
     *
     * @return CSR5 as read
     */
    public int acknowledge() {
        int csr5 = regs.read(CSR5);
        int sources = csr5 & LINUX_CSR5_ACK_MASK;
        if (sources == 0) {
            return csr5;
        }
        regs.write(CSR5, sources);
        countAcknowledged(csr5);
        return csr5;
    }

    /** Counts acknowledged CSR5 sources as Linux's interrupt handler does: RU with CSR8, FBE. Receiving thread. */
    private void countAcknowledged(int csr5) {
        stats.increment(Counter.INTERRUPTS);
        if ((csr5 & CSR5_RU) != 0) {
            stats.increment(Counter.RX_SUSPENDS);
            rxSuspended = true;
            accountMissedFrames();
        }
        if ((csr5 & CSR5_FBE) != 0) {
            stats.increment(Counter.BUS_ERRORS);
            LOG.error("{}: fatal bus error (CSR5 0x{}, EB {}): the chip stopped its DMA; {}", name,
                Integer.toHexString(csr5), (csr5 & CSR5_EB_MASK) >>> CSR5_EB_SHIFT, dma.describe(
                    dma.lastErrorAddress(), Math.max(1, dma.lastErrorLength())));
        }
    }

    /**
     * Installs (or with {@code null} removes) a listener that runs on each interrupt in the card's thread, after the
     * driver has acknowledged CSR5. The listener is then the receiving thread; it may also send. Needs
     * {@link InterruptMode#INTERRUPT}.
     */
    public void onInterrupt(TulipInterruptListener l) {
        if (config.interruptMode() != InterruptMode.INTERRUPT) {
            throw new IllegalStateException(name + ": an interrupt listener needs InterruptMode.INTERRUPT; this"
                + " driver polls (CSR7 = 0)");
        }
        checkOpen();
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
     * {@inheritDoc} Needs {@link InterruptMode#INTERRUPT} (a polling driver has no line: returns false); see the class
     * comment for what the handler does on the card's thread.
     */
    @Override
    public boolean readinessListener(PortReadiness l) {
        checkOpen();
        if (config.interruptMode() != InterruptMode.INTERRUPT) {
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

    /**
     * One round for the readiness handler, on the card's thread: acknowledge CSR5 so the line can rise again, leave
     * the counting to the receiving thread, tell the listener. Allocation-free.
     */
    private void serviceReadiness() {
        int csr5 = regs.read(CSR5);
        int sources = csr5 & LINUX_CSR5_ACK_MASK;
        if (sources != 0) {
            regs.write(CSR5, sources);
            DEFERRED_CSR5.getAndBitwiseOr(this, sources);
        }
        PortReadiness l = readiness;
        if (l != null && !closed) {
            l.onReady(((csr5 & READY_RX) != 0 ? PortReadiness.FRAME_ARRIVED : 0)
                | ((csr5 & READY_TX) != 0 ? PortReadiness.TX_SPACE : 0));
        }
    }

    /** One round of service for {@link NonReentrantInterruptHandler}: acknowledge CSR5, then tell the listener. */
    private void serviceInterrupt() {
        TulipInterruptListener l = listener;
        int csr5 = acknowledge();
        if (l != null && !closed) {
            l.onInterrupt(this, csr5);
        }
    }

    // ------------------------------------------------------------------ watchdog, card resets

    /** Linux's {@code TX_TIMEOUT} for tulip: 4 seconds. */
    public static final long LINUX_TX_TIMEOUT_NANOS = 4_000_000_000L;

    /**
     * Installs the periodic watchdog (see the class comment) on {@code scheduler}, whose thread must be the driver's
     * sending and receiving thread, and arms its first tick. Setup-time, once; the ticks allocate nothing.
     *
     * @param periodNanos the tick: a reset is found within one, a transmission pending for a whole one without any
     *                    descriptor coming back is a timeout ({@link #LINUX_TX_TIMEOUT_NANOS} in Linux; a simulation
     *                    chooses it from its wire times)
     * @throws IllegalArgumentException for a period that is not positive
     * @throws IllegalStateException    when a watchdog is already installed
     */
    public void watchdog(Scheduler scheduler, long periodNanos) {
        Objects.requireNonNull(scheduler, "scheduler");
        if (periodNanos <= 0) {
            throw new IllegalArgumentException("watchdog periodNanos must be > 0, was " + periodNanos);
        }
        checkOpen();
        if (watchdog != null) {
            throw new IllegalStateException(name + ": the watchdog is already installed");
        }
        watchdogNanos = periodNanos;
        watchdog = scheduler.newTimer(name + ".watchdog", this::watchdogTick);
        reclaimedAtTick = txRing.reclaimedDescriptors();
        pendingAtTick = txRing.inFlight() > 0;
        watchdog.armAfter(periodNanos);
    }

    /** The watchdog's period, or 0 when none is installed. */
    public long watchdogNanos() {
        return watchdog == null ? 0 : watchdogNanos;
    }

    private void watchdogTick() {
        if (closed || line.failure() != null) { // a failed card answers nothing: close() reports it
            return;
        }
        int mode = regs.read(CSR6);
        if ((mode & (CSR6_SR | CSR6_ST)) != (csr6 & (CSR6_SR | CSR6_ST))) {
            int csr5 = regs.read(CSR5);
            LOG.warn("{}: CSR6 0x{} (written 0x{}), CSR5 0x{} (RS {}, TS {}): the chip was reset; re-initialising it",
                name, Integer.toHexString(mode), Integer.toHexString(csr6), Integer.toHexString(csr5),
                (csr5 & CSR5_RS_MASK) >>> CSR5_RS_SHIFT, (csr5 & CSR5_TS_MASK) >>> CSR5_TS_SHIFT);
            reinitialise();
        } else {
            reclaimTransmit();
            if (pendingAtTick && txRing.inFlight() > 0 && txRing.reclaimedDescriptors() == reclaimedAtTick) {
                // tulip_tx_timeout_complete: the chip runs but the transmit process does not move; ask it to look again
                stats.increment(Counter.TX_TIMEOUTS);
                int csr5 = regs.read(CSR5);
                LOG.warn("{}: transmit timeout (CSR5 0x{}, TS {}); transmit poll demand", name,
                    Integer.toHexString(csr5), (csr5 & CSR5_TS_MASK) >>> CSR5_TS_SHIFT);
                regs.writeRelease(CSR1, 0);
            }
        }
        reclaimedAtTick = txRing.reclaimedDescriptors();
        pendingAtTick = txRing.inFlight() > 0;
        watchdog.armAfter(watchdogNanos);
    }

    /**
     * Brings a chip that lost its state back to what the driver had: reset it, forget both lists, re-arm every
     * receive descriptor the host does not hold, program it as {@link #open} did, and re-post the frames it had
     * not handed back, in their order, behind the setup frame. Runs on the sending and receiving thread.
     */
    private void reinitialise() {
        stats.increment(Counter.CARD_RESETS);
        counters.recordCardReset();
        // Transmit: what the chip handed back before it lost its state was sent (re-posting it would send it twice,
        // behind younger frames). The frames posted and not handed back are re-posted, oldest first (setup and dummy
        // descriptors are redone), ahead of those still waiting from an earlier reset: those are younger than every
        // frame in the ring (they wait because the ring was full, are posted oldest first as descriptors come back,
        // a commit while any waits joins them, and claim() refuses while any waits). So the ring's frames go in front
        // of the circular queue's head, newest first; each buffer is in at most one of the two, so they fit.
        reclaimHandedBack();
        int head = requeueHead;
        int frames = requeueCount;
        int posted = txRing.inFlight();
        int oldest = txNext - posted < 0 ? txNext - posted + txCount : txNext - posted;
        for (int k = posted - 1; k >= 0; k--) {
            int d = oldest + k >= txCount ? oldest + k - txCount : oldest + k;
            int owner = txOwner[d];
            txOwner[d] = DESC_UNUSED;
            if (owner >= 0) {
                head = head == 0 ? txCount - 1 : head - 1;
                requeue[head] = owner; // its length is txLength[owner]: TDES1 is the card's to scribble on
                frames++;
            }
        }
        // The books say nothing waits until the setup frame is queued: programChip() queues it through
        // reclaimTransmit(), which posts whatever waits. With the old head and count it would post the waiting frames
        // ahead of the setup frame and of the ring's older frames collected above, and the re-post below would post
        // them again: one buffer in two descriptors, and the next reset would collect more frames than there are
        // buffers.
        requeueHead = 0;
        requeueCount = 0;
        setupPending = -1;
        txRing.restart();
        txNext = 0;
        // Receive: frames the chip handed back that poll() has not taken are lost with the chip's list.
        long lost = 0;
        for (int i = 0; i < rxCount; i++) {
            if (rxState[i] == RX_CARD && rxRing.isHostOwned(i)) {
                lost++;
            }
        }
        resetChip();
        int armed = 0;
        for (int i = 0; i < rxCount; i++) {
            if (rxState[i] == RX_CARD) { // the ones the application holds are re-armed by release()
                rxRing.takeBack(i);
                rxRing.arm(i, rxBus[i], rxBufferSize);
                armed++;
            }
        }
        rxArmed = armed;
        rxNext = 0;
        rxSuspended = false;
        stats.add(Counter.RX_LOST_IN_RESET, lost);
        for (long k = 0; k < lost; k++) {
            counters.recordRxDrop();
        }
        programChip();
        // Re-post behind the setup frame; claimed buffers keep their reservation, the rest wait for descriptors.
        requeueHead = head;
        requeueCount = frames;
        postRequeued();
        regs.writeRelease(CSR1, 0);
        regs.writeRelease(CSR2, 0);
        PortReadiness r = readiness;
        if (r != null) {
            r.onReady(PortReadiness.FRAME_ARRIVED | PortReadiness.TX_SPACE);
        }
    }

    // ------------------------------------------------------------------ stop and close

    /**
     * Stops both DMA processes the way Linux does: clears SR|ST, then waits (bounded by the configured stop timeout)
     * until CSR5 RS and TS both read 0; then masks interrupts and counts CSR8.
     *
     * @return true when both processes reported stopped in time
     */
    public boolean stop() {
        csr6 &= ~(CSR6_SR | CSR6_ST);
        regs.write(CSR6, csr6);
        long deadline = waits.nanoTime() + config.stopTimeoutNanos();
        IdleStrategy idle = BackoffIdle.cardWait(WAIT_PARK_NANOS); // teardown: allocating here is fine
        boolean stopped;
        try {
            while (!(stopped = (regs.read(CSR5) & CSR5_RS_TS_MASK) == 0) && !waits.expired(deadline)) {
                waits.pause(idle, deadline);
            }
        } finally {
            waits.end();
        }
        regs.write(CSR7, 0);
        regs.write(CSR5, CSR5_W1C_MASK);
        accountMissedFrames();
        return stopped;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (watchdog != null) {
            watchdog.cancel();
        }
        if (listener != null || readiness != null) {
            line.handler(null);
            listener = null;
            readiness = null;
        }
        try {
            if (!stop()) {
                LOG.warn("{}: RS/TS did not reach 'stopped' within {} ns (CSR5 0x{})", name, config.stopTimeoutNanos(),
                    Integer.toHexString(regs.read(CSR5)));
            }
        } catch (CardFailedException e) {
            // The card does no more work (its failure was logged where it happened): nothing to stop, still free.
            LOG.warn("{}: closing on a failed card: {}", name, e.getMessage());
        }
        dma.unregister(commBus); // the chip can no longer reach the memory, then it is freed
        comm.close();
        LOG.info("{}: closed; {}; {}", name, counters, stats);
    }

    // ------------------------------------------------------------------ information

    @Override
    public String name() {
        return name;
    }

    @Override
    public int maxFrameLength() {
        return MAX_FRAME;
    }

    @Override
    public PortCounters counters() {
        return counters;
    }

    public TulipStatistics statistics() {
        return stats;
    }

    /** The station address read from the serial ROM. */
    public MacAddress stationAddress() {
        return station;
    }

    /** Address bits of the serial ROM as probed (6 or 8). */
    public int serialRomAddressBits() {
        return romAddressBits;
    }

    /** A copy of the serial ROM bytes read at open (the first 64 words). */
    public byte[] serialRom() {
        return rom.clone();
    }

    public TulipConfig config() {
        return config;
    }

    public Card card() {
        return card;
    }

    /** The receive ring (for conformance tests and diagnostics; the driver owns it). */
    public Dec21140DescriptorRing receiveRing() {
        return rxRing;
    }

    /** The transmit ring (for conformance tests and diagnostics; the driver owns it). */
    public Dec21140DescriptorRing transmitRing() {
        return txRing;
    }

    /** CSR6 as the driver last wrote it. */
    public int operatingMode() {
        return csr6;
    }

    /** Bus address of the comm segment in the card's DMA space. */
    public long commBusAddress() {
        return commBus;
    }

    public boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return name + "[" + station + ", " + (closed ? "closed" : "running") + "]";
    }

    // ------------------------------------------------------------------ internals

    private static int next(int i, int n) {
        return i + 1 == n ? 0 : i + 1;
    }

    /** Every port call starts here: a closed port, or a failed card (one volatile read), refuses before acting. */
    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
        line.checkCard();
    }

    /** Handles die with the port: after close none is claimed (the buffers are freed). */
    private void checkClaimed(int handle) {
        checkOpen();
        if (handle < 0 || handle >= txCount || txState[handle] != TX_CLAIMED) {
            throw new IllegalStateException(name + ": TX handle " + handle + " is not claimed by the caller");
        }
    }

    private void checkHeld(int handle) {
        checkOpen();
        if (handle < 0 || handle >= rxCount || rxState[handle] != RX_HELD) {
            throw new IllegalStateException(name + ": RX handle " + handle + " is not a received frame the caller holds");
        }
    }

    /** The park of a driver wait once its spins and yields are spent (every wait loop backs off: two shared cores). */
    static final long WAIT_PARK_NANOS = 20_000L;
}
