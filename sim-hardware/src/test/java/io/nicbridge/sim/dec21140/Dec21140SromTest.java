package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;
import static org.junit.jupiter.api.Assertions.*;

import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Reads the SROM the way Linux's tulip_read_eeprom does: bit-banging CSR9. */
class Dec21140SromTest {
    private static final int EE_ENB = CSR9_SR | CSR9_RD | CSR9_SROM_CS; // 0x4801 in Linux
    private final CardHarness h = new CardHarness();

    @AfterEach
    void close() {
        h.close();
    }

    private int readEeprom(int location, int addrLen) {
        int retval = 0;
        int readCmd = location | (SROM_OP_READ << addrLen);
        h.write(CSR9, EE_ENB & ~CSR9_SROM_CS);
        h.write(CSR9, EE_ENB);
        for (int i = 4 + addrLen; i >= 0; i--) {
            int dataval = (readCmd & (1 << i)) != 0 ? CSR9_SROM_DI : 0;
            h.write(CSR9, EE_ENB | dataval);
            h.write(CSR9, EE_ENB | dataval | CSR9_SROM_SK);
            retval = (retval << 1) | ((h.read(CSR9) & CSR9_SROM_DO) != 0 ? 1 : 0);
        }
        h.write(CSR9, EE_ENB);
        for (int i = 16; i > 0; i--) {
            h.write(CSR9, EE_ENB | CSR9_SROM_SK);
            retval = (retval << 1) | ((h.read(CSR9) & CSR9_SROM_DO) != 0 ? 1 : 0);
            h.write(CSR9, EE_ENB);
        }
        h.write(CSR9, EE_ENB & ~CSR9_SROM_CS);
        return retval;
    }

    @Test
    void linuxAddressWidthProbeSaysSixBits() {
        int probe = readEeprom(0xFF, 8);
        assertEquals(0, probe & 0x40000, "bit 18 is the dummy zero of a 6-bit part");
    }

    @Test
    void readsTheMacAtByte20AndTheImageCrcChecks() {
        byte[] rom = new byte[128];
        for (int w = 0; w < 64; w++) {
            int v = readEeprom(w, 6) & 0xFFFF;
            rom[2 * w] = (byte) v;
            rom[2 * w + 1] = (byte) (v >>> 8);
        }
        boolean differ = false;
        for (int i = 0; i < 8; i++) {
            differ |= rom[i] != rom[16 + i];
        }
        assertTrue(differ, "Linux picks offset 20 only when bytes 0-7 differ from 16-23");
        byte[] mac = java.util.Arrays.copyOfRange(rom, SROM_MAC_OFS, SROM_MAC_OFS + 6);
        assertArrayEquals(CardHarness.MAC, mac);
        CRC32 crc = new CRC32();
        crc.update(rom, 0, SROM_CRC_COVERED_BYTES);
        int stored = (rom[SROM_CRC_OFS] & 0xFF) | (rom[SROM_CRC_OFS + 1] & 0xFF) << 8;
        // NetBSD tlp_srom_crcok: (raw_crc & 0xffff) ^ 0xffff, where raw = ~zlib
        long raw = ~crc.getValue() & 0xFFFFFFFFL;
        assertEquals((int) ((raw & 0xFFFF) ^ 0xFFFF), stored);
        assertArrayEquals(h.card.srom().image(), rom);
        assertEquals(3, rom[SROM_FORMAT_VERSION_OFS]);
        assertEquals(1, rom[SROM_CONTROLLER_COUNT_OFS]);
    }

    @Test
    void writeOpcodesAreIgnored() {
        int before = readEeprom(10, 6) & 0xFFFF;
        // EWEN (00 11xxxx) then WRITE (01) of word 10 with 0x1234
        int[] bits = {1, 0, 0, 1, 1, 0, 0, 0, 0};
        h.write(CSR9, EE_ENB);
        for (int b : bits) {
            h.write(CSR9, EE_ENB | (b != 0 ? CSR9_SROM_DI : 0));
            h.write(CSR9, EE_ENB | (b != 0 ? CSR9_SROM_DI : 0) | CSR9_SROM_SK);
        }
        h.write(CSR9, EE_ENB & ~CSR9_SROM_CS);
        int cmd = (1 << 8) | (0b01 << 6) | 10;
        h.write(CSR9, EE_ENB);
        for (int i = 8; i >= 0; i--) {
            int di = (cmd >>> i & 1) != 0 ? CSR9_SROM_DI : 0;
            h.write(CSR9, EE_ENB | di);
            h.write(CSR9, EE_ENB | di | CSR9_SROM_SK);
        }
        for (int i = 15; i >= 0; i--) {
            int di = (0x1234 >>> i & 1) != 0 ? CSR9_SROM_DI : 0;
            h.write(CSR9, EE_ENB | di);
            h.write(CSR9, EE_ENB | di | CSR9_SROM_SK);
        }
        h.write(CSR9, EE_ENB & ~CSR9_SROM_CS);
        assertEquals(before, readEeprom(10, 6) & 0xFFFF);
    }
}
