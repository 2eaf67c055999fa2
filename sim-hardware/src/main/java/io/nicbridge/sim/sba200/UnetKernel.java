package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.sim.atm.AtmNetworkService;
import io.nicbridge.sim.atm.AtmPath;
import io.nicbridge.sim.engine.DeviceEngine;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kernel-resident part of U-Net for one emulated SBA-200 (the U-Net paper's device driver): the only code that
 * writes the card's kernel command queue. It validates what processes ask for, pins their communication segments
 * and receive queues into the card's DMA space, allocates endpoint and channel numbers, and issues EP_CREATE,
 * EP_DESTROY, CH_OPEN, CH_CLOSE, EP_UPCALL, GET_STATS and NOP. Channels between two endpoints are opened through
 * {@link #connect}, which first asks the {@link AtmNetworkService} for a switch path (the tags), then registers the
 * tag pair on both cards: the only privileged path by which VCIs reach the cards' demux tables and the switch.
 *
 * <p><b>Command protocol</b> (contract: fill the slot's arguments, w0, w1 = PENDING, then {@code cmd_prod} with
 * release - the doorbell; the firmware writes w1 = DONE/ERROR and then {@code cmd_cons}). Commands run one at a
 * time and this class waits for each: an inline engine runs the firmware on this thread; a threaded engine's i960
 * thread picks it up while this thread backs off; a virtual-time engine is run until the command completes (so
 * kernel calls are setup-time calls made from outside the simulation, never from inside an event).
 *
 * <p>Setup-time API (allocates); thread-safe (one lock). Errors the card reports throw
 * {@link IllegalStateException} naming the command and its error code; {@link #command} returns the raw status
 * for callers that want to see it.
 */
public final class UnetKernel {
    private static final Logger LOG = LoggerFactory.getLogger(UnetKernel.class);
    /** How long a command may take: real time for inline/threaded engines, simulated time for a virtual one. */
    public static final long COMMAND_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final Sba200Card card;
    private final DeviceEngine engine;
    private final Registers ram;
    private final DmaSpace dma;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment statsBuffer;
    private final long statsBus;
    private final Sba200Endpoint[] endpoints = new Sba200Endpoint[MAX_ENDPOINTS];
    private final long[] rqBus = new long[MAX_ENDPOINTS];
    private final long[] channels = new long[MAX_ENDPOINTS];
    private int cmdProd;

    public UnetKernel(Sba200Card card, DeviceEngine engine) {
        this.card = Objects.requireNonNull(card, "card");
        this.engine = Objects.requireNonNull(engine, "engine");
        this.ram = card.registers();
        this.dma = card.dma();
        this.statsBuffer = arena.allocate(STATS_SIZE, 64);
        this.statsBus = dma.register(card.name() + ".kernel-stats", statsBuffer);
        this.cmdProd = ram.read(UG_OFS + UG_CMD_PROD_OFS);
    }

    public Sba200Card card() {
        return card;
    }

    // ============================================================================================ raw commands

    /**
     * Issues one kernel command and waits for it.
     *
     * @param args up to 6 argument words (w2..)
     * @return the command's w1 as the firmware left it: {@code CMD_STATUS_DONE}, or {@code CMD_STATUS_ERROR} with
     *     the error code in bits 15:8 (see {@link #errorCode})
     * @throws IllegalStateException when the firmware does not complete it within {@link #COMMAND_TIMEOUT_NANOS}
     */
    public synchronized int command(int opcode, boolean interrupt, int... args) {
        if (args.length > CMD_ARG_COUNT) {
            throw new IllegalArgumentException("a kernel command has at most " + CMD_ARG_COUNT + " arguments, got "
                + args.length);
        }
        int slot = CMDQ_OFS + (cmdProd & (CMDQ_LEN - 1)) * CMD_SIZE;
        for (int i = 0; i < CMD_ARG_COUNT; i++) {
            ram.writePlain(slot + CMD_ARG_OFS + 4 * i, i < args.length ? args[i] : 0);
        }
        ram.writePlain(slot + CMD_OP_OFS, opcode & CMD_OPCODE_MASK | (interrupt ? CMD_IRQ : 0));
        ram.writePlain(slot + CMD_STATUS_OFS, CMD_STATUS_PENDING);
        cmdProd++;
        int target = cmdProd;
        // Release: the slot is complete before the firmware can see the new producer index (the doorbell).
        ram.writeRelease(UG_OFS + UG_CMD_PROD_OFS, target);
        awaitConsumer(target, opcode);
        return ram.readAcquire(slot + CMD_STATUS_OFS);
    }

    /** @return the error code of a command status word (0 when it is DONE) */
    public static int errorCode(int status) {
        return (status & CMD_ERROR_MASK) >>> CMD_ERROR_SHIFT;
    }

    public static boolean isDone(int status) {
        return (status & CMD_STATUS_MASK) == CMD_STATUS_DONE;
    }

    private void awaitConsumer(int target, int opcode) {
        int consOfs = UG_OFS + UG_CMD_CONS_OFS;
        if (engine instanceof VirtualTimeEngine v) {
            long limit = v.timeBase().nanoTime() + COMMAND_TIMEOUT_NANOS;
            if (!v.runUntil(() -> ram.readAcquire(consOfs) - target >= 0, limit)) {
                throw timeout(opcode);
            }
            return;
        }
        long deadline = System.nanoTime() + COMMAND_TIMEOUT_NANOS;
        int spins = 0;
        while (ram.readAcquire(consOfs) - target < 0) {
            engine.poll();
            if (System.nanoTime() - deadline > 0) {
                throw timeout(opcode);
            }
            if (++spins < 100) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(10_000);
            }
        }
    }

    private IllegalStateException timeout(int opcode) {
        return new IllegalStateException(card.name() + ": kernel command 0x" + Integer.toHexString(opcode)
            + " not completed by the firmware (boot status 0x"
            + Integer.toHexString(ram.read(MONITOR_OFS + MONITOR_BOOT_STATUS_OFS)) + ")");
    }

    private int checked(String what, int status) {
        if (!isDone(status)) {
            throw new IllegalStateException(card.name() + ": " + what + " failed with command error "
                + errorCode(status) + " (" + errorName(errorCode(status)) + ")");
        }
        return status;
    }

    /** Name of a CMD_ERR_* code. */
    public static String errorName(int code) {
        return switch (code) {
            case 0 -> "none";
            case 1 -> "bad opcode";
            case 2 -> "bad endpoint";
            case 3 -> "endpoint active";
            case 4 -> "endpoint inactive";
            case 5 -> "bad channel";
            case 6 -> "channel open";
            case 7 -> "bad VCI";
            case 8 -> "VCI in use";
            case 9 -> "bad segment";
            case 10 -> "bad receive queue";
            case 11 -> "bad upcall mode";
            case 12 -> "DMA error";
            default -> "unknown " + code;
        };
    }

    // ============================================================================================ endpoints

    /**
     * Creates an endpoint over {@code segment}: pins it into the card's DMA space, allocates a receive queue of
     * {@code rqLength} entries in host memory, picks the lowest free endpoint number and issues EP_CREATE.
     *
     * @param segment native memory, 64-byte aligned, 1 .. 2^32 - 1 bytes
     * @param rqLength a power of two in [RQ_LEN_MIN, RQ_LEN_MAX]
     * @throws IllegalArgumentException for a bad segment or queue length
     * @throws IllegalStateException when all 32 endpoints are in use or the card refuses
     */
    public synchronized Sba200Endpoint createEndpoint(MemorySegment segment, int rqLength) {
        Objects.requireNonNull(segment, "segment");
        if (!segment.isNative() || (segment.address() & (SEG_ALIGN - 1)) != 0) {
            throw new IllegalArgumentException("a communication segment must be native memory aligned to "
                + SEG_ALIGN + " bytes");
        }
        if (segment.byteSize() == 0 || segment.byteSize() > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("a communication segment must be 1.." + 0xFFFF_FFFFL
                + " bytes, was " + segment.byteSize());
        }
        if (rqLength < RQ_LEN_MIN || rqLength > RQ_LEN_MAX || Integer.bitCount(rqLength) != 1) {
            throw new IllegalArgumentException("receive queue length must be a power of two in [" + RQ_LEN_MIN
                + ", " + RQ_LEN_MAX + "], was " + rqLength);
        }
        int ep = -1;
        for (int e = 0; e < MAX_ENDPOINTS; e++) {
            if (endpoints[e] == null) {
                ep = e;
                break;
            }
        }
        if (ep < 0) {
            throw new IllegalStateException(card.name() + ": all " + MAX_ENDPOINTS + " endpoints are in use");
        }
        long segBus = dma.register(card.name() + ".ep" + ep + ".segment", segment);
        MemorySegment rq = arena.allocate((long) rqLength * RQ_ENTRY_SIZE, RQ_ALIGN);
        long queueBus = dma.register(card.name() + ".ep" + ep + ".rq", rq);
        int status = command(OP_EP_CREATE, false, ep, (int) segBus, (int) segment.byteSize(), (int) queueBus,
            rqLength);
        if (!isDone(status)) {
            dma.unregister(segBus);
            dma.unregister(queueBus);
            checked("EP_CREATE of endpoint " + ep, status);
        }
        Sba200Endpoint endpoint = new Sba200Endpoint(ep, card.model(), segment, segBus, rq, rqLength);
        endpoints[ep] = endpoint;
        rqBus[ep] = queueBus;
        channels[ep] = 0;
        LOG.debug("{}: endpoint {} created ({} B segment, {} RQ entries)", card.name(), ep, segment.byteSize(),
            rqLength);
        return endpoint;
    }

    /** EP_DESTROY: closes every channel of the endpoint, unpins its segment and receive queue. */
    public synchronized void destroyEndpoint(Sba200Endpoint endpoint) {
        int ep = owned(endpoint);
        checked("EP_DESTROY of endpoint " + ep, command(OP_EP_DESTROY, false, ep));
        dma.unregister(endpoint.segmentBusAddress());
        dma.unregister(rqBus[ep]);
        endpoints[ep] = null;
        channels[ep] = 0;
    }

    /** EP_UPCALL: {@code UPCALL_NONE}, {@code UPCALL_NONEMPTY} or {@code UPCALL_ALMOST_FULL}. */
    public void upcallMode(Sba200Endpoint endpoint, int mode) {
        int ep = owned(endpoint);
        checked("EP_UPCALL of endpoint " + ep, command(OP_EP_UPCALL, false, ep, mode));
    }

    /** Sets the UG global interrupt enable: whether upcalls and command completions raise the SBus interrupt. */
    public void interrupts(boolean enabled) {
        ram.writeVolatile(UG_OFS + UG_INTR_ENABLE_OFS, enabled ? UG_INTR_ENABLE : 0);
    }

    /** GET_STATS: the firmware DMA's its 64-byte counter block into kernel memory; copied into {@code dst}. */
    public synchronized void readStats(MemorySegment dst) {
        if (dst.byteSize() < STATS_SIZE) {
            throw new IllegalArgumentException("statistics need " + STATS_SIZE + " bytes, got " + dst.byteSize());
        }
        checked("GET_STATS", command(OP_GET_STATS, false, (int) statsBus));
        MemorySegment.copy(statsBuffer, 0, dst, 0, STATS_SIZE);
    }

    // ============================================================================================ channels

    /**
     * CH_OPEN on the lowest free channel of {@code endpoint} with the given tag pair.
     *
     * @return the channel number
     */
    public synchronized int openChannel(Sba200Endpoint endpoint, int vpi, int txVci, int rxVci) {
        int ep = owned(endpoint);
        long free = ~channels[ep];
        if (free == 0) {
            throw new IllegalStateException(card.name() + ": endpoint " + ep + " has all " + MAX_CHANNELS
                + " channels open");
        }
        int chan = Long.numberOfTrailingZeros(free);
        checked("CH_OPEN of endpoint " + ep + " channel " + chan,
            command(OP_CH_OPEN, false, ep, chan, vpi, txVci, rxVci));
        channels[ep] |= 1L << chan;
        return chan;
    }

    /** CH_CLOSE. */
    public synchronized void closeChannel(Sba200Endpoint endpoint, int channel) {
        int ep = owned(endpoint);
        checked("CH_CLOSE of endpoint " + ep + " channel " + channel, command(OP_CH_CLOSE, false, ep, channel));
        channels[ep] &= ~(1L << channel);
    }

    /** A channel between two endpoints: the switch path and each side's channel number. */
    public record Connection(AtmPath path, int channelA, int channelB) {
    }

    /**
     * Connects endpoint {@code a} (on {@code ka}'s card) with endpoint {@code b} (on {@code kb}'s card, which may
     * be the same card): the network service sets up the switch path, then each kernel registers its side's tag
     * pair with CH_OPEN.
     */
    public static Connection connect(AtmNetworkService network, UnetKernel ka, Sba200Endpoint a, UnetKernel kb,
                                     Sba200Endpoint b) {
        AtmPath path = network.connect(ka.card.port(), kb.card.port());
        int chanA;
        try {
            chanA = ka.openChannel(a, path.vpi(), path.aTxVci(), path.aRxVci());
        } catch (RuntimeException e) {
            network.disconnect(path);
            throw e;
        }
        int chanB;
        try {
            chanB = kb.openChannel(b, path.vpi(), path.bTxVci(), path.bRxVci());
        } catch (RuntimeException e) {
            ka.closeChannel(a, chanA);
            network.disconnect(path);
            throw e;
        }
        return new Connection(path, chanA, chanB);
    }

    private int owned(Sba200Endpoint endpoint) {
        Objects.requireNonNull(endpoint, "endpoint");
        int ep = endpoint.number();
        if (endpoints[ep] != endpoint) {
            throw new IllegalArgumentException(endpoint + " is not an open endpoint of " + card.name());
        }
        return ep;
    }

    @Override
    public String toString() {
        return "UnetKernel[" + card.name() + "]";
    }
}
