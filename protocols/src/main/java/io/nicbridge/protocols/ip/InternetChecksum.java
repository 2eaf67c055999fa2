package io.nicbridge.protocols.ip;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The 16-bit one's complement Internet checksum of RFC 1071, the one implementation every IP-layer core uses (IPv4
 * header, ICMP, UDP; TCP later).
 *
 * <p>A running sum is a {@code long} of big-endian 32-bit words added without folding: RFC 1071 section 2 (B) lets
 * the sum be taken over any word size and folded to 16 bits at the end, and 2^31 words of 2^32 cannot overflow 64
 * bits, so the loop reads eight bytes at a time and adds both halves, with no carry handling per step. Sums of
 * several pieces (pseudo-header, header, data) chain through the {@code sum} argument; every piece but the last must
 * have an even length, which all IP headers have.
 *
 * <p>{@link #copyAndSum} is the copy and the checksum in one pass over the bytes, as U-Net's UDP does it (the paper,
 * section 7.5: "the checksum is computed during the copy"): the data is read once, written once and summed from the
 * register it was read into.
 */
public final class InternetChecksum {
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private InternetChecksum() {
    }

    /** @return {@code sum} plus the bytes {@code [offset, offset + length)} as big-endian 16-bit words */
    public static long sum(MemorySegment segment, long offset, int length, long sum) {
        long s = sum;
        long i = offset;
        long end = offset + length;
        for (; i + 8 <= end; i += 8) {
            long v = segment.get(U64, i);
            s += (v >>> 32) + (v & 0xFFFF_FFFFL);
        }
        return tail(segment, i, end, s);
    }

    /**
     * Copies {@code length} bytes from {@code src} to {@code dst} and returns {@code sum} plus their checksum sum, in
     * one pass. The two ranges must not overlap.
     */
    public static long copyAndSum(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, int length,
                                  long sum) {
        long s = sum;
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            long v = src.get(U64, srcOffset + i);
            dst.set(U64, dstOffset + i, v);
            s += (v >>> 32) + (v & 0xFFFF_FFFFL);
        }
        if (i < length) {
            MemorySegment.copy(src, srcOffset + i, dst, dstOffset + i, length - i);
            s = tail(src, srcOffset + i, srcOffset + length, s);
        }
        return s;
    }

    private static long tail(MemorySegment segment, long from, long end, long sum) {
        long s = sum;
        long i = from;
        if (i + 4 <= end) {
            s += Integer.toUnsignedLong(segment.get(U32, i));
            i += 4;
        }
        if (i + 2 <= end) {
            s += Short.toUnsignedInt(segment.get(U16, i));
            i += 2;
        }
        if (i < end) {
            s += (segment.get(ValueLayout.JAVA_BYTE, i) & 0xFF) << 8; // an odd last byte is the high half of a word
        }
        return s;
    }

    /**
     * The sum of one piece of a message that starts at byte {@code oddStart ? odd : even} position of the whole (a
     * scatter-gather datagram whose earlier pieces have an odd length in all): the piece's bytes are summed as if
     * aligned and, when the piece starts at an odd position, the folded sum's two bytes are swapped - RFC 1071
     * section 2 (B), byte order independence. Add the result to the running sum.
     */
    public static long sumAt(MemorySegment segment, long offset, int length, boolean oddStart) {
        int folded = fold(sum(segment, offset, length, 0));
        return oddStart ? ((folded & 0xFF) << 8 | folded >>> 8) : folded;
    }

    /** @return the sum folded to 16 bits (end-around carries added back) */
    public static int fold(long sum) {
        long s = sum;
        while ((s >>> 16) != 0) {
            s = (s & 0xFFFF) + (s >>> 16);
        }
        return (int) s;
    }

    /** @return the checksum field's value for a sum: the one's complement of the folded sum */
    public static int finish(long sum) {
        return ~fold(sum) & 0xFFFF;
    }

    /** @return true when a sum taken over data that includes its checksum field verifies (folds to 0xFFFF) */
    public static boolean verifies(long sum) {
        return fold(sum) == 0xFFFF;
    }

    /** @return the sum of the IPv4 pseudo-header of a transport protocol (RFC 768, RFC 9293 3.1) */
    public static long pseudoHeader(int source, int destination, int protocol, int length) {
        return Integer.toUnsignedLong(source) + Integer.toUnsignedLong(destination) + protocol + length;
    }
}
