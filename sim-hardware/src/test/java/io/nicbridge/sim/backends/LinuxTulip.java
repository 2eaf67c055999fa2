package io.nicbridge.sim.backends;

import static io.nicbridge.contract.Dec21140.*;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipSerialRom;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.spi.Card;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Test code: what Linux's tulip driver (drivers/net/ethernet/dec/tulip: tulip_core.c, interrupt.c without NAPI,
 * timer.c, media.c, eeprom.c) does to a 21140 whose SROM holds one compact 100BASE-TX media block (our board), in
 * Linux's order and with Linux's values, so that every backend can be held to what the chip must do for it. Names
 * follow Linux's ({@code cur_tx}, {@code dirty_rx}, {@code ttimer}...); a Linux socket buffer is a ring slot's
 * buffer, "allocated" against {@link #skbBudget} so that the out-of-memory paths can be reached.
 *
 * <p>What differs from Linux, and why: the rings are smaller (16 entries, not 128 receive and 32 transmit; every
 * index computation is Linux's, modulo the ring size); delays ({@code udelay}) are left to the chip, which the
 * tests wait for where Linux would poll; the timers (the 2-second media timer, the 4-second transmit watchdog) are
 * run by the test when it chooses ({@link #mediaTimer}, {@link #txTimeout}); and {@link #maxRx} may be lowered to
 * reach the too-much-work branch deterministically (Linux: the ring size). One thread drives it.
 */
final class LinuxTulip implements AutoCloseable {
    static final int RX_RING_SIZE = 16;
    static final int TX_RING_SIZE = 16;
    /** tulip.h: TxOn and RxOn|TxOn (CSR6 ST, SR|ST). */
    static final int TX_ON = CSR6_ST;
    static final int RX_TX = CSR6_SR | CSR6_ST;
    /** tulip_core.c's default CSR0 on x86: MWI, MRL, MRM, CAL = 16 longwords (0x01A00000 | 0x8000). */
    static final int CSR0_X86 = 0x01A08000;
    /** tulip.h DESC_RING_WRAP (RER / TER). */
    static final int DESC_RING_WRAP = RDES1_RER;
    /** The module parameter max_interrupt_work's default. */
    static final int MAX_INTERRUPT_WORK = 25;
    /** PKT_BUF_SZ. */
    static final int PKT_BUF_SZ = LINUX_RX_BUF_SIZE;
    private static final ValueLayout.OfInt LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int DESC = 16;
    private static final long RX_RING = 0;
    private static final long TX_RING = 0x400;
    private static final long SETUP = 0x800;
    private static final long BUFFERS = 0x1000;
    private static final int BUFFER_STRIDE = 0x800;

    private final String name;
    private final Card card;
    private final Registers csr;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment mem;
    private final long bus;
    private final MacAddress mac;

    // the media table, as tulip_parse_eeprom builds it from the SROM
    private int csr12dir;
    private int leafMedia;
    private int leafGpData;
    private int leafCommand;
    private int leafCount;

    int csr6;
    int curRx;
    int dirtyRx;
    int curTx;
    int dirtyTx;
    int ttimer;
    long nir;
    int curIndex;
    boolean carrier;
    boolean queueStopped;
    boolean timeoutRecovery;
    /** Local maxrx of tulip_interrupt: RX_RING_SIZE in Linux. */
    int maxRx = RX_RING_SIZE;
    /** Socket buffers netdev_alloc_skb may still hand out; negative: no limit. */
    int skbBudget = -1;
    private final boolean[] rxSkb = new boolean[RX_RING_SIZE];
    /** tx_buffers[entry].skb: the frame's length, or 0 for no skb (the setup frame, a dummy). */
    private final int[] txSkb = new int[TX_RING_SIZE];

    // statistics, Linux's names
    long rxPackets;
    long rxErrors;
    long rxDropped;
    long rxMissedErrors;
    long rxLengthErrors;
    long rxCrcErrors;
    long txPackets;
    long txErrors;
    long txFifoErrors;
    long txCarrierErrors;
    long txWindowErrors;
    long txAbortedErrors;
    // what the test looks at
    long interrupts;
    long ruInterrupts;
    long timerInterrupts;
    long mitigations;
    final List<byte[]> received = new ArrayList<>();
    final List<Integer> txFlags = new ArrayList<>();

    LinuxTulip(String name, Card card) {
        this.name = name;
        this.card = card;
        this.csr = card.registers();
        this.mem = arena.allocate(BUFFERS + (long) (RX_RING_SIZE + TX_RING_SIZE) * BUFFER_STRIDE, 4096);
        this.bus = card.dma().register(name + ".linux", mem);
        byte[] rom = TulipSerialRom.read(csr, TulipSerialRom.probeAddressBits(csr), TulipSerialRom.READ_WORDS);
        this.mac = TulipSerialRom.stationAddress(rom);
        parseEeprom(rom);
    }

    /** tulip_parse_eeprom, for the one format our SROM has: a 21140 info leaf with compact media blocks. */
    private void parseEeprom(byte[] rom) {
        int leaf = (rom[SROM_INFO_LEAF_OFS] & 0xFF) | (rom[SROM_INFO_LEAF_OFS + 1] & 0xFF) << 8;
        int p = leaf + 2; // the default media word (0x0800: autosense) is not needed here
        csr12dir = rom[p++] & 0xFF;
        leafCount = rom[p++] & 0xFF;
        if (leafCount != 1 || (rom[p] & 0x80) != 0) {
            throw new IllegalStateException(name + ": this test driver knows one compact media block, the SROM has "
                + leafCount);
        }
        leafMedia = rom[p] & 0x3F;
        leafGpData = rom[p + 1] & 0xFF;
        leafCommand = (rom[p + 2] & 0xFF) | (rom[p + 3] & 0xFF) << 8;
    }

    MacAddress mac() {
        return mac;
    }

    Card card() {
        return card;
    }

    // ------------------------------------------------------------------ descriptors (little-endian, OWN last)

    private long rxDesc(int entry) {
        return RX_RING + (long) entry * DESC;
    }

    private long txDesc(int entry) {
        return TX_RING + (long) entry * DESC;
    }

    private long rxBuf(int entry) {
        return BUFFERS + (long) entry * BUFFER_STRIDE;
    }

    private long txBuf(int entry) {
        return BUFFERS + (long) (RX_RING_SIZE + entry) * BUFFER_STRIDE;
    }

    private int word(long off) {
        int v = mem.get(LE, off);
        VarHandle.acquireFence(); // the status word is read before the data it guards (rmb)
        return v;
    }

    private void put(long off, int value) {
        mem.set(LE, off, value);
    }

    /** The status word last, after a write barrier (wmb): the chip may take the descriptor from then on. */
    private void putStatus(long desc, int status) {
        VarHandle.releaseFence();
        mem.set(LE, desc, status);
    }

    int rxStatus(int entry) {
        return word(rxDesc(entry));
    }

    int txStatus(int entry) {
        return word(txDesc(entry));
    }

    int txLength(int entry) {
        return mem.get(LE, txDesc(entry) + 4);
    }

    private boolean allocSkb() {
        if (skbBudget == 0) {
            return false;
        }
        if (skbBudget > 0) {
            skbBudget--;
        }
        return true;
    }

    // ------------------------------------------------------------------ tulip_open: init_ring, up

    /** tulip_open: tulip_init_ring, then tulip_up. */
    void open() {
        initRing();
        up();
    }

    private void initRing() {
        ttimer = 0;
        nir = 0;
        for (int i = 0; i < RX_RING_SIZE; i++) {
            put(rxDesc(i), 0);
            put(rxDesc(i) + 4, PKT_BUF_SZ);
            put(rxDesc(i) + 12, (int) (bus + rxDesc(i + 1)));
            rxSkb[i] = false;
        }
        put(rxDesc(RX_RING_SIZE - 1) + 4, PKT_BUF_SZ | DESC_RING_WRAP);
        put(rxDesc(RX_RING_SIZE - 1) + 12, (int) (bus + RX_RING));
        int i;
        for (i = 0; i < RX_RING_SIZE; i++) {
            if (!allocSkb()) {
                break;
            }
            rxSkb[i] = true;
            put(rxDesc(i) + 8, (int) (bus + rxBuf(i)));
            putStatus(rxDesc(i), RDES0_OWN);
        }
        dirtyRx = i - RX_RING_SIZE;
        for (i = 0; i < TX_RING_SIZE; i++) {
            txSkb[i] = 0;
            put(txDesc(i), 0);
            put(txDesc(i) + 12, (int) (bus + txDesc(i + 1)));
        }
        put(txDesc(TX_RING_SIZE - 1) + 12, (int) (bus + TX_RING));
    }

    /** tulip_up for the 21140: reset, rings, the setup frame, the media, start (Tx alone first), poll demand. */
    private void up() {
        csr.write(CSR0, CSR0_SWR);
        csr.write(CSR0, CSR0_X86);
        csr.write(CSR3, (int) (bus + RX_RING));
        csr.write(CSR4, (int) (bus + TX_RING));
        curRx = curTx = 0;
        dirtyRx = dirtyTx = 0;
        // set_rx_mode without starting the transmitter: broadcast in every entry (the 21140 bug), ours in the last
        mem.asSlice(SETUP, SETUP_FRAME_SIZE).fill((byte) 0xFF);
        long entry15 = SETUP + 15 * 12;
        for (int k = 0; k < 3; k++) { // each 16-bit half of the address written twice, as Linux's u16 copy does
            int lo = mac.byteAt(2 * k);
            int hi = mac.byteAt(2 * k + 1);
            mem.set(ValueLayout.JAVA_BYTE, entry15 + 4 * k, (byte) lo);
            mem.set(ValueLayout.JAVA_BYTE, entry15 + 4 * k + 1, (byte) hi);
            mem.set(ValueLayout.JAVA_BYTE, entry15 + 4 * k + 2, (byte) lo);
            mem.set(ValueLayout.JAVA_BYTE, entry15 + 4 * k + 3, (byte) hi);
        }
        txSkb[curTx] = 0;
        put(txDesc(curTx) + 4, TDES1_SET | SETUP_FRAME_SIZE);
        put(txDesc(curTx) + 8, (int) (bus + SETUP));
        putStatus(txDesc(curTx), TDES0_OWN);
        curTx++;
        curIndex = leafCount - 1; // "start sensing first non-full-duplex media": our one block
        csr6 = 0;
        selectMedia(true);
        stopRxTx();
        csr.write(CSR6, csr6 | TX_ON); // the setup frame goes: no CSR1
        csr.write(CSR5, LINUX_VALID_INTRS);
        csr.write(CSR7, LINUX_VALID_INTRS);
        startRxTx();
        csr.write(CSR2, 0);
    }

    /** tulip_select_media, case 0 (21140 non-MII transceiver). */
    void selectMedia(boolean startup) {
        if (startup) {
            csr.write(CSR12, csr12dir | CSR12_GPC);
        }
        csr.write(CSR12, leafGpData);
        int newCsr6 = 0x02000000 | ((leafCommand & 0x71) << 18);
        csr6 = newCsr6 | (csr6 & 0xfdff);
    }

    int leafMedia() {
        return leafMedia;
    }

    /** tulip_start_rxtx. */
    void startRxTx() {
        csr.write(CSR6, csr6 | RX_TX);
        csr.read(CSR6); // mmio sync
    }

    /**
     * tulip_stop_rxtx: clear SR|ST and poll CSR5 until both processes read stopped (Linux: 130 x 10 us); {@code
     * waitStopped} is the world's wait, since the chip may need time to finish a frame in flight.
     *
     * @return false when the processes did not stop in time ("tulip_stop_rxtx() failed")
     */
    boolean stopRxTx(java.util.function.Predicate<java.util.function.BooleanSupplier> waitStopped) {
        int v = csr.read(CSR6);
        if ((v & RX_TX) != 0) {
            csr.write(CSR6, v & ~RX_TX);
            return waitStopped.test(() -> (csr.read(CSR5) & CSR5_RS_TS_MASK) == 0);
        }
        return true;
    }

    private java.util.function.Predicate<java.util.function.BooleanSupplier> stopWait = c -> {
        for (int i = 1300 / 10; i > 0; i--) {
            if (c.getAsBoolean()) {
                return true;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(10_000);
        }
        return c.getAsBoolean();
    };

    /** How stopRxTx waits for the chip (virtual worlds let simulated time pass instead of sleeping). */
    void stopWait(java.util.function.Predicate<java.util.function.BooleanSupplier> wait) {
        this.stopWait = wait;
    }

    void stopRxTx() {
        if (!stopRxTx(stopWait)) {
            throw new AssertionError(name + ": tulip_stop_rxtx() failed (CSR5 0x" + Integer.toHexString(csr.read(CSR5))
                + " CSR6 0x" + Integer.toHexString(csr.read(CSR6)) + ")");
        }
    }

    /** tulip_restart_rxtx. */
    void restartRxTx() {
        stopRxTx();
        startRxTx();
    }

    // ------------------------------------------------------------------ tulip_start_xmit

    /**
     * tulip_start_xmit: the frame into the entry's buffer, Linux's IC choice, OWN, CSR1.
     *
     * @return false when the queue is stopped (NETDEV_TX_BUSY would never be returned by Linux: it stops the queue
     *     one frame earlier; the test asks first)
     */
    boolean startXmit(byte[] frame) {
        if (queueStopped) {
            return false;
        }
        int entry = curTx % TX_RING_SIZE;
        MemorySegment.copy(frame, 0, mem, ValueLayout.JAVA_BYTE, txBuf(entry), frame.length);
        txSkb[entry] = frame.length;
        put(txDesc(entry) + 8, (int) (bus + txBuf(entry)));
        int flag;
        int pending = curTx - dirtyTx;
        if (pending < TX_RING_SIZE / 2) {
            flag = LINUX_TDES1_FRAME; // no interrupt
        } else if (pending == TX_RING_SIZE / 2) {
            flag = LINUX_TDES1_FRAME_IC; // Tx-done interrupt
        } else if (pending < TX_RING_SIZE - 2) {
            flag = LINUX_TDES1_FRAME;
        } else { // leave room for set_rx_mode() to fill entries
            flag = LINUX_TDES1_FRAME_IC;
            queueStopped = true;
        }
        if (entry == TX_RING_SIZE - 1) {
            flag = LINUX_TDES1_FRAME_IC | DESC_RING_WRAP;
        }
        txFlags.add(flag);
        put(txDesc(entry) + 4, frame.length | flag);
        putStatus(txDesc(entry), TDES0_OWN);
        curTx++;
        csr.write(CSR1, 0);
        return true;
    }

    // ------------------------------------------------------------------ tulip_interrupt (non-NAPI)

    /** tulip_interrupt without NAPI, for a 21140. @return whether the interrupt was ours (NIS or AIS set) */
    boolean interrupt() {
        int csr5 = csr.read(CSR5);
        if ((csr5 & (CSR5_NIS | CSR5_AIS)) == 0) {
            return false;
        }
        interrupts++;
        nir++;
        int rx = 0;
        int tx = 0;
        int oi = 0;
        int maxrx = maxRx;
        int maxtx = TX_RING_SIZE;
        int maxoi = TX_RING_SIZE;
        int workCount = MAX_INTERRUPT_WORK;
        do {
            if ((csr5 & CSR5_RU) != 0) {
                ruInterrupts++;
            }
            csr.write(CSR5, csr5 & LINUX_CSR5_ACK_MASK); // acknowledge all of the current sources ASAP
            if ((csr5 & (CSR5_RI | CSR5_RU)) != 0) {
                rx += tulipRx();
                refillRx();
            }
            if ((csr5 & (CSR5_TU | CSR5_TPS | CSR5_TI | CSR5_GTE)) != 0) {
                tx += reclaimTx(csr5);
            }
            if ((csr5 & CSR5_AIS) != 0) { // log errors
                if ((csr5 & CSR5_TJT) != 0) {
                    txErrors++;
                }
                if ((csr5 & CSR5_UNF) != 0) {
                    if ((csr6 & 0xC000) != 0xC000) {
                        csr6 += 0x4000; // bump up the Tx threshold
                    } else {
                        csr6 |= CSR6_SF; // store-and-forward
                    }
                    restartRxTx();
                    csr.write(CSR1, 0);
                }
                if ((csr5 & CSR5_RPS) != 0) { // RxDied: missed a Rx frame
                    rxMissedErrors += csr.read(CSR8) & 0xffff;
                    rxErrors++;
                    startRxTx();
                }
                csr.write(CSR5, LINUX_CSR5_ABNORMAL_CLEAR); // clear all error sources, included undocumented ones
                oi++;
            }
            if ((csr5 & CSR5_GTE) != 0) { // re-enabling interrupts
                timerInterrupts++;
                csr.write(CSR7, LINUX_VALID_INTRS);
                ttimer = 0;
                oi++;
            }
            if (tx > maxtx || rx > maxrx || oi > maxoi) { // too much work during an interrupt
                mitigations++;
                csr.write(CSR5, 0x8001ffff); // acknowledge all interrupt sources
                // mask all interrupting sources, set the timer to re-enable
                csr.write(CSR7, ((~csr5) & LINUX_VALID_INTRS) | CSR7_AIM | CSR7_GTM);
                csr.write(CSR11, LINUX_CSR11_MITIGATION);
                break;
            }
            if (--workCount == 0) {
                break;
            }
            csr5 = csr.read(CSR5);
        } while ((csr5 & (CSR5_NIS | CSR5_AIS)) != 0);
        refillRx();
        // check if the card is in suspend mode
        if (!rxSkb[Math.floorMod(dirtyRx, RX_RING_SIZE)]) {
            if (ttimer == 0 || (csr.read(CSR11) & 0xffff) == 0) { // in rx suspend mode: set timer
                csr.write(CSR7, LINUX_VALID_INTRS | CSR7_GTM);
                csr.write(CSR5, CSR5_GTE);
                csr.write(CSR11, LINUX_CSR11_RX_REFILL);
                ttimer = 1;
            }
        }
        int missed = csr.read(CSR8) & 0x1ffff;
        if (missed != 0) {
            rxDropped += (missed & 0x10000) != 0 ? 0x10000 : missed;
        }
        return true;
    }

    /** The transmit reclaim of tulip_interrupt. @return frames reclaimed */
    private int reclaimTx(int csr5) {
        int tx = 0;
        int dirty;
        for (dirty = dirtyTx; curTx - dirty > 0; dirty++) {
            int entry = dirty % TX_RING_SIZE;
            int status = txStatus(entry);
            if (status < 0) {
                break; // it still has not been Txed
            }
            if (txSkb[entry] == 0) {
                continue; // the setup frame
            }
            if ((status & TDES0_ES) != 0) {
                txErrors++;
                if ((status & LINUX_TDES0_ABORTED) != 0) {
                    txAbortedErrors++;
                }
                if ((status & LINUX_TDES0_CARRIER) != 0) {
                    txCarrierErrors++;
                }
                if ((status & LINUX_TDES0_WINDOW) != 0) {
                    txWindowErrors++;
                }
                if ((status & LINUX_TDES0_FIFO) != 0) {
                    txFifoErrors++;
                }
            } else {
                txPackets++;
            }
            txSkb[entry] = 0;
            tx++;
        }
        if (curTx - dirty < TX_RING_SIZE - 2) {
            queueStopped = false; // netif_wake_queue
        }
        dirtyTx = dirty;
        if ((csr5 & CSR5_TPS) != 0) { // the transmitter stopped
            restartRxTx();
        }
        return tx;
    }

    /** tulip_rx (non-NAPI). @return frames taken */
    private int tulipRx() {
        int entry = curRx % RX_RING_SIZE;
        int rxWorkLimit = dirtyRx + RX_RING_SIZE - curRx;
        int count = 0;
        while ((rxStatus(entry) & RDES0_OWN) == 0) {
            int status = rxStatus(entry);
            if (--rxWorkLimit < 0) {
                break;
            }
            if ((status & 0x38008300) != 0x0300) {
                if ((status & 0x38000300) != 0x0300) {
                    if ((status & 0xffff) != 0x7fff) {
                        rxLengthErrors++; // oversized frame spanned multiple buffers
                    }
                } else if ((status & RDES0_ES) != 0) { // there was a fatal error
                    rxErrors++;
                    if (((status >>> 16) & 0x7ff) > 1518 || (status & RDES0_RF) != 0) {
                        rxLengthErrors++;
                    }
                    if ((status & RDES0_CE) != 0) {
                        rxCrcErrors++;
                    }
                }
            } else {
                int pktLen = ((status >>> 16) & 0x7ff) - 4; // omit the four-byte CRC
                byte[] f = new byte[pktLen];
                MemorySegment.copy(mem, ValueLayout.JAVA_BYTE, rxBuf(entry), f, 0, pktLen);
                received.add(f);
                rxSkb[entry] = false; // the skb went up the stack
                rxPackets++;
            }
            count++;
            entry = ++curRx % RX_RING_SIZE;
        }
        return count;
    }

    /** tulip_refill_rx: new buffers where the stack took them, OWN on every entry the driver has consumed. */
    int refillRx() {
        int refilled = 0;
        for (; curRx - dirtyRx > 0; dirtyRx++) {
            int entry = dirtyRx % RX_RING_SIZE;
            if (!rxSkb[entry]) {
                if (!allocSkb()) {
                    break;
                }
                rxSkb[entry] = true;
                put(rxDesc(entry) + 8, (int) (bus + rxBuf(entry)));
                refilled++;
            }
            putStatus(rxDesc(entry), RDES0_OWN);
        }
        return refilled;
    }

    // ------------------------------------------------------------------ timer.c, the transmit watchdog

    /**
     * tulip_timer / tulip_media_task for the 21140 with a type-0 block: the link beat bit decides the carrier;
     * without it the next media is selected (ours again) and the chip restarted. Then any pending transmit timeout
     * recovery.
     *
     * @return the next tick in milliseconds, as Linux computes it (2 s; 2.4 s after a media change)
     */
    int mediaTimer() {
        int csr12 = csr.read(CSR12);
        int next = 2000;
        int bitnum = (byte) leafCommand; // p[offset] as s8, offset 2 for a type-0 block
        boolean noSense = ((leafCommand >>> 8) & 0x80) != 0;
        if (!noSense) {
            if ((bitnum < 0) != ((csr12 & (1 << ((bitnum >> 1) & 7))) != 0)) {
                carrier = true; // link beat detected
            } else {
                carrier = false;
                if (--curIndex < 0) {
                    curIndex = leafCount - 1; // we start again
                }
                selectMedia(false);
                restartRxTx();
                next = 2400;
            }
        }
        if (timeoutRecovery) {
            txTimeoutComplete();
            timeoutRecovery = false;
        }
        return next;
    }

    /** tulip_tx_timeout for a 21140: the recovery is left to the media task. */
    void txTimeout() {
        timeoutRecovery = true;
    }

    /** tulip_tx_timeout_complete: stop and restart the chip's processes, and an immediate transmit demand. */
    private void txTimeoutComplete() {
        restartRxTx();
        csr.write(CSR1, 0);
        txErrors++;
    }

    /** tulip_down's chip part: interrupts off, processes stopped, CSR8 counted. */
    void down() {
        csr.write(CSR7, 0);
        stopRxTx();
        rxMissedErrors += csr.read(CSR8) & 0xffff;
    }

    @Override
    public void close() {
        try {
            card.dma().unregister(bus);
        } finally {
            arena.close();
        }
    }

    @Override
    public String toString() {
        return "LinuxTulip[" + name + ", " + card.name() + "]";
    }
}
