package io.nicbridge.bridge.driver.tulip;

import static io.nicbridge.contract.Dec21140.*;

import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.regs.RegisterSideEffects;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.bridge.spi.InterruptLine;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * A 21140 stand-in that does nothing by itself and whatever a test tells it: it comes out of reset, has a serial ROM
 * (a 93C46 model) and keeps the list bases, and otherwise its CSR5 sources, CSR6 read-back (a reset the driver has to
 * find) and CSR8 missed-frame count are what the test sets, and the test writes any word of any descriptor through
 * {@link #write} with the card's byte order, as a chip's DMA could. Poll demands are ignored: no descriptor moves
 * unless the test moves it.
 */
final class HostileTulip implements Card, RegisterSideEffects {
    private final DmaSpace dma = new DmaSpace("hostile");
    private final InterruptLine line = new InterruptLine("hostile.inta");
    private final Registers regs;
    private final TulipSerialRomTest.Eeprom eeprom;
    /** Sources the card has raised and the host has not written back (write-1-to-clear). */
    private int csr5;
    private int csr8;
    /** When set, CSR6 reads back without SR|ST: the chip lost its state (a bus reset the driver must find). */
    private boolean lostState;

    HostileTulip(MacAddress mac) {
        byte[] image = new byte[128];
        System.arraycopy(mac.toBytes(), 0, image, SROM_MAC_OFS, SROM_MAC_SIZE);
        image[0] = 0x11; // bytes 0..7 differ from 16..23: DEC layout
        this.eeprom = new TulipSerialRomTest.Eeprom(SROM_ADDR_BITS_SMALL, TulipSerialRomTest.romWith(image, 64));
        MemorySegment window = MemorySegment.ofArray(new int[CSR_WINDOW_SIZE / 4]);
        this.regs = new Registers("hostile.csr", window, ByteOrder.LITTLE_ENDIAN, this, CSR0, CSR5, CSR6, CSR8, CSR9);
        eeprom.regs = regs;
    }

    /** Raises CSR5 bits (sources, and whatever else the test wants the driver to read). */
    void raise(int bits) {
        csr5 |= bits;
    }

    void missed(int csr8Value) {
        csr8 = csr8Value;
    }

    void loseState() {
        lostState = true;
    }

    /** Writes {@code value} at bus address {@code bus} as the chip's DMA would (release), in the list's byte order. */
    void write(long bus, int value, ByteOrder order) {
        dma.writeIntRelease(bus, value, order);
    }

    @Override
    public int onRead(int offset, int storedValue) {
        return switch (offset) {
            case CSR5 -> csr5;
            case CSR6 -> lostState ? storedValue & ~(CSR6_SR | CSR6_ST) : storedValue;
            case CSR8 -> {
                int v = csr8;
                csr8 = 0; // read-to-clear
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
                regs.storeRaw(CSR0, value & ~CSR0_SWR); // the reset completes at once
                if ((value & CSR0_SWR) != 0) {
                    regs.storeRaw(CSR6, 0);
                    lostState = false;
                }
            }
            case CSR5 -> csr5 &= ~value;
            case CSR9 -> eeprom.onWrite(offset, value);
            default -> regs.storeRaw(offset, value);
        }
    }

    @Override
    public String name() {
        return "hostile";
    }

    @Override
    public DeviceSpec spec() {
        return DeviceSpec.parse("test:hostile");
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
