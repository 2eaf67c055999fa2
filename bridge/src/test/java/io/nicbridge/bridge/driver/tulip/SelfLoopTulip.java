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

/**
 * A minimal 21140 stand-in for unit tests of the driver alone: the SROM (a 93C46 model), CSR0 reset, list bases,
 * CSR8 read-to-clear, and a transmit poll demand that loops every card-owned TX descriptor's frame straight into
 * the next RX descriptor (FS|LS, FL = length + 4, zero FCS), setup and zero-length descriptors just completed.
 * Runs inline in the driver's thread and allocates nothing per frame, so what a test measures is the driver.
 */
final class SelfLoopTulip implements Card, RegisterSideEffects {
    private final DmaSpace dma = new DmaSpace("selfloop");
    private final InterruptLine line = new InterruptLine("selfloop.inta");
    private final Registers regs;
    private final TulipSerialRomTest.Eeprom eeprom;
    private final Dec21140DescriptorWalker tx = new Dec21140DescriptorWalker(dma);
    private final Dec21140DescriptorWalker rx = new Dec21140DescriptorWalker(dma);
    private final MemorySegment fifo = MemorySegment.ofArray(new long[2048 / 8]);
    private int missed;
    private long framesLooped;

    SelfLoopTulip(MacAddress mac) {
        byte[] image = new byte[128];
        System.arraycopy(mac.toBytes(), 0, image, SROM_MAC_OFS, SROM_MAC_SIZE);
        image[0] = 0x11; // bytes 0..7 differ from 16..23: DEC layout
        this.eeprom = new TulipSerialRomTest.Eeprom(SROM_ADDR_BITS_SMALL, TulipSerialRomTest.romWith(image, 64));
        MemorySegment window = MemorySegment.ofArray(new int[CSR_WINDOW_SIZE / 4]);
        this.regs = new Registers("selfloop.csr", window, ByteOrder.LITTLE_ENDIAN, this, CSR0, CSR1, CSR3, CSR4,
            CSR8, CSR9);
        eeprom.regs = regs;
    }

    long framesLooped() {
        return framesLooped;
    }

    @Override
    public int onRead(int offset, int storedValue) {
        if (offset == CSR8) {
            int v = missed;
            missed = 0;
            return v;
        }
        if (offset == CSR9) {
            return eeprom.onRead(offset, storedValue);
        }
        return storedValue;
    }

    @Override
    public void onWrite(int offset, int value) {
        switch (offset) {
            case CSR0 -> regs.storeRaw(CSR0, value & ~CSR0_SWR); // the reset completes at once
            case CSR3 -> {
                regs.storeRaw(CSR3, value);
                rx.setListBase(value & 0xFFFF_FFFFL);
            }
            case CSR4 -> {
                regs.storeRaw(CSR4, value);
                tx.setListBase(value & 0xFFFF_FFFFL);
            }
            case CSR1 -> transmitAll();
            case CSR9 -> eeprom.onWrite(offset, value);
            default -> regs.storeRaw(offset, value);
        }
    }

    private void transmitAll() {
        while (tx.fetch() == Dec21140DescriptorWalker.FETCH_CARD_OWNED) {
            int control = tx.control();
            int length = tx.buffer1Size();
            if ((control & TDES1_SET) == 0 && length > 0) {
                dma.copyFromBus(tx.buffer1Address(), fifo, 0, length);
                if (rx.fetch() == Dec21140DescriptorWalker.FETCH_CARD_OWNED) {
                    dma.copyToBus(fifo, 0, rx.buffer1Address(), length);
                    rx.complete(RDES0_FS | RDES0_LS | (length + ETH_FCS_LEN) << RDES0_FL_SHIFT);
                    rx.advance();
                    framesLooped++;
                } else {
                    missed++;
                }
            }
            tx.complete(0);
            tx.advance();
        }
    }

    @Override
    public String name() {
        return "selfloop";
    }

    @Override
    public DeviceSpec spec() {
        return DeviceSpec.parse("test:selfloop");
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
