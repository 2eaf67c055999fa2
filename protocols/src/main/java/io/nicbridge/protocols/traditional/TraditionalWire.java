package io.nicbridge.protocols.traditional;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The traditional protocol's frame, the link payload (the framing's own header, e.g. the Medusa's FC, DA, SA, comes
 * before it). Fields are big-endian:
 *
 * <pre>
 *   0       1       2       3       4                               8
 *   +-------+-------+-------+-------+-------------------------------+
 *   | magic | type  | flags | acks  | seq (DATA): the channel's      |   magic 0x54 ('T'); type 1 DATA, 2 ACK, 3 NAK
 *   +-------+-------+-------+-------+ number; NAK: unicast limit     +   acks = number of ack entries that follow
 *   | event (DATA); NAK: broadcast limit                            |
 *   +---------------+---------------+-------------------------------+
 *   | fragNo        | payload length| crc32c of [0,16), entries,    |
 *   +---------------+---------------+ payload                       +
 *  20: ack entries, 20 bytes each:
 *   +---------------+---------------+-------------------------------+
 *   | node          | 0             | uniCum: the node's unicast    |   what the frame's sender has received
 *   +---------------+---------------+ channel to the frame's sender: |   from {@code node}: every seq below
 *   | uniMask: seq uniCum+1+j arrived when bit j is set             |   uniCum / bcastCum, and the masked
 *   | bcastCum: the node's broadcast channel, likewise              |   ones above (selective)
 *   | bcastMask                                                     |
 *   +---------------------------------------------------------------+
 *   then the payload (DATA only), length bytes
 * </pre>
 * A sender numbers its fragments per <em>channel</em>: one channel per destination and one for its broadcasts (every
 * other node is a destination of it), from 0, wrapping at 2^32 and compared by signed difference. A DATA frame of a
 * channel may also go unicast (a broadcast fragment retransmitted to the one node that asked): the flag
 * {@link #F_BCAST_CHANNEL} names the channel, not the link address. {@code fragNo} numbers the sender's fragments
 * to the receiver within the event, so that {@code LAST_FRAG}'s fragNo + 1 is how many there are.
 *
 * <p>Every frame carries acknowledgements (the implicit ones): a unicast frame one entry, for its destination; a
 * broadcast, an ACK or a NAK frame one per other node. An ACK frame is the explicit acknowledgement a sender asks
 * for with {@link #F_ACK_REQ}; a NAK asks the destination to retransmit, on its unicast channel to the NAK's sender,
 * every unacknowledged seq below the unicast limit that the entry does not show as arrived, and likewise below the
 * broadcast limit on its broadcast channel ({@link #ALL}: everything it holds: the receiver's timeout).
 */
public final class TraditionalWire {
    public static final int HEADER = 20;
    public static final int ENTRY = 20;
    public static final byte MAGIC = 0x54;

    public static final byte DATA = 1;
    public static final byte ACK = 2;
    public static final byte NAK = 3;

    /** The fragment is the sender's last to this receiver for the event ({@code CStarNetwork.LAST_FRAG}). */
    public static final int F_LAST_FRAG = 1;
    /** A crowd event: every other node sends to the receiver ({@code CStarNetwork.BCAST_EVENT}). */
    public static final int F_BCAST_EVENT = 1 << 1;
    /** Part of a multi-fragment event ({@code CStarNetwork.LARGE_EVENT}). */
    public static final int F_LARGE_EVENT = 1 << 2;
    /** The sender asks for an explicit ACK frame (its buffer space runs low, or a large event). */
    public static final int F_ACK_REQ = 1 << 3;
    /** The frame belongs to the sender's broadcast channel (its seq counts the sender's broadcasts). */
    public static final int F_BCAST_CHANNEL = 1 << 4;

    /** A NAK limit meaning every seq the destination still holds. */
    public static final int ALL = Integer.MAX_VALUE;

    static final int OFF_MAGIC = 0;
    static final int OFF_TYPE = 1;
    static final int OFF_FLAGS = 2;
    static final int OFF_ACKS = 3;
    static final int OFF_SEQ = 4;
    static final int OFF_EVENT = 8;
    static final int OFF_FRAG_NO = 12;
    static final int OFF_LENGTH = 14;
    static final int OFF_CRC = 16;

    static final int E_NODE = 0;
    static final int E_UNI_CUM = 4;
    static final int E_UNI_MASK = 8;
    static final int E_BCAST_CUM = 12;
    static final int E_BCAST_MASK = 16;

    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private TraditionalWire() {
    }

    /** @return the bytes before the payload of a frame with {@code entries} ack entries */
    public static int headerLength(int entries) {
        return HEADER + entries * ENTRY;
    }

    static void writeHeader(MemorySegment f, byte type, int flags, int entries, int seq, int event, int fragNo,
                            int payload) {
        f.set(ValueLayout.JAVA_BYTE, OFF_MAGIC, MAGIC);
        f.set(ValueLayout.JAVA_BYTE, OFF_TYPE, type);
        f.set(ValueLayout.JAVA_BYTE, OFF_FLAGS, (byte) flags);
        f.set(ValueLayout.JAVA_BYTE, OFF_ACKS, (byte) entries);
        f.set(U32, OFF_SEQ, seq);
        f.set(U32, OFF_EVENT, event);
        f.set(U16, OFF_FRAG_NO, (short) fragNo);
        f.set(U16, OFF_LENGTH, (short) payload);
    }

    static void writeEntry(MemorySegment f, int index, int node, int uniCum, int uniMask, int bcastCum,
                           int bcastMask) {
        long at = HEADER + (long) index * ENTRY;
        f.set(U16, at + E_NODE, (short) node);
        f.set(U16, at + E_NODE + 2, (short) 0);
        f.set(U32, at + E_UNI_CUM, uniCum);
        f.set(U32, at + E_UNI_MASK, uniMask);
        f.set(U32, at + E_BCAST_CUM, bcastCum);
        f.set(U32, at + E_BCAST_MASK, bcastMask);
    }

    /**
     * @return the CRC-32C of the frame's bytes [0, 16) and [20, length), the crc field left out; {@code scratch}
     *     is the caller's reusable array of at least {@code length} bytes
     */
    static int crc(CRC32C crc, MemorySegment frame, int length, byte[] scratch) {
        MemorySegment.copy(frame, ValueLayout.JAVA_BYTE, 0, scratch, 0, length);
        crc.reset();
        crc.update(scratch, 0, OFF_CRC);
        crc.update(scratch, HEADER, length - HEADER);
        return (int) crc.getValue();
    }
}
