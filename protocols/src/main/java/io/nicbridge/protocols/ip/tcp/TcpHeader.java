package io.nicbridge.protocols.ip.tcp;

import io.nicbridge.protocols.ip.InternetChecksum;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The TCP header of RFC 9293 section 3.1, read and written in place (all fields big-endian):
 * <pre>
 *  0               2               4                               8                              12
 *  +---------------+---------------+-------------------------------+-------------------------------+
 *  | source port   | dest port     | sequence number               | acknowledgment number         |
 *  +-------+-------+---------------+-------------------------------+-------------------------------+
 *  12      13      14              16              18              20
 *  +---+---+-------+---------------+---------------+---------------+--------- ... ----+----
 *  |off|rsv| flags | window        | checksum      | urgent pointer| options (0..40) | data
 *  +---+---+-------+---------------+---------------+---------------+--------- ... ----+----
 *   data offset: header length in 32-bit words (5..15)
 *   flags: CWR 0x80 ECE 0x40 URG 0x20 ACK 0x10 PSH 0x08 RST 0x04 SYN 0x02 FIN 0x01
 *  Options: kind 0 = end of list, kind 1 = no-op (one byte each), any other kind = kind, length (>= 2, counting
 *  both bytes), value; parsed and written by {@link TcpOptions} (MSS, window scale, SACK-permitted, SACK).
 * </pre>
 */
final class TcpHeader {
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;

    static final int LENGTH = 20;
    /** A SYN's header: the 20 bytes and the 4-byte MSS option. */
    static final int SYN_LENGTH = 24;
    static final int MAX_LENGTH = 60;
    static final int PROTOCOL = 6;

    static final int FIN = 0x01;
    static final int SYN = 0x02;
    static final int RST = 0x04;
    static final int PSH = 0x08;
    static final int ACK = 0x10;
    static final int URG = 0x20;

    static final int OPTION_END = 0;
    static final int OPTION_NOP = 1;
    static final int OPTION_MSS = 2;
    /** {@link TcpOptions#mss} when a segment has no MSS option (RFC 9293 MUST-15: then assume 536). */
    static final int NO_MSS = 0;

    static final int SOURCE_PORT = 0;
    static final int DESTINATION_PORT = 2;
    static final int SEQUENCE = 4;
    static final int ACKNOWLEDGMENT = 8;
    static final int DATA_OFFSET = 12;
    static final int FLAGS = 13;
    static final int WINDOW = 14;
    static final int CHECKSUM = 16;
    static final int URGENT = 18;

    private TcpHeader() {
    }

    static int headerLength(MemorySegment s, int at) {
        return ((s.get(U8, at + DATA_OFFSET) & 0xF0) >>> 4) * 4;
    }

    /**
     * Writes a header (and, when {@code mss > 0}, the MSS option, making it {@link #SYN_LENGTH} bytes) with a zero
     * checksum.
     *
     * @return the header length written
     */
    static int write(MemorySegment s, int at, int sourcePort, int destinationPort, int sequence, int acknowledgment,
                     int flags, int window, int mss) {
        int length = mss > 0 ? SYN_LENGTH : LENGTH;
        s.set(U16, at + SOURCE_PORT, (short) sourcePort);
        s.set(U16, at + DESTINATION_PORT, (short) destinationPort);
        s.set(U32, at + SEQUENCE, sequence);
        s.set(U32, at + ACKNOWLEDGMENT, acknowledgment);
        s.set(U8, at + DATA_OFFSET, (byte) ((length / 4) << 4));
        s.set(U8, at + FLAGS, (byte) flags);
        s.set(U16, at + WINDOW, (short) window);
        s.set(U32, at + CHECKSUM, 0); // checksum and urgent pointer
        if (mss > 0) {
            TcpOptions.writeSyn(s, at, mss, TcpOptions.NO_WINDOW_SCALE, false);
        }
        return length;
    }

    /** Fills in the checksum of the {@code length}-byte segment at {@code at} (RFC 9293 3.1: with the pseudo-header). */
    static void checksum(MemorySegment s, int at, int length, int source, int destination) {
        long sum = InternetChecksum.pseudoHeader(source, destination, PROTOCOL, length);
        s.set(U16, at + CHECKSUM, (short) InternetChecksum.finish(InternetChecksum.sum(s, at, length, sum)));
    }

    static boolean checksumVerifies(MemorySegment s, int at, int length, int source, int destination) {
        long sum = InternetChecksum.pseudoHeader(source, destination, PROTOCOL, length);
        return InternetChecksum.verifies(InternetChecksum.sum(s, at, length, sum));
    }
}
