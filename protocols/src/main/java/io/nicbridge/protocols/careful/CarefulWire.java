package io.nicbridge.protocols.careful;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The careful protocol's frame: a 20-byte header in front of the fragment, big-endian.
 *
 * <pre>
 *   0        1        2                 4                                  8
 *   +--------+--------+-----------------+----------------------------------+
 *   | kind   | flags  | window update   | useq                             |
 *   +--------+--------+-----------------+----------------------------------+
 *   8                                   12                                 16
 *   +-----------------------------------+----------------------------------+
 *   | bseq                              | event                            |
 *   +-----------------+-----------------+----------------------------------+
 *   16                18                20
 *   | fragment index  | checksum        | payload ...
 *   +-----------------+-----------------+
 * </pre>
 * <ul>
 *   <li>kind: {@link #DATA} (a fragment) or {@link #UPDATE} (a window update alone);</li>
 *   <li>flags: the fragment's {@code CStarNetwork} flags (bits 0-2) and {@link #BROADCAST_FRAME} (bit 7);</li>
 *   <li>window update: receive buffers the sender has freed for the receiver since its last update (a broadcast
 *       carries the minimum over all receivers);</li>
 *   <li>useq: a unicast frame's number in the sender's unicast stream to this receiver (0 in a broadcast);</li>
 *   <li>bseq: a broadcast frame's number in the sender's broadcast stream; in a unicast frame, how many broadcasts
 *       the sender had sent before it (so a lost broadcast shows at the next unicast too);</li>
 *   <li>fragment index: the fragment's number among the sender's fragments to this receiver in the event;</li>
 *   <li>checksum: the folded 16-bit ones'-complement sum (big-endian halfwords) of the header, with this field 0,
 *       plus the payload's - the sum the Medusa's checksum unit computes during the single-copy PIO send, since
 *       the payload starts at an even offset (20).</li>
 * </ul>
 */
public final class CarefulWire {
    public static final int HEADER = 20;
    public static final byte DATA = (byte) 0xCA;
    public static final byte UPDATE = (byte) 0xCB;
    public static final int BROADCAST_FRAME = 0x80;
    /** The flag bits a frame may carry. */
    public static final int FLAG_MASK = 0x07;

    public static final int OFF_KIND = 0;
    public static final int OFF_FLAGS = 1;
    public static final int OFF_UPDATE = 2;
    public static final int OFF_USEQ = 4;
    public static final int OFF_BSEQ = 8;
    public static final int OFF_EVENT = 12;
    public static final int OFF_INDEX = 16;
    public static final int OFF_CHECKSUM = 18;

    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private CarefulWire() {
    }

    /** Writes every header field but the checksum (left 0). */
    static void writeHeader(MemorySegment f, byte kind, int flags, int update, int useq, int bseq, int event,
                            int index) {
        f.set(ValueLayout.JAVA_BYTE, OFF_KIND, kind);
        f.set(ValueLayout.JAVA_BYTE, OFF_FLAGS, (byte) flags);
        f.set(U16, OFF_UPDATE, (short) update);
        f.set(U32, OFF_USEQ, useq);
        f.set(U32, OFF_BSEQ, bseq);
        f.set(U32, OFF_EVENT, event);
        f.set(U16, OFF_INDEX, (short) index);
        f.set(U16, OFF_CHECKSUM, (short) 0);
    }

    static int u16(MemorySegment f, long offset) {
        return f.get(U16, offset) & 0xFFFF;
    }

    static int u32(MemorySegment f, long offset) {
        return f.get(U32, offset);
    }

    /**
     * @return the unfolded sum of {@code length} bytes from {@code offset} as big-endian halfwords (an odd last
     *     byte is the high half of a halfword), as the Medusa's checksum unit adds them from an even address
     */
    static long sum(MemorySegment s, long offset, int length) {
        long sum = 0;
        int i = 0;
        for (; i + 1 < length; i += 2) {
            sum += s.get(U16, offset + i) & 0xFFFF;
        }
        if (i < length) {
            sum += (s.get(ValueLayout.JAVA_BYTE, offset + i) & 0xFF) << 8;
        }
        return sum;
    }

    /** @return {@code sum} folded to 16 bits with end-around carry (0 only for a zero sum) */
    static int fold(long sum) {
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) sum;
    }
}
