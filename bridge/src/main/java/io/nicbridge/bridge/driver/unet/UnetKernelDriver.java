package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.regs.WordAccess;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.bridge.spi.InterruptLine;
import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.bridge.time.WaitClock;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The privileged, kernel-resident half of U-Net on the SBA-200 (paper section 4.2.2): the only code that touches the
 * i960-resident command queue, the UG global block and the card's DMA space. Processes get a {@link UnetEndpoint}
 * from {@link #createEndpoint} and from then on talk to the card without this class on the data path.
 *
 * <pre>
 *  process A            process B                      kernel (this class)
 *  UnetEndpoint 3       UnetEndpoint 7                 command queue  UG block  DMA space  VCI table (RO)
 *   | page 3 (4 KiB)     | page 7 (4 KiB)               |  EP_CREATE, EP_DESTROY, CH_OPEN, CH_CLOSE,
 *   | segment A          | segment B                    |  EP_UPCALL, GET_STATS, NOP
 *   v                    v                              v
 *  +--------------------------- board RAM (256 KiB, big-endian words) ------------------------------+
 *  | 0x1000 UG | 0x1100 cmd queue 16 x 32 B | 0x2000 VCI table | 0x20000 + e * 0x1000 endpoint pages  |
 *  +--------------------------------------------------------------------------------------------------+
 * </pre>
 *
 * <h2>Command protocol</h2>
 * The slot {@code cmd_prod mod 16} is filled - arguments, then w0 - and w1 := PENDING is stored with release (the
 * slot is the card's from then on); then {@code cmd_prod + 1} is stored with release through {@link Registers}, the
 * doorbell. Completion is read back with acquire on w1 (DONE or ERROR, error code in bits 15:8), which pairs with the
 * firmware's release. Commands are serialized by this object's monitor: they are setup operations.
 * <p>
 * The firmware's answers are not trusted: only DONE exactly, or ERROR with an error code 1..255 and nothing above it,
 * is an answer. A slot that reads FREE again (the firmware wiped its queue: a restart) is
 * {@link UnetCommandException#LOST} at once, and so is a command during whose wait the watchdog found a restart (the replay it began does not know the
 * command); any other w1 is {@link UnetCommandException#BAD_COMPLETION} ({@link #badCompletions()}); no answer is
 * {@link UnetCommandException#TIMEOUT} ({@link #commandTimeouts()}). The driver reads only the slot it waits on, which
 * it set PENDING itself, so a completion written into another slot (a command never issued, a second completion) is
 * never taken for its command. An EP_CREATE without an answer gets an EP_DESTROY behind it (the firmware executes in
 * order), since its bus addresses leave the DMA space. cmd_prod is the driver's own word: when it reads otherwise the
 * board's RAM was wiped under it, and no doorbell is rung with the old index.
 *
 * <h2>Protection</h2>
 * Channels - the VCI pairs that are the U-Net tags (section 3.2) - are registered only through {@link #openChannel},
 * and communication segments and receive queues enter the card's DMA space only through {@link #createEndpoint}; a
 * process holds its own page slice and segment only.
 *
 * <h2>Events</h2>
 * The card's interrupt line is handled here: on an edge (or on an explicit {@link #serviceEvents()}) the per-endpoint
 * upcall-pending mask in the UG block is read and cleared (write 1 to clear) and each flagged endpoint is signalled:
 * its upcall runs (all pending messages in one call) or its blocked {@link UnetEndpoint#await} wakes.
 *
 * <h2>Progress</h2>
 * {@code progress} is what the driver runs while it waits for the card: an inline engine's {@code poll()}, a virtual
 * engine's step (so a command completes in simulated time, after the card's poll latency), or nothing for a card
 * that runs on its own threads (then the wait backs off: spin, yield, park).
 *
 * <h2>Channels between hosts</h2>
 * {@link #connect} asks the network's {@link UnetSignalling} service for a path between two cards (the switch
 * programming and VCI allocation are the network's) and then registers each side's tag pair with CH_OPEN on the
 * lowest free channel of each endpoint, undoing what it did when a step fails.
 *
 * <h2>Firmware restarts ({@link #watchdog})</h2>
 * The i960 can restart behind the kernel's back (a firmware crash caught by the board, a power glitch): its boot
 * status reads COLD_START, then the firmware clears board RAM and runs again with no endpoint and no channel. A
 * kernel driver cannot see that on any data path (U-Net's sends and receives do not pass through it), so it checks
 * the card periodically, as a heartbeat check would, on the driver's {@link Scheduler}: the boot status, the UG
 * heartbeat (it only grows while the firmware runs) and the ACTIVE bit of every live endpoint's status word. A
 * boot status other than CP_RUNNING, a heartbeat that went back, or a live endpoint that is not ACTIVE is a restart.
 * The driver then tells each endpoint ({@link UnetEndpoint#isRestarting()}: its in-flight sends complete as lost),
 * waits for CP_RUNNING, and replays through the command queue, without blocking (the timer polls the command slots
 * on later expiries), what it had set up: EP_CREATE of every live endpoint with its segment and receive queue,
 * CH_OPEN of every open channel with its tags, EP_UPCALL, and the global interrupt enable; then each endpoint
 * resumes on its fresh page (buffers the card held are posted again, messages not yet polled are dropped and
 * counted). A restart is found within one check period of its end and recovered some command round trips later;
 * one during the replay (the heartbeat went back, or a posted command reads FREE) starts the replay over.
 * Each endpoint is destroyed before it is created again (EP_INACTIVE after a real restart; a false sign of one must
 * not leave it refused with EP_ACTIVE). The host's books follow the replay's answers: an endpoint whose EP_CREATE is
 * refused stays restarting (and the next check replays again), a refused CH_OPEN closes the channel, a refused
 * EP_UPCALL leaves no upcall; a replay that does not move for a command timeout is logged and counted
 * ({@link #replayStalls()}), and when the firmware runs but has not completed the oldest replayed command by then
 * (it consumed it and left it PENDING, or never got to it) that command counts as timed out
 * ({@link #commandTimeouts()}) and the replay starts over, rebuilt from the host's books (see {@code replayStep}):
 * the endpoints stay restarting until one run of it completes. An endpoint destroyed during the replay leaves it, and
 * is destroyed on the card behind whatever of it the replay had posted (and by every later run of it).
 * A send that meets the blank page first (its {@code sq_cons} reads 0, behind what the endpoint collected) does not
 * wait for the check: the endpoint asks the driver to look at once ({@link #restartSuspected}), and the send is one
 * lost in the restart rather than a full queue or a corrupt card.
 * While recovering, the driver's own commands throw {@link IllegalStateException}. The timer runs on the
 * scheduler's thread, which must be the endpoints' thread (one virtual world, or one event loop).
 *
 * <h2>Misuse</h2>
 * Setup calls check their arguments before any command is issued; what only the firmware can judge (VCIs, upcall
 * modes, the receive queue's lower bound) comes back as {@link UnetCommandException} with the firmware's error code.
 * Every call after {@link #close()} throws {@link IllegalStateException}, and so does every call on an endpoint of
 * another driver or one destroyed already.
 */
public final class UnetKernelDriver implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(UnetKernelDriver.class);
    /** How long a command may take before the card is declared dead. */
    public static final long DEFAULT_COMMAND_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final String name;
    private final Registers ram;
    private final Registers bcr;
    private final WordAccess words;
    private final DmaSpace dma;
    private final InterruptLine line;
    private final Runnable progress;
    private final UnetEndpoint[] endpoints = new UnetEndpoint[MAX_ENDPOINTS];
    private final long commandTimeoutNanos;
    /** The back-off of {@link #execute} while it waits for the firmware; guarded by this driver's monitor. */
    private final IdleStrategy commandIdle = BackoffIdle.cardWait(WAIT_PARK_NANOS);
    private int commandProducer;
    private CommSegment statsMemory;
    private long statsBus;
    private UnetCardStatistics statistics;
    private boolean interruptsEnabled;
    private long interruptEdges;
    /** Set by {@link #timeOn}: the clock of every timeout (the wall clock until then). */
    private WaitClock clock = WaitClock.WALL;
    /** In virtual time, an event at the pending command's deadline, so that stepping the engine reaches it. */
    private Timer commandDeadline;
    /** Set by {@link #signalsOn}: the host CPU that pays for each signal, and the timer that delivers it. */
    private HostCpu signalCpu;
    private Timer signalTimer;
    private boolean closed;
    private boolean closing;

    // ---- firmware restarts (guarded by this driver's monitor)
    /** Per endpoint and channel: VPI, TX VCI, RX VCI as registered by CH_OPEN, to replay after a restart. */
    private final int[] channelTags = new int[MAX_ENDPOINTS * MAX_CHANNELS * 3];
    /**
     * Replay commands: 7 words each (opcode, 6 arguments); made once. Per endpoint at most EP_DESTROY and EP_CREATE,
     * a CH_OPEN per channel, EP_UPCALL and the EP_DESTROY of an endpoint destroyed during the replay.
     */
    private final int[] replay = new int[(MAX_ENDPOINTS * (MAX_CHANNELS + 4)) * 7];
    private int replayCount;
    /**
     * The replay's first {@code replayCreates} commands re-create the endpoints (EP_DESTROY, EP_CREATE); the
     * endpoints take their fresh queues after them.
     */
    private int replayCreates;
    private int replayPosted;
    private int replayDone;
    /** Endpoints whose replayed EP_CREATE the firmware completed DONE in this run of the replay (bit e). */
    private int replayCreated;
    /** When the replay last moved (the firmware booted, a command completed), for {@link #replayStalls}. */
    private long replayMovedAt;
    private long replayStalls;
    private long commandTimeouts;
    private long commandsLost;
    private long badCompletions;
    /** Commands posted, replayed ones too: whether a call got as far as the card. */
    private long commandsPosted;
    private Timer watchdog;
    private long watchdogNanos;
    private boolean recovering;
    private int lastHeartbeat;
    private long firmwareRestarts;
    private long replayErrors;
    /** How often the timer looks at the command slots while replaying: the i960's polling is microseconds. */
    private static final long REPLAY_POLL_NANOS = 20_000L;

    /**
     * @param ram      the card's board RAM window ({@link io.nicbridge.contract.Sba200Unet#RAM_SIZE} bytes, big-endian)
     * @param dma      the card's DMA space
     * @param line     the card's interrupt line
     * @param progress run while waiting for the card (see the class comment); {@code null} = nothing to run
     */
    public UnetKernelDriver(String name, Registers ram, DmaSpace dma, InterruptLine line, Runnable progress) {
        this(name, ram, null, dma, line, progress, DEFAULT_COMMAND_TIMEOUT_NANOS);
    }

    /**
     * @param bcr                 the Board Control Register (its own 4-byte range), through which the interrupt is
     *                            acknowledged ({@code BCR_CLEAR_INTR}); {@code null} when the card lowers its line
     *                            when the pending mask is cleared
     * @param commandTimeoutNanos how long a command may take, on the clock of {@link #timeOn} (the wall clock until
     *                            then)
     */
    public UnetKernelDriver(String name, Registers ram, Registers bcr, DmaSpace dma, InterruptLine line,
                            Runnable progress, long commandTimeoutNanos) {
        this.name = Objects.requireNonNull(name, "name");
        this.ram = Objects.requireNonNull(ram, "ram");
        this.bcr = bcr;
        if (bcr != null && bcr.size() != BCR_RANGE_SIZE) {
            throw new IllegalArgumentException(name + ": the BCR range is " + BCR_RANGE_SIZE + " bytes, '" + bcr.name()
                    + "' has " + bcr.size());
        }
        this.dma = Objects.requireNonNull(dma, "dma");
        this.line = Objects.requireNonNull(line, "line");
        this.progress = progress == null ? () -> { } : progress;
        if (commandTimeoutNanos <= 0) {
            throw new IllegalArgumentException("command timeout must be positive, was " + commandTimeoutNanos);
        }
        this.commandTimeoutNanos = commandTimeoutNanos;
        if (ram.size() != RAM_SIZE) {
            throw new IllegalArgumentException(name + ": the SBA-200 board RAM window is 0x" + Integer.toHexString(RAM_SIZE)
                    + " bytes, the given register window '" + ram.name() + "' has 0x" + Long.toHexString(ram.size()));
        }
        if (ram.order() != BYTE_ORDER) {
            throw new IllegalArgumentException(name + ": board RAM words are big-endian, window '" + ram.name()
                    + "' is " + ram.order());
        }
        this.words = new WordAccess(ram.window(), BYTE_ORDER);
        int magic = ram.readAcquire(UG_OFS + UG_MAGIC_OFS);
        if (magic != UG_MAGIC) {
            throw new IllegalStateException(name + ": U-Net firmware is not running (UG magic 0x"
                    + Integer.toHexString(magic) + ", expected 0x" + Integer.toHexString(UG_MAGIC) + " \"UNET\")");
        }
        int cmdq = ram.readAcquire(UG_OFS + UG_CMDQ_BASE_OFS);
        int cmdqLen = ram.readAcquire(UG_OFS + UG_CMDQ_LEN_OFS);
        if (cmdq != CMDQ_OFS || cmdqLen != CMDQ_LEN) {
            throw new IllegalStateException(name + ": command queue at 0x" + Integer.toHexString(cmdq) + " x " + cmdqLen
                    + ", the contract has 0x" + Integer.toHexString(CMDQ_OFS) + " x " + CMDQ_LEN);
        }
        this.commandProducer = ram.readAcquire(UG_OFS + UG_CMD_PROD_OFS);
        line.handler(l -> onInterrupt());
        LOG.debug("{}: U-Net kernel driver attached to {}", name, ram.name());
    }

    /**
     * Attaches to a card whose {@link Card#registers()} is the board RAM window.
     *
     * @param progress see the class comment; {@code null} for a card that runs on its own threads
     */
    public static UnetKernelDriver open(Card card, Runnable progress) {
        return new UnetKernelDriver(card.name() + " u-net", card.registers(), card.dma(), card.interrupt(), progress);
    }

    /** Attaches to a card whose {@link Card#registers()} is the board RAM window and whose BCR is {@code bcr}. */
    public static UnetKernelDriver open(Card card, Registers bcr, Runnable progress) {
        return new UnetKernelDriver(card.name() + " u-net", card.registers(), bcr, card.dma(), card.interrupt(),
                progress, DEFAULT_COMMAND_TIMEOUT_NANOS);
    }

    public String name() {
        return name;
    }

    public DmaSpace dma() {
        return dma;
    }

    /** Runs the progress hook once (lets an inline or virtual card do pending work). */
    public void progress() {
        line.checkCard(); // every wait of the kernel and its endpoints passes here: a failed card fails them now
        progress.run();
    }

    // ------------------------------------------------------------------ endpoints

    /**
     * Creates endpoint {@code endpoint}: maps the process's communication segment into the card's DMA space,
     * allocates its receive queue in host memory (also DMA-mapped) and issues {@code EP_CREATE}.
     *
     * @param segment the process's communication segment (page aligned, so {@code SEG_ALIGN} holds)
     * @param rqLen   receive queue entries, a power of two in [RQ_LEN_MIN, RQ_LEN_MAX] (the host checks that it is a
     *                power of two up to RQ_LEN_MAX, the card the rest)
     * @throws IllegalArgumentException when the endpoint number is outside the card's page range or already in use, or
     *                                  {@code rqLen} is not a power of two up to RQ_LEN_MAX
     * @throws UnetCommandException     when the firmware rejects the endpoint
     */
    public synchronized UnetEndpoint createEndpoint(int endpoint, CommSegment segment, int rqLen) {
        checkOpen();
        if (closing) {
            throw new IllegalStateException(name + ": driver is closing");
        }
        Objects.requireNonNull(segment, "segment");
        if (endpoint < 0 || endpoint >= MAX_ENDPOINTS) {
            throw new IllegalArgumentException(name + ": endpoint must be 0.." + (MAX_ENDPOINTS - 1) + ", was " + endpoint);
        }
        if (endpoints[endpoint] != null) {
            throw new IllegalArgumentException(name + ": endpoint " + endpoint + " is already in use");
        }
        if (rqLen <= 0 || rqLen > RQ_LEN_MAX || Integer.bitCount(rqLen) != 1) {
            // the host's own need (the receive queue's indices wrap), checked before the card could accept it
            throw new IllegalArgumentException(name + ": RQ_LEN must be a power of two in 1.." + RQ_LEN_MAX + ", was "
                    + rqLen);
        }
        if (segment.capacity() > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException(name + ": a segment length must fit 32 bits, was " + segment.capacity());
        }
        if (!segment.isOpen()) {
            throw new IllegalArgumentException(name + ": segment '" + segment.name() + "' is closed");
        }
        checkNotRecovering(); // before the DMA space changes: the replay may still post bus addresses it had
        long segBus = dma.register("u-net ep" + endpoint + " segment", segment.segment());
        long postedBefore = commandsPosted;
        CommSegment rq = null;
        long rqBus = -1;
        try {
            rq = CommSegment.allocate("u-net ep" + endpoint + " receive queue", (long) rqLen * RQ_ENTRY_SIZE);
            rqBus = dma.register("u-net ep" + endpoint + " receive queue", rq.segment());
            // A fresh page: the indices the firmware resets on EP_CREATE are read by the views only after DONE.
            int status = execute(OP_EP_CREATE, endpoint, (int) segBus, (int) segment.capacity(), (int) rqBus, rqLen, 0);
            throwIfError(OP_EP_CREATE, status, "endpoint " + endpoint + ", segment '" + segment.name() + "' ("
                    + segment.capacity() + " B), RQ_LEN " + rqLen);
            MemorySegment page = ram.window().asSlice(EP_PAGE_BASE + (long) endpoint * EP_PAGE_SIZE, EP_PAGE_SIZE);
            UnetEndpoint ep = new UnetEndpoint(this, endpoint, page, segment, segBus, rq, rqBus, rqLen,
                    new EndpointDoorbell(ram, endpoint));
            endpoints[endpoint] = ep;
            LOG.debug("{}: endpoint {} created (segment {} B at bus 0x{}, RQ {} x {} B at bus 0x{})", name, endpoint,
                    segment.capacity(), Long.toHexString(segBus), rqLen, RQ_ENTRY_SIZE, Long.toHexString(rqBus));
            return ep;
        } catch (RuntimeException e) {
            if (e instanceof UnetCommandException c && c.errorCode() < 0 && commandsPosted != postedBefore) {
                // No answer the contract has: the firmware may yet create it (it executes in order), on bus addresses
                // about to leave the DMA space. An EP_DESTROY behind it undoes that; its answer is not awaited. When
                // a restart was found meanwhile, the replay (not posted yet) carries it.
                if (recovering) {
                    addReplay(OP_EP_DESTROY, endpoint, 0, 0, 0, 0, 0);
                } else {
                    post(OP_EP_DESTROY, endpoint, 0, 0, 0, 0, 0);
                }
            }
            dma.unregister(segBus);
            if (rqBus >= 0) {
                dma.unregister(rqBus);
            }
            if (rq != null) {
                rq.close();
            }
            throw e;
        }
    }

    /** {@link #createEndpoint(int, CommSegment, int)} with the contract's default RQ_LEN. */
    public UnetEndpoint createEndpoint(int endpoint, CommSegment segment) {
        return createEndpoint(endpoint, segment, RQ_LEN_DEFAULT);
    }

    /**
     * {@link #createEndpoint(int, CommSegment, int)} on the lowest free endpoint number.
     *
     * @throws IllegalStateException when all {@code MAX_ENDPOINTS} endpoints are in use
     */
    public synchronized UnetEndpoint createEndpoint(CommSegment segment, int rqLen) {
        checkOpen();
        for (int e = 0; e < MAX_ENDPOINTS; e++) {
            if (endpoints[e] == null) {
                return createEndpoint(e, segment, rqLen);
            }
        }
        throw new IllegalStateException(name + ": all " + MAX_ENDPOINTS + " endpoints are in use");
    }

    /**
     * Destroys the endpoint: the process's handle is marked dead first (every later call on it throws
     * {@link IllegalStateException}) and a call of its owner that may still be writing the endpoint page is waited
     * for; then {@code EP_DESTROY} (the firmware closes its channels and stops touching its memory), then its
     * segment and receive queue leave the DMA space and the receive queue memory is freed. The process's segment
     * stays the process's. Idempotent, and a no-op for an endpoint of another driver. May be called from any
     * thread, concurrently with the endpoint's owner. While the driver recovers from a firmware restart the EP_DESTROY
     * goes with the replay instead, and the call returns at once.
     *
     * @throws UnetCommandException when the firmware refuses EP_DESTROY (the endpoint is gone from the host anyway)
     */
    public void destroyEndpoint(UnetEndpoint endpoint) {
        Objects.requireNonNull(endpoint, "endpoint");
        synchronized (this) {
            if (endpoints[endpoint.id()] != endpoint) {
                return;
            }
        }
        // Outside the monitor: the owner's call we may wait for can reach this driver (an upcall run from the
        // card's interrupt inside its send) without deadlocking against us.
        endpoint.detach();
        destroyDetached(endpoint);
    }

    private synchronized void destroyDetached(UnetEndpoint endpoint) {
        if (endpoints[endpoint.id()] != endpoint) {
            return; // another thread destroyed it meanwhile
        }
        int status = CMD_STATUS_DONE;
        try {
            if (!closed && !recovering) {
                status = execute(OP_EP_DESTROY, endpoint.id(), 0, 0, 0, 0, 0);
            }
        } finally {
            if (recovering) {
                // Found before or during the EP_DESTROY: the replay must not re-create it with bus addresses that are
                // about to leave the DMA space (a later region may get them), and destroys it if it re-created it.
                dropFromReplay(endpoint.id());
            }
            // Even when the card did not answer: every card access goes through the DMA space, so once the regions
            // are unmapped the card can no longer reach the receive queue, and closing it cannot pull memory from
            // under a DMA in progress (a shared arena's close waits for accesses in flight).
            endpoints[endpoint.id()] = null;
            dma.unregister(endpoint.segmentBusAddress());
            dma.unregister(endpoint.receiveQueueBusAddress());
            endpoint.receiveQueueMemory().close();
        }
        LOG.debug("{}: endpoint {} destroyed", name, endpoint.id());
        throwIfError(OP_EP_DESTROY, status, "endpoint " + endpoint.id());
    }

    /** The live endpoint with this number, or {@code null}. */
    public synchronized UnetEndpoint endpoint(int endpoint) {
        return endpoint >= 0 && endpoint < MAX_ENDPOINTS ? endpoints[endpoint] : null;
    }

    // ------------------------------------------------------------------ channels

    /**
     * Registers a channel: messages the endpoint sends on {@code channel} leave with {@code vpi/txVci}; cells
     * arriving on {@code rxVci} are demultiplexed to this endpoint and tagged {@code channel}. This is the only way a
     * tag reaches the card (paper 3.2: the OS service checks and registers tags). Route set-up through the switch
     * is the network's signalling service, outside this host's driver.
     *
     * @throws UnetCommandException   with the firmware's error (bad channel, channel open, bad VCI, VCI in use, ...)
     * @throws IllegalStateException  when the endpoint is not live on this driver, or the driver is closed
     */
    public synchronized void openChannel(UnetEndpoint endpoint, int channel, int vpi, int txVci, int rxVci) {
        requireLive(endpoint);
        int status = execute(OP_CH_OPEN, endpoint.id(), channel, vpi, txVci, rxVci, 0);
        throwIfError(OP_CH_OPEN, status, "endpoint " + endpoint.id() + " channel " + channel + " VPI " + vpi
                + " TX VCI " + txVci + " RX VCI " + rxVci);
        endpoint.channelOpened(channel);
        int t = (endpoint.id() * MAX_CHANNELS + channel) * 3;
        channelTags[t] = vpi;
        channelTags[t + 1] = txVci;
        channelTags[t + 2] = rxVci;
    }

    /**
     * {@code CH_OPEN} on the lowest channel of {@code endpoint} this driver has not opened.
     *
     * @return the channel number
     * @throws IllegalStateException when all {@code MAX_CHANNELS} channels of the endpoint are open
     */
    public synchronized int openChannel(UnetEndpoint endpoint, int vpi, int txVci, int rxVci) {
        requireLive(endpoint);
        for (int c = 0; c < MAX_CHANNELS; c++) {
            if (!endpoint.isChannelOpen(c)) {
                openChannel(endpoint, c, vpi, txVci, rxVci);
                return c;
            }
        }
        throw new IllegalStateException(name + ": endpoint " + endpoint.id() + " has all " + MAX_CHANNELS
                + " channels open");
    }

    /** A channel between two endpoints: the network's path and each side's channel number. */
    public record Connection(UnetSignalling.Path path, int channelA, int channelB) {
    }

    /**
     * Connects endpoint {@code a} (of driver {@code ka}) with endpoint {@code b} (of driver {@code kb}, which may be
     * the same driver): the network's signalling service sets up the path and allocates the VCIs, then each kernel
     * registers its side's tag pair with CH_OPEN on the endpoint's lowest free channel. A failure undoes every step
     * taken (channel closed, path released) before it is rethrown.
     */
    public static Connection connect(UnetSignalling network, UnetKernelDriver ka, UnetEndpoint a, UnetKernelDriver kb,
                                     UnetEndpoint b) {
        Objects.requireNonNull(network, "network");
        ka.requireLiveLocked(a);
        kb.requireLiveLocked(b);
        UnetSignalling.Path path = network.connect(ka, kb);
        int chanA;
        try {
            chanA = ka.openChannel(a, path.vpi(), path.aTxVci(), path.aRxVci());
        } catch (RuntimeException e) {
            network.disconnect(path);
            throw e;
        }
        try {
            return new Connection(path, chanA, kb.openChannel(b, path.vpi(), path.bTxVci(), path.bRxVci()));
        } catch (RuntimeException e) {
            try {
                ka.closeChannel(a, chanA);
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            network.disconnect(path);
            throw e;
        }
    }

    /** {@code CH_CLOSE}: the channel's VCI leaves the demux table; sends on it complete with BAD_CHANNEL. */
    public synchronized void closeChannel(UnetEndpoint endpoint, int channel) {
        requireLive(endpoint);
        int status = execute(OP_CH_CLOSE, endpoint.id(), channel, 0, 0, 0, 0);
        throwIfError(OP_CH_CLOSE, status, "endpoint " + endpoint.id() + " channel " + channel);
        endpoint.channelClosed(channel);
    }

    // ------------------------------------------------------------------ events

    /**
     * Sets the UG global interrupt enable: whether upcall signals and command completions with {@code CMD_IRQ}
     * raise the card's interrupt line. {@link #setUpcallMode} turns it on by itself.
     */
    public synchronized void interrupts(boolean enabled) {
        checkOpen();
        ram.writeRelease(UG_OFS + UG_INTR_ENABLE_OFS, enabled ? UG_INTR_ENABLE : 0);
        interruptsEnabled = enabled;
    }

    /**
     * {@code EP_UPCALL}: when the card signals this endpoint ({@code UPCALL_NONEMPTY}, {@code UPCALL_ALMOST_FULL}, or
     * {@code UPCALL_NONE}). Also turns the card's global interrupt enable on the first time a mode is set.
     */
    public synchronized void setUpcallMode(UnetEndpoint endpoint, int mode) {
        requireLive(endpoint);
        if (mode != UPCALL_NONE && !interruptsEnabled) {
            ram.writeRelease(UG_OFS + UG_INTR_ENABLE_OFS, UG_INTR_ENABLE);
            interruptsEnabled = true;
        }
        int status = execute(OP_EP_UPCALL, endpoint.id(), mode, 0, 0, 0, 0);
        throwIfError(OP_EP_UPCALL, status, "endpoint " + endpoint.id() + " mode " + mode);
        endpoint.upcallModeSet(mode);
    }

    /**
     * Delivers the card's signals the way a host takes an interrupt (paper 3.1, issue 16): not inside the card's
     * service pass that raised the line, but as a separate event on {@code cpu}'s scheduler once the host has paid
     * for the interrupt - {@link CostItem#INTERRUPT} charged to {@code cpu} per edge (in virtual time the signal then
     * runs at {@link HostCpu#busyUntil()}; in real time the charge is only counted and the timer runs at once). The
     * card keeps delivering meanwhile and its conditions are edge-triggered, so one upcall consumes every message that
     * arrived between the edge and the dispatch. The timer runs on the scheduler's thread, which must be the one that
     * may signal this driver's endpoints (the engine's, for an emulated card). Without this, an edge services the
     * events at once, on the thread that raised the line. Setup-time, before the card signals.
     *
     * @throws IllegalArgumentException when {@code cpu} has no scheduler ({@link HostCpu#uncharged})
     */
    public synchronized void signalsOn(HostCpu cpu) {
        Objects.requireNonNull(cpu, "cpu");
        if (cpu.scheduler() == null) {
            throw new IllegalArgumentException(name + ": the signal CPU '" + cpu.name() + "' has no scheduler to run "
                    + "the signals on");
        }
        if (signalTimer != null) {
            throw new IllegalStateException(name + ": signals already run on " + signalCpu.name());
        }
        signalTimer = cpu.scheduler().newTimer(name + ".signal", this::serviceEvents);
        signalCpu = cpu;
    }

    /**
     * Puts every timeout of this driver and its endpoints - command completion, {@link UnetEndpoint#await} - on
     * {@code scheduler}'s clock (issue 16): in virtual time a timeout is virtual nanoseconds, and a deadline timer on
     * the scheduler makes sure stepping the engine reaches it even when nothing else is scheduled. Without this,
     * timeouts are wall-clock time. Setup-time, before any endpoint is created.
     */
    public synchronized void timeOn(Scheduler scheduler) {
        Objects.requireNonNull(scheduler, "scheduler");
        for (UnetEndpoint ep : endpoints) {
            if (ep != null) {
                throw new IllegalStateException(name + ": the clock is set before any endpoint is created");
            }
        }
        clock = WaitClock.on(scheduler, progress);
        commandDeadline = newDeadlineTimer("command-deadline");
    }

    /** Now, on the clock of this driver's timeouts (see {@link #timeOn}). */
    long nanoTime() {
        return clock.nanoTime();
    }

    /** Whether timeouts run in virtual time: a waiter then steps the engine instead of parking. */
    boolean virtualTime() {
        return clock.isVirtual();
    }

    /** A no-op timer whose only effect is an event at a deadline (virtual time); {@code null} in real time. */
    Timer newDeadlineTimer(String what) {
        return clock.newDeadlineTimer(name + "." + what);
    }

    private void onInterrupt() {
        interruptEdges++;
        Timer t = signalTimer;
        if (t == null) {
            serviceEvents();
            return;
        }
        signalCpu.charge(CostItem.INTERRUPT);
        if (!t.isArmed()) {
            t.armAt(Math.max(signalCpu.busyUntil(), signalCpu.scheduler().nanoTime()));
        }
    }

    /**
     * Reads and clears (write 1 to clear) the UG upcall-pending mask and signals every flagged endpoint. Runs on
     * each interrupt edge; a process that polls for events instead may call it from its loop (the "signal check").
     * <p>
     * The mask is cleared before the endpoints are signalled, so a failing signal must not cut the pass short: the
     * endpoints after it would lose their wake-up for good. An upcall handler that throws therefore does not stop
     * the pass; every flagged endpoint is signalled, and then the first failure is rethrown (later ones attached as
     * suppressed) to the caller - on an interrupt edge that is the thread that raised the line, as before. It is
     * rethrown rather than logged because a handler's exception is the application's bug and must not vanish.
     *
     * @return how many endpoints were signalled
     * @throws RuntimeException the first exception an endpoint's upcall threw, after all endpoints were signalled
     */
    public int serviceEvents() {
        if (bcr != null) {
            // Acknowledge the line before reading the mask: a bit the card sets after the read raises a new edge.
            bcr.writeRelease(BCR_OFS, BCR_CLEAR_INTR);
        }
        int pending = ram.readAcquire(UG_OFS + UG_UPCALL_PENDING_OFS);
        if (pending == 0) {
            return 0;
        }
        ram.writeRelease(UG_OFS + UG_UPCALL_PENDING_OFS, pending);
        int signalled = 0;
        RuntimeException failure = null;
        while (pending != 0) {
            int e = Integer.numberOfTrailingZeros(pending);
            pending &= pending - 1;
            UnetEndpoint ep = endpoints[e]; // plain read: endpoints are published before their upcall mode is set
            if (ep != null) {
                signalled++;
                try {
                    ep.signal();
                } catch (RuntimeException x) {
                    if (failure == null) {
                        failure = x;
                    } else if (failure != x) {
                        failure.addSuppressed(x);
                    }
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        return signalled;
    }

    /** Interrupt edges seen by this driver. */
    public long interruptEdges() {
        return interruptEdges;
    }

    // ------------------------------------------------------------------ statistics and raw commands

    /** {@code GET_STATS}: the firmware copies its counters by DMA into kernel memory; the view is reused. */
    public synchronized UnetCardStatistics readStatistics() {
        checkOpen();
        if (statsMemory == null) {
            statsMemory = CommSegment.allocate(name + " stats", STATS_SIZE);
            statsBus = dma.register(name + " stats", statsMemory.segment());
            statistics = new UnetCardStatistics(statsMemory.segment());
        }
        int status = execute(OP_GET_STATS, (int) statsBus, 0, 0, 0, 0, 0);
        throwIfError(OP_GET_STATS, status, "stats at bus 0x" + Long.toHexString(statsBus));
        return statistics;
    }

    /** {@code NOP}: a round trip through the command queue. */
    public synchronized void nop() {
        throwIfError(OP_NOP, execute(OP_NOP, 0, 0, 0, 0, 0, 0), "");
    }

    /**
     * Issues one raw command and waits for it: for privileged tools and tests that exercise the firmware's checks
     * directly (the typed methods above validate what the host must know to stay memory-safe). {@code opcode} may
     * carry {@code CMD_IRQ}: the card then raises its interrupt when the command completes (if enabled, see
     * {@link #interrupts}).
     *
     * @return w1 as the firmware completed it: status in bits 7:0 ({@code CMD_STATUS_DONE} or {@code CMD_STATUS_ERROR}),
     *         error code in bits 15:8
     * @throws UnetCommandException when the card does not complete the command in time
     */
    public synchronized int execute(int opcode, int a0, int a1, int a2, int a3, int a4, int a5) {
        checkOpen();
        checkNotRecovering();
        int op = opcode & CMD_OPCODE_MASK;
        int written = ram.readAcquire(UG_OFS + UG_CMD_PROD_OFS);
        if (written != commandProducer) {
            int wrote = commandProducer;
            // cmd_prod is the driver's own word: another value means the board's RAM was wiped (a restart not found
            // yet). A doorbell with the old index would have the fresh firmware run every stale slot up to it - old
            // EP_CREATEs on bus addresses long given back among them - so nothing is posted.
            commandsLost++;
            if (watchdog != null && !closing && line.failure() == null && restartFound()) {
                watchdog.armAfter(REPLAY_POLL_NANOS);
            } else {
                commandProducer = written; // nothing will replay: go on from the fresh queue's index
            }
            throw new UnetCommandException(op, UnetCommandException.LOST, name + ": cmd_prod reads " + written
                    + ", the driver wrote " + wrote + ": the command queue was reset; not posted");
        }
        int slot = CMDQ_OFS + (commandProducer & (CMDQ_LEN - 1)) * CMD_SIZE;
        // Every earlier command was waited for (or given up on, and the firmware executes in order), so the slot is
        // ours; w1 := PENDING overwrites whatever the card left in it, so no stale or stray completion is read as ours.
        post(opcode & (CMD_OPCODE_MASK | CMD_IRQ), a0, a1, a2, a3, a4, a5);
        long restartsBefore = firmwareRestarts;
        long deadline = nanoTime() + commandTimeoutNanos;
        if (commandDeadline != null) {
            commandDeadline.armAt(deadline);
        }
        commandIdle.reset();
        try {
            for (;;) {
                int w1 = words.getIntAcquire(slot + CMD_STATUS_OFS); // pairs with the firmware's release of w1
                int status = w1 & CMD_STATUS_MASK;
                if (firmwareRestarts != restartsBefore) {
                    // The watchdog ran inside this wait (virtual time steps the world) and found a restart: whatever
                    // the slot reads, the firmware that answered may be gone, and the replay it began was built
                    // without this command.
                    commandsLost++;
                    throw new UnetCommandException(op, UnetCommandException.LOST, name + ": the firmware restarted"
                            + " while the command waited");
                }
                if (status != CMD_STATUS_PENDING) {
                    return completion(op, w1);
                }
                if (nanoTime() - deadline >= 0) { // at the deadline: its timer may be the last event of the world
                    commandTimeouts++;
                    throw new UnetCommandException(op, UnetCommandException.TIMEOUT, name + " command slot 0x"
                            + Integer.toHexString(slot) + " still has status " + status + " after "
                            + commandTimeoutNanos + " ns");
                }
                // Virtual time: one event of the world, never a park (the firmware answers only as the world runs,
                // and the deadline timer is an event too). Real time: the inline card's poll, then back off.
                if (!clock.advance()) {
                    progress.run();
                    commandIdle.idle();
                }
            }
        } finally {
            if (commandDeadline != null) {
                commandDeadline.cancel();
            }
        }
    }

    /**
     * Judges the w1 a command was completed with: DONE exactly, or ERROR with an error code 1..255 and nothing above
     * it, is returned for the caller; FREE (the firmware wiped its queue: a restart, which the watchdog is asked to
     * look for at once) and anything else the contract does not have are counted and thrown.
     */
    private int completion(int op, int w1) {
        if (w1 == CMD_STATUS_DONE || isErrorCompletion(w1)) {
            return w1;
        }
        if (w1 == CMD_STATUS_FREE) {
            commandsLost++;
            if (watchdog != null && !closing && line.failure() == null && restartFound()) {
                watchdog.armAfter(REPLAY_POLL_NANOS);
            }
            throw new UnetCommandException(op, UnetCommandException.LOST, name + ": its slot reads FREE again");
        }
        badCompletions++;
        throw new UnetCommandException(op, UnetCommandException.BAD_COMPLETION, name + ": w1 0x"
                + Integer.toHexString(w1));
    }

    private static boolean isErrorCompletion(int w1) {
        return (w1 & ~(CMD_STATUS_MASK | CMD_ERROR_MASK)) == 0 && (w1 & CMD_STATUS_MASK) == CMD_STATUS_ERROR
                && (w1 & CMD_ERROR_MASK) != 0;
    }

    private void checkNotRecovering() {
        if (recovering) {
            throw new IllegalStateException(name + ": the card's firmware restarted and the driver is re-creating its"
                    + " endpoints; retry once isRecovering() is false");
        }
    }

    /** Commands the card did not complete within the command timeout, replayed ones too. */
    public synchronized long commandTimeouts() {
        return commandTimeouts;
    }

    /** Commands lost: their slot read FREE again, or the firmware restarted while they waited. */
    public synchronized long commandsLost() {
        return commandsLost;
    }

    /** Completions the contract does not have (see {@link UnetCommandException#BAD_COMPLETION}), replayed ones too. */
    public synchronized long badCompletions() {
        return badCompletions;
    }

    /**
     * Times the replay after a restart did not move for a command timeout, logged and counted: the firmware did not
     * boot (waited on), an endpoint's owner held a received message (waited on), or the firmware did not complete
     * the oldest replayed command (that command is given up, counted in {@link #commandTimeouts()}, and the replay
     * starts over).
     */
    public synchronized long replayStalls() {
        return replayStalls;
    }

    // ------------------------------------------------------------------ firmware restarts

    /**
     * Installs the periodic firmware check (see the class comment) on {@code scheduler}, whose thread must be the
     * endpoints' thread. Setup-time, once. In virtual time the world never runs idle from then on (the check is
     * periodic, as a kernel's heartbeat timer is): run it until a condition or a time.
     *
     * @param periodNanos how often the card is looked at: a restart is found within one period of its end
     * @throws IllegalArgumentException for a period that is not positive
     * @throws IllegalStateException    when a watchdog is already installed
     */
    public synchronized void watchdog(Scheduler scheduler, long periodNanos) {
        Objects.requireNonNull(scheduler, "scheduler");
        if (periodNanos <= 0) {
            throw new IllegalArgumentException("watchdog periodNanos must be > 0, was " + periodNanos);
        }
        checkOpen();
        if (watchdog != null) {
            throw new IllegalStateException(name + ": the firmware watchdog is already installed");
        }
        watchdogNanos = periodNanos;
        lastHeartbeat = ram.readAcquire(UG_OFS + UG_HEARTBEAT_OFS);
        watchdog = scheduler.newTimer(name + ".firmwareWatchdog", this::watchdogExpired);
        watchdog.armAfter(periodNanos);
    }

    /**
     * An endpoint met an impossible index of the card's in its page ({@code sq_cons} behind what it collected): a
     * restart not found yet looks exactly like that, since the firmware wiped the page. Looks at the card now instead
     * of at the next check, and on a restart begins the replay at once (the timer then polls the command slots).
     * Called on the endpoint's thread, which is the watchdog's.
     *
     * @return true when a restart is found, now or before (the endpoints are restarting); false without a watchdog
     *         (nothing would recover the card) or when the card runs as before (the index is the card's fault)
     */
    synchronized boolean restartSuspected() {
        if (watchdog == null || closed || closing || line.failure() != null) {
            return false;
        }
        if (!recovering) {
            if (!restartFound()) {
                return false;
            }
            watchdog.armAfter(REPLAY_POLL_NANOS);
        }
        return true;
    }

    /** Firmware restarts the watchdog found. */
    public synchronized long firmwareRestarts() {
        return firmwareRestarts;
    }

    /** Replayed commands the firmware refused after a restart (logged; the endpoint concerned stays restarting). */
    public synchronized long replayErrors() {
        return replayErrors;
    }

    /** Whether a firmware restart was found and the endpoints are not all re-created yet. */
    public synchronized boolean isRecovering() {
        return recovering;
    }

    private synchronized void watchdogExpired() {
        if (closed || closing || line.failure() != null) {
            return;
        }
        if (recovering ? replayStep() : restartFound()) {
            watchdog.armAfter(REPLAY_POLL_NANOS);
        } else {
            watchdog.armAfter(watchdogNanos);
        }
    }

    /** One look at the card while it runs. @return true when a restart was found (the replay has begun) */
    private boolean restartFound() {
        int boot = ram.readAcquire(MONITOR_OFS + MONITOR_BOOT_STATUS_OFS);
        int heartbeat = ram.readAcquire(UG_OFS + UG_HEARTBEAT_OFS);
        boolean restarted = boot != BOOT_CP_RUNNING || Integer.compareUnsigned(heartbeat, lastHeartbeat) < 0;
        for (int e = 0; e < MAX_ENDPOINTS && !restarted; e++) {
            UnetEndpoint ep = endpoints[e];
            // still restarting after a replay: the firmware refused to re-create it; try again
            restarted = replayable(ep) && ((ep.epcbWord(EPCB_EP_STATUS_OFS) & EP_ACTIVE) == 0 || ep.isRestarting());
        }
        lastHeartbeat = heartbeat;
        if (!restarted) {
            return false;
        }
        firmwareRestarts++;
        LOG.warn("{}: the card's firmware restarted (boot status 0x{}, heartbeat {}); re-creating its endpoints", name,
                Integer.toHexString(boot), Integer.toUnsignedString(heartbeat));
        recovering = true;
        replayMovedAt = nanoTime();
        for (UnetEndpoint ep : endpoints) {
            if (replayable(ep)) {
                ep.cardRestarted();
            }
        }
        buildReplay(0);
        return true;
    }

    /**
     * Writes the replay from the host's books, from its start: per live endpoint EP_DESTROY and EP_CREATE (the
     * replay's first {@code replayCreates} commands), then its open channels' CH_OPEN and its EP_UPCALL; last an
     * EP_DESTROY of each endpoint in {@code dropped} (destroyed on the host during an earlier run of the replay: the
     * card may have it still). Nothing posted or collected yet.
     */
    private void buildReplay(int dropped) {
        replayCount = 0;
        replayPosted = 0;
        replayDone = 0;
        replayCreated = 0;
        for (int e = 0; e < MAX_ENDPOINTS; e++) {
            UnetEndpoint ep = endpoints[e];
            if (replayable(ep)) {
                // EP_DESTROY first (a rebooted firmware answers EP_INACTIVE): the signs of a restart can be wrong (a
                // heartbeat that went back on a firmware that kept its endpoints), and EP_CREATE of an endpoint the
                // firmware still has would be refused, leaving it restarting for good.
                addReplay(OP_EP_DESTROY, e, 0, 0, 0, 0, 0);
                addReplay(OP_EP_CREATE, e, (int) ep.segmentBusAddress(), (int) ep.communicationSegment().capacity(),
                        (int) ep.receiveQueueBusAddress(), ep.receiveQueueLength(), 0);
            }
        }
        replayCreates = replayCount;
        for (int e = 0; e < MAX_ENDPOINTS; e++) {
            UnetEndpoint ep = endpoints[e];
            if (!replayable(ep)) {
                continue;
            }
            for (int c = 0; c < MAX_CHANNELS; c++) {
                if (ep.isChannelOpen(c)) {
                    int t = (e * MAX_CHANNELS + c) * 3;
                    addReplay(OP_CH_OPEN, e, c, channelTags[t], channelTags[t + 1], channelTags[t + 2], 0);
                }
            }
            if (ep.upcallMode() != UPCALL_NONE) {
                addReplay(OP_EP_UPCALL, e, ep.upcallMode(), 0, 0, 0, 0);
            }
        }
        for (int rest = dropped; rest != 0; rest &= rest - 1) {
            addReplay(OP_EP_DESTROY, Integer.numberOfTrailingZeros(rest), 0, 0, 0, 0, 0);
        }
    }

    /**
     * Runs the replay again from its start, rebuilt from the host's books as they are now (channels and upcall modes
     * the last run had refused stay dropped; endpoints destroyed meanwhile get only their EP_DESTROY, never their old
     * EP_CREATE on bus addresses the DMA space is taking back). The endpoints restart again: what the last run
     * re-created on the card may be gone (a second restart) or is re-created once more (its destroy-before-create).
     */
    private void startReplayOver() {
        int dropped = 0;
        for (int k = 0; k < replayCount; k++) {
            int r = k * 7;
            int e = replay[r + 1];
            if (replay[r] == OP_EP_DESTROY && !replayable(endpoints[e])) {
                dropped |= 1 << e;
            }
        }
        for (UnetEndpoint ep : endpoints) {
            if (replayable(ep)) {
                ep.cardRestarted();
            }
        }
        buildReplay(dropped);
        replayMovedAt = nanoTime();
    }

    /**
     * Whether the replay re-creates {@code ep}: not one being destroyed (its owner's handle is dead already and the
     * EP_DESTROY this driver waits for is under way; a restart found during that wait hands it to the replay).
     */
    private static boolean replayable(UnetEndpoint ep) {
        return ep != null && ep.isLive();
    }

    private void addReplay(int op, int a0, int a1, int a2, int a3, int a4, int a5) {
        int r = replayCount++ * 7;
        replay[r] = op;
        replay[r + 1] = a0;
        replay[r + 2] = a1;
        replay[r + 3] = a2;
        replay[r + 4] = a3;
        replay[r + 5] = a4;
        replay[r + 6] = a5;
    }

    /**
     * One step of the replay: once the firmware runs again, collects the completed commands, posts the next ones
     * (as many as the command queue holds), and when all are done resumes the endpoints.
     *
     * @return true while the replay goes on
     */
    private boolean replayStep() {
        long now = nanoTime();
        boolean stalled = now - replayMovedAt > commandTimeoutNanos;
        if (stalled) {
            replayStalls++;
            replayMovedAt = now; // counted once per command timeout
        }
        int boot = ram.readAcquire(MONITOR_OFS + MONITOR_BOOT_STATUS_OFS);
        if (boot != BOOT_CP_RUNNING) {
            if (stalled) {
                LOG.error("{}: the card's firmware has not booted for {} ns after its restart (boot status 0x{});"
                        + " still waiting", name, commandTimeoutNanos, Integer.toHexString(boot));
            }
            return true; // still booting
        }
        if (replayPosted > 0 && restartedDuringReplay()) {
            // The firmware restarted again and forgot what the replay had done so far: start it over.
            firmwareRestarts++;
            LOG.warn("{}: the card's firmware restarted again during the replay ({} of {} commands done); starting"
                    + " it over", name, replayDone, replayCount);
            startReplayOver();
        } else if (stalled && replayDone < replayPosted) {
            // The firmware runs, yet the oldest replayed command has not completed for a command timeout: as for
            // any command (execute), the driver stops waiting for it - a firmware that consumed a command without
            // completing it never comes back to it, so waiting for ever would leave every endpoint restarting and
            // every setup call refused. What it did with that command, and with those after it, is unknown (the
            // command queue is in order, but its answers are not trusted): a refused EP_CREATE would be retried at
            // the next check anyway, a CH_OPEN taken as refused would close an owner's channel for a fault of the
            // card's, and an EP_DESTROY of an endpoint destroyed meanwhile must not be given up (the card could keep
            // it on bus addresses leaving the DMA space). So the replay starts over from its destroy-before-create,
            // which is idempotent: the endpoints stay restarting (their sends complete lost) until a run completes.
            // Counted as a timeout; a card that never completes a run keeps the driver recovering, as a dead one
            // does, with a stall logged each command timeout.
            commandTimeouts++;
            int slot = CMDQ_OFS + ((commandProducer - (replayPosted - replayDone)) & (CMDQ_LEN - 1)) * CMD_SIZE;
            int r = replayDone * 7;
            LOG.error("{}: replayed command {} (endpoint {}) not completed after {} ns (w1 0x{}; {} of {} commands"
                    + " done); starting the replay over", name, UnetCommandException.opcodeName(replay[r]),
                    replay[r + 1], commandTimeoutNanos, Integer.toHexString(words.getIntAcquire(slot + CMD_STATUS_OFS)),
                    replayDone, replayCount);
            startReplayOver();
        } else if (stalled) {
            LOG.error("{}: the replay after the firmware restart has not moved for {} ns ({} of {} commands done):"
                    + " an endpoint's owner holds a received message", name, commandTimeoutNanos, replayDone,
                    replayCount);
        }
        if (replayPosted == 0) {
            // The card writes a re-created endpoint's receive queue from descriptor 0: the messages not polled yet
            // go now, while nothing can arrive, and only when no endpoint's owner holds one.
            for (UnetEndpoint ep : endpoints) {
                if (replayable(ep) && !ep.beforeRecreate()) {
                    return true;
                }
            }
            // a fresh firmware: its command queue starts at the producer index in the new UG block (0)
            commandProducer = ram.readAcquire(UG_OFS + UG_CMD_PROD_OFS);
            if (interruptsEnabled) {
                ram.writeRelease(UG_OFS + UG_INTR_ENABLE_OFS, UG_INTR_ENABLE);
            }
            replayMovedAt = now;
        }
        while (replayDone < replayPosted) {
            int slot = CMDQ_OFS + ((commandProducer - (replayPosted - replayDone)) & (CMDQ_LEN - 1)) * CMD_SIZE;
            int w1 = words.getIntAcquire(slot + CMD_STATUS_OFS);
            int status = w1 & CMD_STATUS_MASK;
            if (status == CMD_STATUS_PENDING || status == CMD_STATUS_FREE) {
                return true; // the firmware has not got to it yet (FREE: restartedDuringReplay looks next time)
            }
            replayed(replayDone, w1);
            replayDone++;
            replayMovedAt = now;
        }
        if (replayDone == replayCreates && replayPosted == replayCreates) {
            for (UnetEndpoint ep : endpoints) {
                if (replayable(ep) && (replayCreated & 1 << ep.id()) != 0) {
                    ep.recreated(); // fresh queues: receive buffers go to the card before any channel opens
                }
            }
        }
        // the re-creates first; the rest only once the endpoints have their buffers back
        int limit = replayDone < replayCreates ? replayCreates : replayCount;
        while (replayPosted < limit && replayPosted - replayDone < CMDQ_LEN) {
            int r = replayPosted++ * 7;
            post(replay[r], replay[r + 1], replay[r + 2], replay[r + 3], replay[r + 4], replay[r + 5], replay[r + 6]);
        }
        if (replayDone < replayCount) {
            return true;
        }
        int stillRestarting = 0;
        for (UnetEndpoint ep : endpoints) {
            if (!replayable(ep)) {
                continue;
            }
            if ((replayCreated & 1 << ep.id()) != 0) {
                ep.resume();
            } else {
                stillRestarting++; // its page stays blank: the next check finds it and replays again
            }
        }
        recovering = false;
        lastHeartbeat = ram.readAcquire(UG_OFS + UG_HEARTBEAT_OFS);
        LOG.info("{}: endpoints re-created after the firmware restart ({} commands, {} refused; {} endpoints not"
                + " re-created)", name, replayCount, replayErrors, stillRestarting);
        return false;
    }

    /**
     * The firmware completed replayed command {@code index} with {@code w1}: the host's books follow what it was told.
     * A refused (or malformed) EP_CREATE leaves the endpoint restarting; a refused CH_OPEN closes the channel on the
     * host side (its sends complete BAD_CHANNEL, as the card would answer them) and one that succeeds (again, after a
     * restart during the replay) opens it; a refused EP_UPCALL leaves the endpoint without upcalls.
     */
    private void replayed(int index, int w1) {
        int r = index * 7;
        int op = replay[r];
        int e = replay[r + 1];
        boolean done = w1 == CMD_STATUS_DONE;
        if (op == OP_EP_DESTROY && (done || w1 == (CMD_STATUS_ERROR | CMD_ERR_EP_INACTIVE << CMD_ERROR_SHIFT))) {
            return; // gone, or never there after the reboot: either is what the replay wants
        }
        if (!done) {
            replayErrors++;
            if (!isErrorCompletion(w1)) {
                badCompletions++;
            }
            LOG.error("{}: replayed command {} (endpoint {}, {}) failed: w1 0x{}", name,
                    UnetCommandException.opcodeName(op), e, replay[r + 2], Integer.toHexString(w1));
        }
        UnetEndpoint ep = e >= 0 && e < MAX_ENDPOINTS ? endpoints[e] : null;
        if (!replayable(ep)) {
            return; // destroyed during the replay: its EP_DESTROY is in the replay
        }
        switch (op) {
            case OP_EP_CREATE -> replayCreated = done ? replayCreated | 1 << e : replayCreated & ~(1 << e);
            case OP_CH_OPEN -> {
                if (done) {
                    ep.channelOpened(replay[r + 2]);
                } else {
                    ep.channelClosed(replay[r + 2]);
                }
            }
            case OP_EP_UPCALL -> {
                if (!done) {
                    ep.upcallModeSet(UPCALL_NONE);
                }
            }
            default -> { }
        }
    }

    /**
     * Endpoint {@code e} is destroyed while the replay runs (or a restart was found while its EP_DESTROY waited): its
     * commands not posted yet leave the replay, and an EP_DESTROY is added, so the firmware keeps no endpoint on bus
     * addresses the host is taking back (the DMA space may give them to another region) - one it re-created, or one
     * it kept because the restart was not one.
     */
    private void dropFromReplay(int e) {
        int kept = replayPosted;
        for (int k = replayPosted; k < replayCount; k++) {
            int r = k * 7;
            boolean mine = replay[r + 1] == e && replay[r] != OP_EP_DESTROY;
            if (mine) {
                if (replay[r] == OP_EP_CREATE) {
                    replayCreates--; // the creates stay first: only later ones move down
                }
            } else {
                System.arraycopy(replay, r, replay, kept++ * 7, 7);
            }
        }
        replayCount = kept;
        addReplay(OP_EP_DESTROY, e, 0, 0, 0, 0, 0);
    }

    /**
     * Whether the firmware restarted since the replay posted its first command. Its boot is over by the time the
     * timer looks again, so the signs are what it wiped: the heartbeat went back, or a posted command not collected
     * yet reads FREE (a fresh command queue never had it). Until the replay ends some command is always posted and
     * not collected (each step posts the next ones as it collects), so a restart before the end is always seen; one
     * after it is the periodic check's.
     */
    private boolean restartedDuringReplay() {
        int heartbeat = ram.readAcquire(UG_OFS + UG_HEARTBEAT_OFS);
        boolean again = Integer.compareUnsigned(heartbeat, lastHeartbeat) < 0;
        lastHeartbeat = heartbeat;
        for (int k = replayDone; k < replayPosted && !again; k++) {
            int slot = CMDQ_OFS + ((commandProducer - (replayPosted - k)) & (CMDQ_LEN - 1)) * CMD_SIZE;
            again = (words.getIntAcquire(slot + CMD_STATUS_OFS) & CMD_STATUS_MASK) == CMD_STATUS_FREE;
        }
        return again;
    }

    /**
     * Fills the next command slot - arguments, then w0 - and hands it over (w1 := PENDING with release), then rings
     * the doorbell ({@code cmd_prod + 1} with release). Does not wait: {@link #execute} waits, the replay polls.
     */
    private void post(int opcode, int a0, int a1, int a2, int a3, int a4, int a5) {
        int slot = CMDQ_OFS + (commandProducer & (CMDQ_LEN - 1)) * CMD_SIZE;
        words.putInt(slot + CMD_ARG_OFS, a0);
        words.putInt(slot + CMD_ARG_OFS + 4, a1);
        words.putInt(slot + CMD_ARG_OFS + 8, a2);
        words.putInt(slot + CMD_ARG_OFS + 12, a3);
        words.putInt(slot + CMD_ARG_OFS + 16, a4);
        words.putInt(slot + CMD_ARG_OFS + 20, a5);
        words.putInt(slot + CMD_OP_OFS, opcode);
        words.putIntRelease(slot + CMD_STATUS_OFS, CMD_STATUS_PENDING);
        commandProducer++;
        commandsPosted++;
        ram.writeRelease(UG_OFS + UG_CMD_PROD_OFS, commandProducer); // the doorbell
    }

    /** The park of a driver wait once its spins and yields are spent (every wait loop backs off: two shared cores). */
    static final long WAIT_PARK_NANOS = 20_000L;

    private static void throwIfError(int opcode, int w1, String context) {
        if ((w1 & CMD_STATUS_MASK) == CMD_STATUS_ERROR) {
            throw new UnetCommandException(opcode, (w1 & CMD_ERROR_MASK) >>> CMD_ERROR_SHIFT, context);
        }
    }

    private synchronized void requireLiveLocked(UnetEndpoint endpoint) {
        requireLive(endpoint);
    }

    private void requireLive(UnetEndpoint endpoint) {
        checkOpen();
        Objects.requireNonNull(endpoint, "endpoint");
        if (endpoints[endpoint.id()] != endpoint) {
            throw new IllegalStateException(name + ": endpoint " + endpoint.id() + " is not live on this driver");
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(name + ": driver is closed");
        }
    }

    /**
     * Destroys every live endpoint (as {@link #destroyEndpoint}, so from any thread) and releases the driver's own
     * DMA memory. Every later call on the driver throws {@link IllegalStateException}. Idempotent.
     */
    @Override
    public void close() {
        UnetEndpoint[] live;
        synchronized (this) {
            if (closed || closing) {
                return;
            }
            closing = true; // no new endpoints from here on
            live = endpoints.clone();
        }
        for (UnetEndpoint ep : live) {
            if (ep != null) {
                try {
                    destroyEndpoint(ep);
                } catch (RuntimeException e) { // the firmware refused or is gone; the endpoint is dead either way
                    LOG.warn("{}: {}", name, e.toString());
                }
            }
        }
        synchronized (this) {
            finishClose();
        }
    }

    private void finishClose() {
        if (watchdog != null) {
            watchdog.cancel();
        }
        line.handler(null);
        if (signalTimer != null) {
            signalTimer.cancel();
        }
        if (commandDeadline != null) {
            commandDeadline.cancel();
        }
        if (statsMemory != null) {
            dma.unregister(statsBus);
            statsMemory.close();
        }
        closed = true;
    }
}
