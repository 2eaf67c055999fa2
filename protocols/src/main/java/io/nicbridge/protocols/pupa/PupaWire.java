package io.nicbridge.protocols.pupa;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Pupa's frame, the link payload (TulipLink's Ethernet II header and length come before it). Big-endian.
 *
 * <pre>
 * frame header, 20 bytes
 *   0 magic 'P' (0x50) | 1 type | 2 count (u16): messages (DATA) or entries (BROADCAST_ACK)
 *   4 ack (u32): the next sequence number the frame's sender expects from its receiver (every type but
 *     BROADCAST_ACK): piggy-backed on DATA, the expected number of a NACK
 *   8 credit (u32): messages the receiver of the frame may still send to its sender; 0xffffffff = unlimited
 *  12 payload length (u16)
 *  14 nack (u16): NACK: this NACK's number (per receiver and sender, counting up from 1); DATA: the number of the
 *     last NACK from the frame's receiver that its sender acted on (0: none), which tells the receiver whether a
 *     drop is a new loss (PupaCore#rejected); 0 in the other types (MULTICAST carries it per destination)
 *  16 crc32c over [0, 16) and the payload when the frame check is on, else 0
 * DATA payload: count messages, each a 28-byte message header and its body
 *   0 seq (u32): per (sender, receiver) pair, one per fragment
 *   4 message length (u32) | 8 fragment offset (u32) | 12 fragment length (u16) | 14 flags (u16)
 *  16 fragment index (u16) | 18 fragment count (u16) | 20 source node (u16) | 22 destination node (u16)
 *  24 tag (u32): the application's
 *  28 body: fragment length bytes
 * BROADCAST_ACK payload: count entries of 8 bytes, entry p = (expected from node p, credit for node p)
 * MULTICAST payload (one Ethernet broadcast frame for a message to several peers, section 1 of the paper):
 *   0 destinations n (u16) | 2 reserved (0)
 *   4 n destination entries of 16 bytes, one per addressed peer:
 *      0 node (u8): a multicast reaches at most 64 peers | 1 flags (u8): {@link #F_ACK_REQUESTED} for that node
 *      2 nack (u16): the number of the last NACK from that node the sender acted on - DATA's header word 14 for
 *        that node, so a gap the frame shows that node is NACKed exactly as behind a DATA frame (PupaCore#rejected)
 *      4 seq (u32): that node's sequence number of the frame's first message
 *      8 ack (u32): the next sequence number the sender expects from that node (the piggy-backed ACK)
 *     12 credit (u32): what that node may still send to the sender
 *   4 + 16n: count messages as in DATA, except that seq is the message's index in the frame (the receiver adds
 *      its entry's seq) and destination is {@link #MULTICAST_DEST}; a peer without an entry ignores the frame
 * </pre>
 */
public final class PupaWire {
    public static final int FRAME_HEADER = 20;
    public static final int MESSAGE_HEADER = 28;
    /** Bodies shorter than this go into the primary FIFO entry (paper: 32). */
    public static final int INLINE_LIMIT = 32;
    /** The paper's largest fragment payload: 1436 bytes per frame of a fragmented message. */
    public static final int MAX_FRAGMENT = 1436;
    public static final byte MAGIC = 0x50;
    public static final int UNLIMITED = -1;

    public static final byte DATA = 1;
    public static final byte ACK = 2;
    public static final byte NACK = 3;
    public static final byte CREDIT = 4;
    public static final byte ACK_REQUEST = 5;
    public static final byte BROADCAST_ACK = 6;
    public static final byte MULTICAST = 7;

    /** MULTICAST frame: the bytes before the destination entries, and each entry's size. */
    static final int MC_HEADER = 4;
    static final int MC_ENTRY = 16;
    static final int MC_NODE = 0;
    static final int MC_FLAGS = 1;
    static final int MC_NACK = 2;
    static final int MC_SEQ = 4;
    static final int MC_ACK = 8;
    static final int MC_CREDIT = 12;
    /** The destination field of a message in a MULTICAST frame. */
    static final int MULTICAST_DEST = 0xffff;

    /** Message flag: the receiver acknowledges at once. */
    public static final int F_ACK_REQUESTED = 1;
    public static final int F_FIRST = 2;
    public static final int F_LAST = 4;
    /** Flags on the wire; the others are the FIFO entries' own (where the body lives). */
    static final int WIRE_FLAGS = F_ACK_REQUESTED | F_FIRST | F_LAST;

    static final int OFF_MAGIC = 0;
    static final int OFF_TYPE = 1;
    static final int OFF_COUNT = 2;
    static final int OFF_ACK = 4;
    static final int OFF_CREDIT = 8;
    static final int OFF_PAYLOAD = 12;
    static final int OFF_NACK = 14;
    static final int OFF_CRC = 16;

    static final int M_SEQ = 0;
    static final int M_LENGTH = 4;
    static final int M_FRAG_OFFSET = 8;
    static final int M_FRAG_LENGTH = 12;
    static final int M_FLAGS = 14;
    static final int M_INDEX = 16;
    static final int M_COUNT = 18;
    static final int M_SOURCE = 20;
    static final int M_DEST = 22;
    static final int M_TAG = 24;

    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /**
     * Eight big-endian bytes: the hot paths read and write a header's neighbouring fields as one access each (a
     * bounds-checked segment access costs more than the shifts that split or join the fields), same bytes on the wire.
     */
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private PupaWire() {
    }

    static int u16(MemorySegment s, long off) {
        return Short.toUnsignedInt(s.get(U16, off));
    }

    static int u8(MemorySegment s, long off) {
        return Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, off));
    }

    static void frameHeader(MemorySegment f, byte type, int count, int ack, int credit, int payload) {
        frameHeader(f, type, count, ack, credit, payload, (short) 0);
    }

    /** The frame header with {@code nack} in word 14 (a NACK's number, or a DATA frame's echo); the CRC word 0. */
    static void frameHeader(MemorySegment f, byte type, int count, int ack, int credit, int payload, short nack) {
        // bytes 0..7 (magic, type, count, ack) and 8..15 (credit, payload length, nack) as one write each
        f.set(U64, OFF_MAGIC, (long) MAGIC << 56 | (type & 0xffL) << 48 | (count & 0xffffL) << 32
                | (ack & 0xffffffffL));
        f.set(U64, OFF_CREDIT, (long) credit << 32 | (payload & 0xffffL) << 16 | (nack & 0xffffL));
        f.set(U32, OFF_CRC, 0);
    }

    /** @return fragments a message of {@code length} bytes takes with {@code fragment}-byte fragments (at least 1) */
    public static int fragments(int length, int fragment) {
        return length <= fragment ? 1 : (length + fragment - 1) / fragment;
    }
}
