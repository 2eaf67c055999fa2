package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.memory.DmaView;
import io.nicbridge.bridge.regs.RegisterSideEffects;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.regs.WordAccess;
import io.nicbridge.bridge.spi.InterruptLine;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A test double of the U-Net SBA-200 firmware that follows the B.4 contract at the level the bridge API sees it:
 * command queue, send-queue processing with the channel / bounds / length checks and statuses, VCI demux, inline
 * single-cell receive, free-buffer receive, receive-queue overrun, no-free-buffer, upcall-pending mask and the
 * interrupt line. It runs inline, on the thread that rings a doorbell, and the "network" is a loopback table from
 * transmit VCI to receive VCI (the switch's translation). No cells, no CRC: those are the card model's concern
 * (sim-hardware); this double lets the bridge's API be tested against the contract alone, independently of it.
 * <p>
 * The command queue is served one command at a time ({@link #hasCommand}, {@link #commandSlot},
 * {@link #executeCommand}, {@link #completeCommand}), by default all of them at each doorbell; a misbehaving firmware
 * ({@link HostileUnetFirmware}) takes the doorbell over ({@link #onCommandDoorbell}) and wraps these steps, so there is
 * one honest firmware. The card's own state (which endpoints are active, their bus addresses, channels) is its own,
 * not the host-visible page: a page whose status word is overwritten does not change what the firmware does.
 */
final class ContractFirmware implements RegisterSideEffects {
    final Arena arena = Arena.ofShared();
    final MemorySegment ramMemory = arena.allocate(RAM_SIZE, 4096);
    final Registers ram;
    final WordAccess w = new WordAccess(ramMemory, BYTE_ORDER);
    final DmaSpace dma = new DmaSpace("test sba200 dma");
    final InterruptLine line = new InterruptLine("test sba200 intr");
    private final int[] route = new int[VCI_TABLE_ENTRIES]; // tx VCI -> rx VCI (the switch), -1 = none
    private final long[] segBase = new long[MAX_ENDPOINTS];
    private final long[] segLen = new long[MAX_ENDPOINTS];
    private final long[] rqBase = new long[MAX_ENDPOINTS];
    private final int[] rqLen = new int[MAX_ENDPOINTS];
    private final int[] rqProd = new int[MAX_ENDPOINTS];
    private final int[][] txVci = new int[MAX_ENDPOINTS][MAX_CHANNELS];
    private final boolean[] active = new boolean[MAX_ENDPOINTS];
    private final byte[] staging = new byte[MAX_PDU];
    private final MemorySegment stagingSeg = MemorySegment.ofArray(staging);
    private int cmdCons;
    private int pendingTx;
    private boolean transmitting;
    private int forcedRxError;
    private final WordAccess q = new WordAccess();
    /** Messages delivered into a receive queue. */
    long deliveredCount;
    boolean deliverEnabled = true;
    /** While set, send-queue doorbells are recorded but the card does not process them (a busy i960). */
    boolean holdTransmit;
    /** What a doorbell on cmd_prod does: every command posted, honestly, unless {@link #onCommandDoorbell} says. */
    private Runnable commandDoorbell = this::executeCommands;

    ContractFirmware() {
        List<Integer> hooks = new ArrayList<>();
        hooks.add(UG_OFS + UG_CMD_PROD_OFS);
        hooks.add(UG_OFS + UG_UPCALL_PENDING_OFS);
        for (int e = 0; e < MAX_ENDPOINTS; e++) {
            int page = EP_PAGE_BASE + e * EP_PAGE_SIZE;
            hooks.add(page + EPCB_SQ_PROD_OFS);
            hooks.add(page + EPCB_FQ_PROD_OFS);
            hooks.add(page + EPCB_RQ_CONS_OFS);
        }
        ram = new Registers("test sba200 ram", ramMemory, BYTE_ORDER, this, hooks.stream().mapToInt(i -> i).toArray());
        java.util.Arrays.fill(route, -1);
        boot();
    }

    /**
     * The board is reset: board RAM wiped (no UG block, boot status 0), no endpoint, no channel, an empty command
     * queue. The switch ({@link #connect}) is the network's and stays.
     */
    void wipe() {
        ramMemory.fill((byte) 0);
        java.util.Arrays.fill(active, false);
        for (int[] t : txVci) {
            java.util.Arrays.fill(t, -1);
        }
        java.util.Arrays.fill(rqProd, 0);
        cmdCons = 0;
        pendingTx = 0;
        forcedRxError = 0;
    }

    /** The firmware starts on a wiped board: the UG block is written, and the boot status reads CP_RUNNING. */
    void boot() {
        wipe();
        w.putInt(UG_OFS + UG_MAGIC_OFS, UG_MAGIC);
        w.putInt(UG_OFS + UG_VERSION_OFS, UG_VERSION);
        w.putInt(UG_OFS + UG_MAX_ENDPOINTS_OFS, MAX_ENDPOINTS);
        w.putInt(UG_OFS + UG_EP_PAGE_BASE_OFS, EP_PAGE_BASE);
        w.putInt(UG_OFS + UG_EP_PAGE_SIZE_OFS, EP_PAGE_SIZE);
        w.putInt(UG_OFS + UG_CMDQ_BASE_OFS, CMDQ_OFS);
        w.putInt(UG_OFS + UG_CMDQ_LEN_OFS, CMDQ_LEN);
        w.putInt(UG_OFS + UG_LINK_STATUS_OFS, UG_LINK_CARRIER);
        w.putIntRelease(MONITOR_OFS + MONITOR_BOOT_STATUS_OFS, BOOT_CP_RUNNING);
    }

    UnetKernelDriver driver() {
        return new UnetKernelDriver("test", ram, null, dma, line, null, 1_000_000_000L);
    }

    /** The switch: cells sent on {@code tx} arrive on {@code rx}. */
    void connect(int tx, int rx) {
        route[tx] = rx;
    }

    /** The next delivered message carries this receive error (as if its CRC/length check had failed). */
    void failNextReceive(int rxError) {
        forcedRxError = rxError;
    }

    int counter(int ugOffset) {
        return w.getIntVolatile(UG_OFS + ugOffset);
    }

    private void count(int ugOffset) {
        w.getAndAddInt(UG_OFS + ugOffset, 1);
    }

    @Override
    public int onRead(int offset, int storedValue) {
        return storedValue;
    }

    @Override
    public void onWrite(int offset, int value) {
        if (offset == UG_OFS + UG_CMD_PROD_OFS) {
            ram.storeRaw(offset, value);
            commandDoorbell.run();
        } else if (offset == UG_OFS + UG_UPCALL_PENDING_OFS) {
            int left = ram.getAndBitwiseAndRaw(offset, ~value) & ~value;
            if (left == 0) {
                line.lower();
            }
        } else {
            ram.storeRaw(offset, value);
            int rel = offset - EP_PAGE_BASE;
            int e = rel / EP_PAGE_SIZE;
            if (rel % EP_PAGE_SIZE == EPCB_SQ_PROD_OFS && active[e]) {
                // An upcall run from inside a delivery may send again: queue it, the outer loop picks it up.
                pendingTx |= 1 << e;
                if (!holdTransmit) {
                    transmitPending();
                }
            }
        }
    }

    private int page(int e) {
        return EP_PAGE_BASE + e * EP_PAGE_SIZE;
    }

    /** Whether an open channel of any endpoint already sends on {@code tx} (the card refuses a second one). */
    private boolean txVciOpen(int tx) {
        for (int[] channels : txVci) {
            for (int v : channels) {
                if (v == tx) {
                    return true;
                }
            }
        }
        return false;
    }

    private int epStatus(int e) {
        return w.getIntVolatile(page(e) + EPCB_EP_STATUS_OFS);
    }

    /** Ends {@link #holdTransmit} and processes every send doorbell rung meanwhile. */
    void resumeTransmit() {
        holdTransmit = false;
        transmitPending();
    }

    /** Serves every send queue rung for; inside a delivery (an upcall sending again) the outer loop does it. */
    private void transmitPending() {
        if (transmitting) {
            return;
        }
        transmitting = true;
        try {
            while (pendingTx != 0) {
                int next = Integer.numberOfTrailingZeros(pendingTx);
                pendingTx &= ~(1 << next);
                transmit(next);
            }
        } finally {
            transmitting = false;
        }
    }

    // ------------------------------------------------------------------ commands

    /** Replaces what a doorbell on cmd_prod does (the command queue is then served by {@code doorbell}). */
    void onCommandDoorbell(Runnable doorbell) {
        commandDoorbell = doorbell;
    }

    /** The honest firmware's doorbell: every command posted is executed and completed, in order. */
    void executeCommands() {
        while (hasCommand()) {
            int slot = commandSlot();
            completeCommand(slot, completion(executeCommand(slot)));
        }
    }

    /** Whether a command is posted and not consumed yet (cmd_cons behind cmd_prod). */
    boolean hasCommand() {
        return cmdCons != w.getIntAcquire(UG_OFS + UG_CMD_PROD_OFS);
    }

    /** The slot of the oldest command not consumed. */
    int commandSlot() {
        return CMDQ_OFS + (cmdCons & (CMDQ_LEN - 1)) * CMD_SIZE;
    }

    /**
     * Executes the command in {@code slot} as the contract says (sba200_unet.h), on the card's state; neither
     * completes nor consumes it.
     *
     * @return the contract's error code, 0 = done
     */
    int executeCommand(int slot) {
        int op = w.getInt(slot + CMD_OP_OFS) & CMD_OPCODE_MASK;
        int[] a = new int[6];
        for (int i = 0; i < 6; i++) {
            a[i] = w.getInt(slot + CMD_ARG_OFS + 4 * i);
        }
        return execute(op, a);
    }

    /** The w1 an honest firmware completes a command with: DONE, or ERROR with the error code. */
    static int completion(int error) {
        return error == 0 ? CMD_STATUS_DONE : CMD_STATUS_ERROR | error << CMD_ERROR_SHIFT;
    }

    /** Writes {@code w1} into the oldest command's slot (with release) and consumes it. */
    void completeCommand(int slot, int w1) {
        w.putIntRelease(slot + CMD_STATUS_OFS, w1);
        consumeCommand();
    }

    /** Consumes the oldest command without writing its slot: cmd_cons passes it. */
    void consumeCommand() {
        cmdCons++;
        w.putIntRelease(UG_OFS + UG_CMD_CONS_OFS, cmdCons);
    }

    /** Whether endpoint {@code e} is active on the card (its own state; the page's status word may say otherwise). */
    boolean endpointActive(int e) {
        return active[e];
    }

    /** The bus address of endpoint {@code e}'s segment as its last EP_CREATE gave it. */
    long segmentBus(int e) {
        return segBase[e];
    }

    /** The bus address of endpoint {@code e}'s receive queue as its last EP_CREATE gave it. */
    long receiveQueueBus(int e) {
        return rqBase[e];
    }

    /** The transmit VCI of channel {@code ch} of endpoint {@code e}, or -1 when it is not open. */
    int transmitVci(int e, int ch) {
        return active[e] ? txVci[e][ch] : -1;
    }

    /** The receive VCI demultiplexed to channel {@code ch} of endpoint {@code e}, or -1 when there is none. */
    int receiveVci(int e, int ch) {
        for (int v = 0; v < VCI_TABLE_ENTRIES; v++) {
            int entry = w.getInt(VCI_TABLE_OFS + 4 * v);
            if ((entry & VCI_VALID) != 0 && (entry & VCI_EP_MASK) >>> VCI_EP_SHIFT == e
                    && (entry & VCI_CHAN_MASK) >>> VCI_CHAN_SHIFT == ch) {
                return v;
            }
        }
        return -1;
    }

    private int execute(int op, int[] a) {
        switch (op) {
            case OP_NOP:
                return 0;
            case OP_EP_CREATE: {
                int e = a[0];
                if (e < 0 || e >= MAX_ENDPOINTS) {
                    return CMD_ERR_BAD_ENDPOINT;
                }
                if (active[e]) {
                    return CMD_ERR_EP_ACTIVE;
                }
                long sb = Integer.toUnsignedLong(a[1]);
                long sl = Integer.toUnsignedLong(a[2]);
                if (sl == 0 || (sb & (SEG_ALIGN - 1)) != 0 || dma.translate(sb, sl) < 0) {
                    return CMD_ERR_BAD_SEGMENT;
                }
                long rb = Integer.toUnsignedLong(a[3]);
                int rl = a[4];
                if (rl < RQ_LEN_MIN || rl > RQ_LEN_MAX || Integer.bitCount(rl) != 1 || (rb & (RQ_ALIGN - 1)) != 0
                        || dma.translate(rb, (long) rl * RQ_ENTRY_SIZE) < 0) {
                    return CMD_ERR_BAD_RQ;
                }
                ramMemory.asSlice(page(e), EP_PAGE_SIZE).fill((byte) 0);
                segBase[e] = sb;
                segLen[e] = sl;
                rqBase[e] = rb;
                rqLen[e] = rl;
                rqProd[e] = 0;
                java.util.Arrays.fill(txVci[e], -1);
                active[e] = true;
                w.putInt(page(e) + EPCB_RQ_LEN_OFS, rl);
                w.putInt(page(e) + EPCB_SEG_LEN_OFS, (int) sl);
                w.putIntRelease(page(e) + EPCB_EP_STATUS_OFS, EP_ACTIVE);
                return 0;
            }
            case OP_EP_DESTROY: {
                int e = a[0];
                if (e < 0 || e >= MAX_ENDPOINTS) {
                    return CMD_ERR_BAD_ENDPOINT;
                }
                if (!active[e]) {
                    return CMD_ERR_EP_INACTIVE;
                }
                for (int v = 0; v < VCI_TABLE_ENTRIES; v++) {
                    int entry = w.getInt(VCI_TABLE_OFS + 4 * v);
                    if ((entry & VCI_VALID) != 0 && (entry & VCI_EP_MASK) >>> VCI_EP_SHIFT == e) {
                        w.putIntRelease(VCI_TABLE_OFS + 4 * v, 0);
                    }
                }
                active[e] = false;
                java.util.Arrays.fill(txVci[e], -1); // its channels close with it: their VCIs are free again
                w.putIntRelease(page(e) + EPCB_EP_STATUS_OFS, 0);
                return 0;
            }
            case OP_CH_OPEN: {
                int e = a[0];
                int ch = a[1];
                int vpi = a[2];
                int tx = a[3];
                int rx = a[4];
                if (e < 0 || e >= MAX_ENDPOINTS) {
                    return CMD_ERR_BAD_ENDPOINT;
                }
                if (!active[e]) {
                    return CMD_ERR_EP_INACTIVE;
                }
                if (ch < 0 || ch >= MAX_CHANNELS) {
                    return CMD_ERR_BAD_CHANNEL;
                }
                if (txVci[e][ch] >= 0) {
                    return CMD_ERR_CHANNEL_OPEN;
                }
                if (vpi < 0 || vpi > 255 || tx < VCI_FIRST_USER || tx >= VCI_TABLE_ENTRIES || rx < VCI_FIRST_USER
                        || rx >= VCI_TABLE_ENTRIES) {
                    return CMD_ERR_BAD_VCI;
                }
                if ((w.getInt(VCI_TABLE_OFS + 4 * rx) & VCI_VALID) != 0 || txVciOpen(tx)) {
                    return CMD_ERR_VCI_IN_USE;
                }
                txVci[e][ch] = tx;
                w.putIntRelease(VCI_TABLE_OFS + 4 * rx, VCI_VALID | e << VCI_EP_SHIFT | ch << VCI_CHAN_SHIFT | vpi);
                return 0;
            }
            case OP_CH_CLOSE: {
                int e = a[0];
                int ch = a[1];
                if (e < 0 || e >= MAX_ENDPOINTS) {
                    return CMD_ERR_BAD_ENDPOINT;
                }
                if (!active[e]) {
                    return CMD_ERR_EP_INACTIVE;
                }
                if (ch < 0 || ch >= MAX_CHANNELS || txVci[e][ch] < 0) {
                    return CMD_ERR_BAD_CHANNEL;
                }
                txVci[e][ch] = -1;
                for (int v = 0; v < VCI_TABLE_ENTRIES; v++) {
                    int entry = w.getInt(VCI_TABLE_OFS + 4 * v);
                    if ((entry & VCI_VALID) != 0 && (entry & VCI_EP_MASK) >>> VCI_EP_SHIFT == e
                            && (entry & VCI_CHAN_MASK) >>> VCI_CHAN_SHIFT == ch) {
                        w.putIntRelease(VCI_TABLE_OFS + 4 * v, 0);
                    }
                }
                return 0;
            }
            case OP_EP_UPCALL: {
                int e = a[0];
                if (e < 0 || e >= MAX_ENDPOINTS) {
                    return CMD_ERR_BAD_ENDPOINT;
                }
                if (!active[e]) {
                    return CMD_ERR_EP_INACTIVE;
                }
                if ((a[1] & ~UPCALL_BOTH) != 0) {
                    return CMD_ERR_BAD_MODE;
                }
                w.putIntRelease(page(e) + EPCB_UPCALL_MODE_OFS, a[1]);
                return 0;
            }
            case OP_GET_STATS: {
                long bus = Integer.toUnsignedLong(a[0]);
                DmaView v = dma.snapshot();
                int r = v.translate(bus, STATS_SIZE);
                if (r < 0) {
                    return CMD_ERR_DMA;
                }
                MemorySegment.copy(ramMemory, UG_OFS + UG_STATS_OFS, v.region(r), v.offset(r, bus), STATS_SIZE);
                return 0;
            }
            default:
                return CMD_ERR_BAD_OPCODE;
        }
    }

    // ------------------------------------------------------------------ transmit

    private void transmit(int e) {
        int p = page(e);
        int prod = w.getIntAcquire(p + EPCB_SQ_PROD_OFS);
        int cons = w.getInt(p + EPCB_SQ_CONS_OFS);
        while (cons != prod) {
            int d = p + SQ_OFS + (cons & (SQ_LEN - 1)) * SEND_DESC_SIZE;
            int w0 = w.getIntAcquire(d);
            int status = send(e, d, w0);
            if (status != TX_STATUS_SENT) {
                count(UG_CNT_TX_REJECTED_OFS);
                w.getAndAddInt(p + EPCB_TX_REJECTED_OFS, 1);
                if (status == TX_STATUS_SEG_BOUNDS) {
                    w.putInt(p + EPCB_EP_STATUS_OFS, epStatus(e) | EP_SEGFAULT);
                }
            }
            w.putInt(d + SEND_DESC_STATUS_OFS, status);
            w.putIntRelease(d, w0 & ~TX_VALID);
            cons++;
            w.putIntRelease(p + EPCB_SQ_CONS_OFS, cons);
        }
    }

    private int send(int e, int d, int w0) {
        if ((w0 & TX_VALID) == 0) {
            return TX_STATUS_BAD_DESC;
        }
        int len = (w0 & TX_LENGTH_MASK) >>> TX_LENGTH_SHIFT;
        int ch = (w0 & TX_CHAN_MASK) >>> TX_CHAN_SHIFT;
        int nbufs = (w0 & TX_NBUFS_MASK) >>> TX_NBUFS_SHIFT;
        if (txVci[e][ch] < 0) {
            return TX_STATUS_BAD_CHANNEL;
        }
        if ((w0 & TX_INLINE) != 0) {
            if (len > INLINE_MAX) {
                return TX_STATUS_TOO_LONG;
            }
            MemorySegment.copy(ramMemory, d + SEND_DESC_INLINE_OFS, stagingSeg, 0, len);
        } else {
            if (nbufs < 1 || nbufs > MAX_BUFS) {
                return TX_STATUS_BAD_DESC;
            }
            long total = 0;
            for (int i = 0; i < nbufs; i++) {
                long off = Integer.toUnsignedLong(w.getInt(d + SEND_DESC_BUFS_OFS + 8 * i));
                long l = Integer.toUnsignedLong(w.getInt(d + SEND_DESC_BUFS_OFS + 8 * i + 4));
                if (l > MAX_PDU) {
                    return TX_STATUS_TOO_LONG;
                }
                if (off + l > segLen[e]) {
                    return TX_STATUS_SEG_BOUNDS;
                }
                total += l;
            }
            if (total != len) {
                return TX_STATUS_BAD_DESC;
            }
            long at = 0;
            DmaView v = dma.snapshot();
            for (int i = 0; i < nbufs; i++) {
                long off = Integer.toUnsignedLong(w.getInt(d + SEND_DESC_BUFS_OFS + 8 * i));
                long l = Integer.toUnsignedLong(w.getInt(d + SEND_DESC_BUFS_OFS + 8 * i + 4));
                int r = v.translate(segBase[e] + off, Math.max(1, l));
                if (r < 0) {
                    return TX_STATUS_DMA_ERROR;
                }
                MemorySegment.copy(v.region(r), v.offset(r, segBase[e] + off), stagingSeg, at, l);
                at += l;
            }
        }
        count(UG_CNT_PDUS_TX_OFS);
        int rx = route[txVci[e][ch]];
        if (deliverEnabled && rx >= 0) {
            receive(rx, len);
        }
        return TX_STATUS_SENT;
    }

    // ------------------------------------------------------------------ receive

    private void receive(int vci, int len) {
        int entry = w.getIntAcquire(VCI_TABLE_OFS + 4 * vci);
        if ((entry & VCI_VALID) == 0) {
            count(UG_CNT_DROP_UNKNOWN_VCI_OFS);
            return;
        }
        int e = (entry & VCI_EP_MASK) >>> VCI_EP_SHIFT;
        int ch = (entry & VCI_CHAN_MASK) >>> VCI_CHAN_SHIFT;
        int p = page(e);
        DmaView v = dma.snapshot();
        long slotBus = rqBase[e] + (long) (rqProd[e] & (rqLen[e] - 1)) * RECV_DESC_SIZE;
        int r = v.translate(slotBus, RECV_DESC_SIZE);
        if (r < 0) {
            count(UG_CNT_DMA_ERRORS_OFS);
            return;
        }
        MemorySegment rq = v.region(r);
        long d = v.offset(r, slotBus);
        q.wrap(rq, BYTE_ORDER);
        if ((q.getIntAcquire(d) & RX_VALID) != 0) {
            count(UG_CNT_DROP_RQ_FULL_OFS);
            w.getAndAddInt(p + EPCB_DROP_RQ_OVERRUN_OFS, 1);
            w.putInt(p + EPCB_EP_STATUS_OFS, epStatus(e) | EP_RQ_OVERRUN);
            return;
        }
        int error = forcedRxError;
        forcedRxError = 0;
        int w0 = ch << RX_CHAN_SHIFT | len;
        if (error == 0 && len <= INLINE_MAX) {
            MemorySegment.copy(stagingSeg, 0, rq, d + RECV_DESC_INLINE_OFS, len);
            w0 |= RX_INLINE;
        } else if (error == 0) {
            int fprod = w.getIntAcquire(p + EPCB_FQ_PROD_OFS);
            int fcons = w.getInt(p + EPCB_FQ_CONS_OFS);
            int n = 0;
            long at = 0;
            while (at < len) {
                if (fcons == fprod) {
                    error = RX_ERR_NO_BUFFERS;
                    count(UG_CNT_DROP_NO_FREE_BUF_OFS);
                    w.getAndAddInt(p + EPCB_DROP_NO_FREE_BUF_OFS, 1);
                    w.putInt(p + EPCB_EP_STATUS_OFS, epStatus(e) | EP_NO_FREE_BUF);
                    break;
                }
                if (n == MAX_BUFS) {
                    error = RX_ERR_TOO_MANY_BUFS;
                    break;
                }
                int fe = p + FQ_OFS + (fcons & (FQ_LEN - 1)) * FQ_ENTRY_SIZE;
                long off = Integer.toUnsignedLong(w.getInt(fe));
                long cap = Integer.toUnsignedLong(w.getInt(fe + 4));
                fcons++;
                long chunk = Math.min(cap, len - at);
                int br = v.translate(segBase[e] + off, chunk);
                if (off + chunk > segLen[e] || br < 0) {
                    error = RX_ERR_DMA;
                    count(UG_CNT_DMA_ERRORS_OFS);
                    break;
                }
                MemorySegment.copy(stagingSeg, at, v.region(br), v.offset(br, segBase[e] + off), chunk);
                q.putInt(d + RECV_DESC_BUFS_OFS + 8L * n, (int) off);
                q.putInt(d + RECV_DESC_BUFS_OFS + 8L * n + 4, (int) chunk);
                n++;
                at += chunk;
            }
            w.putIntRelease(p + EPCB_FQ_CONS_OFS, fcons);
            w0 |= n << RX_NBUFS_SHIFT;
        }
        if (error != 0) {
            w0 |= RX_ERROR;
            w.getAndAddInt(p + EPCB_RX_ERRORS_OFS, 1);
            if (error == RX_ERR_CRC) {
                count(UG_CNT_AAL5_CRC_ERRORS_OFS);
            } else if (error == RX_ERR_LENGTH) {
                count(UG_CNT_LENGTH_ERRORS_OFS);
            }
        }
        q.putInt(d + RECV_DESC_W1_OFS, error << RX_ERR_SHIFT);
        q.putIntRelease(d, w0 | RX_VALID);
        rqProd[e]++;
        w.putIntRelease(p + EPCB_RQ_PROD_SHADOW_OFS, rqProd[e]);
        count(UG_CNT_PDUS_RX_OFS);
        deliveredCount++;
        int mode = w.getInt(p + EPCB_UPCALL_MODE_OFS);
        int outstanding = rqProd[e] - w.getIntAcquire(p + EPCB_RQ_CONS_OFS);
        int threshold = rqLen[e] * UPCALL_ALMOST_FULL_NUM; // edge-triggered, per mode bit (sba200_unet.h)
        boolean signal = (mode & UPCALL_NONEMPTY) != 0 && outstanding == 1
                || (mode & UPCALL_ALMOST_FULL) != 0 && outstanding * UPCALL_ALMOST_FULL_DEN >= threshold
                        && (outstanding - 1) * UPCALL_ALMOST_FULL_DEN < threshold;
        if (signal) {
            ram.getAndBitwiseOrRaw(UG_OFS + UG_UPCALL_PENDING_OFS, 1 << e);
            if ((w.getIntVolatile(UG_OFS + UG_INTR_ENABLE_OFS) & UG_INTR_ENABLE) != 0) {
                line.raise();
            }
        }
    }

    void close() {
        arena.close();
    }
}
