package io.nicbridge.sim.medusa;

import static io.nicbridge.contract.Medusa.*;

import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.spi.InterruptLine;
import io.nicbridge.sim.fddi.FddiFcs;
import io.nicbridge.sim.fddi.FddiMac;
import io.nicbridge.sim.fddi.FddiRing;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The Medusa chip alone: register side effects, the four FIFOs of buffer numbers, buffer ownership, the transmit
 * staging and completion, address recognition, FCS check, store and receive checksum - single-threaded, time
 * passed in, no lock, no ring calls. {@link MedusaModel} is the shell around it: it serialises every entry with the
 * card's lock, reads the clock, kicks the engine and makes the ring calls the core asks for.
 *
 * <p>Every entry point is one hardware event (a host register access, a frame from or to the ring, a ring state
 * change, a service pass) and runs to completion. Each state change ends with a {@link MedusaTrace} event.
 *
 * <p><b>Completion order.</b> The core writes a buffer's bytes, then its status entry (LEN, STAT, RXCK, TSTAMP),
 * and only then pushes the buffer's number into RX_FIFO or TXDONE_FIFO ({@link #completeRx}, {@link #completeTx}):
 * a host that popped the number finds the entry and the data (the shell's lock orders the two threads).
 */
final class MedusaCore {
    /** Window offsets (window = 2 MiB, registers at 0x100000). */
    static final int W_ID = REGS_OFS + REG_ID;
    static final int W_REV = REGS_OFS + REG_REV;
    static final int W_CTRL = REGS_OFS + REG_CTRL;
    static final int W_STATUS = REGS_OFS + REG_STATUS;
    static final int W_ISR = REGS_OFS + REG_ISR;
    static final int W_IMR = REGS_OFS + REG_IMR;
    static final int W_MAC_HI = REGS_OFS + REG_MACADDR_HI;
    static final int W_MAC_LO = REGS_OFS + REG_MACADDR_LO;
    static final int W_TREQ = REGS_OFS + REG_TREQ_US;
    static final int W_RXCK_START = REGS_OFS + REG_RXCK_START;
    static final int W_CNT_TOKENS_SEEN = REGS_OFS + REG_CNT_TOKENS_SEEN;

    /** CTRL bits the host can set (RESET self-clears). */
    static final int CTRL_WRITABLE = CTRL_RX_EN | CTRL_TX_EN | CTRL_PROMISC | CTRL_ALLMULTI | CTRL_RX_CKSUM_EN
        | CTRL_KEEP_FCS | CTRL_LOOPBACK | CTRL_RING_JOIN | CTRL_FRAME_OFS3 | CTRL_LONG_FRAMES;

    /** What {@link #service} asks of the ring, in {@link #ringAction()}. */
    static final int RING_STAY = 0;
    static final int RING_JOIN = 1;
    static final int RING_LEAVE = 2;

    private static final byte OWNER_HOST = 0;
    private static final byte OWNER_FREE = 1;
    private static final byte OWNER_TX = 2;
    private static final long BROADCAST = 0xFFFF_FFFF_FFFFL;
    private static final int RX_SCRATCH_BYTES = MAX_FRAME_LONG + FDDI_FCS_LEN;

    private final int factoryMacHi;
    private final int factoryMacLo;
    private final long createdNanos;
    private final MemorySegment window;
    private final Registers registers;
    private final MedusaBufferRam bufferRam;
    private final InterruptLine interrupt;
    private final MedusaFifo txFifo = new MedusaFifo();
    private final MedusaFifo txDoneFifo = new MedusaFifo();
    private final MedusaFifo rxFifo = new MedusaFifo();
    private final MedusaFifo freeFifo = new MedusaFifo();
    private final byte[] owner = new byte[BUF_COUNT];
    /** Loopback transmit staging (FC .. FCS), allocated once. */
    private final MemorySegment loopFrame = MemorySegment.ofArray(new long[RX_SCRATCH_BYTES / 8 + 1]);
    private MedusaTrace trace = MedusaTrace.NONE;

    private long rejectedTxPushes;
    private long rejectedFreePushes;
    private int epoch;
    private int inFlight;
    private boolean joined;
    private long ttrtNanos;
    private int ringAction;
    private boolean tokenWanted;

    /**
     * The core over the card's window, in its reset state.
     *
     * @param registers    the window's register view (the core uses its raw accessors only: no hooks run)
     * @param createdNanos the time TSTAMP counts from
     */
    MedusaCore(int factoryMacHi, int factoryMacLo, long createdNanos, MemorySegment window, Registers registers,
               MedusaBufferRam bufferRam, InterruptLine interrupt) {
        this.factoryMacHi = factoryMacHi;
        this.factoryMacLo = factoryMacLo;
        this.createdNanos = createdNanos;
        this.window = window;
        this.registers = registers;
        this.bufferRam = bufferRam;
        this.interrupt = interrupt;
        reset();
    }

    /** Installs a tracer ({@link MedusaTrace#NONE} to stop). */
    void trace(MedusaTrace tracer) {
        this.trace = tracer;
    }

    long rejectedTxPushes() {
        return rejectedTxPushes;
    }

    long rejectedFreePushes() {
        return rejectedFreePushes;
    }

    long ttrtNanos() {
        return ttrtNanos;
    }

    /** Forgets ring membership (the card is closing). @return whether the card was on the ring (then it must leave) */
    boolean dropOffRing() {
        boolean was = joined;
        joined = false;
        return was;
    }

    // ================================================================== reset

    void reset() {
        epoch = (epoch + 1) & 0xFFFF;
        inFlight = 0;
        txFifo.clear();
        txDoneFifo.clear();
        rxFifo.clear();
        freeFifo.clear();
        Arrays.fill(owner, OWNER_HOST);
        for (int o = REGS_OFS; o < REGS_OFS + REGS_SIZE; o += 4) {
            registers.storeRaw(o, 0);
        }
        window.asSlice(BUF_STATUS_OFS, BUF_STATUS_SIZE).fill((byte) 0);
        registers.storeRaw(W_ID, ID_VALUE);
        registers.storeRaw(W_REV, REV_VALUE);
        registers.storeRaw(W_CTRL, CTRL_RESET_VALUE);
        registers.storeRaw(W_MAC_HI, factoryMacHi);
        registers.storeRaw(W_MAC_LO, factoryMacLo);
        registers.storeRaw(W_TREQ, TREQ_US_DEFAULT);
        registers.storeRaw(W_RXCK_START, RXCK_START_DEFAULT);
        bufferRam.checksum(0);
        interrupt.lower();
        trace.event(MedusaTrace.Event.RESET, -1, epoch);
    }

    // ================================================================== host register accesses

    /**
     * A host read of register-block or reserved word {@code offset} (window offset, at or above REGS_OFS).
     *
     * @param storedValue what the window holds there
     */
    int read(int offset, int storedValue) {
        switch (offset - REGS_OFS) {
            case REG_TXDONE_FIFO: {
                int e = txDoneFifo.pop();
                trace.event(MedusaTrace.Event.TXDONE_POPPED, e == 0 ? -1 : e & BUF_NUM_MASK, e);
                return e;
            }
            case REG_RX_FIFO: {
                int e = rxFifo.pop();
                trace.event(MedusaTrace.Event.RX_POPPED, e == 0 ? -1 : e & BUF_NUM_MASK, e);
                return e;
            }
            case REG_FIFO_LEVEL:
                return fifoLevel();
            case REG_PIO_CKSUM:
                return bufferRam.checksum();
            case REG_CNT_TOKENS_SEEN:
                return registers.loadRaw(offset); // the shell brought the idle tokens up to date first
            case REG_TX_FIFO:
            case REG_FREE_FIFO:
                return 0; // write-only
            default:
                // RO and RW registers read what they hold; reserved words hold 0
                return offset < REGS_OFS + REGS_SIZE ? storedValue : 0;
        }
    }

    /** FIFO_LEVEL: the four FIFOs' occupancy. */
    int fifoLevel() {
        return txFifo.size() << FIFO_LEVEL_TX_SHIFT | txDoneFifo.size() << FIFO_LEVEL_TXDONE_SHIFT
            | rxFifo.size() << FIFO_LEVEL_RX_SHIFT | freeFifo.size() << FIFO_LEVEL_FREE_SHIFT;
    }

    /**
     * A host write of register-block or reserved word {@code offset}.
     *
     * @return true when the card has work the engine must give it a {@link #service} pass for
     */
    boolean write(int offset, int value) {
        switch (offset - REGS_OFS) {
            case REG_CTRL -> {
                if ((value & CTRL_RESET) != 0) {
                    reset(); // other bits written together with RESET are ignored
                } else {
                    registers.storeRaw(W_CTRL, value & CTRL_WRITABLE);
                }
                return true; // ring join/leave, TX enable and loopback are acted on in service()
            }
            case REG_ISR -> {
                registers.getAndBitwiseAndRaw(W_ISR, ~value); // write 1 to clear
                updateInterrupt();
            }
            case REG_IMR -> {
                registers.storeRaw(W_IMR, value & INT_ALL);
                updateInterrupt();
            }
            case REG_TX_FIFO -> {
                return pushTx(value);
            }
            case REG_FREE_FIFO -> pushFree(value);
            case REG_RXCK_START -> registers.storeRaw(W_RXCK_START, value & RXCK_START_MASK);
            case REG_PIO_CKSUM -> bufferRam.checksum(value);
            default -> {
                // read-only registers, counters and reserved words ignore writes
            }
        }
        return false;
    }

    private boolean pushTx(int value) {
        if ((value & ~BUF_NUM_MASK) != 0 || owner[value] != OWNER_HOST) {
            rejectedTxPushes++;
            trace.event(MedusaTrace.Event.TX_PUSH_REJECTED, -1, value);
            raise(INT_TX_ERR);
            return false;
        }
        owner[value] = OWNER_TX;
        txFifo.push(value);
        updateBusy();
        trace.event(MedusaTrace.Event.TX_QUEUED, value, 0);
        return true;
    }

    private void pushFree(int value) {
        if ((value & ~BUF_NUM_MASK) != 0 || owner[value] != OWNER_HOST) {
            rejectedFreePushes++;
            trace.event(MedusaTrace.Event.FREE_PUSH_REJECTED, -1, value);
            raise(INT_RX_ERR);
            return;
        }
        owner[value] = OWNER_FREE;
        freeFifo.push(value);
        trace.event(MedusaTrace.Event.FREE_QUEUED, value, 0);
    }

    // ================================================================== service pass

    /**
     * One service pass: follows CTRL.RING_JOIN, runs loopback transmission, and decides whether the card wants
     * the token. The ring calls that needs are left in {@link #ringAction()} and {@link #tokenWanted()} for the
     * shell to make (with no card lock held: lock order is ring, then card).
     *
     * @param hasRing whether the card is connected to a ring port
     * @return work done (a membership change, frames looped back, a token request)
     */
    int service(long nowNanos, boolean hasRing) {
        ringAction = RING_STAY;
        tokenWanted = false;
        int work = 0;
        int ctrl = registers.loadRaw(W_CTRL);
        boolean want = (ctrl & CTRL_RING_JOIN) != 0 && hasRing;
        if (want != joined) {
            joined = want;
            ringAction = want ? RING_JOIN : RING_LEAVE;
            trace.event(MedusaTrace.Event.RING_MEMBERSHIP, -1, want ? 1 : 0);
            work++;
        }
        if ((ctrl & (CTRL_LOOPBACK | CTRL_TX_EN)) == (CTRL_LOOPBACK | CTRL_TX_EN)) {
            work += loopback(ctrl, nowNanos);
        } else {
            tokenWanted = joined && (ctrl & CTRL_TX_EN) != 0 && txFifo.size() > 0;
            if (tokenWanted) {
                work++;
            }
        }
        return work;
    }

    /** After {@link #service}: {@link #RING_STAY}, {@link #RING_JOIN} or {@link #RING_LEAVE}. */
    int ringAction() {
        return ringAction;
    }

    /** After {@link #service}: the card has frames queued for the ring and wants the token. */
    boolean tokenWanted() {
        return tokenWanted;
    }

    /** CTRL.LOOPBACK: queued frames go straight to this card's own receive path, not onto the ring. */
    private int loopback(int ctrl, long nowNanos) {
        int sent = 0;
        while (txFifo.size() > 0) {
            long pulled = prepareTx(loopFrame, RX_SCRATCH_BYTES, ctrl, nowNanos);
            if (pulled == FddiMac.NO_FRAME) {
                continue;
            }
            int fs = receive(loopFrame, (int) pulled, 0, nowNanos);
            completeTx((int) (pulled >>> 32), fs, nowNanos);
            sent++;
        }
        return sent;
    }

    // ================================================================== the ring's side

    /** The station address MACADDR holds (48 bits, canonical order). */
    long address() {
        return (registers.loadRaw(W_MAC_HI) & (long) MACADDR_HI_MASK) << 32 | (registers.loadRaw(W_MAC_LO) & 0xFFFF_FFFFL);
    }

    /** TREQ as the ring's T_req bid, ns, clamped to [1 us, T_max]. */
    long requestedTtrtNanos() {
        long us = registers.loadRaw(W_TREQ) & 0xFFFF_FFFFL;
        return Math.min(Math.max(us, 1), T_MAX_DEFAULT_US) * 1000L;
    }

    /** The ring holds the token for this station: the next good TX frame, staged at offset 0 of {@code frame}. */
    long pullFrame(MemorySegment frame, int capacity, long nowNanos) {
        int ctrl = registers.loadRaw(W_CTRL);
        if ((ctrl & CTRL_TX_EN) == 0 || (ctrl & CTRL_LOOPBACK) != 0) {
            return FddiMac.NO_FRAME;
        }
        while (txFifo.size() > 0) {
            long pulled = prepareTx(frame, capacity, ctrl, nowNanos);
            if (pulled != FddiMac.NO_FRAME) {
                return pulled;
            }
        }
        return FddiMac.NO_FRAME;
    }

    /**
     * Pops the TX FIFO head; a bad one completes with an error at once (returns NO_FRAME, the caller goes on).
     *
     * @return {@code tag << 32 | lengthWithFcs} of a frame staged (FC .. INFO, FCS) at offset 0 of {@code frame}
     */
    private long prepareTx(MemorySegment frame, int capacity, int ctrl, long nowNanos) {
        int n = txFifo.pop();
        int entry = statusEntry(n);
        int len = registers.loadRaw(entry + BUF_STATUS_LEN_OFS);
        int ofs = (ctrl & CTRL_FRAME_OFS3) != 0 ? FRAME_OFS_DEFAULT : FRAME_OFS_ALT;
        int max = (ctrl & CTRL_LONG_FRAMES) != 0 ? MAX_FRAME_LONG : MAX_FRAME;
        if ((len & ~LEN_MASK) != 0 || len + FDDI_FCS_LEN > max || ofs + len > BUF_SIZE
                || len + FDDI_FCS_LEN > capacity) {
            txError(n, STAT_DONE_BIT | STAT_TRUNCATED_BIT, nowNanos);
            return FddiMac.NO_FRAME;
        }
        if (len < FDDI_MAC_HEADER_LEN) {
            txError(n, STAT_DONE_BIT, nowNanos);
            return FddiMac.NO_FRAME;
        }
        MemorySegment.copy(window, (long) n * BUF_SIZE + ofs, frame, 0, len);
        int lengthWithFcs = FddiFcs.append(frame, 0, len);
        int fc = frame.get(ValueLayout.JAVA_BYTE, 0) & 0xFF;
        inFlight++;
        trace.event(MedusaTrace.Event.TX_STARTED, n, lengthWithFcs);
        int tag = epoch << 16 | fc << 8 | n;
        return (long) tag << 32 | lengthWithFcs;
    }

    private void txError(int n, int stat, long nowNanos) {
        int entry = statusEntry(n);
        registers.storeRaw(entry + BUF_STATUS_STAT_OFS, stat);
        registers.storeRaw(entry + BUF_STATUS_TSTAMP_OFS, tstamp(nowNanos));
        handBackTx(n, FIFO_VALID | FIFO_ERROR | n);
        count(REG_CNT_TX_ERRORS);
        updateBusy();
        raise(INT_TX_DONE | INT_TX_ERR);
    }

    /** The ring returned the frame tagged {@code tag} (stripped) with frame status {@code fs}. */
    void frameReturned(int tag, int fs, long nowNanos) {
        if ((tag >>> 16) != epoch) {
            return; // sent before a reset: that buffer is the host's already
        }
        completeTx(tag, fs, nowNanos);
    }

    private void completeTx(int tag, int fs, long nowNanos) {
        int n = tag & BUF_NUM_MASK;
        int fc = (tag >>> 8) & 0xFF;
        int entry = statusEntry(n);
        registers.storeRaw(entry + BUF_STATUS_STAT_OFS, STAT_DONE_BIT | indicatorBits(fs) | fc << STAT_FC_SHIFT);
        registers.storeRaw(entry + BUF_STATUS_TSTAMP_OFS, tstamp(nowNanos));
        handBackTx(n, FIFO_VALID | n);
        inFlight--;
        count(REG_CNT_FRAMES_TX);
        updateBusy();
        raise(INT_TX_DONE);
    }

    /** The TX completion handoff: the status entry is written; now the number goes back to the host. */
    private void handBackTx(int n, int fifoEntry) {
        owner[n] = OWNER_HOST;
        txDoneFifo.push(fifoEntry);
        trace.event(MedusaTrace.Event.TX_COMPLETED, n, fifoEntry);
    }

    private static int indicatorBits(int fs) {
        return ((fs & FddiMac.FS_E) != 0 ? STAT_E_BIT : 0) | ((fs & FddiMac.FS_A) != 0 ? STAT_A_BIT : 0)
            | ((fs & FddiMac.FS_C) != 0 ? STAT_C_BIT : 0);
    }

    /** Address recognition, FCS check and store of a frame from the ring. @return the indicators this station sets */
    int receive(MemorySegment frame, int lengthWithFcs, int fsIn, long nowNanos) {
        int ctrl = registers.loadRaw(W_CTRL);
        boolean fcsOk = FddiFcs.check(frame, 0, lengthWithFcs);
        int fs = fcsOk ? 0 : FddiMac.FS_E;
        if (!fcsOk) {
            count(REG_CNT_FCS_ERRORS);
        }
        if (lengthWithFcs < FDDI_MAC_HEADER_LEN + FDDI_FCS_LEN) {
            return fs; // a fragment: no address to recognise
        }
        long da = 0;
        for (int i = 0; i < FDDI_ADDR_LEN; i++) {
            da = da << 8 | (frame.get(ValueLayout.JAVA_BYTE, FRAME_DA_OFS + i) & 0xFF);
        }
        boolean group = (da >>> 40 & ADDR_GROUP_BIT_CANONICAL) != 0;
        boolean recognised = da == address() || da == BROADCAST || (group && (ctrl & CTRL_ALLMULTI) != 0);
        if (recognised) {
            fs |= FddiMac.FS_A;
        }
        if ((ctrl & CTRL_RX_EN) == 0 || !(recognised || (ctrl & CTRL_PROMISC) != 0)) {
            return fs;
        }
        if (freeFifo.size() == 0) {
            count(REG_CNT_NOBUF_DROPS);
            trace.event(MedusaTrace.Event.RX_DROPPED_NO_BUFFER, -1, lengthWithFcs);
            raise(INT_RX_DROP_NOBUF);
            return fs; // recognised but not copied: A without C tells the sender
        }
        int n = freeFifo.pop();
        int ofs = (ctrl & CTRL_FRAME_OFS3) != 0 ? FRAME_OFS_DEFAULT : FRAME_OFS_ALT;
        int max = (ctrl & CTRL_LONG_FRAMES) != 0 ? MAX_FRAME_LONG : MAX_FRAME;
        int len = lengthWithFcs - FDDI_FCS_LEN;
        int wanted = (ctrl & CTRL_KEEP_FCS) != 0 ? lengthWithFcs : len;
        int limit = Math.min(BUF_SIZE - ofs, (ctrl & CTRL_KEEP_FCS) != 0 ? max : max - FDDI_FCS_LEN);
        boolean truncated = lengthWithFcs > max || wanted > BUF_SIZE - ofs;
        int stored = Math.min(wanted, limit);
        long base = (long) n * BUF_SIZE + ofs;
        MemorySegment.copy(frame, 0, window, base, stored);
        int storedLen = Math.min(len, stored);
        int rxck = 0;
        if ((ctrl & CTRL_RX_CKSUM_EN) != 0) {
            int start = registers.loadRaw(W_RXCK_START) & RXCK_START_MASK;
            if (start < storedLen) {
                rxck = MedusaBufferRam.fold(MedusaBufferRam.pairSum(window, base + start, storedLen - start));
            }
        }
        if (fcsOk && !truncated) {
            fs |= FddiMac.FS_C;
        }
        int fc = frame.get(ValueLayout.JAVA_BYTE, 0) & 0xFF;
        int stat = STAT_DONE_BIT | indicatorBits(fsIn | fs) | (fcsOk ? 0 : STAT_FCS_ERR_BIT)
            | (truncated ? STAT_TRUNCATED_BIT : 0) | fc << STAT_FC_SHIFT;
        int entry = statusEntry(n);
        registers.storeRaw(entry + BUF_STATUS_LEN_OFS, storedLen);
        registers.storeRaw(entry + BUF_STATUS_STAT_OFS, stat);
        registers.storeRaw(entry + BUF_STATUS_RXCK_OFS, rxck);
        registers.storeRaw(entry + BUF_STATUS_TSTAMP_OFS, tstamp(nowNanos));
        completeRx(n);
        count(REG_CNT_FRAMES_RX);
        if (truncated) {
            count(REG_CNT_RX_TRUNCATED);
        }
        raise(fcsOk && !truncated ? INT_RX_READY : INT_RX_READY | INT_RX_ERR);
        return fs;
    }

    /** The RX completion handoff: data and status entry are written; now the number goes to the host. */
    private void completeRx(int n) {
        owner[n] = OWNER_HOST;
        rxFifo.push(FIFO_VALID | n);
        trace.event(MedusaTrace.Event.RX_COMPLETED, n, FIFO_VALID | n);
    }

    /**
     * The ring changed state; STATUS follows it and ISR RING_CHANGE is raised.
     *
     * @return true when the card has frames waiting for the now operational ring (the shell kicks the engine)
     */
    boolean ringStateChanged(int state, long ttrt) {
        ttrtNanos = ttrt;
        int busy = registers.loadRaw(W_STATUS) & STATUS_TX_BUSY;
        registers.storeRaw(W_STATUS, busy | state << STATUS_RING_STATE_SHIFT
            | (state == FddiRing.STATE_OPERATIONAL ? STATUS_RING_OP : 0));
        if (state == FddiRing.STATE_CLAIM) {
            count(REG_CNT_RING_REINITS);
        }
        trace.event(MedusaTrace.Event.RING_STATE, -1, state);
        raise(INT_RING_CHANGE);
        return state == FddiRing.STATE_OPERATIONAL && txFifo.size() > 0;
    }

    /** Token passes this station saw go by. */
    void tokensSeen(long count) {
        registers.storeRaw(W_CNT_TOKENS_SEEN, registers.loadRaw(W_CNT_TOKENS_SEEN) + (int) count);
    }

    // ================================================================== helpers

    private void raise(int bits) {
        registers.getAndBitwiseOrRaw(W_ISR, bits);
        trace.event(MedusaTrace.Event.INTERRUPT_RAISED, -1, bits);
        updateInterrupt();
    }

    /** The line's level is always (ISR &amp; IMR) != 0. */
    private void updateInterrupt() {
        interrupt.update(registers.loadRaw(W_ISR), registers.loadRaw(W_IMR));
    }

    private void count(int reg) {
        int at = REGS_OFS + reg;
        registers.storeRaw(at, registers.loadRaw(at) + 1);
    }

    private void updateBusy() {
        int status = registers.loadRaw(W_STATUS);
        int busy = txFifo.size() > 0 || inFlight > 0 ? STATUS_TX_BUSY : 0;
        registers.storeRaw(W_STATUS, (status & ~STATUS_TX_BUSY) | busy);
    }

    private int tstamp(long nowNanos) {
        return (int) ((nowNanos - createdNanos) / 1000);
    }

    private static int statusEntry(int buffer) {
        return BUF_STATUS_OFS + buffer * BUF_STATUS_ENTRY_SIZE;
    }
}
