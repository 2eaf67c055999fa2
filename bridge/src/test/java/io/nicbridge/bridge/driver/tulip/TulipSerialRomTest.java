package io.nicbridge.bridge.driver.tulip;

import static io.nicbridge.contract.Dec21140.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nicbridge.bridge.regs.RegisterSideEffects;
import io.nicbridge.bridge.regs.Registers;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The CSR9 bit-banging against a small Microwire EEPROM model (93C46 / 93C66 behaviour, dummy zero included). */
class TulipSerialRomTest {

    /** A 93Cx6 read-only EEPROM behind CSR9: start bit, opcode, address, dummy zero, 16 data bits. */
    static final class Eeprom implements RegisterSideEffects {
        final int addressBits;
        final int[] words;
        Registers regs;
        boolean cs;
        boolean sk;
        int shift;
        int bitsIn;
        boolean started;
        int outWord = -1;
        int outBit;
        int dataOut = 1;

        Eeprom(int addressBits, int[] words) {
            this.addressBits = addressBits;
            this.words = words;
        }

        @Override
        public int onRead(int offset, int storedValue) {
            return (storedValue & ~CSR9_SROM_DO) | (dataOut != 0 ? CSR9_SROM_DO : 0);
        }

        @Override
        public void onWrite(int offset, int value) {
            regs.storeRaw(offset, value);
            boolean newCs = (value & CSR9_SROM_CS) != 0;
            boolean newSk = (value & CSR9_SROM_SK) != 0;
            if (!newCs) {
                cs = false;
                started = false;
                bitsIn = 0;
                shift = 0;
                outWord = -1;
                dataOut = 1;
                sk = newSk;
                return;
            }
            cs = true;
            if (newSk && !sk) {
                rising((value & CSR9_SROM_DI) != 0 ? 1 : 0);
            }
            sk = newSk;
        }

        private void rising(int di) {
            if (outWord >= 0) {
                dataOut = outBit >= 0 ? (outWord >>> outBit) & 1 : 1;
                outBit--;
                return;
            }
            if (!started) {
                if (di == 1) {
                    started = true;
                    shift = 1;
                    bitsIn = 1;
                }
                return;
            }
            shift = shift << 1 | di;
            bitsIn++;
            if (bitsIn == SROM_OP_BITS + addressBits) {
                int address = shift & ((1 << addressBits) - 1);
                outWord = words[address];
                outBit = 15;
                dataOut = 0; // the dummy zero
            }
        }
    }

    static Registers regs(Eeprom e) {
        MemorySegment window = MemorySegment.ofArray(new int[CSR_WINDOW_SIZE / 4]);
        Registers r = new Registers("test", window, ByteOrder.LITTLE_ENDIAN, e, CSR9);
        e.regs = r;
        return r;
    }

    static int[] romWith(byte[] bytes, int words) {
        int[] w = new int[words];
        for (int i = 0; i < bytes.length / 2; i++) {
            w[i] = (bytes[2 * i] & 0xFF) | (bytes[2 * i + 1] & 0xFF) << 8;
        }
        return w;
    }

    @ParameterizedTest
    @ValueSource(ints = {6, 8})
    void probesWidthAndReadsTheDecLayoutMacAtByte20(int bits) {
        byte[] image = new byte[128];
        for (int i = 0; i < 16; i++) {
            image[i] = (byte) (0x10 + i);
        }
        byte[] mac = {0x00, 0x00, (byte) 0xC0, 0x12, 0x34, 0x56};
        System.arraycopy(mac, 0, image, SROM_MAC_OFS, 6);
        Eeprom e = new Eeprom(bits, romWith(image, 1 << bits));
        Registers r = regs(e);
        assertEquals(bits, TulipSerialRom.probeAddressBits(r));
        byte[] read = TulipSerialRom.read(r, bits, 64);
        assertArrayEquals(image, read);
        assertEquals(SROM_MAC_OFS, TulipSerialRom.macOffset(read));
        assertEquals(MacAddress.of(mac), TulipSerialRom.stationAddress(read));
    }

    @Test
    void oldBoardsKeepTheMacAtByte0() {
        byte[] image = new byte[128];
        byte[] mac = {0x08, 0x00, 0x2B, 0x01, 0x02, 0x03};
        System.arraycopy(mac, 0, image, 0, 6);
        image[6] = 0x55;
        image[7] = 0x66;
        System.arraycopy(image, 0, image, 16, 8); // bytes 0..7 repeated at 16..23: the old layout
        Eeprom e = new Eeprom(6, romWith(image, 64));
        Registers r = regs(e);
        byte[] read = TulipSerialRom.read(r, TulipSerialRom.probeAddressBits(r), 64);
        assertEquals(0, TulipSerialRom.macOffset(read));
        assertEquals(MacAddress.of(mac), TulipSerialRom.stationAddress(read));
    }
}
