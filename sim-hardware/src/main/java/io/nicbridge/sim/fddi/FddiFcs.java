package io.nicbridge.sim.fddi;

import io.nicbridge.contract.Medusa;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The FDDI frame check sequence: CRC-32 with the 802.3 generator 0x04C11DB7 over FC .. INFO, computed
 * MSB-first because FDDI sends octets most significant bit first (docs/hardware-facts.md D.3; medusa.h
 * {@code MEDUSA_FCS_*}): initial value all ones, no reflection, result complemented - the parameters
 * catalogued as "CRC-32/BZIP2", check value 0xFC891918 over "123456789". The four FCS bytes follow INFO
 * most significant byte first. Only consistency inside the emulator matters (pcap files carry no FCS).
 *
 * <p>Table-driven, one table lookup per byte, allocation-free.
 */
public final class FddiFcs {
    /** FCS length in bytes. */
    public static final int LENGTH = Medusa.FDDI_FCS_LEN;

    private static final int[] TABLE = new int[256];

    static {
        for (int i = 0; i < 256; i++) {
            int c = i << 24;
            for (int k = 0; k < 8; k++) {
                c = (c & 0x8000_0000) != 0 ? (c << 1) ^ Medusa.FCS_POLY : c << 1;
            }
            TABLE[i] = c;
        }
    }

    private FddiFcs() {
    }

    /** @return the FCS of {@code length} bytes at {@code offset} */
    public static int compute(MemorySegment data, long offset, int length) {
        int crc = Medusa.FCS_INIT;
        for (long i = offset, end = offset + length; i < end; i++) {
            crc = (crc << 8) ^ TABLE[((crc >>> 24) ^ data.get(ValueLayout.JAVA_BYTE, i)) & 0xFF];
        }
        return crc ^ Medusa.FCS_XOROUT;
    }

    /**
     * Appends the FCS of {@code length} bytes at {@code offset} right after them, most significant byte first.
     *
     * @return {@code length + 4}
     */
    public static int append(MemorySegment frame, long offset, int length) {
        int fcs = compute(frame, offset, length);
        long at = offset + length;
        frame.set(ValueLayout.JAVA_BYTE, at, (byte) (fcs >>> 24));
        frame.set(ValueLayout.JAVA_BYTE, at + 1, (byte) (fcs >>> 16));
        frame.set(ValueLayout.JAVA_BYTE, at + 2, (byte) (fcs >>> 8));
        frame.set(ValueLayout.JAVA_BYTE, at + 3, (byte) fcs);
        return length + LENGTH;
    }

    /**
     * @param lengthWithFcs FC .. INFO plus the 4 FCS bytes
     * @return true when the trailing FCS matches the bytes before it
     */
    public static boolean check(MemorySegment frame, long offset, int lengthWithFcs) {
        if (lengthWithFcs < LENGTH) {
            return false;
        }
        int body = lengthWithFcs - LENGTH;
        long at = offset + body;
        int stored = (frame.get(ValueLayout.JAVA_BYTE, at) & 0xFF) << 24
            | (frame.get(ValueLayout.JAVA_BYTE, at + 1) & 0xFF) << 16
            | (frame.get(ValueLayout.JAVA_BYTE, at + 2) & 0xFF) << 8
            | (frame.get(ValueLayout.JAVA_BYTE, at + 3) & 0xFF);
        return stored == compute(frame, offset, body);
    }
}
