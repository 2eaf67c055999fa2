package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.bridge.memory.DmaView;
import io.nicbridge.bridge.queue.UnetNiFreeQueue;
import io.nicbridge.bridge.queue.UnetNiSendQueue;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.spi.InterruptLine;
import io.nicbridge.contract.Sba200UnetBuf;
import io.nicbridge.contract.Sba200UnetRecvDesc;
import io.nicbridge.sim.atm.Aal5;
import io.nicbridge.sim.atm.AtmCells;
import io.nicbridge.sim.atm.CellLink;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.engine.FrameFifo;
import io.nicbridge.sim.engine.SimTimer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SBA-200's i960 running the U-Net firmware, alone: the kernel command queue, the per-endpoint protection
 * table, AAL5 segmentation onto the uplink and reassembly from the ingress FIFO, the receive-queue handoff and the
 * upcall check - single-threaded (the engine's thread), time passed in, no volatile flags or locks of its own.
 * {@link Sba200Model} is the shell around it: the register hooks (doorbells, BCR reset/release), the kicks, the
 * timers' callbacks and the cell FIFO other threads offer into.
 *
 * <pre>
 *   service(now):  kernel commands -&gt; receive cells (demux, reassembly, RQ DMA) -&gt; send descriptors
 *   host memory:   only through the card's DMA port ({@link DmaView}'s accesses, bus addresses): segments and
 *                  receive queues at the bus base and length validated at EP_CREATE, GET_STATS at the command's
 *                  address; a failed access is a BusError code, reported as the card's DMA error
 *   board RAM:     the shell's window; the firmware stores counters and handoff words with volatile stores
 *   timers:        tx-done (virtual time: the PDU's last cell has left) and rx-cell (the head cell's i960 work is
 *                  done); the firmware arms them, the shell's callbacks call back into {@link #txDone} / kick
 * </pre>
 *
 * <p>Every state change ends with a {@link Sba200Trace} event. The behaviour is described on {@link Sba200Model}.
 */
final class Sba200Firmware {
    private static final Logger LOG = LoggerFactory.getLogger(Sba200Firmware.class);
    /** Send descriptors processed per service pass at most (fairness with receive). */
    static final int TX_PER_PASS = 32;

    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    private static final java.lang.invoke.VarHandle INT_BE_HANDLE = INT_BE.varHandle();
    /** Words in host memory are big-endian (SBus, contract {@code sba200_unet.h}). */
    private static final ByteOrder BUS_ORDER = ByteOrder.BIG_ENDIAN;
    private static final int NO_ERROR = 0;
    /** Internal reassembly verdict: drop silently (RQ full at the first cell). */
    private static final int DISCARD_OVERRUN = 0x100;
    /** {@link #claimEntry}: no free receive-queue entry. */
    private static final long RQ_FULL = -1;
    /** {@link #claimEntry}: the receive queue could not be read (a DMA error, counted). */
    private static final long RQ_DMA_ERROR = -2;
    private static final int VCIS = VCI_TABLE_ENTRIES;

    private final String name;
    private final boolean virtual;
    private final Sba200Timing timing;
    private final MemorySegment ram;
    private final Registers ramRegisters;
    /** The i960's DMA engine: every access to host memory, with its mode (tests record them). */
    private final DmaView dma;
    private final InterruptLine irq;
    private final FrameFifo ingress;
    private final SimTimer txDoneTimer;
    private final SimTimer rxTimer;
    private Sba200Trace trace = Sba200Trace.NONE;

    // ---- the i960's protection table, per endpoint (indexed by endpoint number)
    private final MemorySegment[] pages = new MemorySegment[MAX_ENDPOINTS];
    /** Per endpoint, the segment's bus base and length, validated at EP_CREATE: offsets are checked against these. */
    private final long[] segmentBases = new long[MAX_ENDPOINTS];
    private final long[] segmentLengths = new long[MAX_ENDPOINTS];
    private final int[] rqLengths = new int[MAX_ENDPOINTS];
    private final UnetNiSendQueue[] sendQueues = new UnetNiSendQueue[MAX_ENDPOINTS];
    private final UnetNiFreeQueue[] freeQueues = new UnetNiFreeQueue[MAX_ENDPOINTS];
    /** Per endpoint, the receive queue's bus base (rqLengths entries of RQ_ENTRY_SIZE bytes). */
    private final long[] rqBases = new long[MAX_ENDPOINTS];
    /** Per endpoint, the receive-queue producer index (what rq_prod_shadow holds once published). */
    private final int[] rqProd = new int[MAX_ENDPOINTS];
    private int activeMask;
    /** Per endpoint, bit c = channel c open. */
    private final long[] channelsOpen = new long[MAX_ENDPOINTS];
    /** Per endpoint, receive-queue entries reserved by PDUs in reassembly (see {@link #rqHasRoom}). */
    private final int[] rqReserved = new int[MAX_ENDPOINTS];
    /** [ep * 64 + chan] = cell header word (VPI, TX VCI; PTI 0, CLP 0). */
    private final int[] txHeaders = new int[MAX_ENDPOINTS * MAX_CHANNELS];
    /** [ep * 64 + chan] = the RX VCI the channel registered. */
    private final int[] rxVcis = new int[MAX_ENDPOINTS * MAX_CHANNELS];
    /**
     * Bit v = TX VCI v is used by an open channel of this card. The firmware protects the tags (paper 3.2): two
     * channels sending on one VCI would interleave their cells into one AAL5 reassembly at the receiver.
     */
    private final long[] txVcisInUse = new long[VCIS / Long.SIZE];

    // ---- reassembly state per incoming VCI (firmware-private, "not part of the contract")
    private final int[] rxCells = new int[VCIS];
    private final int[] rxCrc = new int[VCIS];
    private final int[] rxError = new int[VCIS];
    private final int[] rxBytes = new int[VCIS];
    private final int[] rxNbufs = new int[VCIS];
    /** The PDU in reassembly on this VCI holds one of its endpoint's reserved receive-queue entries. */
    private final boolean[] rxHoldsEntry = new boolean[VCIS];
    private final int[] rxBufOffset = new int[VCIS * MAX_BUFS];
    private final int[] rxBufCapacity = new int[VCIS * MAX_BUFS];
    private final int[] rxBufFill = new int[VCIS * MAX_BUFS];
    /** One held-back 48-byte payload per VCI. */
    private final MemorySegment rxHeld;

    // ---- transmit staging
    /** 4-byte SunATM pseudo-header, then the CPCS-PDU (payload, pad, trailer). */
    private final MemorySegment pdu;
    private final MemorySegment cell;
    private final MemorySegment captureBuffer;
    /** Virtual time at which the head cell's processing ends; -1 when it has not started. */
    private long rxDoneAt = -1;
    /**
     * Virtual time until which the one i960 is taken by the work reserved so far (see {@link Sba200Timing}, "one
     * i960"): received cells and send descriptors queue on this single timeline.
     */
    private long i960FreeAt = Long.MIN_VALUE;
    private boolean txBusy;
    private int txEp;
    private long txDescriptor;
    private int txNext;

    private CellLink uplink;
    /** The one field another thread may set while the card runs (a capture switched on or off). */
    private volatile PcapWriter capture;
    private long protocolErrors;
    /** The ingress FIFO's overflow count already added to {@code drop_fifo_overflow}. */
    private long fifoOverflowsCounted;

    /**
     * The firmware over its board RAM, booted.
     *
     * @param ram          the 256 KiB board RAM; {@code ramRegisters} is the shell's window over it (the firmware uses
     *                     its raw accessors only: no hooks run)
     * @param virtual      whether time is virtual (the card's costs are then simulated)
     * @param dma          the card's DMA port: the only way to host memory (the shell's DmaSpace, or a test's
     *                     recording view over it)
     * @param arena        where the firmware's own staging buffers live (the shell's, freed with it)
     * @param ingress      the cells the uplink delivered, offered by the shell from any thread, drained here
     * @param txDoneTimer  the shell's timer whose callback calls {@link #txDone} and kicks the engine
     * @param rxTimer      the shell's timer whose callback kicks the engine
     */
    Sba200Firmware(String name, boolean virtual, Sba200Timing timing, Arena arena, MemorySegment ram,
                   Registers ramRegisters, DmaView dma, InterruptLine irq, FrameFifo ingress,
                   SimTimer txDoneTimer, SimTimer rxTimer) {
        this.name = name;
        this.virtual = virtual;
        this.timing = timing;
        this.ram = ram;
        this.ramRegisters = ramRegisters;
        this.dma = dma;
        this.irq = irq;
        this.ingress = ingress;
        this.txDoneTimer = txDoneTimer;
        this.rxTimer = rxTimer;
        this.rxHeld = arena.allocate((long) VCIS * AtmCells.PAYLOAD_SIZE, 8);
        this.pdu = arena.allocate(4 + (long) Aal5.MAX_CELLS * AtmCells.PAYLOAD_SIZE, 8);
        this.cell = arena.allocate(AtmCells.CELL_SIZE, 8);
        this.captureBuffer = arena.allocate(4 + (long) MAX_PDU, 8);
        boot();
    }

    /** Installs a tracer ({@link Sba200Trace#NONE} to stop). Engine thread, or before the card runs. */
    void trace(Sba200Trace tracer) {
        this.trace = tracer;
    }

    /** The uplink the firmware transmits cells on (setup, before the engine services the card). */
    void uplink(CellLink link) {
        this.uplink = link;
        ram.set(INT_BE, UG_OFS + UG_LINK_STATUS_OFS, UG_LINK_CARRIER);
    }

    CellLink uplink() {
        return uplink;
    }

    void capture(PcapWriter writer) {
        this.capture = writer;
    }

    /** Impossible command producer values seen (more than CMDQ_LEN ahead); never trusted. */
    long protocolErrors() {
        return protocolErrors;
    }

    /**
     * One pass of the i960's polling loop at time {@code now}: kernel commands, then received cells, then send
     * descriptors; the heartbeat counts passes that did work.
     *
     * @return work done
     */
    int service(long now) {
        int work = commands();
        work += receive(now);
        work += transmit(now);
        if (work > 0) {
            addRaw(UG_OFS + UG_HEARTBEAT_OFS, 1);
        }
        return work;
    }

    // =============================================================================================== boot

    /** Power-on / reset release: clears all state and RAM, writes the monitor block and the UG block. */
    void boot() {
        txDoneTimer.cancel();
        txBusy = false;
        txNext = 0;
        for (int e = 0; e < MAX_ENDPOINTS; e++) {
            forgetEndpoint(e);
        }
        activeMask = 0;
        java.util.Arrays.fill(txVcisInUse, 0);
        java.util.Arrays.fill(rxCells, 0);
        java.util.Arrays.fill(rxHoldsEntry, false);
        ingress.clear();
        fifoOverflowsCounted = ingress.overflows(); // the counters start at 0 with the cleared RAM
        rxDoneAt = -1;
        i960FreeAt = Long.MIN_VALUE;
        java.util.Arrays.fill(rqProd, 0);
        ram.fill((byte) 0);
        ram.set(INT_BE, MONITOR_OFS + MONITOR_APP_BASE_OFS, FIRMWARE_OFS);
        ram.set(INT_BE, MONITOR_OFS + MONITOR_VERSION_OFS, Sba200Model.MONITOR_VERSION);
        int ug = UG_OFS;
        ram.set(INT_BE, ug + UG_MAGIC_OFS, UG_MAGIC);
        ram.set(INT_BE, ug + UG_VERSION_OFS, UG_VERSION);
        ram.set(INT_BE, ug + UG_MAX_ENDPOINTS_OFS, MAX_ENDPOINTS);
        ram.set(INT_BE, ug + UG_EP_PAGE_BASE_OFS, EP_PAGE_BASE);
        ram.set(INT_BE, ug + UG_EP_PAGE_SIZE_OFS, EP_PAGE_SIZE);
        ram.set(INT_BE, ug + UG_CMDQ_BASE_OFS, CMDQ_OFS);
        ram.set(INT_BE, ug + UG_CMDQ_LEN_OFS, CMDQ_LEN);
        ram.set(INT_BE, ug + UG_LINK_STATUS_OFS, uplink != null ? UG_LINK_CARRIER : 0);
        irq.lower();
        // The boot status is the last word written: a kernel polling for CP_RUNNING then sees everything above.
        ramRegisters.storeRaw(MONITOR_OFS + MONITOR_BOOT_STATUS_OFS, BOOT_CP_RUNNING);
        trace.event(Sba200Trace.Event.BOOTED, -1, 0);
        LOG.debug("{}: U-Net firmware running", name);
    }

    private void forgetEndpoint(int e) {
        pages[e] = null;
        segmentBases[e] = 0;
        segmentLengths[e] = 0;
        rqLengths[e] = 0;
        sendQueues[e] = null;
        freeQueues[e] = null;
        rqBases[e] = 0;
        channelsOpen[e] = 0;
        rqReserved[e] = 0;
        activeMask &= ~(1 << e);
    }

    // =============================================================================================== commands

    private int commands() {
        int cons = ramRegisters.loadRaw(UG_OFS + UG_CMD_CONS_OFS);
        int prod = ramRegisters.loadRaw(UG_OFS + UG_CMD_PROD_OFS);
        int pending = prod - cons;
        if (pending == 0) {
            return 0;
        }
        if (Integer.compareUnsigned(pending, CMDQ_LEN) > 0) {
            protocolErrors++;
            return 0;
        }
        int done = 0;
        while (cons != prod) {
            int slot = CMDQ_OFS + (cons & (CMDQ_LEN - 1)) * CMD_SIZE;
            int op = ram.get(INT_BE, slot + CMD_OP_OFS);
            int result = execute(op & CMD_OPCODE_MASK, slot);
            int status = result == NO_ERROR ? CMD_STATUS_DONE
                : CMD_STATUS_ERROR | (result << CMD_ERROR_SHIFT) & CMD_ERROR_MASK;
            // Handoff: status (volatile store) before the consumer index, which the kernel reads to know it is done.
            ramRegisters.storeRaw(slot + CMD_STATUS_OFS, status);
            cons++;
            ramRegisters.storeRaw(UG_OFS + UG_CMD_CONS_OFS, cons);
            trace.event(Sba200Trace.Event.COMMAND_DONE, -1, (op & CMD_OPCODE_MASK) << 16 | result & 0xFFFF);
            if ((op & CMD_IRQ) != 0) {
                signalHost();
            }
            done++;
        }
        return done;
    }

    private int arg(int slot, int ofs) {
        return ram.get(INT_BE, slot + ofs);
    }

    /** @return 0 or a CMD_ERR_* code */
    private int execute(int opcode, int slot) {
        switch (opcode) {
            case OP_EP_CREATE:
                return epCreate(arg(slot, CMD_EP_CREATE_EP_OFS), arg(slot, CMD_EP_CREATE_SEG_BASE_OFS),
                    arg(slot, CMD_EP_CREATE_SEG_LEN_OFS), arg(slot, CMD_EP_CREATE_RQ_BASE_OFS),
                    arg(slot, CMD_EP_CREATE_RQ_LEN_OFS));
            case OP_EP_DESTROY:
                return epDestroy(arg(slot, CMD_EP_DESTROY_EP_OFS));
            case OP_CH_OPEN:
                return chOpen(arg(slot, CMD_CH_OPEN_EP_OFS), arg(slot, CMD_CH_OPEN_CHAN_OFS),
                    arg(slot, CMD_CH_OPEN_VPI_OFS), arg(slot, CMD_CH_OPEN_TX_VCI_OFS),
                    arg(slot, CMD_CH_OPEN_RX_VCI_OFS));
            case OP_CH_CLOSE:
                return chClose(arg(slot, CMD_CH_CLOSE_EP_OFS), arg(slot, CMD_CH_CLOSE_CHAN_OFS));
            case OP_EP_UPCALL:
                return epUpcall(arg(slot, CMD_EP_UPCALL_EP_OFS), arg(slot, CMD_EP_UPCALL_MODE_OFS));
            case OP_GET_STATS:
                return getStats(arg(slot, CMD_GET_STATS_ADDR_OFS));
            case OP_NOP:
                return NO_ERROR;
            default:
                return CMD_ERR_BAD_OPCODE;
        }
    }

    private boolean active(int ep) {
        return Integer.compareUnsigned(ep, MAX_ENDPOINTS) < 0 && (activeMask & (1 << ep)) != 0;
    }

    private int epCreate(int ep, int segBase, int segLen, int rqBase, int rqLen) {
        if (Integer.compareUnsigned(ep, MAX_ENDPOINTS) >= 0) {
            return CMD_ERR_BAD_ENDPOINT;
        }
        if (active(ep)) {
            return CMD_ERR_EP_ACTIVE;
        }
        long segBus = Integer.toUnsignedLong(segBase);
        long segBytes = Integer.toUnsignedLong(segLen);
        if (segBytes == 0 || (segBus & (SEG_ALIGN - 1)) != 0 || dma.translate(segBus, segBytes) < 0) {
            return CMD_ERR_BAD_SEGMENT;
        }
        long rqBus = Integer.toUnsignedLong(rqBase);
        if (rqLen < RQ_LEN_MIN || rqLen > RQ_LEN_MAX || Integer.bitCount(rqLen) != 1
            || (rqBus & (RQ_ALIGN - 1)) != 0 || dma.translate(rqBus, (long) rqLen * RQ_ENTRY_SIZE) < 0) {
            return CMD_ERR_BAD_RQ;
        }
        MemorySegment page = ram.asSlice(Sba200Model.pageOffset(ep), EP_PAGE_SIZE);
        page.fill((byte) 0);
        // The receive queue starts empty: the firmware clears every VALID bit by DMA. (A write fails only when the
        // kernel unmaps or frees the queue while its own EP_CREATE runs.)
        for (int i = 0; i < rqLen; i++) {
            if (dma.writeInt(rqBus + (long) i * RQ_ENTRY_SIZE + RECV_DESC_W0_OFS, 0, BUS_ORDER) < 0) {
                return CMD_ERR_DMA;
            }
        }
        page.set(INT_BE, EPCB_RQ_LEN_OFS, rqLen);
        page.set(INT_BE, EPCB_SEG_LEN_OFS, segLen);
        pages[ep] = page;
        segmentBases[ep] = segBus;
        segmentLengths[ep] = segBytes;
        rqLengths[ep] = rqLen;
        rqBases[ep] = rqBus;
        sendQueues[ep] = new UnetNiSendQueue(page);
        freeQueues[ep] = new UnetNiFreeQueue(page);
        rqProd[ep] = 0; // = rq_prod_shadow of the cleared page
        channelsOpen[ep] = 0;
        page.set(INT_BE, EPCB_EP_STATUS_OFS, EP_ACTIVE);
        activeMask |= 1 << ep;
        return NO_ERROR;
    }

    private int epDestroy(int ep) {
        if (Integer.compareUnsigned(ep, MAX_ENDPOINTS) >= 0) {
            return CMD_ERR_BAD_ENDPOINT;
        }
        if (!active(ep)) {
            return CMD_ERR_EP_INACTIVE;
        }
        for (int c = 0; c < MAX_CHANNELS; c++) {
            if ((channelsOpen[ep] & (1L << c)) != 0) {
                closeChannel(ep, c);
            }
        }
        if (txBusy && txEp == ep) {
            // The PDU's cells are already on the fiber; its completion has nowhere to go.
            txDoneTimer.cancel();
            txBusy = false;
        }
        pages[ep].fill((byte) 0);
        forgetEndpoint(ep);
        ramRegisters.getAndBitwiseAndRaw(UG_OFS + UG_UPCALL_PENDING_OFS, ~(1 << ep));
        return NO_ERROR;
    }

    private int chOpen(int ep, int chan, int vpi, int txVci, int rxVci) {
        if (Integer.compareUnsigned(ep, MAX_ENDPOINTS) >= 0) {
            return CMD_ERR_BAD_ENDPOINT;
        }
        if (!active(ep)) {
            return CMD_ERR_EP_INACTIVE;
        }
        if (Integer.compareUnsigned(chan, MAX_CHANNELS) >= 0) {
            return CMD_ERR_BAD_CHANNEL;
        }
        if ((channelsOpen[ep] & (1L << chan)) != 0) {
            return CMD_ERR_CHANNEL_OPEN;
        }
        if (Integer.compareUnsigned(vpi, 0xFF) > 0 || !userVci(txVci) || !userVci(rxVci)) {
            return CMD_ERR_BAD_VCI;
        }
        int entryOfs = VCI_TABLE_OFS + rxVci * VCI_ENTRY_SIZE;
        if ((ram.get(INT_BE, entryOfs) & VCI_VALID) != 0 || (txVcisInUse[txVci >>> 6] & 1L << txVci) != 0) {
            return CMD_ERR_VCI_IN_USE;
        }
        txVcisInUse[txVci >>> 6] |= 1L << txVci;
        int i = ep * MAX_CHANNELS + chan;
        txHeaders[i] = AtmCells.header(vpi, txVci, 0, 0);
        rxVcis[i] = rxVci;
        rxCells[rxVci] = 0;
        rxHoldsEntry[rxVci] = false;
        channelsOpen[ep] |= 1L << chan;
        ramRegisters.storeRaw(entryOfs, VCI_VALID | ep << VCI_EP_SHIFT | chan << VCI_CHAN_SHIFT
            | vpi << VCI_VPI_SHIFT);
        return NO_ERROR;
    }

    private static boolean userVci(int vci) {
        return vci >= VCI_FIRST_USER && vci < VCIS;
    }

    private int chClose(int ep, int chan) {
        if (Integer.compareUnsigned(ep, MAX_ENDPOINTS) >= 0) {
            return CMD_ERR_BAD_ENDPOINT;
        }
        if (!active(ep)) {
            return CMD_ERR_EP_INACTIVE;
        }
        if (Integer.compareUnsigned(chan, MAX_CHANNELS) >= 0 || (channelsOpen[ep] & (1L << chan)) == 0) {
            return CMD_ERR_BAD_CHANNEL;
        }
        closeChannel(ep, chan);
        return NO_ERROR;
    }

    private void closeChannel(int ep, int chan) {
        int rxVci = rxVcis[ep * MAX_CHANNELS + chan];
        int txVci = AtmCells.vci(txHeaders[ep * MAX_CHANNELS + chan]);
        txVcisInUse[txVci >>> 6] &= ~(1L << txVci);
        ramRegisters.storeRaw(VCI_TABLE_OFS + rxVci * VCI_ENTRY_SIZE, 0);
        rxCells[rxVci] = 0;
        releaseEntry(ep, rxVci); // the PDU in reassembly can never end now
        channelsOpen[ep] &= ~(1L << chan);
    }

    private int epUpcall(int ep, int mode) {
        if (Integer.compareUnsigned(ep, MAX_ENDPOINTS) >= 0) {
            return CMD_ERR_BAD_ENDPOINT;
        }
        if (!active(ep)) {
            return CMD_ERR_EP_INACTIVE;
        }
        if ((mode & ~UPCALL_BOTH) != 0) { // NONE, NONEMPTY, ALMOST_FULL or both
            return CMD_ERR_BAD_MODE;
        }
        pages[ep].set(INT_BE, EPCB_UPCALL_MODE_OFS, mode);
        return NO_ERROR;
    }

    private int getStats(int address) {
        long bus = Integer.toUnsignedLong(address);
        if (dma.copyToBus(ram, UG_OFS + UG_STATS_OFS, bus, STATS_SIZE) < 0) {
            addRaw(UG_OFS + UG_CNT_DMA_ERRORS_OFS, 1);
            return CMD_ERR_DMA;
        }
        return NO_ERROR;
    }

    // =============================================================================================== transmit

    private int transmit(long now) {
        int work = 0;
        while (!txBusy && activeMask != 0 && work < TX_PER_PASS) {
            int found = -1;
            long d = -1;
            // Round robin over the active endpoints only, starting after the last one served.
            int rotated = Integer.rotateRight(activeMask, txNext & (MAX_ENDPOINTS - 1));
            while (rotated != 0) {
                int ep = (Integer.numberOfTrailingZeros(rotated) + txNext) & (MAX_ENDPOINTS - 1);
                rotated &= rotated - 1;
                if ((d = sendQueues[ep].poll()) >= 0) {
                    found = ep;
                    break;
                }
            }
            if (found < 0) {
                break;
            }
            txNext = found + 1;
            sendOne(found, d, now);
            work++;
        }
        return work;
    }

    private void sendOne(int ep, long d, long now) {
        UnetNiSendQueue q = sendQueues[ep];
        if (!q.isValid(d)) {
            reject(ep, d, TX_STATUS_BAD_DESC);
            return;
        }
        int length = q.length(d);
        int chan = q.channel(d);
        if ((channelsOpen[ep] & (1L << chan)) == 0) {
            reject(ep, d, TX_STATUS_BAD_CHANNEL);
            return;
        }
        if (length == AAL5_LENGTH_ABORT) {
            // [P] AAL5 reserves LEN 0 for "abort": the receiver would discard it, so the firmware refuses it.
            reject(ep, d, TX_STATUS_BAD_DESC);
            return;
        }
        // One i960: the descriptor's work starts when the work reserved before it is done (virtual time).
        long start = virtual ? Math.max(now, i960FreeAt) : now;
        long firstReady = start + timing.txSetupNanos();
        long picosPerCell = 0;
        if (q.isInline(d)) {
            if (length > INLINE_MAX) {
                reject(ep, d, TX_STATUS_TOO_LONG);
                return;
            }
            q.copyInline(d, pdu, 4, length);
        } else {
            int nbufs = q.nbufs(d);
            if (nbufs < 1 || nbufs > MAX_BUFS) {
                reject(ep, d, TX_STATUS_BAD_DESC);
                return;
            }
            long segLen = segmentLengths[ep];
            long sum = 0;
            for (int i = 0; i < nbufs; i++) {
                long off = Integer.toUnsignedLong(q.bufferOffset(d, i));
                long len = Integer.toUnsignedLong(q.bufferLength(d, i));
                if (len > MAX_PDU) {
                    reject(ep, d, TX_STATUS_TOO_LONG);
                    return;
                }
                if (off + len > segLen) {
                    setStatusBits(ep, EP_SEGFAULT);
                    reject(ep, d, TX_STATUS_SEG_BOUNDS);
                    return;
                }
                sum += len;
            }
            if (sum != length) {
                reject(ep, d, TX_STATUS_BAD_DESC);
                return;
            }
            long segBus = segmentBases[ep];
            long at = 4;
            for (int i = 0; i < nbufs; i++) {
                long off = Integer.toUnsignedLong(q.bufferOffset(d, i));
                int len = q.bufferLength(d, i);
                if (len > 0 && dma.copyFromBus(segBus + off, pdu, at, len) < 0) {
                    // The segment's memory was released (or unmapped) under the card: a bus error, reported the
                    // card's way. (An empty buffer moves no data: no bus cycle, no error.)
                    addRaw(UG_OFS + UG_CNT_DMA_ERRORS_OFS, 1);
                    reject(ep, d, TX_STATUS_DMA_ERROR);
                    return;
                }
                at += len;
            }
            picosPerCell = AtmCells.PAYLOAD_SIZE * timing.dmaPicosPerByte();
        }
        int total = Aal5.frame(pdu, 4, length, 0);
        int cells = total / AtmCells.PAYLOAD_SIZE;
        int header = txHeaders[ep * MAX_CHANNELS + chan];
        CellLink link = uplink;
        for (int c = 0; c < cells; c++) {
            int h = c == cells - 1 ? header | PTI_AUU << HDR_PTI_SHIFT : header;
            AtmCells.writeHeader(cell, 0, h);
            MemorySegment.copy(pdu, 4 + (long) c * AtmCells.PAYLOAD_SIZE, cell, AtmCells.HEADER_SIZE,
                AtmCells.PAYLOAD_SIZE);
            if (link != null) {
                link.transmit(cell, 0, firstReady + (c + 1) * picosPerCell / 1000);
            }
        }
        addRaw(UG_OFS + UG_CNT_CELLS_TX_OFS, cells);
        addRaw(UG_OFS + UG_CNT_PDUS_TX_OFS, 1);
        trace.event(Sba200Trace.Event.TX_CELLS_SENT, ep, cells);
        PcapWriter w = capture;
        if (w != null) {
            writePseudoHeader(pdu, 0, true, header);
            w.record(now, pdu, 0, 4 + length, 4 + length);
        }
        if (virtual && link != null) {
            // The i960 is busy until the last cell is fetched into the output FIFO; it moves on to the next
            // descriptor then, or - when the fiber is the bottleneck - once this PDU's tail is close enough to
            // leaving that the next PDU's first cell is ready as the fiber frees up (see Sba200Timing: pipelining).
            long fetchedAt = firstReady + cells * picosPerCell / 1000;
            i960FreeAt = fetchedAt;
            long movesOnAt = Math.max(fetchedAt, link.lastDepartureNanos() - nextDescriptorLead());
            txBusy = true;
            txEp = ep;
            txDescriptor = d;
            txDoneTimer.armAfter(Math.max(0, movesOnAt - now));
        } else {
            q.complete(d, TX_STATUS_SENT);
            trace.event(Sba200Trace.Event.TX_COMPLETED, ep, 0);
        }
    }

    /**
     * From taking a send descriptor to its first cell being ready, for a one-buffer send: set-up plus one cell's
     * fetch. The firmware takes the next descriptor no earlier than this before the previous PDU's last cell leaves,
     * so the fiber never idles between back-to-back PDUs and at most one PDU waits in the output FIFO.
     */
    private long nextDescriptorLead() {
        return timing.txSetupNanos() + AtmCells.PAYLOAD_SIZE * timing.dmaPicosPerByte() / 1000;
    }

    /** Reserves {@code cost} ns of the i960 from {@code now} or after the work already reserved; returns its end. */
    private long reserveI960(long now, long cost) {
        long start = Math.max(now, i960FreeAt);
        i960FreeAt = start + cost;
        return i960FreeAt;
    }

    /**
     * Virtual time: the firmware is done with the PDU (its cells are fetched, and the fiber has little enough left
     * of it, see {@link #nextDescriptorLead}); status SENT, then sq_cons. The shell's tx-done timer calls this and
     * then kicks the engine, whose next pass takes the next descriptor.
     */
    void txDone() {
        if (!txBusy) {
            return;
        }
        txBusy = false;
        if (active(txEp)) {
            sendQueues[txEp].complete(txDescriptor, TX_STATUS_SENT);
            trace.event(Sba200Trace.Event.TX_COMPLETED, txEp, 0);
        }
    }

    private void reject(int ep, long d, int status) {
        sendQueues[ep].complete(d, status);
        addRaw(UG_OFS + UG_CNT_TX_REJECTED_OFS, 1);
        addPage(ep, EPCB_TX_REJECTED_OFS, 1);
        trace.event(Sba200Trace.Event.TX_REJECTED, ep, status);
    }

    // =============================================================================================== receive

    private int receive(long now) {
        int work = 0;
        countFifoOverflows();
        while (ingress.peekLength() >= 0) {
            if (virtual) {
                // Virtual time: the head cell's processing takes the i960 for its cost, after the work reserved
                // before it (a send descriptor, say); its effects appear when it is done.
                if (rxDoneAt < 0) {
                    rxDoneAt = reserveI960(now, receiveCost(ingress.buffer(), ingress.peekOffset()));
                }
                if (now < rxDoneAt) {
                    rxTimer.armAfter(rxDoneAt - now);
                    return work;
                }
                rxDoneAt = -1;
            }
            receiveCell(ingress.buffer(), ingress.peekOffset(), now);
            ingress.release();
            work++;
        }
        return work;
    }

    /**
     * Cells the uplink could not put into the full ingress FIFO (the i960 fell behind the fibre) are counted in the
     * card's statistics ({@code drop_fifo_overflow}): the FIFO counts them on the offering thread, the firmware
     * publishes the count here, on its own thread, as it does every counter.
     */
    private void countFifoOverflows() {
        long lost = ingress.overflows();
        if (lost != fifoOverflowsCounted) {
            addRaw(UG_OFS + UG_CNT_DROP_FIFO_OVERFLOW_OFS, (int) (lost - fifoOverflowsCounted));
            fifoOverflowsCounted = lost;
        }
    }

    /** i960 time to process the cell at {@code at} (see {@link Sba200Timing}). */
    private long receiveCost(MemorySegment c, long at) {
        int header = AtmCells.readHeader(c, at);
        long dma48 = AtmCells.PAYLOAD_SIZE * timing.dmaPicosPerByte() / 1000;
        if (!AtmCells.hecOk(c, at) || AtmCells.isNonUser(header)) {
            return timing.rxCellNanos();
        }
        int vci = AtmCells.vci(header);
        boolean first = vci >= VCIS || rxCells[vci] == 0;
        if (AtmCells.isLastOfPdu(header)) {
            return first ? timing.rxCellNanos() + timing.rxInlineNanos()
                : timing.rxCellNanos() + dma48 + timing.rxBufferPduNanos();
        }
        return timing.rxCellNanos() + dma48;
    }

    private void receiveCell(MemorySegment c, long at, long now) {
        addRaw(UG_OFS + UG_CNT_CELLS_RX_OFS, 1);
        if (!AtmCells.hecOk(c, at)) {
            addRaw(UG_OFS + UG_CNT_HEC_ERRORS_OFS, 1);
            trace.event(Sba200Trace.Event.RX_CELL_DROPPED, -1, AtmCells.vci(AtmCells.readHeader(c, at)));
            return;
        }
        int header = AtmCells.readHeader(c, at);
        if (AtmCells.isNonUser(header)) {
            return; // OAM / RM cells are not AAL5 data; the U-Net firmware ignores them
        }
        int vci = AtmCells.vci(header);
        int entry = vci < VCIS ? ram.get(INT_BE, VCI_TABLE_OFS + vci * VCI_ENTRY_SIZE) : 0;
        if ((entry & VCI_VALID) == 0 || (entry & VCI_VPI_MASK) >>> VCI_VPI_SHIFT != AtmCells.vpi(header)) {
            addRaw(UG_OFS + UG_CNT_DROP_UNKNOWN_VCI_OFS, 1);
            trace.event(Sba200Trace.Event.RX_CELL_DROPPED, -1, vci);
            return;
        }
        int ep = (entry & VCI_EP_MASK) >>> VCI_EP_SHIFT;
        int chan = (entry & VCI_CHAN_MASK) >>> VCI_CHAN_SHIFT;
        if (!active(ep)) {
            addRaw(UG_OFS + UG_CNT_DROP_UNKNOWN_VCI_OFS, 1);
            trace.event(Sba200Trace.Event.RX_CELL_DROPPED, -1, vci);
            return;
        }
        long payload = at + AtmCells.HEADER_SIZE;
        boolean last = AtmCells.isLastOfPdu(header);
        int n = rxCells[vci];
        if (n == 0) {
            rxCrc[vci] = Aal5.CRC_INIT;
            rxError[vci] = NO_ERROR;
            rxBytes[vci] = 0;
            rxNbufs[vci] = 0;
            if (!last) {
                // Its entry is reserved now, before it takes a buffer: then the buffers are always reported.
                if (rqHasRoom(ep)) {
                    rqReserved[ep]++;
                    rxHoldsEntry[vci] = true;
                    trace.event(Sba200Trace.Event.RX_ENTRY_RESERVED, ep, vci);
                } else {
                    rxError[vci] = DISCARD_OVERRUN;
                }
            }
        }
        rxCells[vci] = n + 1;
        long held = (long) vci * AtmCells.PAYLOAD_SIZE;
        if (!last) {
            rxCrc[vci] = Aal5.crcUpdate(rxCrc[vci], c, payload, AtmCells.PAYLOAD_SIZE);
            if (n + 1 >= Aal5.MAX_CELLS && rxError[vci] == NO_ERROR) {
                rxError[vci] = RX_ERR_LENGTH; // longer than any AAL5 PDU: its end was lost
            }
            if (rxError[vci] == NO_ERROR && n > 0) {
                writeBuffers(ep, vci, rxHeld, held, AtmCells.PAYLOAD_SIZE);
            }
            MemorySegment.copy(c, payload, rxHeld, held, AtmCells.PAYLOAD_SIZE);
            return;
        }
        // Last cell: the CRC covers everything up to the CRC field itself.
        int crc = Aal5.crcFinish(Aal5.crcUpdate(rxCrc[vci], c, payload, AtmCells.PAYLOAD_SIZE - 4));
        int cells = n + 1;
        rxCells[vci] = 0;
        int error = rxError[vci];
        if (error == DISCARD_OVERRUN) {
            dropOverrun(ep);
            return;
        }
        int length = Aal5.trailerLength(c, payload);
        if (error == NO_ERROR) {
            // The length check first: a lost cell is then reported as what it is (the CRC would fail as well).
            if (length == AAL5_LENGTH_ABORT || Aal5.cells(length) != cells) {
                error = RX_ERR_LENGTH;
            } else if (crc != Aal5.trailerCrc(c, payload)) {
                error = RX_ERR_CRC;
            }
        }
        if (error == NO_ERROR && cells == 1) {
            deliverInline(ep, chan, vci, c, payload, length, Aal5.trailerUu(c, payload),
                Aal5.trailerCpi(c, payload), now);
            return;
        }
        if (error == NO_ERROR) {
            // Everything before the held cell is in the buffers; write the rest of LEN from held + last.
            int rest = length - rxBytes[vci];
            int fromHeld = Math.min(rest, AtmCells.PAYLOAD_SIZE);
            writeBuffers(ep, vci, rxHeld, held, fromHeld);
            if (rxError[vci] == NO_ERROR && rest > fromHeld) {
                writeBuffers(ep, vci, c, payload, rest - fromHeld);
            }
            error = rxError[vci];
        }
        if (error == RX_ERR_CRC) {
            addRaw(UG_OFS + UG_CNT_AAL5_CRC_ERRORS_OFS, 1);
        } else if (error == RX_ERR_LENGTH) {
            addRaw(UG_OFS + UG_CNT_LENGTH_ERRORS_OFS, 1);
        }
        deliverBuffers(ep, chan, vci, error, error == NO_ERROR ? length : rxBytes[vci],
            Aal5.trailerUu(c, payload), Aal5.trailerCpi(c, payload), now);
    }

    /** Copies {@code n} payload bytes into the VCI's free buffers, popping more as needed; sets rxError on failure. */
    private void writeBuffers(int ep, int vci, MemorySegment src, long from, int n) {
        long segBus = segmentBases[ep];
        int base = vci * MAX_BUFS;
        while (n > 0) {
            int b = rxNbufs[vci] - 1;
            if (b < 0 || rxBufFill[base + b] == rxBufCapacity[base + b]) {
                if (rxNbufs[vci] == MAX_BUFS) {
                    rxError[vci] = RX_ERR_TOO_MANY_BUFS;
                    return;
                }
                UnetNiFreeQueue fq = freeQueues[ep];
                if (fq.poll() < 0) { // EMPTY, or PEER_CORRUPT (counted in the queue's protocolErrors)
                    rxError[vci] = RX_ERR_NO_BUFFERS;
                    addRaw(UG_OFS + UG_CNT_DROP_NO_FREE_BUF_OFS, 1);
                    addPage(ep, EPCB_DROP_NO_FREE_BUF_OFS, 1);
                    setStatusBits(ep, EP_NO_FREE_BUF);
                    return;
                }
                long off = Integer.toUnsignedLong(fq.offset());
                long len = Integer.toUnsignedLong(fq.length());
                if (len == 0 || (off & (FQ_BUF_ALIGN - 1)) != 0 || off + len > segmentLengths[ep]) {
                    // A free buffer outside the process's own segment: never written, reported as a DMA error.
                    rxError[vci] = RX_ERR_DMA;
                    addRaw(UG_OFS + UG_CNT_DMA_ERRORS_OFS, 1);
                    setStatusBits(ep, EP_SEGFAULT);
                    return;
                }
                b = rxNbufs[vci]++;
                rxBufOffset[base + b] = (int) off;
                rxBufCapacity[base + b] = (int) Math.min(len, Integer.MAX_VALUE);
                rxBufFill[base + b] = 0;
            }
            int k = Math.min(n, rxBufCapacity[base + b] - rxBufFill[base + b]);
            long to = Integer.toUnsignedLong(rxBufOffset[base + b]) + rxBufFill[base + b];
            if (dma.copyToBus(src, from, segBus + to, k) < 0) {
                // The segment's memory was released (or unmapped) under the card: a bus error, reported as an ERROR
                // entry.
                rxError[vci] = RX_ERR_DMA;
                addRaw(UG_OFS + UG_CNT_DMA_ERRORS_OFS, 1);
                return;
            }
            rxBufFill[base + b] += k;
            rxBytes[vci] += k;
            from += k;
            n -= k;
        }
    }

    /**
     * True when {@code ep}'s receive queue has a free entry beyond the ones reserved: the slot after them still has
     * its VALID bit clear. The process consumes entries in order, so the reserved slots before it are free too.
     *
     * <pre>
     *   rq_prod              rq_prod + reserved
     *      |  reserved by PDUs  |
     *   ---+----+----+----------+------+---
     *      | .. | .. |    ..    | free?|        a new PDU needs this one
     *   ---+----+----+----------+------+---
     * </pre>
     *
     * A PDU of several cells reserves its entry at its first cell, before it takes any free buffer; single-cell PDUs
     * need an entry beyond the reserved ones. (Issue 16: the first cell used to check for room without reserving it,
     * so when other PDUs filled the queue before the last cell the PDU was dropped at the end and the buffers it had
     * taken were never reported.)
     *
     * <p>A queue the card cannot read (unmapped or freed under it) is not full: the PDU goes ahead, and its
     * {@link #claimEntry} reports the DMA error, once.
     */
    private boolean rqHasRoom(int ep) {
        int reserved = rqReserved[ep];
        if (reserved >= rqLengths[ep]) {
            return false;
        }
        long slot = (long) ((rqProd[ep] + reserved) & (rqLengths[ep] - 1)) * RQ_ENTRY_SIZE;
        long w0 = dma.readInt(rqBases[ep] + slot + RECV_DESC_W0_OFS, BUS_ORDER);
        return w0 < 0 || (w0 & RX_VALID) == 0;
    }

    /** Gives back the entry the PDU on {@code vci} reserved, if it holds one. */
    private void releaseEntry(int ep, int vci) {
        if (rxHoldsEntry[vci]) {
            rxHoldsEntry[vci] = false;
            rqReserved[ep]--;
        }
    }

    /**
     * The entry a finished PDU is published in: its reserved one, or for a PDU without a reservation the next one if
     * it is free beyond the reserved ones. {@link #RQ_FULL}: the queue is full (or the process set VALID on an entry
     * it was given back - its own loss). {@link #RQ_DMA_ERROR}: the queue could not be read (unmapped or freed
     * under the card), counted as a DMA error; the PDU is lost.
     *
     * <p>Handoff: the entry at rq_prod is the card's once its VALID bit, read with acquire, is clear - the
     * process's reads of it are then complete. The firmware writes the body, then {@link #publish} hands it back.
     */
    private long claimEntry(int ep, int vci) {
        if (rxHoldsEntry[vci]) {
            releaseEntry(ep, vci);
        } else if (!rqHasRoom(ep)) {
            return RQ_FULL;
        }
        long d = (long) (rqProd[ep] & (rqLengths[ep] - 1)) * RECV_DESC_SIZE;
        long w0 = dma.readIntAcquire(rqBases[ep] + d + Sba200UnetRecvDesc.OFFSET_W0, BUS_ORDER);
        if (w0 < 0) {
            addRaw(UG_OFS + UG_CNT_DMA_ERRORS_OFS, 1);
            return RQ_DMA_ERROR;
        }
        if ((w0 & RX_VALID) != 0) {
            return RQ_FULL;
        }
        return d;
    }

    /** Entry word w1: the error code, AAL5 UU and CPI. @return 0 or a BusError code */
    private int putStatus(int ep, long d, int error, int uu, int cpi) {
        return dma.writeInt(rqBases[ep] + d + Sba200UnetRecvDesc.OFFSET_W1, error << RX_ERR_SHIFT & RX_ERR_MASK
            | uu << RX_UU_SHIFT & RX_UU_MASK | cpi << RX_CPI_SHIFT & RX_CPI_MASK, BUS_ORDER);
    }

    /** Entry {@code timestamp_us}: one big-endian 64-bit value (w14 high). @return 0 or a BusError code */
    private int putTimestamp(int ep, long d, long micros) {
        return dma.writeLong(rqBases[ep] + d + Sba200UnetRecvDesc.OFFSET_TIMESTAMP_US, micros, BUS_ORDER);
    }

    /** @return 0 or a BusError code (both words are attempted; codes are negative, so their OR is too) */
    private int putBuffer(int ep, long d, int i, int offset, int length) {
        long pair = rqBases[ep] + d + Sba200UnetRecvDesc.OFFSET_BUFS + (long) Sba200UnetBuf.BYTE_SIZE * i;
        return dma.writeInt(pair + Sba200UnetBuf.OFFSET_OFFSET, offset, BUS_ORDER)
            | dma.writeInt(pair + Sba200UnetBuf.OFFSET_LENGTH, length, BUS_ORDER);
    }

    /**
     * Hands the entry at {@code d} to the process: w0 := fields | VALID with release (the payload and body written
     * before are visible to a process that reads VALID with acquire), then {@code rq_prod_shadow} with release.
     *
     * @return false when w0 could not be written (the queue was unmapped or freed under the card): nothing is
     *         published, the caller counts the DMA error
     */
    private boolean publish(int ep, long d, int length, int chan, int nbufs, int flags) {
        int w0 = flags | nbufs << RX_NBUFS_SHIFT | chan << RX_CHAN_SHIFT | length << RX_LENGTH_SHIFT | RX_VALID;
        if (dma.writeIntRelease(rqBases[ep] + d + Sba200UnetRecvDesc.OFFSET_W0, w0, BUS_ORDER) < 0) {
            return false;
        }
        INT_BE_HANDLE.setRelease(pages[ep], (long) EPCB_RQ_PROD_SHADOW_OFS, ++rqProd[ep]);
        trace.event(Sba200Trace.Event.RX_PUBLISHED, ep, w0);
        return true;
    }

    private void dropOverrun(int ep) {
        addRaw(UG_OFS + UG_CNT_DROP_RQ_FULL_OFS, 1);
        addPage(ep, EPCB_DROP_RQ_OVERRUN_OFS, 1);
        setStatusBits(ep, EP_RQ_OVERRUN);
        trace.event(Sba200Trace.Event.RX_OVERRUN, ep, 0);
    }

    private void deliverInline(int ep, int chan, int vci, MemorySegment c, long payload, int length, int uu,
                               int cpi, long now) {
        long d = claimEntry(ep, vci);
        if (d < 0) {
            if (d == RQ_FULL) {
                dropOverrun(ep);
            }
            return; // RQ_DMA_ERROR: counted
        }
        if (dma.copyToBus(c, payload, rqBases[ep] + d + RECV_DESC_INLINE_OFS, length) < 0
            || (putStatus(ep, d, RX_ERR_NONE, uu, cpi) | putTimestamp(ep, d, now / 1000)) < 0
            || !publish(ep, d, length, chan, 0, RX_INLINE)) {
            addRaw(UG_OFS + UG_CNT_DMA_ERRORS_OFS, 1); // the receive queue was unmapped or freed under the card
            return;
        }
        addRaw(UG_OFS + UG_CNT_PDUS_RX_OFS, 1);
        PcapWriter w = capture;
        if (w != null) {
            writePseudoHeader(captureBuffer, 0, false, txHeaderForCapture(c, payload));
            MemorySegment.copy(c, payload, captureBuffer, 4, length);
            w.record(now, captureBuffer, 0, 4 + length, 4 + length);
        }
        afterDelivery(ep);
    }

    private static int txHeaderForCapture(MemorySegment c, long payload) {
        return AtmCells.readHeader(c, payload - AtmCells.HEADER_SIZE);
    }

    private void deliverBuffers(int ep, int chan, int vci, int error, int length, int uu, int cpi, long now) {
        long d = claimEntry(ep, vci);
        if (d < 0) {
            if (d == RQ_FULL) {
                dropOverrun(ep);
            }
            return; // RQ_DMA_ERROR: counted
        }
        int base = vci * MAX_BUFS;
        int nbufs = rxNbufs[vci];
        int fault = 0; // BusError codes are negative: the OR of the body's writes is negative when one failed
        for (int b = 0; b < nbufs; b++) {
            fault |= putBuffer(ep, d, b, rxBufOffset[base + b], rxBufFill[base + b]);
        }
        fault |= putStatus(ep, d, error, uu, cpi) | putTimestamp(ep, d, now / 1000);
        if (fault < 0 || !publish(ep, d, Math.min(length, MAX_PDU), chan, nbufs, error == NO_ERROR ? 0 : RX_ERROR)) {
            addRaw(UG_OFS + UG_CNT_DMA_ERRORS_OFS, 1); // the receive queue was unmapped or freed under the card
            return;
        }
        if (error == NO_ERROR) {
            addRaw(UG_OFS + UG_CNT_PDUS_RX_OFS, 1);
            PcapWriter w = capture;
            if (w != null) {
                int vpi = (ram.get(INT_BE, VCI_TABLE_OFS + vci * VCI_ENTRY_SIZE) & VCI_VPI_MASK) >>> VCI_VPI_SHIFT;
                writePseudoHeader(captureBuffer, 0, false, AtmCells.header(vpi, vci, 0, 0));
                long at = 4;
                long segBus = segmentBases[ep];
                for (int b = 0; b < nbufs; b++) {
                    // fails only if unmapped or freed since it was written: the record is then stale
                    dma.copyFromBus(segBus + Integer.toUnsignedLong(rxBufOffset[base + b]), captureBuffer, at,
                        rxBufFill[base + b]);
                    at += rxBufFill[base + b];
                }
                w.record(now, captureBuffer, 0, (int) at, (int) at);
            }
        } else {
            addPage(ep, EPCB_RX_ERRORS_OFS, 1);
        }
        afterDelivery(ep);
    }

    /**
     * Upcall check after a descriptor was published (paper 3.1): edge-triggered, each condition of the mode's bits
     * signals once when it becomes true - NONEMPTY when this entry made the queue non-empty (it is the only one
     * outstanding), ALMOST_FULL when this entry crossed the 3/4 threshold - so the messages that arrive while the
     * process has not caught up cost no further signal, and one upcall consumes them all. "Outstanding" is what the
     * process has not handed back yet ({@code rq_prod - rq_cons}); an impossible {@code rq_cons} (more than RQ_LEN
     * behind) matches neither edge: the process's own loss.
     */
    private void afterDelivery(int ep) {
        MemorySegment page = pages[ep];
        int mode = page.get(INT_BE, EPCB_UPCALL_MODE_OFS);
        if (mode == UPCALL_NONE) {
            return;
        }
        long outstanding = Integer.toUnsignedLong(rqProd[ep] - (int) INT_BE_HANDLE.getAcquire(page,
            (long) EPCB_RQ_CONS_OFS));
        long threshold = (long) rqLengths[ep] * UPCALL_ALMOST_FULL_NUM;
        boolean fire = (mode & UPCALL_NONEMPTY) != 0 && outstanding == 1
            || (mode & UPCALL_ALMOST_FULL) != 0 && outstanding * UPCALL_ALMOST_FULL_DEN >= threshold
                && (outstanding - 1) * UPCALL_ALMOST_FULL_DEN < threshold;
        if (fire) {
            ramRegisters.getAndBitwiseOrRaw(UG_OFS + UG_UPCALL_PENDING_OFS, 1 << ep);
            signalHost();
            trace.event(Sba200Trace.Event.UPCALL, ep, 0);
        }
    }

    /** Raises the SBus interrupt if the kernel enabled interrupts in the UG block. */
    private void signalHost() {
        if ((ramRegisters.loadRaw(UG_OFS + UG_INTR_ENABLE_OFS) & UG_INTR_ENABLE) != 0) {
            irq.raise();
        }
    }

    /** SunATM pseudo-header: direction bit 7 (1 = transmit), traffic type 0 (raw AAL5), VPI, VCI. */
    private static void writePseudoHeader(MemorySegment s, long at, boolean transmit, int header) {
        s.set(ValueLayout.JAVA_BYTE, at, (byte) (transmit ? 0x80 : 0x00));
        s.set(ValueLayout.JAVA_BYTE, at + 1, (byte) AtmCells.vpi(header));
        int vci = AtmCells.vci(header);
        s.set(ValueLayout.JAVA_BYTE, at + 2, (byte) (vci >>> 8));
        s.set(ValueLayout.JAVA_BYTE, at + 3, (byte) vci);
    }

    // =============================================================================================== RAM helpers

    private void addRaw(int offset, int delta) {
        // Counters are written only by the firmware (this thread); volatile store so readers see whole values.
        ramRegisters.storeRaw(offset, ramRegisters.loadRaw(offset) + delta);
    }

    private void addPage(int ep, int offset, int delta) {
        MemorySegment page = pages[ep];
        page.set(INT_BE, offset, page.get(INT_BE, offset) + delta);
    }

    private void setStatusBits(int ep, int bits) {
        MemorySegment page = pages[ep];
        page.set(INT_BE, EPCB_EP_STATUS_OFS, page.get(INT_BE, EPCB_EP_STATUS_OFS) | bits);
    }
}
