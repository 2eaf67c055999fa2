package io.nicbridge.bridge.driver.tulip;

import static io.nicbridge.contract.Dec21140.*;

import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.queue.Dec21140DescriptorWalker;
import io.nicbridge.bridge.regs.RegisterSideEffects;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.bridge.spi.InterruptLine;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.function.LongConsumer;

/**
 * A 21140 stand-in for unit and fuzz tests of the driver alone, in one of two characters:
 * <ul>
 *   <li>{@link #selfLoop}: a transmit poll demand (CSR1) sends every card-owned TX descriptor's frame straight into
 *       the next RX descriptor (FS|LS, FL = length + 4, zero FCS), setup and zero-length descriptors just completed.
 *       Runs inline in the driver's thread and allocates nothing per frame, so what a test measures is the
 *       driver.</li>
 *   <li>{@link #hostile}: does nothing by itself and whatever the test tells it: poll demands are ignored, the test
 *       writes any word of any descriptor through {@link #write} as a chip's DMA could, sets the CSR5 sources, the
 *       CSR8 missed-frame count, a lost state (CSR6 reads back without SR|ST: a reset the driver has to find) and a
 *       reset that never completes ({@link #stickInReset}), and walks the transmit list when it says so
 *       ({@link #transmit()}).</li>
 * </ul>
 * Both come out of reset at once (unless told to stick in it), have a serial ROM (a 93C46 model) with the station address, take the list bases
 * (CSR3/CSR4) and the descriptor skip length (CSR0.DSL), and walk the transmit list as the chip does
 * ({@link Dec21140DescriptorWalker}: from the list base, ring or chain, until a descriptor the host owns), telling
 * {@link #onSend} the buffer address of each frame they send, in wire order.
 */
final class TestTulip implements Card, RegisterSideEffects {
    private final String name;
    private final boolean loopsBack;
    private final DmaSpace dma;
    private final InterruptLine line;
    private final Registers regs;
    private final TulipSerialRomTest.Eeprom eeprom;
    private final Dec21140DescriptorWalker tx;
    private final Dec21140DescriptorWalker rx;
    private final MemorySegment fifo = MemorySegment.ofArray(new long[2048 / 8]);
    /** Sources the card has raised and the host has not written back (write-1-to-clear). */
    private int csr5;
    private int missed;
    /** When set, CSR6 reads back without SR|ST: the chip lost its state (a bus reset the driver must find). */
    private boolean lostState;
    /** When set, CSR0.SWR stays set after a software reset: a chip that never comes out of reset. */
    private boolean stuckInReset;
    private long framesLooped;
    private LongConsumer onSend = bus -> { };

    private TestTulip(String name, MacAddress mac, boolean loopsBack) {
        this.name = name;
        this.loopsBack = loopsBack;
        this.dma = new DmaSpace(name);
        this.line = new InterruptLine(name + ".inta");
        this.tx = new Dec21140DescriptorWalker(dma);
        this.rx = new Dec21140DescriptorWalker(dma);
        byte[] image = new byte[128];
        System.arraycopy(mac.toBytes(), 0, image, SROM_MAC_OFS, SROM_MAC_SIZE);
        image[0] = 0x11; // bytes 0..7 differ from 16..23: DEC layout
        this.eeprom = new TulipSerialRomTest.Eeprom(SROM_ADDR_BITS_SMALL, TulipSerialRomTest.romWith(image, 64));
        MemorySegment window = MemorySegment.ofArray(new int[CSR_WINDOW_SIZE / 4]);
        this.regs = new Registers(name + ".csr", window, ByteOrder.LITTLE_ENDIAN, this, CSR0, CSR1, CSR3, CSR4, CSR5,
            CSR6, CSR8, CSR9);
        eeprom.regs = regs;
    }

    /** A card that loops every frame it sends back into its own receive list, on each poll demand. */
    static TestTulip selfLoop(MacAddress mac) {
        return new TestTulip("selfloop", mac, true);
    }

    /** A card that does what the test says, and nothing else. */
    static TestTulip hostile(MacAddress mac) {
        return new TestTulip("hostile", mac, false);
    }

    long framesLooped() {
        return framesLooped;
    }

    /** Told the buffer-1 bus address of every frame the transmit walk sends (not setup or empty descriptors). */
    void onSend(LongConsumer listener) {
        this.onSend = listener;
    }

    /** Raises CSR5 bits (sources, and whatever else the test wants the driver to read). */
    void raise(int bits) {
        csr5 |= bits;
    }

    void missed(int csr8Value) {
        missed = csr8Value;
    }

    void loseState() {
        lostState = true;
    }

    /** From now on, a software reset never completes: CSR0.SWR reads back set. */
    void stickInReset() {
        stuckInReset = true;
    }

    /** Writes {@code value} at bus address {@code bus} as the chip's DMA would (release), in the list's byte order. */
    void write(long bus, int value, ByteOrder order) {
        dma.writeIntRelease(bus, value, order);
    }

    /**
     * The transmit process, as far as it gets: while the chip runs (CSR6.ST set, state not lost), sends every
     * descriptor it owns from its current one on, hands each back (TDES0 := 0) and stops at the first the host owns
     * (TU) or a bus error. A loop-back card also delivers each frame into its receive list.
     *
     * @return the frames sent
     */
    int transmit() {
        if (lostState || (regs.read(CSR6) & CSR6_ST) == 0) {
            return 0;
        }
        int sent = 0;
        while (tx.fetch() == Dec21140DescriptorWalker.FETCH_CARD_OWNED) {
            int control = tx.control();
            int length = tx.buffer1Size();
            if ((control & TDES1_SET) == 0 && length > 0) {
                onSend.accept(tx.buffer1Address());
                sent++;
                if (loopsBack) {
                    loop(tx.buffer1Address(), length);
                }
            }
            tx.complete(0);
            tx.advance();
        }
        return sent;
    }

    private void loop(long bus, int length) {
        dma.copyFromBus(bus, fifo, 0, length);
        if (rx.fetch() == Dec21140DescriptorWalker.FETCH_CARD_OWNED) {
            dma.copyToBus(fifo, 0, rx.buffer1Address(), length);
            rx.complete(RDES0_FS | RDES0_LS | (length + ETH_FCS_LEN) << RDES0_FL_SHIFT);
            rx.advance();
            framesLooped++;
        } else {
            missed++;
        }
    }

    @Override
    public int onRead(int offset, int storedValue) {
        return switch (offset) {
            case CSR5 -> csr5;
            case CSR6 -> lostState ? storedValue & ~(CSR6_SR | CSR6_ST) : storedValue;
            case CSR8 -> {
                int v = missed;
                missed = 0; // read-to-clear
                yield v;
            }
            case CSR9 -> eeprom.onRead(offset, storedValue);
            default -> storedValue;
        };
    }

    @Override
    public void onWrite(int offset, int value) {
        switch (offset) {
            case CSR0 -> {
                regs.storeRaw(CSR0, stuckInReset ? value : value & ~CSR0_SWR); // the reset completes at once
                if ((value & CSR0_SWR) != 0) {
                    regs.storeRaw(CSR6, 0);
                    lostState = false;
                } else {
                    int skip = (value & CSR0_DSL_MASK) >>> CSR0_DSL_SHIFT;
                    tx.setSkipLength(skip);
                    rx.setSkipLength(skip);
                }
            }
            case CSR1 -> {
                if (loopsBack) {
                    transmit();
                }
            }
            case CSR3 -> {
                regs.storeRaw(CSR3, value);
                rx.setListBase(value & 0xFFFF_FFFFL);
            }
            case CSR4 -> {
                regs.storeRaw(CSR4, value);
                tx.setListBase(value & 0xFFFF_FFFFL);
            }
            case CSR5 -> csr5 &= ~value;
            case CSR9 -> eeprom.onWrite(offset, value);
            default -> regs.storeRaw(offset, value);
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DeviceSpec spec() {
        return DeviceSpec.parse("test:" + name);
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
