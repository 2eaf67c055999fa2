package io.nicbridge.bridge.driver.medusa;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.regs.RegisterSideEffects;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.bridge.spi.InterruptLine;
import io.nicbridge.contract.Medusa;
import io.nicbridge.contract.MedusaBufStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A test double of Medusa cards on an inline, zero-time ring, written from the C.2 contract only, so the
 * driver can be unit-tested in bridge (which cannot see sim-hardware). A TX_FIFO push delivers the frame at
 * once to every other station in ring order (address filter: own address, group bit, or promiscuous), then
 * completes it in TXDONE. It models what the driver depends on - FIFOs of buffer numbers, the buffer status
 * table, ISR/IMR and the line, PIO_CKSUM, RXCK, counters, RESET - and nothing about token timing.
 */
final class TestMedusaRing implements AutoCloseable {
    private final List<Station> stations = new ArrayList<>();
    private final Arena arena = Arena.ofShared();

    Station add(String name) {
        Station s = new Station(name, arena.allocate(Medusa.WINDOW_SIZE, 8));
        stations.add(s);
        return s;
    }

    @Override
    public void close() {
        arena.close();
    }

    /** Sum a byte at a window address into a ones'-complement accumulator, lane by address parity. */
    static int sumByte(int acc, int address, byte b) {
        acc += (address & 1) == 0 ? (b & 0xFF) << 8 : b & 0xFF;
        return (acc & 0xFFFF) + (acc >>> 16);
    }

    /** A 128-deep FIFO of 32-bit entries (synchronized: the interrupt test pushes from another thread). */
    static final class Fifo {
        final int[] slots = new int[Medusa.FIFO_DEPTH];
        int head;
        int size;

        synchronized void push(int v) {
            if (size == slots.length) {
                throw new IllegalStateException("FIFO overflow: the contract says it cannot happen");
            }
            slots[(head + size) % slots.length] = v;
            size++;
        }

        synchronized int pop() {
            if (size == 0) {
                return 0;
            }
            int v = slots[head];
            head = (head + 1) % slots.length;
            size--;
            return v;
        }
    }

    final class Station implements Card, MedusaPio, RegisterSideEffects {
        static final int R = Medusa.REGS_OFS;
        final String name;
        final MemorySegment window;
        final Registers regs;
        final InterruptLine line;
        final DmaSpace dma;
        final Fifo tx = new Fifo();
        final Fifo txDone = new Fifo();
        final Fifo rx = new Fifo();
        final Fifo free = new Fifo();
        int pioSum;
        /** Test hooks: make the next frame this station receives arrive with these STAT bits added. */
        int injectStatBits;
        /** Test hook: TX_FIFO pushes stay queued (not sent) until {@link #drainTx()}. */
        boolean holdTx;
        /** Test hook: CTRL.RESET does not self-clear (a card that never comes out of reset). */
        boolean stuckInReset;

        Station(String name, MemorySegment window) {
            this.name = name;
            this.window = window;
            this.regs = new Registers(name, window, ByteOrder.BIG_ENDIAN, this, R + Medusa.REG_CTRL,
                R + Medusa.REG_ISR, R + Medusa.REG_IMR, R + Medusa.REG_TX_FIFO, R + Medusa.REG_TXDONE_FIFO,
                R + Medusa.REG_RX_FIFO, R + Medusa.REG_FREE_FIFO, R + Medusa.REG_FIFO_LEVEL,
                R + Medusa.REG_PIO_CKSUM);
            this.line = new InterruptLine(name + " irq");
            this.dma = new DmaSpace(name);
            reset();
        }

        private void reset() {
            regs.storeRaw(R + Medusa.REG_ID, Medusa.ID_VALUE);
            regs.storeRaw(R + Medusa.REG_REV, Medusa.REV_VALUE);
            regs.storeRaw(R + Medusa.REG_CTRL, Medusa.CTRL_RESET_VALUE);
            regs.storeRaw(R + Medusa.REG_ISR, 0);
            regs.storeRaw(R + Medusa.REG_IMR, 0);
            regs.storeRaw(R + Medusa.REG_TREQ_US, Medusa.TREQ_US_DEFAULT);
            regs.storeRaw(R + Medusa.REG_RXCK_START, Medusa.RXCK_START_DEFAULT);
            tx.size = txDone.size = rx.size = free.size = 0;
            pioSum = 0;
            line.update(0, 0);
        }

        int reg(int r) {
            return regs.loadRaw(R + r);
        }

        void raise(int bits) {
            int isr = regs.getAndBitwiseOrRaw(R + Medusa.REG_ISR, bits) | bits;
            line.update(isr, regs.loadRaw(R + Medusa.REG_IMR));
        }

        void count(int reg) {
            regs.storeRaw(R + reg, regs.loadRaw(R + reg) + 1);
        }

        long address() {
            return ((long) (reg(Medusa.REG_MACADDR_HI) & 0xFFFF) << 32) | (reg(Medusa.REG_MACADDR_LO) & 0xFFFF_FFFFL);
        }

        int frameOffset() {
            return (reg(Medusa.REG_CTRL) & Medusa.CTRL_FRAME_OFS3) != 0 ? 3 : 0;
        }

        boolean on(int bit) {
            return (reg(Medusa.REG_CTRL) & bit) != 0;
        }

        @Override
        public int onRead(int offset, int stored) {
            switch (offset - R) {
                case Medusa.REG_TXDONE_FIFO -> {
                    return txDone.pop();
                }
                case Medusa.REG_RX_FIFO -> {
                    return rx.pop();
                }
                case Medusa.REG_FIFO_LEVEL -> {
                    return tx.size | txDone.size << 8 | rx.size << 16 | free.size << 24;
                }
                case Medusa.REG_PIO_CKSUM -> {
                    return pioSum;
                }
                case Medusa.REG_TX_FIFO, Medusa.REG_FREE_FIFO -> {
                    return 0;
                }
                default -> {
                    return stored;
                }
            }
        }

        @Override
        public void onWrite(int offset, int value) {
            switch (offset - R) {
                case Medusa.REG_CTRL -> {
                    if ((value & Medusa.CTRL_RESET) != 0) {
                        reset();
                        if (stuckInReset) {
                            regs.storeRaw(offset, Medusa.CTRL_RESET_VALUE | Medusa.CTRL_RESET);
                        }
                    } else {
                        regs.storeRaw(offset, value);
                    }
                }
                case Medusa.REG_ISR -> {
                    int isr = regs.getAndBitwiseAndRaw(offset, ~value) & ~value;
                    line.update(isr, regs.loadRaw(R + Medusa.REG_IMR));
                }
                case Medusa.REG_IMR -> {
                    regs.storeRaw(offset, value);
                    line.update(regs.loadRaw(R + Medusa.REG_ISR), value);
                }
                case Medusa.REG_FREE_FIFO -> free.push(value & Medusa.FIFO_BUF_MASK);
                case Medusa.REG_TX_FIFO -> {
                    tx.push(value & Medusa.FIFO_BUF_MASK);
                    if (!holdTx) {
                        drainTx();
                    }
                }
                case Medusa.REG_PIO_CKSUM -> pioSum = value & 0xFFFF;
                default -> {
                }
            }
        }

        /** Sends every queued TX buffer around the ring. */
        void drainTx() {
            while (tx.size > 0) {
                int n = tx.pop();
                int len = MedusaBufStatus.len(window, statusOf(n)) & Medusa.LEN_MASK;
                int max = (on(Medusa.CTRL_LONG_FRAMES) ? Medusa.MAX_FRAME_LONG - frameOffset() : Medusa.MAX_FRAME)
                    - Medusa.FDDI_FCS_LEN;
                if (len < Medusa.FDDI_MAC_HEADER_LEN || len > max || !on(Medusa.CTRL_TX_EN)) {
                    txDone.push(Medusa.FIFO_VALID | Medusa.FIFO_ERROR | n);
                    count(Medusa.REG_CNT_TX_ERRORS);
                    raise(Medusa.INT_TX_ERR | Medusa.INT_TX_DONE);
                    continue;
                }
                long src = (long) n * Medusa.BUF_SIZE + frameOffset();
                int start = stations.indexOf(this);
                for (int k = 1; k < stations.size(); k++) {
                    stations.get((start + k) % stations.size()).receive(window, src, len);
                }
                count(Medusa.REG_CNT_FRAMES_TX);
                txDone.push(Medusa.FIFO_VALID | n);
                raise(Medusa.INT_TX_DONE);
            }
        }

        void receive(MemorySegment from, long src, int len) {
            if (!on(Medusa.CTRL_RX_EN) || !on(Medusa.CTRL_RING_JOIN)) {
                return;
            }
            long da = 0;
            for (int i = 0; i < 6; i++) {
                da = da << 8 | (from.get(JAVA_BYTE, src + 1 + i) & 0xFF);
            }
            boolean group = ((da >>> 40) & Medusa.ADDR_GROUP_BIT_CANONICAL) != 0;
            if (da != address() && !group && !on(Medusa.CTRL_PROMISC)) {
                return;
            }
            if (free.size == 0) {
                count(Medusa.REG_CNT_NOBUF_DROPS);
                raise(Medusa.INT_RX_DROP_NOBUF);
                return;
            }
            int n = free.pop();
            long dst = (long) n * Medusa.BUF_SIZE + frameOffset();
            MemorySegment.copy(from, src, window, dst, len);
            int start = reg(Medusa.REG_RXCK_START) & Medusa.RXCK_START_MASK;
            int sum = 0;
            for (int i = start; i < len; i++) {
                sum = sumByte(sum, i - start, window.get(JAVA_BYTE, dst + i));
            }
            long e = statusOf(n);
            MedusaBufStatus.len(window, e, len);
            MedusaBufStatus.rxck(window, e, on(Medusa.CTRL_RX_CKSUM_EN) ? sum : 0);
            int stat = Medusa.STAT_DONE_BIT | injectStatBits
                | (from.get(JAVA_BYTE, src) & 0xFF) << Medusa.STAT_FC_SHIFT;
            if ((injectStatBits & Medusa.STAT_FCS_ERR_BIT) != 0) {
                count(Medusa.REG_CNT_FCS_ERRORS);
            }
            injectStatBits = 0;
            MedusaBufStatus.stat(window, e, stat);
            count(Medusa.REG_CNT_FRAMES_RX);
            rx.push(Medusa.FIFO_VALID | n);
            raise(Medusa.INT_RX_READY);
        }

        static long statusOf(int n) {
            return Medusa.BUF_STATUS_OFS + (long) n * Medusa.BUF_STATUS_ENTRY_SIZE;
        }

        private void checkRam(int windowOffset, int length) {
            if (windowOffset < 0 || length < 0 || windowOffset > Medusa.BUF_RAM_SIZE - length) {
                throw new IllegalArgumentException("PIO range [" + windowOffset + ", +" + length
                    + ") is outside buffer RAM");
            }
        }

        @Override
        public void copyToCard(MemorySegment src, long srcOffset, int windowOffset, int length) {
            checkRam(windowOffset, length);
            int acc = pioSum;
            for (int i = 0; i < length; i++) {
                byte b = src.get(JAVA_BYTE, srcOffset + i);
                window.set(JAVA_BYTE, windowOffset + i, b);
                acc = sumByte(acc, windowOffset + i, b);
            }
            pioSum = acc;
        }

        @Override
        public void copyFromCard(int windowOffset, MemorySegment dst, long dstOffset, int length) {
            checkRam(windowOffset, length);
            int acc = pioSum;
            for (int i = 0; i < length; i++) {
                byte b = window.get(JAVA_BYTE, windowOffset + i);
                dst.set(JAVA_BYTE, dstOffset + i, b);
                acc = sumByte(acc, windowOffset + i, b);
            }
            pioSum = acc;
        }

        @Override
        public void putByte(int windowOffset, byte value) {
            checkRam(windowOffset, 1);
            window.set(JAVA_BYTE, windowOffset, value);
            pioSum = sumByte(pioSum, windowOffset, value);
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public DeviceSpec spec() {
            return DeviceSpec.parse("test:medusa?name=" + name);
        }

        @Override
        public Registers registers() {
            return regs;
        }

        @Override
        public DmaSpace dma() {
            return dma;
        }

        @Override
        public InterruptLine interrupt() {
            return line;
        }

        @Override
        public void close() {
        }
    }
}
