package io.nicbridge.protocols.am;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * An Active Message as one go-back-N message (the go-back-N header, {@link io.nicbridge.protocols.gbn.GoBackNWire},
 * comes before it). Big-endian:
 *
 * <pre>
 *   0       1         2       3       4               8               12              16              20
 *   +-------+---------+-------+-------+---------------+---------------+---------------+---------------+
 *   | kind  | handler | flags | 0     | a0            | a1            | a2            | a3            |  data...
 *   +-------+---------+-------+-------+---------------+---------------+---------------+---------------+
 *
 *   kind      request side (each takes one credit)      reply side (each returns one)
 *   REQUEST   a0..a3: the handler's arguments            REPLY     a0..a3: the reply handler's arguments
 *   STORE     a0 chunk's remote address, a1 total bytes, ACK       the explicit acknowledgement of a request
 *             a2 handler argument, a3 store's first               whose handler did not reply (no handler)
 *             remote address; data: the chunk            GET_DATA  a0 chunk's local address, a1 total bytes,
 *   GET       a0 chunk's remote address, a1 chunk bytes,           a2 handler argument, a3 get's first local
 *             a2 chunk's local address, a3 handler                address; data: the chunk
 *             argument; data: u32 get's first local
 *             address, u32 total bytes
 *   flags: LAST (bit 0): the last chunk of a store or get, which runs its handler; BAD_ADDRESS (bit 1, GET_DATA):
 *   the peer refused a get outside its memory, no data
 * </pre>
 *
 * A request with no data is 20 bytes: with the go-back-N header 36, so it travels inline in one ATM cell (&lt;= 40
 * bytes on U-Net, the paper's single-cell request).
 */
final class AmWire {
    static final int HEADER = 20;
    static final int GET_DATA_BYTES = 8;

    static final byte REQUEST = 1;
    static final byte REPLY = 2;
    static final byte ACK = 3;
    static final byte STORE = 4;
    static final byte GET = 5;
    static final byte GET_DATA = 6;

    static final int LAST = 1;
    static final int BAD_ADDRESS = 2;

    static final int OFF_KIND = 0;
    static final int OFF_HANDLER = 1;
    static final int OFF_FLAGS = 2;
    static final int OFF_A0 = 4;

    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private AmWire() {
    }

    static void write(MemorySegment m, byte kind, int handler, int flags, int a0, int a1, int a2, int a3) {
        m.set(ValueLayout.JAVA_BYTE, OFF_KIND, kind);
        m.set(ValueLayout.JAVA_BYTE, OFF_HANDLER, (byte) handler);
        m.set(ValueLayout.JAVA_BYTE, OFF_FLAGS, (byte) flags);
        m.set(ValueLayout.JAVA_BYTE, 3, (byte) 0);
        m.set(U32, OFF_A0, a0);
        m.set(U32, OFF_A0 + 4, a1);
        m.set(U32, OFF_A0 + 8, a2);
        m.set(U32, OFF_A0 + 12, a3);
    }

    static int arg(MemorySegment m, long offset, int i) {
        return m.get(U32, offset + OFF_A0 + 4L * i);
    }

    static boolean requestSide(byte kind) {
        return kind == REQUEST || kind == STORE || kind == GET;
    }
}
