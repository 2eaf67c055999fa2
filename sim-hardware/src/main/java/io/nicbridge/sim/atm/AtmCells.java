package io.nicbridge.sim.atm;

import io.nicbridge.contract.Sba200Unet;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * ATM cell format (docs/hardware-facts.md D.2): 5-byte UNI header then 48 payload bytes.
 *
 * <pre>
 *  byte   0                1                2                3                4        5 .. 52
 *        +--------+-------+-------+--------+----------------+--------+--------+--------+---------+
 *        |GFC 7:4 |VPI 7:4|VPI 3:0|VCI15:12|   VCI 11:4     |VCI 3:0 |PTI |CLP|  HEC   | payload |
 *        +--------+-------+-------+--------+----------------+--------+--------+--------+---------+
 *  as a big-endian word (bytes 0-3): GFC 31:28 | VPI 27:20 | VCI 19:4 | PTI 3:1 | CLP 0
 * </pre>
 *
 * <p>The HEC is CRC-8 with generator x^8 + x^2 + x + 1, computed MSB-first over bytes 0-3 from 0 and XORed with the
 * coset 0x55 (idle header 00 00 00 01 gives 0x52, the all-zero header 0x55). A 256-entry table makes it four
 * lookups. Every method is static, allocation-free and thread-safe.
 */
public final class AtmCells {
    public static final int CELL_SIZE = Sba200Unet.CELL_SIZE;
    public static final int HEADER_SIZE = Sba200Unet.CELL_HEADER_SIZE;
    public static final int PAYLOAD_SIZE = Sba200Unet.CELL_PAYLOAD;
    /** Offset of the HEC byte in a cell. */
    public static final int HEC_OFFSET = Sba200Unet.CELL_HEADER_NO_HEC;

    private static final ValueLayout.OfInt INT_BE =
        ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final byte[] CRC8 = new byte[256];

    static {
        for (int i = 0; i < 256; i++) {
            int c = i;
            for (int b = 0; b < 8; b++) {
                c = (c & 0x80) != 0 ? (c << 1) ^ Sba200Unet.HEC_POLY : c << 1;
            }
            CRC8[i] = (byte) c;
        }
    }

    private AtmCells() {
    }

    /** The header word (no HEC) for user data with GFC 0. {@code pti} is the 3-bit PTI, {@code clp} 0 or 1. */
    public static int header(int vpi, int vci, int pti, int clp) {
        return (vpi << Sba200Unet.HDR_VPI_SHIFT) & Sba200Unet.HDR_VPI_MASK
            | (vci << Sba200Unet.HDR_VCI_SHIFT) & Sba200Unet.HDR_VCI_MASK
            | (pti << Sba200Unet.HDR_PTI_SHIFT) & Sba200Unet.HDR_PTI_MASK
            | clp & Sba200Unet.HDR_CLP;
    }

    public static int gfc(int header) {
        return (header & Sba200Unet.HDR_GFC_MASK) >>> Sba200Unet.HDR_GFC_SHIFT;
    }

    public static int vpi(int header) {
        return (header & Sba200Unet.HDR_VPI_MASK) >>> Sba200Unet.HDR_VPI_SHIFT;
    }

    public static int vci(int header) {
        return (header & Sba200Unet.HDR_VCI_MASK) >>> Sba200Unet.HDR_VCI_SHIFT;
    }

    public static int pti(int header) {
        return (header & Sba200Unet.HDR_PTI_MASK) >>> Sba200Unet.HDR_PTI_SHIFT;
    }

    public static int clp(int header) {
        return header & Sba200Unet.HDR_CLP;
    }

    /** True for a user-data cell (PTI 0xx) with AUU set: the last cell of an AAL5 PDU. */
    public static boolean isLastOfPdu(int header) {
        int pti = pti(header);
        return (pti & Sba200Unet.PTI_NON_USER) == 0 && (pti & Sba200Unet.PTI_AUU) != 0;
    }

    /** True for PTI 1xx (OAM, resource management, reserved): not AAL5 user data. */
    public static boolean isNonUser(int header) {
        return (pti(header) & Sba200Unet.PTI_NON_USER) != 0;
    }

    /** HEC of the header word (bytes 0-3 big-endian). */
    public static int hec(int header) {
        int c = CRC8[(header >>> 24) & 0xFF] & 0xFF;
        c = CRC8[(c ^ (header >>> 16)) & 0xFF] & 0xFF;
        c = CRC8[(c ^ (header >>> 8)) & 0xFF] & 0xFF;
        c = CRC8[(c ^ header) & 0xFF] & 0xFF;
        return c ^ Sba200Unet.HEC_COSET;
    }

    /** Writes the header word and its HEC at {@code offset} (5 bytes). */
    public static void writeHeader(MemorySegment cell, long offset, int header) {
        cell.set(INT_BE, offset, header);
        cell.set(ValueLayout.JAVA_BYTE, offset + HEC_OFFSET, (byte) hec(header));
    }

    /** The header word (bytes 0-3) of the cell at {@code offset}. */
    public static int readHeader(MemorySegment cell, long offset) {
        return cell.get(INT_BE, offset);
    }

    /** True when the cell's HEC byte matches its header. */
    public static boolean hecOk(MemorySegment cell, long offset) {
        return (cell.get(ValueLayout.JAVA_BYTE, offset + HEC_OFFSET) & 0xFF) == hec(readHeader(cell, offset));
    }

    /** One cell time at {@code bitsPerSecond} in picoseconds, rounded down: 3 028 571 ps at 140 Mb/s. */
    public static long cellTimePicos(long bitsPerSecond) {
        if (bitsPerSecond <= 0) {
            throw new IllegalArgumentException("bit rate must be > 0, was " + bitsPerSecond);
        }
        return CELL_SIZE * 8L * 1_000_000_000_000L / bitsPerSecond;
    }
}
