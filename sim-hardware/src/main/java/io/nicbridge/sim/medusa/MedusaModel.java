package io.nicbridge.sim.medusa;

import static io.nicbridge.contract.Medusa.*;

import io.nicbridge.bridge.regs.RegisterSideEffects;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.spi.InterruptLine;
import io.nicbridge.sim.engine.DeviceEngine;
import io.nicbridge.sim.engine.DeviceModel;
import io.nicbridge.sim.engine.TimeBase;
import io.nicbridge.sim.engine.WorkSignal;
import io.nicbridge.sim.fddi.FddiMac;
import io.nicbridge.sim.fddi.FddiRing;
import io.nicbridge.sim.fddi.FddiRingPort;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.Objects;
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
 * <h2>Core and shell</h2>
 * The chip itself - register side effects, FIFOs, ownership, transmit staging and completion, receive - is
 * {@link MedusaCore}: single-threaded, time passed in, a {@link MedusaTrace} point on every state change. This
 * class is its shell: three kinds of thread enter the card (the host through {@link #registers()}, the ring
 * through {@link FddiMac}, the engine through {@link #service()}), and the shell serialises them on the card's
 * lock, reads the clock, kicks the engine and makes the ring calls the core asks for outside that lock.
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

    /** CTRL bits the host can set (RESET self-clears). */
    static final int CTRL_WRITABLE = MedusaCore.CTRL_WRITABLE;

    private final Object lock = new Object();
    private final String name;
    private final TimeBase timeBase;
    private final Registers registers;
    private final MedusaBufferRam bufferRam;
    private final InterruptLine interrupt;
    /** Guarded by {@link #lock}. */
    private final MedusaCore core;

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
        int factoryMacHi = (macAddress[0] & 0xFF) << 8 | (macAddress[1] & 0xFF);
        int factoryMacLo = (macAddress[2] & 0xFF) << 24 | (macAddress[3] & 0xFF) << 16 | (macAddress[4] & 0xFF) << 8
            | (macAddress[5] & 0xFF);
        this.timeBase = Objects.requireNonNull(timeBase, "timeBase");
        MemorySegment window = MemorySegment.ofArray(new int[WINDOW_SIZE / Integer.BYTES]);
        this.registers = new Registers(name + ".window", window, ByteOrder.BIG_ENDIAN, new Hooks(), hookedOffsets());
        this.bufferRam = new MedusaBufferRam(window);
        this.interrupt = new InterruptLine(name + ".irq");
        synchronized (lock) {
            this.core = new MedusaCore(factoryMacHi, factoryMacLo, timeBase.nanoTime(), window, registers, bufferRam,
                interrupt);
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
            if (o != MedusaCore.W_MAC_HI && o != MedusaCore.W_MAC_LO && o != MedusaCore.W_TREQ) {
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

    /**
     * Installs a tracer on the chip core ({@link MedusaTrace#NONE} to remove it). It runs with the card's lock held
     * and must not call back into the card or the ring. Setup or test time.
     */
    public void trace(MedusaTrace tracer) {
        Objects.requireNonNull(tracer, "tracer");
        synchronized (lock) {
            core.trace(tracer);
        }
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
        synchronized (lock) {
            return core.rejectedTxPushes();
        }
    }

    public long rejectedFreePushes() {
        synchronized (lock) {
            return core.rejectedFreePushes();
        }
    }

    /** @return the TTRT the ring negotiated, ns (0 while not operational) */
    public long ttrtNanos() {
        synchronized (lock) {
            return core.ttrtNanos();
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

    /**
     * A fault a simulation injects: the board is reset without its driver asking (a power glitch, a bus reset), as
     * CTRL.RESET resets it (docs/hardware-facts.md C.2): every register to its reset value (CTRL without RX_EN,
     * TX_EN and RING_JOIN, so the card leaves the ring at its next service; IMR 0; the counters 0; MACADDR the
     * factory address), the four FIFOs emptied, every buffer the host's again, the buffer status table cleared. A
     * frame on the ring when it happens completes as "sent before a reset" (no TXDONE). The buffer RAM keeps its
     * bytes, as memory does through a logic reset. The driver finds out only through the registers. Any thread; a
     * no-op on a closed card.
     */
    public void hardwareReset() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            core.reset();
        }
        LOG.debug("Medusa '{}': hardware reset", name);
        kick(); // leave the ring: CTRL.RING_JOIN is clear now
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
            leave = core.dropOffRing();
        }
        FddiRingPort p = port;
        if (leave && p != null) {
            p.leave(); // no card lock held: ring, then card
        }
    }

    // ================================================================== the host's side (register hooks)

    private final class Hooks implements RegisterSideEffects {
        @Override
        public int onRead(int offset, int storedValue) {
            if (offset < REGS_OFS) {
                bufferRam.accumulateWord(storedValue); // a host PIO word read of buffer RAM
                return storedValue;
            }
            if (offset == MedusaCore.W_CNT_TOKENS_SEEN) {
                FddiRingPort p = port;
                if (p != null) {
                    p.updateIdleTokens(); // an idle token's passes are counted lazily (ring, then card)
                }
            }
            synchronized (lock) {
                return core.read(offset, storedValue);
            }
        }

        @Override
        public void onWrite(int offset, int value) {
            if (offset < REGS_OFS) {
                registers.storeRaw(offset, value); // a host PIO word write of buffer RAM
                bufferRam.accumulateWord(value);
                return;
            }
            boolean work;
            synchronized (lock) {
                work = core.write(offset, value);
            }
            if (offset == MedusaCore.W_CTRL && (value & CTRL_RESET) != 0) {
                LOG.debug("Medusa '{}': reset", name);
            }
            if (work) {
                kick();
            }
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
        int work;
        int ringAction;
        boolean request;
        FddiRingPort p;
        synchronized (lock) {
            if (closed) {
                return 0;
            }
            p = port;
            work = core.service(timeBase.nanoTime(), p != null);
            ringAction = core.ringAction();
            request = core.tokenWanted();
        }
        // ring calls with none of the card's locks held (lock order: ring, then card)
        if (ringAction == MedusaCore.RING_JOIN) {
            p.join();
        } else if (ringAction == MedusaCore.RING_LEAVE) {
            p.leave(); // the ring reports ISOLATED through ringStateChanged
        }
        if (request) {
            p.requestToken();
        }
        return work;
    }

    // ================================================================== the ring's side (FddiMac)

    @Override
    public long address() {
        return core.address(); // MACADDR: plain registers, read without the lock as the ring may hold its own
    }

    @Override
    public long requestedTtrtNanos() {
        return core.requestedTtrtNanos();
    }

    @Override
    public long pullFrame(MemorySegment frame, int capacity) {
        synchronized (lock) {
            if (closed) {
                return NO_FRAME;
            }
            return core.pullFrame(frame, capacity, timeBase.nanoTime());
        }
    }

    @Override
    public void frameReturned(int tag, int fs) {
        synchronized (lock) {
            if (closed) {
                return;
            }
            core.frameReturned(tag, fs, timeBase.nanoTime());
        }
    }

    @Override
    public int frameArrived(MemorySegment frame, int lengthWithFcs, int fsIn) {
        synchronized (lock) {
            if (closed) {
                return 0;
            }
            return core.receive(frame, lengthWithFcs, fsIn, timeBase.nanoTime());
        }
    }

    @Override
    public void ringStateChanged(int state, long ttrt) {
        boolean wake;
        synchronized (lock) {
            wake = core.ringStateChanged(state, ttrt);
        }
        if (wake) {
            kick();
        }
    }

    @Override
    public void tokensSeen(long count) {
        synchronized (lock) {
            core.tokensSeen(count);
        }
    }

    @Override
    public String toString() {
        return "MedusaModel[" + name + "]";
    }
}
