package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;

import java.util.Objects;
import java.util.zip.CRC32;

/**
 * The 21140 board's serial ROM: a 93C46-style Microwire EEPROM of 64 16-bit words, read by bit-banging CSR9
 * (docs/hardware-facts.md A.5, A.9), holding the station address in the DEC SROM layout.
 *
 * <pre>
 *  byte  0..1   subsystem vendor ID 0x1011 (DEC), LE  [P]     byte 20..25  station address (MAC)
 *  byte  2..3   subsystem ID 0x0009 (21140), LE       [P]     byte 26      device number 0
 *  byte  4..15  0                                             byte 27..28  info-leaf offset = 30, LE
 *  byte 16      ID-block CRC: low byte of CRC-32 (zlib) of bytes 0..15 [P]
 *  byte 18      SROM format version 3                         byte 30..    info leaf (below)
 *  byte 19      controller count 1                            byte 126..127 CRC: low 16 bits of the
 *                                                                          CRC-32 (zlib) of bytes 0..125, LE
 *  info leaf (21140):  0x0800 selected connection (autosense), GP direction 0x3F, 1 media block:
 *                      compact block {media 3 = 100BASE-TX, GP data 0x09, command 0x006D} (the SMC9332 values)
 * </pre>
 * The final CRC is the one NetBSD's {@code tlp_srom_crcok} checks ({@code (crc32_le_raw & 0xffff) ^ 0xffff},
 * i.e. zlib's CRC-32 low 16 bits). Bytes 0..7 differ from bytes 16..23, so Linux takes the MAC from byte 20.
 *
 * <h2>Microwire read, as the chip's pins see it</h2>
 * CSR9 bit SR selects the SROM; CS, SK (clock), DI (to the ROM) and DO (from the ROM) are bits 0..3. With CS
 * high, on each rising SK edge the ROM samples DI: it ignores zeros until a start bit 1, then takes 2 opcode bits
 * and 6 address bits (MSB first). For opcode 10 (read; "110" with the start bit) it drives DO = 0 (the dummy bit)
 * from the edge that latched the last address bit, then one data bit per rising edge, D15 first; after D0 it goes
 * on with the next word (sequential read). While it is not driving DO (idle, receiving the command) DO reads 1
 * (pulled up). Other opcodes (write, erase, write-enable) are ignored: the ROM is write-protected. CS low ends any
 * command. This is what Linux's {@code tulip_read_eeprom} and its address-width probe (8-bit read of 0xff, bit 18
 * = dummy zero means 6 address bits) expect.
 *
 * <p>Not thread-safe; the model calls it under its lock.
 */
public final class Dec21140Srom {
    /** Words in this SROM. */
    public static final int WORDS = SROM_WORDS_SMALL;
    /** Address bits a read command carries. */
    public static final int ADDRESS_BITS = SROM_ADDR_BITS_SMALL;
    /** Offset of the info leaf this image writes. */
    public static final int INFO_LEAF_OFFSET = 30;

    private static final int SUBSYSTEM_VENDOR_DEC = PCI_VENDOR_DEC;
    private static final int SUBSYSTEM_ID_21140 = PCI_DEVICE_21140;
    private static final int FORMAT_VERSION = 3;
    private static final int CONNECTION_AUTOSENSE = 0x0800;
    private static final int MEDIA_100BASE_TX = 3;
    private static final int OPCODE_READ = SROM_OP_READ & 0b11; // "110" = start bit 1, then opcode 10

    private enum Phase { IDLE, OPCODE, ADDRESS, DATA, IGNORE }

    private final byte[] image;
    private final short[] words = new short[WORDS];

    private Phase phase = Phase.IDLE;
    private boolean clock;
    private int bits;
    private int opcode;
    private int address;
    private int outBit;
    private boolean dataOut = true;

    /** @param mac the station address (6 bytes) */
    public Dec21140Srom(byte[] mac) {
        this.image = image(mac);
        for (int i = 0; i < WORDS; i++) {
            words[i] = (short) ((image[2 * i] & 0xFF) | (image[2 * i + 1] & 0xFF) << 8);
        }
    }

    /**
     * The 128-byte SROM image for {@code mac} in the layout of the class comment.
     *
     * @throws IllegalArgumentException when {@code mac} is not 6 bytes
     */
    public static byte[] image(byte[] mac) {
        Objects.requireNonNull(mac, "mac");
        if (mac.length != SROM_MAC_SIZE) {
            throw new IllegalArgumentException("a station address has " + SROM_MAC_SIZE + " bytes, got " + mac.length);
        }
        byte[] b = new byte[WORDS * 2];
        putLe16(b, SROM_SUBSYS_OFS, SUBSYSTEM_VENDOR_DEC);
        putLe16(b, SROM_SUBSYS_OFS + 2, SUBSYSTEM_ID_21140);
        CRC32 crc = new CRC32();
        crc.update(b, SROM_SUBSYS_OFS, SROM_SUBSYS_SIZE);
        b[SROM_ID_CRC_OFS] = (byte) crc.getValue();
        b[SROM_FORMAT_VERSION_OFS] = FORMAT_VERSION;
        b[SROM_CONTROLLER_COUNT_OFS] = 1;
        System.arraycopy(mac, 0, b, SROM_MAC_OFS, SROM_MAC_SIZE);
        b[SROM_DEVICE_NUMBER_OFS] = 0;
        putLe16(b, SROM_INFO_LEAF_OFS, INFO_LEAF_OFFSET);
        int p = INFO_LEAF_OFFSET;
        putLe16(b, p, CONNECTION_AUTOSENSE);
        p += 2;
        b[p++] = (byte) SMC9332_GPIO_DIRECTION;
        b[p++] = 1; // media blocks
        b[p++] = MEDIA_100BASE_TX;
        b[p++] = (byte) SMC9332_GPIO_100BASETX;
        putLe16(b, p, SMC9332_CMD_100BASETX);
        crc.reset();
        crc.update(b, 0, SROM_CRC_COVERED_BYTES);
        putLe16(b, SROM_CRC_OFS, (int) crc.getValue());
        return b;
    }

    private static void putLe16(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
    }

    /** @return a copy of the ROM image */
    public byte[] image() {
        return image.clone();
    }

    /** @return word {@code index} (0..63) */
    public int word(int index) {
        return words[index] & 0xFFFF;
    }

    /**
     * The host wrote CSR9. Only the SROM pins matter here, and only while CSR9.SR selects the SROM.
     */
    public void pins(int csr9) {
        boolean selected = (csr9 & CSR9_SR) != 0 && (csr9 & CSR9_SROM_CS) != 0;
        boolean sk = (csr9 & CSR9_SROM_SK) != 0;
        if (!selected) {
            phase = Phase.IDLE;
            dataOut = true;
            clock = sk;
            return;
        }
        boolean rising = sk && !clock;
        clock = sk;
        if (rising) {
            clockIn((csr9 & CSR9_SROM_DI) != 0 ? 1 : 0);
        }
    }

    /** @return the DO pin: what CSR9 bit 3 reads while the SROM is selected */
    public boolean dataOut() {
        return dataOut;
    }

    private void clockIn(int di) {
        switch (phase) {
            case IDLE -> {
                if (di == 1) { // start bit
                    phase = Phase.OPCODE;
                    bits = 0;
                    opcode = 0;
                }
                dataOut = true;
            }
            case OPCODE -> {
                opcode = opcode << 1 | di;
                if (++bits == SROM_OP_BITS - 1) {
                    phase = Phase.ADDRESS;
                    bits = 0;
                    address = 0;
                }
            }
            case ADDRESS -> {
                address = address << 1 | di;
                if (++bits == ADDRESS_BITS) {
                    if (opcode == OPCODE_READ) {
                        phase = Phase.DATA;
                        outBit = 16;
                        dataOut = false; // the dummy zero
                    } else {
                        phase = Phase.IGNORE; // write/erase/EWEN: write-protected, ignored
                    }
                }
            }
            case DATA -> {
                if (outBit == 0) { // sequential read: on to the next word
                    address = (address + 1) & (WORDS - 1);
                    outBit = 16;
                }
                outBit--;
                dataOut = ((words[address] >>> outBit) & 1) != 0;
            }
            case IGNORE -> dataOut = true;
        }
    }

    /** Back to idle (software reset). */
    public void reset() {
        phase = Phase.IDLE;
        clock = false;
        dataOut = true;
    }
}
