package io.nicbridge.bridge.driver.tulip;

import static io.nicbridge.contract.Dec21140.*;

import io.nicbridge.contract.Dec21140SetupFrame;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Builds the 192-byte setup frame that loads the 21140's address filter (docs/hardware-facts.md A.8). Only the
 * low 16 bits of each longword count; like Linux, every 16-bit half is written into both halves so the frame reads
 * the same whichever way the host orders bytes.
 *
 * <pre>
 *  PERFECT (FT = 00): 16 entries of 3 longwords              HASH (FT = 01): 512-bit table + 1 physical address
 *  lw 3n+0  [ b1 b0 | b1 b0 ]   entry n, MAC bytes 0,1        lw 0..31   table bits 16k..16k+15 (bit i: lw i>>4,
 *  lw 3n+1  [ b3 b2 | b3 b2 ]              bytes 2,3                     bit i&15)
 *  lw 3n+2  [ b5 b4 | b5 b4 ]              bytes 4,5          lw 39..41  station address, as a perfect entry
 *  entries 0..k-1 multicast, k..14 broadcast (also fills unused slots), 15 station
 * </pre>
 * Hash index = low 9 bits of the reflected CRC-32 of the 6 address bytes <i>without</i> the final complement
 * (Linux's {@code ether_crc_le}); broadcast hashes to 255, which is always set.
 */
public final class TulipSetupFrame {
    private static final int CRC_POLY_REFLECTED = 0xEDB88320;

    private TulipSetupFrame() {
    }

    /** True when {@code multicastCount} addresses fit perfect filtering next to station and broadcast. */
    public static boolean fitsPerfect(int multicastCount) {
        return multicastCount <= TulipConfig.PERFECT_MULTICAST_LIMIT;
    }

    /** Writes a perfect-filter frame at {@code base}; at most 14 multicast addresses. */
    public static void writePerfect(MemorySegment frame, long base, MacAddress station, List<MacAddress> multicast) {
        if (!fitsPerfect(multicast.size())) {
            throw new IllegalArgumentException("perfect filtering holds at most "
                + TulipConfig.PERFECT_MULTICAST_LIMIT + " multicast addresses next to station and broadcast, got "
                + multicast.size() + "; use hash filtering");
        }
        int slot = 0;
        for (MacAddress m : multicast) {
            writeEntry(frame, base, slot++, m.value());
        }
        while (slot < SETUP_PERFECT_STATION_SLOT) {
            writeEntry(frame, base, slot++, MacAddress.BROADCAST.value());
        }
        writeEntry(frame, base, SETUP_PERFECT_STATION_SLOT, station.value());
    }

    /** Writes a hash-filter frame at {@code base}: every multicast address and broadcast hashed, station perfect. */
    public static void writeHash(MemorySegment frame, long base, MacAddress station, List<MacAddress> multicast) {
        int[] table = new int[SETUP_HASH_LONGWORDS];
        setBit(table, SETUP_HASH_BROADCAST_INDEX);
        for (MacAddress m : multicast) {
            setBit(table, hashIndex(m.value()));
        }
        for (int lw = 0; lw < SETUP_FRAME_LONGWORDS; lw++) {
            Dec21140SetupFrame.lw(frame, base, lw, lw < SETUP_HASH_LONGWORDS ? doubled(table[lw]) : 0);
        }
        writeTriple(frame, base, SETUP_HASH_PHYS_LW, station.value());
    }

    /** The 9-bit hash-table index of an address (see the class comment). */
    public static int hashIndex(long address) {
        int crc = 0xFFFF_FFFF;
        for (int i = 0; i < ETH_ADDR_LEN; i++) {
            int b = (int) (address >>> (8 * (ETH_ADDR_LEN - 1 - i))) & 0xFF;
            crc ^= b;
            for (int k = 0; k < 8; k++) {
                crc = (crc & 1) != 0 ? crc >>> 1 ^ CRC_POLY_REFLECTED : crc >>> 1;
            }
        }
        return crc & SETUP_HASH_INDEX_MASK;
    }

    private static void setBit(int[] table, int index) {
        table[index >>> 4] |= 1 << (index & (SETUP_HASH_BITS_PER_LW - 1));
    }

    private static void writeEntry(MemorySegment frame, long base, int slot, long mac) {
        writeTriple(frame, base, slot * SETUP_PERFECT_ENTRY_SIZE / 4, mac);
    }

    /** Three longwords holding MAC bytes [0,1], [2,3], [4,5], each pair doubled into both halves. */
    private static void writeTriple(MemorySegment frame, long base, int firstLongword, long mac) {
        for (int k = 0; k < 3; k++) {
            int lo = (int) (mac >>> (8 * (5 - 2 * k))) & 0xFF;      // byte 2k
            int hi = (int) (mac >>> (8 * (4 - 2 * k))) & 0xFF;      // byte 2k+1
            Dec21140SetupFrame.lw(frame, base, firstLongword + k, doubled(hi << 8 | lo));
        }
    }

    private static int doubled(int half) {
        return (half & 0xFFFF) << 16 | (half & 0xFFFF);
    }
}
