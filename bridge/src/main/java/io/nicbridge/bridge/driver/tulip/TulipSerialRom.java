package io.nicbridge.bridge.driver.tulip;

import static io.nicbridge.contract.Dec21140.*;

import io.nicbridge.bridge.regs.Registers;
import java.util.Arrays;

/**
 * Reads the 21140's serial ROM (a 93C46-style Microwire EEPROM of 16-bit words) by bit-banging CSR9, the way a
 * host driver does: there is no other path to the station address.
 *
 * <pre>
 *  CSR9 bits used:  RD (14) | SR (11) select the serial ROM;  CS 0, SK 1 (clock), DI 2 (to ROM), DO 3 (from ROM)
 *
 *  one read:   CS  ___/~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\___
 *              DI      1   1   0  a(n-1) ... a0                                  opcode 110, address MSB first
 *              DO                               0   d15 d14 ............ d0      "dummy zero", then the word MSB first
 *  every bit:  DI set with SK low, then SK high (the ROM samples DI / drives DO), DO read, SK low
 * </pre>
 *
 * <p>Address width: a 93C46 has 6 address bits (64 words), a 93C66 8 (256 words). Like Linux, the driver sends the
 * read opcode followed by address bits and watches DO: the ROM drives the dummy zero right after its last address
 * bit, so DO low after the 6th address bit means 6 bits, otherwise 8.
 *
 * <p>Station address (DEC SROM format): bytes 20..25. Old boards keep it at byte 0; Linux tells them apart by
 * comparing bytes 0..7 with bytes 16..23 (identical on the old layout), and so does {@link #macOffset}.
 *
 * <p>Setup-time code: it allocates and is slow (tens of register accesses per bit), which does not matter.
 */
public final class TulipSerialRom {
    /** CSR9 value that selects the serial ROM for reading, chip select low. */
    static final int SELECT = CSR9_RD | CSR9_SR;
    /** Bytes the driver reads: the DEC ID block and the start of the info leaf (the first 64 words). */
    public static final int READ_WORDS = SROM_WORDS_SMALL;

    private TulipSerialRom() {
    }

    /**
     * Probes the address width (see the class comment).
     *
     * @return {@link io.nicbridge.contract.Dec21140#SROM_ADDR_BITS_SMALL} (6) or
     *         {@link io.nicbridge.contract.Dec21140#SROM_ADDR_BITS_LARGE} (8)
     */
    public static int probeAddressBits(Registers regs) {
        begin(regs);
        shiftOut(regs, SROM_OP_READ, SROM_OP_BITS);
        int doAfterSixth = 1;
        for (int bit = 1; bit <= SROM_ADDR_BITS_LARGE; bit++) {
            int dataOut = clock(regs, CSR9_SROM_DI); // address of all ones
            if (bit == SROM_ADDR_BITS_SMALL) {
                doAfterSixth = dataOut;
            }
        }
        // Finish the cycle so the ROM is idle for the next read: clock out a word's worth and drop CS.
        for (int i = 0; i < 16; i++) {
            clock(regs, 0);
        }
        end(regs);
        return doAfterSixth == 0 ? SROM_ADDR_BITS_SMALL : SROM_ADDR_BITS_LARGE;
    }

    /** Reads word {@code address} (0 .. 2^addressBits - 1). */
    public static int readWord(Registers regs, int addressBits, int address) {
        if (addressBits != SROM_ADDR_BITS_SMALL && addressBits != SROM_ADDR_BITS_LARGE) {
            throw new IllegalArgumentException("SROM address width must be 6 or 8 bits, was " + addressBits);
        }
        if (address < 0 || address >= 1 << addressBits) {
            throw new IllegalArgumentException("SROM word address " + address + " does not fit in " + addressBits
                + " bits");
        }
        begin(regs);
        shiftOut(regs, SROM_OP_READ << addressBits | address, SROM_OP_BITS + addressBits);
        int word = 0;
        for (int i = 0; i < 16; i++) {
            word = word << 1 | clock(regs, 0);
        }
        end(regs);
        return word;
    }

    /**
     * Reads the first {@code words} words as bytes, little-endian within a word (byte 2k = low byte of word k), which
     * is how the DEC layout's byte offsets count.
     */
    public static byte[] read(Registers regs, int addressBits, int words) {
        if (words < 1 || words > 1 << addressBits) {
            throw new IllegalArgumentException("cannot read " + words + " words from a ROM with " + addressBits
                + " address bits");
        }
        byte[] rom = new byte[2 * words];
        for (int w = 0; w < words; w++) {
            int v = readWord(regs, addressBits, w);
            rom[2 * w] = (byte) v;
            rom[2 * w + 1] = (byte) (v >>> 8);
        }
        return rom;
    }

    /** Offset of the station address: 20 (DEC format) unless bytes 0..7 equal bytes 16..23 (old boards: 0). */
    public static int macOffset(byte[] rom) {
        if (rom.length < SROM_MAC_OFS + SROM_MAC_SIZE) {
            throw new IllegalArgumentException("SROM image of " + rom.length + " bytes is too short for a station"
                + " address at byte " + SROM_MAC_OFS);
        }
        boolean oldLayout = Arrays.equals(rom, 0, 8, rom, SROM_ID_CRC_OFS, SROM_ID_CRC_OFS + 8);
        return oldLayout ? SROM_LEGACY_MAC_OFS : SROM_MAC_OFS;
    }

    /** The station address the ROM holds (see {@link #macOffset}); not validated. */
    public static MacAddress stationAddress(byte[] rom) {
        int at = macOffset(rom);
        return MacAddress.of(Arrays.copyOfRange(rom, at, at + SROM_MAC_SIZE));
    }

    // ------------------------------------------------------------------ Microwire bit level

    private static void begin(Registers regs) {
        regs.write(CSR9, SELECT);                 // ROM selected, chip select low
        regs.write(CSR9, SELECT | CSR9_SROM_CS);  // chip select high: the ROM waits for a start bit
    }

    private static void end(Registers regs) {
        regs.write(CSR9, SELECT | CSR9_SROM_CS);
        regs.write(CSR9, SELECT);                 // chip select low ends the cycle
    }

    /** Shifts the low {@code bits} bits of {@code value} out, most significant first. */
    private static void shiftOut(Registers regs, int value, int bits) {
        for (int i = bits - 1; i >= 0; i--) {
            clock(regs, (value >>> i & 1) != 0 ? CSR9_SROM_DI : 0);
        }
    }

    /** One clock: DI with SK low, SK high, sample DO, SK low. @return DO (0 or 1) */
    private static int clock(Registers regs, int dataIn) {
        int base = SELECT | CSR9_SROM_CS | dataIn;
        regs.write(CSR9, base);
        regs.write(CSR9, base | CSR9_SROM_SK);
        int dataOut = (regs.read(CSR9) & CSR9_SROM_DO) != 0 ? 1 : 0;
        regs.write(CSR9, base);
        return dataOut;
    }
}
