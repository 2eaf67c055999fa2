package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;

import java.util.zip.CRC32;

/**
 * The 21140's destination-address filter, loaded from a setup frame (docs/hardware-facts.md A.8).
 *
 * <pre>
 *  setup frame: 192 bytes = 48 longwords; only the low 16 bits of each longword count (LE: bytes 4i, 4i+1)
 *  perfect / inverse (FT 00 / 10): entry n (0..15) at bytes 12n..12n+11
 *      +-------+-------+-------+-------+-------+-------+-------+-------+-------+-------+-------+-------+
 *      | mac0  | mac1  |   x   |   x   | mac2  | mac3  |   x   |   x   | mac4  | mac5  |   x   |   x   |
 *      +-------+-------+-------+-------+-------+-------+-------+-------+-------+-------+-------+-------+
 *  hash / hash-only (FT 01 / 11): longwords 0..31 (low halves) = 512-bit table, bit i in longword i>>4,
 *      bit i&amp;15; hash mode also holds one perfect (physical) address at byte 156 (longwords 39..41)
 *  hash index = (~crc32_zlib(destination)) &amp; 0x1FF    (broadcast -> 255)
 * </pre>
 * Modes: perfect accepts the 16 addresses; hash accepts multicast by the table and unicast by the physical
 * address; inverse perfect accepts everything except the 16 addresses; hash-only hashes every address.
 * After reset no setup frame has been seen and the filter accepts nothing (promiscuous / pass-all-multicast /
 * receive-all in CSR6 still work). Broadcast is not special: it passes only when the table holds it, as on the
 * chip (Linux puts ff:ff:ff:ff:ff:ff in unused perfect slots and sets hash bit 255).
 *
 * <p>Not thread-safe; the model uses it under its lock. Allocation-free after construction.
 */
public final class Dec21140AddressFilter {
    /** No setup frame since reset: nothing passes the table. */
    public static final int MODE_NONE = -1;

    private final long[] perfect = new long[SETUP_PERFECT_ENTRIES];
    private final long[] hash = new long[SETUP_HASH_BITS / 64];
    private final CRC32 crc = new CRC32();
    private long physical;
    private int mode = MODE_NONE;

    /** @return {@link #MODE_NONE} or one of the contract's FT_PERFECT, FT_HASH, FT_INVERSE, FT_HASH_ONLY */
    public int mode() {
        return mode;
    }

    /** Forgets the table (software reset). */
    public void clear() {
        mode = MODE_NONE;
        java.util.Arrays.fill(perfect, 0);
        java.util.Arrays.fill(hash, 0);
        physical = 0;
    }

    /**
     * Loads a 192-byte setup frame.
     *
     * @param setup      the frame, {@link io.nicbridge.contract.Dec21140#SETUP_FRAME_SIZE} bytes from {@code off}
     * @param filterType FT1:FT0 as a number 0..3
     */
    public void load(byte[] setup, int off, int filterType) {
        mode = filterType & 3;
        if (mode == FT_PERFECT || mode == FT_INVERSE) {
            for (int n = 0; n < SETUP_PERFECT_ENTRIES; n++) {
                int e = off + n * SETUP_PERFECT_ENTRY_SIZE;
                perfect[n] = mac(setup[e + SETUP_PERFECT_MAC0_OFS], setup[e + SETUP_PERFECT_MAC1_OFS],
                    setup[e + SETUP_PERFECT_MAC2_OFS], setup[e + SETUP_PERFECT_MAC3_OFS],
                    setup[e + SETUP_PERFECT_MAC4_OFS], setup[e + SETUP_PERFECT_MAC5_OFS]);
            }
        } else {
            java.util.Arrays.fill(hash, 0);
            for (int lw = 0; lw < SETUP_HASH_LONGWORDS; lw++) {
                int half = (setup[off + 4 * lw] & 0xFF) | (setup[off + 4 * lw + 1] & 0xFF) << 8;
                int bit0 = lw * SETUP_HASH_BITS_PER_LW;
                hash[bit0 >>> 6] |= (long) half << (bit0 & 63);
            }
            int p = off + SETUP_HASH_PHYS_OFS;
            physical = mac(setup[p], setup[p + 1], setup[p + 4], setup[p + 5], setup[p + 8], setup[p + 9]);
        }
    }

    /** @return whether the table accepts the destination address at {@code frame[off..off+5]} */
    public boolean accepts(byte[] frame, int off) {
        switch (mode) {
            case FT_PERFECT:
                return inPerfect(frame, off);
            case FT_INVERSE:
                return !inPerfect(frame, off);
            case FT_HASH:
                if ((frame[off] & 1) != 0) {
                    return hashBit(hashIndex(frame, off));
                }
                return macAt(frame, off) == physical;
            case FT_HASH_ONLY:
                return hashBit(hashIndex(frame, off));
            default:
                return false;
        }
    }

    private boolean inPerfect(byte[] frame, int off) {
        long a = macAt(frame, off);
        for (long p : perfect) {
            if (p == a) {
                return true;
            }
        }
        return false;
    }

    private boolean hashBit(int index) {
        return (hash[index >>> 6] & (1L << (index & 63))) != 0;
    }

    /** The 9-bit hash index of the address at {@code a[off..off+5]}: {@code (~crc32(addr)) & 0x1FF}. */
    public int hashIndex(byte[] a, int off) {
        crc.reset();
        crc.update(a, off, ETH_ADDR_LEN);
        return (int) ~crc.getValue() & SETUP_HASH_INDEX_MASK;
    }

    /** Static form of {@link #hashIndex(byte[], int)} for drivers and tests (allocates a CRC32). */
    public static int hashIndexOf(byte[] address) {
        CRC32 c = new CRC32();
        c.update(address, 0, ETH_ADDR_LEN);
        return (int) ~c.getValue() & SETUP_HASH_INDEX_MASK;
    }

    private static long macAt(byte[] f, int off) {
        return mac(f[off], f[off + 1], f[off + 2], f[off + 3], f[off + 4], f[off + 5]);
    }

    private static long mac(byte b0, byte b1, byte b2, byte b3, byte b4, byte b5) {
        return (b0 & 0xFFL) << 40 | (b1 & 0xFFL) << 32 | (b2 & 0xFFL) << 24 | (b3 & 0xFFL) << 16
            | (b4 & 0xFFL) << 8 | (b5 & 0xFFL);
    }
}
