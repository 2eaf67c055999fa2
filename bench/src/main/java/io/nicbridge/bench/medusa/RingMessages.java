package io.nicbridge.bench.medusa;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

import io.nicbridge.bridge.driver.medusa.MedusaDriver;
import io.nicbridge.contract.Medusa;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The raw frames of the ring experiments, shaped like the careful-protocols paper's: "protocol headers, which
 * account for 52 additional bytes (including a 4 byte CRC checksum)" (section 6.1, latency test).
 *
 * <pre>
 *  frame byte  0    1        7        13                21   22    26      30     34           48
 *             +----+--------+--------+-----------------+----+-----+-------+------+------------+------------
 *             | FC |  DA    |  SA    | LLC/SNAP (8)    |type| seq |credit |words | reserved   | payload
 *             |0x54|        |        | AA AA 03 000000 |    |     |       |      | (14 zero)  | 4 x words
 *             |    |        |        | + EtherType     |    |     |       |      |            |
 *             +----+--------+--------+-----------------+----+-----+-------+------+------------+------------
 *  LEN = 48 + 4 x words; the card appends the 4-byte FCS: 52 + 4 x words bytes FC..FCS, as in the paper.
 * </pre>
 */
final class RingMessages {
    static final int HEADER = 48 - MedusaDriver.MAC_HEADER; // LLC/SNAP + the 27-byte protocol header
    static final int FRAME_OVERHEAD = 48;
    static final int PAPER_HEADER_BYTES = 52;
    static final byte DATA = 1;
    static final byte CREDIT = 2;
    static final int ETHERTYPE = 0x88B5; // IEEE 802 local experimental EtherType
    private static final ValueLayout.OfInt INT_BE = JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final MemorySegment header = MemorySegment.ofArray(new byte[HEADER]);

    RingMessages() {
        header.set(JAVA_BYTE, 0, (byte) Medusa.LLC_DSAP_SNAP);
        header.set(JAVA_BYTE, 1, (byte) Medusa.LLC_SSAP_SNAP);
        header.set(JAVA_BYTE, 2, (byte) Medusa.LLC_CTRL_UI);
        header.set(JAVA_BYTE, 6, (byte) (ETHERTYPE >>> 8));
        header.set(JAVA_BYTE, 7, (byte) ETHERTYPE);
    }

    /** Single-copy send of a message: header staged, payload copied by PIO into the card. */
    int send(MedusaDriver d, long destination, byte type, int seq, int credit, MemorySegment payload, int words) {
        header.set(JAVA_BYTE, 8, type);
        header.set(INT_BE, 9, seq);
        header.set(INT_BE, 13, credit);
        header.set(INT_BE, 17, words);
        return d.send(destination, Medusa.FC_LLC_ASYNC_DEFAULT, header, 0, HEADER, payload, 0, 4 * words);
    }

    static byte type(MedusaDriver d, int h) {
        return d.rxBuffer(h).get(JAVA_BYTE, 21);
    }

    static int seq(MedusaDriver d, int h) {
        return d.rxBuffer(h).get(INT_BE, 22);
    }

    static int credit(MedusaDriver d, int h) {
        return d.rxBuffer(h).get(INT_BE, 26);
    }

    static int words(MedusaDriver d, int h) {
        return d.rxBuffer(h).get(INT_BE, 30);
    }

    static int frameLength(int words) {
        return FRAME_OVERHEAD + 4 * words;
    }
}
