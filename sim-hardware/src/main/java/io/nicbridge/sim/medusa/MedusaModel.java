package io.nicbridge.sim.medusa;

import static io.nicbridge.contract.Medusa.*;

import io.nicbridge.bridge.regs.RegisterSideEffects;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.spi.InterruptLine;
import io.nicbridge.sim.engine.DeviceEngine;
import io.nicbridge.sim.engine.DeviceModel;
import io.nicbridge.sim.engine.TimeBase;
import io.nicbridge.sim.engine.WorkSignal;
import io.nicbridge.sim.fddi.FddiFcs;
import io.nicbridge.sim.fddi.FddiMac;
import io.nicbridge.sim.fddi.FddiRing;
import io.nicbridge.sim.fddi.FddiRingPort;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The emulated HP Medusa FDDI adapter: the register contract of medusa.h (docs/hardware-facts.md C.2, a proposal), one
 * station of an {@link FddiRing}.
 *
 * <pre>
 *  window (2 MiB, big-endian, = {@link #registers()}.window())
 *  0x000000 +------------------------------+  buffer RAM: 128 x 8 KiB, host reaches it by PIO only
 *           |  buffer n at n x 0x2000      |  ({@link MedusaBufferRam}, or word access via Registers;
 *  0x100000 +------------------------------+   both feed the PIO checksum accumulator)
 *           |  registers (hooked)          |  ID REV CTRL STATUS ISR IMR MACADDR TREQ FIFOs LEVEL RXCK PIO counters
 *  0x100100 +------------------------------+
 *           |  reserved: reads 0           |
 *  0x100800 +------------------------------+
 *           |  buffer status table 128x16  |  plain memory: LEN (host on TX, card on RX), STAT, RXCK, TSTAMP
 *  0x101000 +------------------------------+
 *           |  reserved: reads 0           |
 *  0x200000 +------------------------------+
 * </pre>
 *
 * <h2>Buffer ownership</h2>
 * Every buffer is the host's except while it is in the FREE FIFO (the card may receive into it) or between its
 * push into TX_FIFO and its TXDONE entry. After RESET all 128 are the host's. The card enforces this:
 * <ul>
 *   <li>a push (TX_FIFO or FREE_FIFO) of a value with bits above 6:0 set (a buffer number out of range) or of a
 *       buffer the host does not own is <b>rejected</b>: nothing is queued, no FIFO entry is produced (an
 *       entry would hand the host a buffer the card still owns), ISR TX_ERR (TX_FIFO) or RX_ERR (FREE_FIFO) is
 *       raised and {@link #rejectedTxPushes()} / {@link #rejectedFreePushes()} count it;</li>
 *   <li>a queued TX buffer whose LEN has bits above 12:0 set, or whose frame plus FCS exceeds 4500 bytes
 *       (8192 with CTRL.LONG_FRAMES), or that does not fit in the buffer after FRAME_OFS, completes at once with
 *       STAT = DONE | TRUNCATED, a TXDONE entry with the ERROR bit, ISR TX_DONE | TX_ERR and CNT_TX_ERRORS + 1;
 *       a LEN below the 13-byte MAC header likewise, with STAT = DONE only;</li>
 *   <li>a received frame longer than the limit or the buffer is stored truncated: STAT TRUNCATED, LEN = the
 *       bytes stored, ISR RX_ERR, CNT_RX_TRUNCATED + 1; a frame with a bad FCS that the station accepts is
 *       stored with STAT FCS_ERR and E, ISR RX_ERR (the host discards it); CNT_FCS_ERRORS counts every frame with
 *       a bad FCS that passes the station, accepted or not.</li>
 * </ul>
 * STAT codes are bit numbers (medusa.h {@code MEDUSA_STAT_*_BIT}). On TX completion E/A/C are the frame-status
 * indicators the frame came back with (A: some station recognised DA; C: some station copied it; E: some
 * station saw a bad FCS). On RX they are the indicators as this station saw and set them.
 *
 * <h2>Handoffs</h2>
 * The card writes a buffer's bytes and then its status entry (LEN, STAT, RXCK, TSTAMP) and only then pushes the
 * buffer's number into RX_FIFO or TXDONE_FIFO, all under the card's lock; a host read of those FIFOs pops under
 * the same lock, so a host that popped the number sees the entry and the data (release by the unlock, acquire by
 * the lock). In the other direction the host writes data and LEN before its TX_FIFO push (a hooked register:
 * {@link Registers#writeRelease} or a volatile write orders them).
 *
 * <h2>Interrupts</h2>
 * The line is driven under the card's lock, so its level always equals {@code (ISR & IMR) != 0}; an
 * {@link io.nicbridge.bridge.spi.InterruptHandler} therefore runs with that lock held (and, for receive and
 * transmit events, the ring's): it may access this card's registers but should only wake the driver's thread
 * rather than drive other cards.
 *
 * <h2>Time</h2>
 * The card adds no delays of its own: PIO costs are the host's, the wire's are the ring's. In virtual time
 * {@link #service()} asks the ring for the token; the ring pulls frames at token arrivals. In real time the ring
 * delivers at once. TSTAMP is the card's microsecond counter (time base, since the card was created).
 */
public final class MedusaModel implements DeviceModel, FddiMac, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MedusaModel.class);

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

    /** CTRL bits the host can set (RESET self-clears). */
    static final int CTRL_WRITABLE = CTRL_RX_EN | CTRL_TX_EN | CTRL_PROMISC | CTRL_ALLMULTI | CTRL_RX_CKSUM_EN
        | CTRL_KEEP_FCS | CTRL_LOOPBACK | CTRL_RING_JOIN | CTRL_FRAME_OFS3 | CTRL_LONG_FRAMES;

    private static final byte OWNER_HOST = 0;
    private static final byte OWNER_FREE = 1;
    private static final byte OWNER_TX = 2;
    private static final long BROADCAST = 0xFFFF_FFFF_FFFFL;
    private static final int RX_SCRATCH_BYTES = MAX_FRAME_LONG + FDDI_FCS_LEN;

    private final Object lock = new Object();
    private final String name;
    private final int factoryMacHi;
    private final int factoryMacLo;
    private final TimeBase timeBase;
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
    private final AtomicLong rejectedTxPushes = new AtomicLong();
    private final AtomicLong rejectedFreePushes = new AtomicLong();

    private int epoch;
    private int inFlight;
    private boolean joined;
    private long ttrtNanos;
    private volatile boolean closed;
    private WorkSignal signal;
    private volatile FddiRingPort port;

    /**
     * Creates the card in its reset state. Connect it with {@link #attach} before the host starts it.
     *
     * @param macAddress the factory station address, 6 bytes, canonical order (what MACADDR reads after reset)
     */
    public MedusaModel(String name, byte[] macAddress, TimeBase timeBase) {
        this.name = Objects.requireNonNull(name, "name");
        Objects.requireNonNull(macAddress, "macAddress");
        if (macAddress.length != FDDI_ADDR_LEN) {
            throw new IllegalArgumentException("card " + name + ": a station address has " + FDDI_ADDR_LEN
                + " bytes, got " + macAddress.length);
        }
        this.factoryMacHi = (macAddress[0] & 0xFF) << 8 | (macAddress[1] & 0xFF);
        this.factoryMacLo = (macAddress[2] & 0xFF) << 24 | (macAddress[3] & 0xFF) << 16 | (macAddress[4] & 0xFF) << 8
            | (macAddress[5] & 0xFF);
        this.timeBase = Objects.requireNonNull(timeBase, "timeBase");
        this.createdNanos = timeBase.nanoTime();
        this.window = MemorySegment.ofArray(new int[WINDOW_SIZE / Integer.BYTES]);
        this.registers = new Registers(name + ".window", window, ByteOrder.BIG_ENDIAN, new Hooks(), hookedOffsets());
        this.bufferRam = new MedusaBufferRam(window);
        this.interrupt = new InterruptLine(name + ".irq");
        synchronized (lock) {
            resetLocked();
        }
    }

    /** Every word with side effects: buffer RAM (checksum), registers but MACADDR/TREQ, and the reserved areas. */
    private static int[] hookedOffsets() {
        int plainRegs = 3;
        int count = BUF_RAM_SIZE / 4 + (REGS_SIZE / 4 - plainRegs) + (BUF_STATUS_OFS - REGS_OFS - REGS_SIZE) / 4
            + (WINDOW_SIZE - BUF_STATUS_OFS - BUF_STATUS_SIZE) / 4;
        int[] offsets = new int[count];
        int n = 0;
        for (int o = BUF_RAM_OFS; o < BUF_RAM_OFS + BUF_RAM_SIZE; o += 4) {
            offsets[n++] = o;
        }
        for (int o = REGS_OFS; o < BUF_STATUS_OFS; o += 4) {
            if (o != W_MAC_HI && o != W_MAC_LO && o != W_TREQ) {
                offsets[n++] = o;
            }
        }
        for (int o = BUF_STATUS_OFS + BUF_STATUS_SIZE; o < WINDOW_SIZE; o += 4) {
            offsets[n++] = o;
        }
        if (n != count) {
            throw new IllegalStateException("hooked offsets: counted " + count + ", listed " + n);
        }
        return offsets;
    }

    /** Attaches the card to an engine (which services it) and a ring (its PHY). Setup time, once. */
    public void attach(DeviceEngine engine, FddiRing ring) {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(ring, "ring");
        WorkSignal s = engine.attach(this);
        connect(s, ring.attach(this));
    }

    /** Connects the card to the signal that gets it serviced and to its ring port. Setup time, once. */
    public void connect(WorkSignal workSignal, FddiRingPort ringPort) {
        Objects.requireNonNull(workSignal, "workSignal");
        Objects.requireNonNull(ringPort, "ringPort");
        synchronized (lock) {
            if (signal != null) {
                throw new IllegalStateException("card '" + name + "' is already connected");
            }
            this.port = ringPort;
            this.signal = workSignal;
        }
        LOG.debug("Medusa '{}' connected to {}, {} time", name, ringPort.name(), timeBase.isVirtual() ? "virtual" : "real");
    }

    @Override
    public String name() {
        return name;
    }

    /** The 2 MiB window: registers, buffer status table, and buffer RAM by word. */
    public Registers registers() {
        return registers;
    }

    /** Byte/halfword/word and bulk PIO into buffer RAM, feeding the PIO checksum accumulator. */
    public MedusaBufferRam bufferRam() {
        return bufferRam;
    }

    public InterruptLine interrupt() {
        return interrupt;
    }

    public TimeBase timeBase() {
        return timeBase;
    }

    /** @return TX_FIFO / FREE_FIFO pushes rejected (out of range or not the host's buffer) since creation */
    public long rejectedTxPushes() {
        return rejectedTxPushes.get();
    }

    public long rejectedFreePushes() {
        return rejectedFreePushes.get();
    }

    /** @return the TTRT the ring negotiated, ns (0 while not operational) */
    public long ttrtNanos() {
        synchronized (lock) {
            return ttrtNanos;
        }
    }

    /** @return counter register {@code reg} (e.g. {@code REG_CNT_FCS_ERRORS}) without a host access */
    public int counter(int reg) {
        if (reg < REG_COUNTERS_OFS || reg >= REG_COUNTERS_OFS + 4 * REG_COUNTERS_COUNT || (reg & 3) != 0) {
            throw new IllegalArgumentException("0x" + Integer.toHexString(reg) + " is not a counter register");
        }
        FddiRingPort p = port;
        if (reg == REG_CNT_TOKENS_SEEN && p != null) {
            p.updateIdleTokens();
        }
        return registers.loadRaw(REGS_OFS + reg);
    }

    /** Stops the card: it leaves the ring (bypassed), frames from the ring are ignored, nothing more sent. Idempotent. */
    @Override
    public void close() {
        boolean leave;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            leave = joined;
            joined = false;
        }
        FddiRingPort p = port;
        if (leave && p != null) {
            p.leave(); // no card lock held: ring, then card
        }
    }

    // ================================================================== reset and register side effects

    private void resetLocked() {
        epoch = (epoch + 1) & 0xFFFF;
        inFlight = 0;
        txFifo.clear();
        txDoneFifo.clear();
        rxFifo.clear();
        freeFifo.clear();
        java.util.Arrays.fill(owner, OWNER_HOST);
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
    }

    private void raiseLocked(int bits) {
        registers.getAndBitwiseOrRaw(W_ISR, bits);
        interrupt.update(registers.loadRaw(W_ISR), registers.loadRaw(W_IMR));
    }

    private void countLocked(int reg) {
        int at = REGS_OFS + reg;
        registers.storeRaw(at, registers.loadRaw(at) + 1);
    }

    private void updateBusyLocked() {
        int status = registers.loadRaw(W_STATUS);
        int busy = txFifo.size() > 0 || inFlight > 0 ? STATUS_TX_BUSY : 0;
        registers.storeRaw(W_STATUS, (status & ~STATUS_TX_BUSY) | busy);
    }

    private int tstamp() {
        return (int) ((timeBase.nanoTime() - createdNanos) / 1000);
    }

    private static int statusEntry(int buffer) {
        return BUF_STATUS_OFS + buffer * BUF_STATUS_ENTRY_SIZE;
    }

    private final class Hooks implements RegisterSideEffects {
        @Override
        public int onRead(int offset, int storedValue) {
            if (offset < REGS_OFS) {
                bufferRam.accumulateWord(storedValue); // a host PIO word read of buffer RAM
                return storedValue;
            }
            switch (offset - REGS_OFS) {
                case REG_TXDONE_FIFO:
                    return pop(txDoneFifo);
                case REG_RX_FIFO:
                    return pop(rxFifo);
                case REG_FIFO_LEVEL:
                    synchronized (lock) {
                        return txFifo.size() << FIFO_LEVEL_TX_SHIFT | txDoneFifo.size() << FIFO_LEVEL_TXDONE_SHIFT
                            | rxFifo.size() << FIFO_LEVEL_RX_SHIFT | freeFifo.size() << FIFO_LEVEL_FREE_SHIFT;
                    }
                case REG_PIO_CKSUM:
                    return bufferRam.checksum();
                case REG_CNT_TOKENS_SEEN: {
                    FddiRingPort p = port;
                    if (p != null) {
                        p.updateIdleTokens(); // an idle token's passes are counted lazily
                    }
                    return registers.loadRaw(offset);
                }
                case REG_TX_FIFO:
                case REG_FREE_FIFO:
                    return 0; // write-only
                default:
                    // RO and RW registers read what they hold; reserved words hold 0
                    return offset < REGS_OFS + REGS_SIZE ? storedValue : 0;
            }
        }

        @Override
        public void onWrite(int offset, int value) {
            if (offset < REGS_OFS) {
                registers.storeRaw(offset, value); // a host PIO word write of buffer RAM
                bufferRam.accumulateWord(value);
                return;
            }
            switch (offset - REGS_OFS) {
                case REG_CTRL -> writeCtrl(value);
                case REG_ISR -> {
                    synchronized (lock) {
                        registers.getAndBitwiseAndRaw(W_ISR, ~value); // write 1 to clear
                        interrupt.update(registers.loadRaw(W_ISR), registers.loadRaw(W_IMR));
                    }
                }
                case REG_IMR -> {
                    synchronized (lock) {
                        registers.storeRaw(W_IMR, value & INT_ALL);
                        interrupt.update(registers.loadRaw(W_ISR), registers.loadRaw(W_IMR));
                    }
                }
                case REG_TX_FIFO -> pushTx(value);
                case REG_FREE_FIFO -> pushFree(value);
                case REG_RXCK_START -> registers.storeRaw(W_RXCK_START, value & RXCK_START_MASK);
                case REG_PIO_CKSUM -> bufferRam.checksum(value);
                default -> {
                    // read-only registers, counters and reserved words ignore writes
                }
            }
        }
    }

    private int pop(MedusaFifo fifo) {
        synchronized (lock) {
            return fifo.pop();
        }
    }

    private void writeCtrl(int value) {
        synchronized (lock) {
            if ((value & CTRL_RESET) != 0) {
                resetLocked(); // other bits written together with RESET are ignored
                LOG.debug("Medusa '{}': reset", name);
            } else {
                registers.storeRaw(W_CTRL, value & CTRL_WRITABLE);
            }
        }
        kick(); // ring join/leave, TX enable and loopback are acted on in service()
    }

    private void pushTx(int value) {
        synchronized (lock) {
            if ((value & ~BUF_NUM_MASK) != 0 || owner[value] != OWNER_HOST) {
                rejectedTxPushes.incrementAndGet();
                raiseLocked(INT_TX_ERR);
                return;
            }
            owner[value] = OWNER_TX;
            txFifo.push(value);
            updateBusyLocked();
        }
        kick();
    }

    private void pushFree(int value) {
        synchronized (lock) {
            if ((value & ~BUF_NUM_MASK) != 0 || owner[value] != OWNER_HOST) {
                rejectedFreePushes.incrementAndGet();
                raiseLocked(INT_RX_ERR);
                return;
            }
            owner[value] = OWNER_FREE;
            freeFifo.push(value);
        }
    }

    private void kick() {
        WorkSignal s = signal;
        if (s != null && !closed) {
            s.kick();
        }
    }

    // ================================================================== the engine's side

    @Override
    public int service() {
        boolean join = false;
        boolean leave = false;
        boolean request = false;
        int work = 0;
        FddiRingPort p;
        synchronized (lock) {
            if (closed) {
                return 0;
            }
            p = port;
            int ctrl = registers.loadRaw(W_CTRL);
            boolean want = (ctrl & CTRL_RING_JOIN) != 0 && p != null;
            if (want != joined) {
                joined = want;
                join = want;
                leave = !want;
                work++;
            }
            if ((ctrl & (CTRL_LOOPBACK | CTRL_TX_EN)) == (CTRL_LOOPBACK | CTRL_TX_EN)) {
                work += loopbackLocked(ctrl);
            } else {
                request = joined && (ctrl & CTRL_TX_EN) != 0 && txFifo.size() > 0;
            }
        }
        // ring calls with none of the card's locks held (lock order: ring, then card)
        if (join) {
            p.join();
        }
        if (leave) {
            p.leave(); // the ring reports ISOLATED through ringStateChanged
        }
        if (request) {
            p.requestToken();
            work++;
        }
        return work;
    }

    /** CTRL.LOOPBACK: queued frames go straight to this card's own receive path, not onto the ring. */
    private int loopbackLocked(int ctrl) {
        int sent = 0;
        while (txFifo.size() > 0) {
            long pulled = prepareTxLocked(loopFrame, RX_SCRATCH_BYTES, ctrl);
            if (pulled == NO_FRAME) {
                continue;
            }
            int fs = receiveLocked(loopFrame, (int) pulled, 0);
            completeTxLocked((int) (pulled >>> 32), fs);
            sent++;
        }
        return sent;
    }

    // ================================================================== the ring's side (FddiMac)

    @Override
    public long address() {
        return (registers.loadRaw(W_MAC_HI) & (long) MACADDR_HI_MASK) << 32 | (registers.loadRaw(W_MAC_LO) & 0xFFFF_FFFFL);
    }

    @Override
    public long requestedTtrtNanos() {
        long us = registers.loadRaw(W_TREQ) & 0xFFFF_FFFFL;
        return Math.min(Math.max(us, 1), T_MAX_DEFAULT_US) * 1000L;
    }

    @Override
    public long pullFrame(MemorySegment frame, int capacity) {
        synchronized (lock) {
            if (closed) {
                return NO_FRAME;
            }
            int ctrl = registers.loadRaw(W_CTRL);
            if ((ctrl & CTRL_TX_EN) == 0 || (ctrl & CTRL_LOOPBACK) != 0) {
                return NO_FRAME;
            }
            while (txFifo.size() > 0) {
                long pulled = prepareTxLocked(frame, capacity, ctrl);
                if (pulled != NO_FRAME) {
                    return pulled;
                }
            }
            return NO_FRAME;
        }
    }

    /**
     * Pops the TX FIFO head; a bad one completes with an error at once (returns NO_FRAME, the caller goes on).
     *
     * @return {@code tag << 32 | lengthWithFcs} of a frame staged (FC .. INFO, FCS) at offset 0 of {@code frame}
     */
    private long prepareTxLocked(MemorySegment frame, int capacity, int ctrl) {
        int n = txFifo.pop();
        int entry = statusEntry(n);
        int len = registers.loadRaw(entry + BUF_STATUS_LEN_OFS);
        int ofs = (ctrl & CTRL_FRAME_OFS3) != 0 ? FRAME_OFS_DEFAULT : FRAME_OFS_ALT;
        int max = (ctrl & CTRL_LONG_FRAMES) != 0 ? MAX_FRAME_LONG : MAX_FRAME;
        if ((len & ~LEN_MASK) != 0 || len + FDDI_FCS_LEN > max || ofs + len > BUF_SIZE
                || len + FDDI_FCS_LEN > capacity) {
            txErrorLocked(n, STAT_DONE_BIT | STAT_TRUNCATED_BIT);
            return NO_FRAME;
        }
        if (len < FDDI_MAC_HEADER_LEN) {
            txErrorLocked(n, STAT_DONE_BIT);
            return NO_FRAME;
        }
        MemorySegment.copy(window, (long) n * BUF_SIZE + ofs, frame, 0, len);
        int lengthWithFcs = FddiFcs.append(frame, 0, len);
        int fc = frame.get(ValueLayout.JAVA_BYTE, 0) & 0xFF;
        inFlight++;
        int tag = epoch << 16 | fc << 8 | n;
        return (long) tag << 32 | lengthWithFcs;
    }

    private void txErrorLocked(int n, int stat) {
        int entry = statusEntry(n);
        registers.storeRaw(entry + BUF_STATUS_STAT_OFS, stat);
        registers.storeRaw(entry + BUF_STATUS_TSTAMP_OFS, tstamp());
        owner[n] = OWNER_HOST;
        txDoneFifo.push(FIFO_VALID | FIFO_ERROR | n); // entry written first, then the number handed back
        countLocked(REG_CNT_TX_ERRORS);
        updateBusyLocked();
        raiseLocked(INT_TX_DONE | INT_TX_ERR);
    }

    @Override
    public void frameReturned(int tag, int fs) {
        synchronized (lock) {
            if (closed || (tag >>> 16) != epoch) {
                return; // sent before a reset: that buffer is the host's already
            }
            completeTxLocked(tag, fs);
        }
    }

    private void completeTxLocked(int tag, int fs) {
        int n = tag & BUF_NUM_MASK;
        int fc = (tag >>> 8) & 0xFF;
        int entry = statusEntry(n);
        registers.storeRaw(entry + BUF_STATUS_STAT_OFS, STAT_DONE_BIT | indicatorBits(fs) | fc << STAT_FC_SHIFT);
        registers.storeRaw(entry + BUF_STATUS_TSTAMP_OFS, tstamp());
        owner[n] = OWNER_HOST;
        txDoneFifo.push(FIFO_VALID | n); // entry written first, then the number handed back
        inFlight--;
        countLocked(REG_CNT_FRAMES_TX);
        updateBusyLocked();
        raiseLocked(INT_TX_DONE);
    }

    private static int indicatorBits(int fs) {
        return ((fs & FS_E) != 0 ? STAT_E_BIT : 0) | ((fs & FS_A) != 0 ? STAT_A_BIT : 0)
            | ((fs & FS_C) != 0 ? STAT_C_BIT : 0);
    }

    @Override
    public int frameArrived(MemorySegment frame, int lengthWithFcs, int fsIn) {
        synchronized (lock) {
            if (closed) {
                return 0;
            }
            return receiveLocked(frame, lengthWithFcs, fsIn);
        }
    }

    /** Address recognition, FCS check and store. @return the indicators this station sets */
    private int receiveLocked(MemorySegment frame, int lengthWithFcs, int fsIn) {
        int ctrl = registers.loadRaw(W_CTRL);
        boolean fcsOk = FddiFcs.check(frame, 0, lengthWithFcs);
        int fs = fcsOk ? 0 : FS_E;
        if (!fcsOk) {
            countLocked(REG_CNT_FCS_ERRORS);
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
            fs |= FS_A;
        }
        if ((ctrl & CTRL_RX_EN) == 0 || !(recognised || (ctrl & CTRL_PROMISC) != 0)) {
            return fs;
        }
        if (freeFifo.size() == 0) {
            countLocked(REG_CNT_NOBUF_DROPS);
            raiseLocked(INT_RX_DROP_NOBUF);
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
            fs |= FS_C;
        }
        int fc = frame.get(ValueLayout.JAVA_BYTE, 0) & 0xFF;
        int stat = STAT_DONE_BIT | indicatorBits(fsIn | fs) | (fcsOk ? 0 : STAT_FCS_ERR_BIT)
            | (truncated ? STAT_TRUNCATED_BIT : 0) | fc << STAT_FC_SHIFT;
        int entry = statusEntry(n);
        registers.storeRaw(entry + BUF_STATUS_LEN_OFS, storedLen);
        registers.storeRaw(entry + BUF_STATUS_STAT_OFS, stat);
        registers.storeRaw(entry + BUF_STATUS_RXCK_OFS, rxck);
        registers.storeRaw(entry + BUF_STATUS_TSTAMP_OFS, tstamp());
        owner[n] = OWNER_HOST;
        rxFifo.push(FIFO_VALID | n); // data and entry written first, then the number handed to the host
        countLocked(REG_CNT_FRAMES_RX);
        if (truncated) {
            countLocked(REG_CNT_RX_TRUNCATED);
        }
        raiseLocked(fcsOk && !truncated ? INT_RX_READY : INT_RX_READY | INT_RX_ERR);
        return fs;
    }

    @Override
    public void ringStateChanged(int state, long ttrt) {
        boolean wake;
        synchronized (lock) {
            ttrtNanos = ttrt;
            int busy = registers.loadRaw(W_STATUS) & STATUS_TX_BUSY;
            registers.storeRaw(W_STATUS, busy | state << STATUS_RING_STATE_SHIFT
                | (state == FddiRing.STATE_OPERATIONAL ? STATUS_RING_OP : 0));
            if (state == FddiRing.STATE_CLAIM) {
                countLocked(REG_CNT_RING_REINITS);
            }
            raiseLocked(INT_RING_CHANGE);
            wake = state == FddiRing.STATE_OPERATIONAL && txFifo.size() > 0;
        }
        if (wake) {
            kick();
        }
    }

    @Override
    public void tokensSeen(long count) {
        synchronized (lock) {
            int at = REGS_OFS + REG_CNT_TOKENS_SEEN;
            registers.storeRaw(at, registers.loadRaw(at) + (int) count);
        }
    }

    @Override
    public String toString() {
        return "MedusaModel[" + name + "]";
    }
}
