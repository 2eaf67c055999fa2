package io.nicbridge.protocols.ip.tcp;

import static io.nicbridge.protocols.ip.tcp.TcpHeader.U16;
import static io.nicbridge.protocols.ip.tcp.TcpHeader.U32;
import static io.nicbridge.protocols.ip.tcp.TcpHeader.U8;

import java.lang.foreign.MemorySegment;

/**
 * The options of one arriving segment, parsed in place into this holder ({@link Tcp} owns one and reuses it for
 * every segment: nothing is allocated per segment). The option list of RFC 9293 3.1: kind 0 ends it, kind 1 is a
 * one-byte no-op, every other kind is kind, length (counting both bytes), value. Understood:
 * <pre>
 *   kind 2  MSS               length 4   16-bit MSS                        (RFC 9293 3.7.1, SYN only)
 *   kind 3  window scale      length 3   shift count 0..14                 (RFC 7323 2.2, SYN only)
 *   kind 4  SACK-permitted    length 2                                     (RFC 2018 2, SYN only)
 *   kind 5  SACK              length 2 + 8n, n = 1..4 blocks of two 32-bit sequence numbers: left edge, right
 *                             edge (one past the block)                     (RFC 2018 3)
 * </pre>
 * Every other kind (timestamps, ...) is skipped by its length. A known option of the wrong length, or any option
 * whose length is under 2 or runs past the header, makes the whole segment malformed (RFC 9293 MUST-7: dropped and
 * counted, never acted on). A shift count above 14 is taken as 14 (RFC 7323 2.3).
 */
final class TcpOptions {
    static final int KIND_WINDOW_SCALE = 3;
    static final int KIND_SACK_PERMITTED = 4;
    static final int KIND_SACK = 5;
    /** The largest window-scale shift (RFC 7323 2.3): windows up to 2^30. */
    static final int MAX_WINDOW_SHIFT = 14;
    /** SACK blocks one option can carry in the 40 bytes of options (RFC 2018 3: 4 without timestamps). */
    static final int MAX_SACK_BLOCKS = 4;
    /** {@link #windowShift} when the segment offers no window scaling. */
    static final int NO_WINDOW_SCALE = -1;

    /** The MSS option's value, or {@link TcpHeader#NO_MSS} (a value of 0 reads as none). */
    int mss;
    /** The window-scale shift offered (0..14), or {@link #NO_WINDOW_SCALE}. */
    int windowShift;
    boolean sackPermitted;
    /** SACK blocks carried, 0..{@link #MAX_SACK_BLOCKS}; their edges in {@link #sackLeft} / {@link #sackRight}. */
    int sackBlocks;
    final int[] sackLeft = new int[MAX_SACK_BLOCKS];
    final int[] sackRight = new int[MAX_SACK_BLOCKS];

    /**
     * Walks the options of a header of {@code headerLength} bytes at {@code at} (its length already checked against
     * the segment).
     *
     * @return false when they are malformed (see the class comment); the fields are then undefined
     */
    boolean parse(MemorySegment s, int at, int headerLength) {
        mss = TcpHeader.NO_MSS;
        windowShift = NO_WINDOW_SCALE;
        sackPermitted = false;
        sackBlocks = 0;
        int i = at + TcpHeader.LENGTH;
        int end = at + headerLength;
        while (i < end) {
            int kind = s.get(U8, i) & 0xFF;
            if (kind == TcpHeader.OPTION_END) {
                break;
            }
            if (kind == TcpHeader.OPTION_NOP) {
                i++;
                continue;
            }
            if (i + 1 >= end) {
                return false;
            }
            int length = s.get(U8, i + 1) & 0xFF;
            if (length < 2 || i + length > end) {
                return false;
            }
            switch (kind) {
                case TcpHeader.OPTION_MSS -> {
                    if (length != 4) {
                        return false;
                    }
                    mss = Short.toUnsignedInt(s.get(U16, i + 2));
                }
                case KIND_WINDOW_SCALE -> {
                    if (length != 3) {
                        return false;
                    }
                    windowShift = Math.min(s.get(U8, i + 2) & 0xFF, MAX_WINDOW_SHIFT);
                }
                case KIND_SACK_PERMITTED -> {
                    if (length != 2) {
                        return false;
                    }
                    sackPermitted = true;
                }
                case KIND_SACK -> {
                    int blocks = (length - 2) / 8;
                    if ((length - 2) % 8 != 0 || blocks < 1 || blocks > MAX_SACK_BLOCKS) {
                        return false;
                    }
                    for (int b = 0; b < blocks; b++) {
                        sackLeft[b] = s.get(U32, i + 2 + 8 * b);
                        sackRight[b] = s.get(U32, i + 6 + 8 * b);
                    }
                    sackBlocks = blocks;
                }
                default -> {
                    // not ours to act on: skipped by its length
                }
            }
            i += length;
        }
        return true;
    }

    /**
     * Writes a SYN's options after the 20-byte header at {@code at} and sets the data offset: MSS (4 bytes), then,
     * when offered, NOP + window scale (4 bytes) and NOP NOP + SACK-permitted (4 bytes), each 32-bit aligned.
     *
     * @param windowShift the shift to offer, or {@link #NO_WINDOW_SCALE} for none
     * @return the header length: 24, 28 or 32
     */
    static int writeSyn(MemorySegment s, int at, int mss, int windowShift, boolean sackPermitted) {
        int o = at + TcpHeader.LENGTH;
        s.set(U8, o, (byte) TcpHeader.OPTION_MSS);
        s.set(U8, o + 1, (byte) 4);
        s.set(U16, o + 2, (short) mss);
        o += 4;
        if (windowShift != NO_WINDOW_SCALE) {
            s.set(U8, o, (byte) TcpHeader.OPTION_NOP);
            s.set(U8, o + 1, (byte) KIND_WINDOW_SCALE);
            s.set(U8, o + 2, (byte) 3);
            s.set(U8, o + 3, (byte) windowShift);
            o += 4;
        }
        if (sackPermitted) {
            s.set(U8, o, (byte) TcpHeader.OPTION_NOP);
            s.set(U8, o + 1, (byte) TcpHeader.OPTION_NOP);
            s.set(U8, o + 2, (byte) KIND_SACK_PERMITTED);
            s.set(U8, o + 3, (byte) 2);
            o += 4;
        }
        return setDataOffset(s, at, o - at);
    }

    /** @return the option bytes a SACK option of {@code blocks} blocks takes with its two leading NOPs */
    static int sackLength(int blocks) {
        return blocks == 0 ? 0 : 4 + 8 * blocks;
    }

    /**
     * Writes NOP NOP + a SACK option of {@code blocks} blocks (edges in {@code left} / {@code right}) after the
     * 20-byte header at {@code at} and sets the data offset.
     *
     * @return the header length, 20 + {@link #sackLength}
     */
    static int writeSack(MemorySegment s, int at, int[] left, int[] right, int blocks) {
        int o = at + TcpHeader.LENGTH;
        s.set(U8, o, (byte) TcpHeader.OPTION_NOP);
        s.set(U8, o + 1, (byte) TcpHeader.OPTION_NOP);
        s.set(U8, o + 2, (byte) KIND_SACK);
        s.set(U8, o + 3, (byte) (2 + 8 * blocks));
        o += 4;
        for (int b = 0; b < blocks; b++) {
            s.set(U32, o, left[b]);
            s.set(U32, o + 4, right[b]);
            o += 8;
        }
        return setDataOffset(s, at, o - at);
    }

    private static int setDataOffset(MemorySegment s, int at, int headerLength) {
        s.set(U8, at + TcpHeader.DATA_OFFSET, (byte) ((headerLength / 4) << 4));
        return headerLength;
    }
}
