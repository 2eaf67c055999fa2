package io.nicbridge.protocols.gbn;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The go-back-N channel's frame, the link payload (the framing's own header, if any, comes before it). Fields
 * are big-endian (network order):
 *
 * <pre>
 *   0       1       2               4                               8
 *   +-------+-------+---------------+-------------------------------+
 *   | magic | type  | payload length| seq: DATA's sequence number    |   magic = 0x47 ('G'), type 1 DATA / 2 ACK
 *   +-------+-------+---------------+-------------------------------+   ACK: length 0, seq 0
 *   | ack: every seq before this one from the peer has arrived      |   (cumulative; DATA carries it too)
 *   +---------------------------------------------------------------+
 *   | crc32c of bytes [0, 12) then the payload                      |
 *   +---------------------------------------------------------------+
 *   16: payload (DATA only), length bytes
 * </pre>
 *
 * Sequence numbers count messages per (sender, receiver) pair from 0 and wrap at 2^32; they are compared by
 * signed difference. A frame whose length, magic, type or CRC is wrong is malformed or corrupt: the receiver
 * counts it and drops it.
 */
public final class GoBackNWire {
    public static final int HEADER = 16;
    public static final byte MAGIC = 0x47;
    public static final byte DATA = 1;
    public static final byte ACK = 2;
    static final int OFF_MAGIC = 0;
    static final int OFF_TYPE = 1;
    static final int OFF_LENGTH = 2;
    static final int OFF_SEQ = 4;
    static final int OFF_ACK = 8;
    static final int OFF_CRC = 12;

    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private GoBackNWire() {
    }

    /**
     * @return the CRC-32C of {@code frame}'s bytes [0, 12) followed by the payload [16, 16 + payloadLength);
     *     {@code crc} is the caller's reusable instance
     */
    static int crc(CRC32C crc, byte[] frame, int payloadLength) {
        crc.reset();
        crc.update(frame, 0, OFF_CRC);
        crc.update(frame, HEADER, payloadLength);
        return (int) crc.getValue();
    }

    /** Writes a header into {@code frame} (a heap segment over the caller's scratch array). */
    static void writeHeader(MemorySegment frame, byte type, int length, int seq, int ack) {
        frame.set(ValueLayout.JAVA_BYTE, OFF_MAGIC, MAGIC);
        frame.set(ValueLayout.JAVA_BYTE, OFF_TYPE, type);
        frame.set(U16, OFF_LENGTH, (short) length);
        frame.set(U32, OFF_SEQ, seq);
        frame.set(U32, OFF_ACK, ack);
    }
}
