package io.nicbridge.sim.atm;

import io.nicbridge.contract.Sba200Unet;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * AAL5 CPCS-PDU framing and its CRC-32 (docs/hardware-facts.md D.2).
 *
 * <pre>
 *  +----------------------- payload (0..65535) -----------------------+-- PAD 0..47 --+---- trailer 8 B ----+
 *  |                                                                  |   zeros       |UU|CPI|LEN(BE)|CRC(BE)|
 *  +------------------------------------------------------------------+---------------+---------------------+
 *  total = 48 x cells, cells = ceil((LEN + 8) / 48); the CRC covers everything before its own 4 bytes
 * </pre>
 *
 * <p>The CRC is CRC-32 with the "BZIP2" parameters: polynomial 0x04C11DB7 processed MSB-first (not reflected),
 * initial value 0xFFFFFFFF, result complemented ("123456789" gives 0xFC891918). {@link #crcUpdate} works on the
 * running, not yet complemented register, so a reassembler can feed it cell by cell; {@link #crcFinish}
 * complements. Table-driven (one lookup per byte), static, allocation-free and thread-safe.
 */
public final class Aal5 {
    public static final int TRAILER_SIZE = Sba200Unet.AAL5_TRAILER_SIZE;
    public static final int MAX_PAYLOAD = Sba200Unet.AAL5_MAX_PDU;
    /** Largest payload of a one-cell PDU: 48 - 8 = 40. */
    public static final int SINGLE_CELL_MAX = Sba200Unet.AAL5_SINGLE_CELL_MAX;
    /** Cells of the largest PDU: ceil((65535 + 8) / 48) = 1366. */
    public static final int MAX_CELLS = cells(MAX_PAYLOAD);
    public static final int CRC_INIT = Sba200Unet.AAL5_CRC_INIT;

    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE =
        ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int[] TABLE = new int[256];
    /** Slicing-by-8: Tk[i] = the register after byte i followed by k zero bytes (T0 = TABLE). */
    private static final int[] T1 = new int[256];
    private static final int[] T2 = new int[256];
    private static final int[] T3 = new int[256];
    private static final int[] T4 = new int[256];
    private static final int[] T5 = new int[256];
    private static final int[] T6 = new int[256];
    private static final int[] T7 = new int[256];
    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    static {
        for (int i = 0; i < 256; i++) {
            int c = i << 24;
            for (int b = 0; b < 8; b++) {
                c = c < 0 ? (c << 1) ^ Sba200Unet.AAL5_CRC_POLY : c << 1;
            }
            TABLE[i] = c;
        }
        for (int i = 0; i < 256; i++) {
            T1[i] = (TABLE[i] << 8) ^ TABLE[TABLE[i] >>> 24];
            T2[i] = (T1[i] << 8) ^ TABLE[T1[i] >>> 24];
            T3[i] = (T2[i] << 8) ^ TABLE[T2[i] >>> 24];
            T4[i] = (T3[i] << 8) ^ TABLE[T3[i] >>> 24];
            T5[i] = (T4[i] << 8) ^ TABLE[T4[i] >>> 24];
            T6[i] = (T5[i] << 8) ^ TABLE[T5[i] >>> 24];
            T7[i] = (T6[i] << 8) ^ TABLE[T6[i] >>> 24];
        }
    }

    private Aal5() {
    }

    /** Cells needed for a payload of {@code length} bytes. */
    public static int cells(int length) {
        return (length + TRAILER_SIZE + AtmCells.PAYLOAD_SIZE - 1) / AtmCells.PAYLOAD_SIZE;
    }

    /** Pad bytes between the payload and the trailer. */
    public static int pad(int length) {
        return cells(length) * AtmCells.PAYLOAD_SIZE - TRAILER_SIZE - length;
    }

    /** Feeds {@code length} bytes at {@code offset} into the running CRC register {@code crc}. */
    public static int crcUpdate(int crc, MemorySegment data, long offset, long length) {
        int c = crc;
        long end = offset + length;
        long i = offset;
        // Eight bytes per step (slicing-by-8): one bounds-checked big-endian read instead of eight byte reads.
        for (long longs = end - 7; i < longs; i += 8) {
            long w = data.get(LONG_BE, i);
            int h = c ^ (int) (w >>> 32);
            int l = (int) w;
            c = T7[h >>> 24] ^ T6[(h >>> 16) & 0xFF] ^ T5[(h >>> 8) & 0xFF] ^ T4[h & 0xFF]
                ^ T3[l >>> 24] ^ T2[(l >>> 16) & 0xFF] ^ T1[(l >>> 8) & 0xFF] ^ TABLE[l & 0xFF];
        }
        for (long words = end - 3; i < words; i += 4) {
            c ^= data.get(INT_BE, i);
            c = T3[c >>> 24] ^ T2[(c >>> 16) & 0xFF] ^ T1[(c >>> 8) & 0xFF] ^ TABLE[c & 0xFF];
        }
        for (; i < end; i++) {
            c = (c << 8) ^ TABLE[((c >>> 24) ^ data.get(ValueLayout.JAVA_BYTE, i)) & 0xFF];
        }
        return c;
    }

    /** Feeds {@code count} zero bytes (the pad) into the running CRC register. */
    public static int crcUpdateZeros(int crc, int count) {
        int c = crc;
        for (int i = 0; i < count; i++) {
            c = (c << 8) ^ TABLE[(c >>> 24) & 0xFF];
        }
        return c;
    }

    /** Complements the running register: the CRC value that goes into the trailer. */
    public static int crcFinish(int crc) {
        return ~crc;
    }

    /** CRC-32/BZIP2 of {@code length} bytes. */
    public static int crc(MemorySegment data, long offset, long length) {
        return crcFinish(crcUpdate(CRC_INIT, data, offset, length));
    }

    /**
     * Completes a CPCS-PDU in place: {@code pdu[offset .. offset+length)} holds the payload; writes the pad (zeros),
     * UU, CPI = 0, LEN and the CRC after it.
     *
     * @return the PDU length in bytes, a multiple of 48
     */
    public static int frame(MemorySegment pdu, long offset, int length, int userToUser) {
        if (length < 0 || length > MAX_PAYLOAD) {
            throw new IllegalArgumentException("AAL5 payload must be 0.." + MAX_PAYLOAD + " bytes, was " + length);
        }
        int total = cells(length) * AtmCells.PAYLOAD_SIZE;
        long trailer = offset + total - TRAILER_SIZE;
        pdu.asSlice(offset + length, trailer - offset - length).fill((byte) 0);
        pdu.set(ValueLayout.JAVA_BYTE, trailer + Sba200Unet.AAL5_UU_OFS, (byte) userToUser);
        pdu.set(ValueLayout.JAVA_BYTE, trailer + Sba200Unet.AAL5_CPI_OFS, (byte) 0);
        pdu.set(SHORT_BE, trailer + Sba200Unet.AAL5_LENGTH_OFS, (short) length);
        pdu.set(INT_BE, trailer + Sba200Unet.AAL5_CRC_OFS, crc(pdu, offset, total - 4));
        return total;
    }

    /** The trailer's LEN field of the 48-byte last-cell payload at {@code payload}. */
    public static int trailerLength(MemorySegment lastCellPayload, long payload) {
        long at = payload + AtmCells.PAYLOAD_SIZE - TRAILER_SIZE + Sba200Unet.AAL5_LENGTH_OFS;
        return lastCellPayload.get(SHORT_BE, at) & 0xFFFF;
    }

    public static int trailerUu(MemorySegment lastCellPayload, long payload) {
        return lastCellPayload.get(ValueLayout.JAVA_BYTE, payload + AtmCells.PAYLOAD_SIZE - TRAILER_SIZE
            + Sba200Unet.AAL5_UU_OFS) & 0xFF;
    }

    public static int trailerCpi(MemorySegment lastCellPayload, long payload) {
        return lastCellPayload.get(ValueLayout.JAVA_BYTE, payload + AtmCells.PAYLOAD_SIZE - TRAILER_SIZE
            + Sba200Unet.AAL5_CPI_OFS) & 0xFF;
    }

    public static int trailerCrc(MemorySegment lastCellPayload, long payload) {
        return lastCellPayload.get(INT_BE, payload + AtmCells.PAYLOAD_SIZE - TRAILER_SIZE + Sba200Unet.AAL5_CRC_OFS);
    }
}
