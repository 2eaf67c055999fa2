package io.nicbridge.protocols.ip.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nicbridge.protocols.ip.tcp.TcpCounters.Counter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The TCP header parser ({@link TcpHeader}) and the segment classification of {@link Tcp#onSegment} against an
 * independent parser written here from RFC 9293 section 3.1 (its own field reads, option walk and one's-complement
 * sum), with coverage guidance. Each input is a segment of any bytes (its data offset, options and flags the
 * fuzzer's), its checksum repaired or not, from any source and to this host's address or another; it must
 * <ul>
 *   <li>give the same header length, options (MSS, window scale, SACK-permitted and SACK blocks - values, absent
 *       or malformed) and checksum verdict from {@link TcpHeader} and {@link TcpOptions} as from the oracle;</li>
 *   <li>land in exactly the outcome counter the oracle names (bad length, offset, checksum, options, address; a
 *       listener's port; nobody's) and in no other, and never throw;</li>
 *   <li>be answered as RFC 9293 3.10.7.1 says when it is for nobody: no answer to a RST, else a RST from the
 *       segment's destination port to its source port with SEQ = its ACK (when it has one) or SEQ 0, ACK = its SEQ
 *       plus its length (SYN and FIN counted), and a checksum the oracle verifies;</li>
 *   <li>round-trip: the header {@link TcpHeader#write} builds from the fuzzer's fields, with the SYN options or
 *       the SACK blocks {@link TcpOptions} writes, reads back the same through the oracle.</li>
 * </ul>
 * Corpus: {@code src/test/resources/io/nicbridge/protocols/ip/tcp/TcpHeaderFuzzTestInputs/headers/}.
 */
class TcpHeaderFuzzTest {
    private static final int LOCAL = 0x0A00_0002;
    private static final int LISTENING = 80;
    private static final int MAX_SEGMENT = 1480;

    /** What the oracle says a segment is. */
    private enum Outcome { BAD_LENGTH, BAD_OFFSET, BAD_CHECKSUM, BAD_OPTIONS, BAD_ADDRESS, LISTENER, NO_CONNECTION }

    private static final List<byte[]> SENT = new ArrayList<>();
    private static final MemorySegment TX = Arena.ofAuto().allocate(2048);
    /** The rings of {@link #target}, closed with it (a fresh TCP per SYN would otherwise pile up direct memory). */
    private static Arena rings = Arena.ofConfined();
    /** The TCP under test; made again when a SYN to the listener took its one connection slot. */
    private static Tcp target = tcp();

    private static Tcp tcp() {
        Tcp tcp = new Tcp(new SegmentSink() {
            @Override
            public int claim(int destination, long nowNanos) {
                return 0;
            }

            @Override
            public MemorySegment buffer(int handle) {
                return TX;
            }

            @Override
            public int offset() {
                return 0;
            }

            @Override
            public int maxSegment() {
                return MAX_SEGMENT;
            }

            @Override
            public void send(int handle, int destination, int length) {
                SENT.add(TX.asSlice(0, length).toArray(TcpHeader.U8));
            }
        }, LOCAL, TcpConfig.defaults().withConnections(1).withBuffers(1024, 1024), rings);
        tcp.listen(LISTENING, new TcpHandler() { });
        return tcp;
    }

    @FuzzTest(maxDuration = "30s")
    void headers(FuzzedDataProvider data) {
        int source = data.consumeBoolean() ? 0x0A00_0001 : data.consumeInt();
        int destination = data.consumeBoolean() ? LOCAL : data.consumeInt();
        boolean repair = data.consumeBoolean();
        boolean listenerPort = data.consumeBoolean();
        roundTrip(data);
        byte[] b = data.consumeRemainingAsBytes();
        if (b.length > MAX_SEGMENT) {
            b = java.util.Arrays.copyOf(b, MAX_SEGMENT);
        }
        if (listenerPort && b.length >= 4) {
            b[2] = 0;
            b[3] = LISTENING;
        }
        if (repair && b.length >= 18) {
            b[16] = 0;
            b[17] = 0;
            int sum = oracleSum(b, source, destination);
            b[16] = (byte) (~sum >>> 8);
            b[17] = (byte) ~sum;
        }
        MemorySegment s = MemorySegment.ofArray(b);
        if (b.length >= TcpHeader.LENGTH) {
            assertEquals(oracleHeaderLength(b), TcpHeader.headerLength(s, 0), "header length");
            assertEquals(oracleSum(b, source, destination) == 0xFFFF, TcpHeader.checksumVerifies(s, 0, b.length, source,
                destination), "checksum verdict");
            int h = oracleHeaderLength(b);
            if (h >= TcpHeader.LENGTH && h <= b.length) {
                TcpOptions options = new TcpOptions();
                boolean wellFormed = options.parse(s, 0, h);
                assertEquals(oracleOptions(b, h), wellFormed ? described(options) : null, "options");
            }
        }
        Outcome expected = classify(b, source, destination);
        long[] before = new long[Counter.values().length];
        for (Counter k : Counter.values()) {
            before[k.ordinal()] = target.counters().get(k);
        }
        SENT.clear();
        Tcp tcp = target;
        tcp.onSegment(s, 0, b.length, source, destination, 0);
        Counter landed = switch (expected) {
            case BAD_LENGTH -> Counter.BAD_LENGTH;
            case BAD_OFFSET -> Counter.BAD_OFFSET;
            case BAD_CHECKSUM -> Counter.BAD_CHECKSUM;
            case BAD_OPTIONS -> Counter.BAD_OPTIONS;
            case BAD_ADDRESS -> Counter.BAD_ADDRESS;
            case LISTENER -> Counter.ACCEPTED;
            case NO_CONNECTION -> Counter.NO_CONNECTION;
        };
        for (Counter k : new Counter[] {Counter.BAD_LENGTH, Counter.BAD_OFFSET, Counter.BAD_CHECKSUM,
            Counter.BAD_OPTIONS, Counter.BAD_ADDRESS, Counter.ACCEPTED, Counter.NO_CONNECTION,
            Counter.LISTEN_OVERFLOW}) {
            long moved = tcp.counters().get(k) - before[k.ordinal()];
            assertEquals(k == landed ? 1 : 0, moved, () -> k + " after a segment the oracle calls " + expected);
        }
        assertEquals(1, tcp.counters().get(Counter.SEGMENTS_RECEIVED) - before[Counter.SEGMENTS_RECEIVED.ordinal()]);
        for (Counter k : Counter.values()) {
            assertTrue(tcp.counters().get(k) >= before[k.ordinal()], k + " went back");
        }
        if (expected == Outcome.NO_CONNECTION) {
            checkReset(b, source);
        } else if (expected != Outcome.LISTENER) {
            assertEquals(0, SENT.size(), "a malformed segment is not answered");
        }
        if (tcp.slotsInUse() > 0) { // a SYN to the listener opened the one slot: the next input gets a fresh TCP
            rings.close();
            rings = Arena.ofConfined();
            target = tcp();
        }
    }

    /** RFC 9293 3.10.7.1: the answer to a segment for no connection. */
    private static void checkReset(byte[] b, int source) {
        int flags = b[13] & 0x3F;
        if ((flags & TcpHeader.RST) != 0) {
            assertEquals(0, SENT.size(), "a RST is never answered");
            return;
        }
        assertEquals(1, SENT.size(), "a segment for nobody draws one RST");
        byte[] r = SENT.get(0);
        assertEquals(TcpHeader.LENGTH, r.length);
        assertEquals(0xFFFF, oracleSum(r, LOCAL, source), "the RST's checksum");
        assertEquals(u16(b, 2), u16(r, 0), "RST source port = the segment's destination port");
        assertEquals(u16(b, 0), u16(r, 2), "RST destination port = the segment's source port");
        int rFlags = r[13] & 0x3F;
        if ((flags & TcpHeader.ACK) != 0) {
            assertEquals(TcpHeader.RST, rFlags);
            assertEquals(u32(b, 8), u32(r, 4), "SEQ = the segment's ACK");
        } else {
            int length = b.length - oracleHeaderLength(b) + ((flags & TcpHeader.SYN) != 0 ? 1 : 0)
                + ((flags & TcpHeader.FIN) != 0 ? 1 : 0);
            assertEquals(TcpHeader.RST | TcpHeader.ACK, rFlags);
            assertEquals(0, u32(r, 4), "SEQ 0");
            assertEquals(u32(b, 4) + length, u32(r, 8), "ACK = the segment's SEQ + its length");
        }
    }

    /** {@link TcpHeader#write} with the fuzzer's fields, read back by the oracle. */
    private static void roundTrip(FuzzedDataProvider data) {
        int sp = data.consumeInt(0, 0xFFFF);
        int dp = data.consumeInt(0, 0xFFFF);
        int seq = data.consumeInt();
        int ack = data.consumeInt();
        int flags = data.consumeInt(0, 0x3F);
        int window = data.consumeInt(0, 0xFFFF);
        int mss = data.consumeInt(0, 0xFFFF);
        int shift = data.consumeInt(TcpOptions.NO_WINDOW_SCALE, TcpOptions.MAX_WINDOW_SHIFT);
        boolean sackPermitted = data.consumeBoolean();
        int blocks = data.consumeInt(0, TcpOptions.MAX_SACK_BLOCKS);
        int[] left = new int[TcpOptions.MAX_SACK_BLOCKS];
        int[] right = new int[TcpOptions.MAX_SACK_BLOCKS];
        for (int i = 0; i < blocks; i++) {
            left[i] = data.consumeInt();
            right[i] = data.consumeInt();
        }
        byte[] h = new byte[TcpHeader.MAX_LENGTH];
        MemorySegment m = MemorySegment.ofArray(h);
        int n = TcpHeader.write(m, 0, sp, dp, seq, ack, flags, window, mss);
        assertEquals(mss > 0 ? 24 : 20, n);
        assertEquals(n, oracleHeaderLength(h));
        assertEquals(sp, u16(h, 0));
        assertEquals(dp, u16(h, 2));
        assertEquals(seq, u32(h, 4));
        assertEquals(ack, u32(h, 8));
        assertEquals(flags, h[13] & 0xFF);
        assertEquals(window, u16(h, 14));
        assertEquals("mss " + (mss > 0 ? mss : TcpHeader.NO_MSS) + " ws -1 sackok false sack", oracleOptions(h, n));
        if (mss > 0) {
            n = TcpOptions.writeSyn(m, 0, mss, shift, sackPermitted);
            assertEquals(24 + (shift >= 0 ? 4 : 0) + (sackPermitted ? 4 : 0), n);
            assertEquals(n, oracleHeaderLength(h));
            assertEquals("mss " + mss + " ws " + shift + " sackok " + sackPermitted + " sack", oracleOptions(h, n));
        } else if (blocks > 0) {
            n = TcpOptions.writeSack(m, 0, left, right, blocks);
            assertEquals(TcpHeader.LENGTH + TcpOptions.sackLength(blocks), n);
            assertEquals(n, oracleHeaderLength(h));
            StringBuilder want = new StringBuilder("mss 0 ws -1 sackok false sack");
            for (int i = 0; i < blocks; i++) {
                want.append(' ').append(Integer.toUnsignedString(left[i])).append('-')
                    .append(Integer.toUnsignedString(right[i]));
            }
            assertEquals(want.toString(), oracleOptions(h, n));
        }
    }

    /** {@link TcpOptions} after a parse, in the oracle's words. */
    private static String described(TcpOptions o) {
        StringBuilder d = new StringBuilder("mss " + o.mss + " ws " + o.windowShift + " sackok " + o.sackPermitted
            + " sack");
        for (int i = 0; i < o.sackBlocks; i++) {
            d.append(' ').append(Integer.toUnsignedString(o.sackLeft[i])).append('-')
                .append(Integer.toUnsignedString(o.sackRight[i]));
        }
        return d.toString();
    }

    // ------------------------------------------------------------------ the independent parser

    private static Outcome classify(byte[] b, int source, int destination) {
        if (b.length < 20) {
            return Outcome.BAD_LENGTH;
        }
        int h = oracleHeaderLength(b);
        if (h < 20 || h > b.length) {
            return Outcome.BAD_OFFSET;
        }
        if (oracleSum(b, source, destination) != 0xFFFF) {
            return Outcome.BAD_CHECKSUM;
        }
        if (oracleOptions(b, h) == null) {
            return Outcome.BAD_OPTIONS;
        }
        if (destination != LOCAL || u16(b, 0) == 0 || u16(b, 2) == 0) {
            return Outcome.BAD_ADDRESS;
        }
        return u16(b, 2) == LISTENING ? Outcome.LISTENER : Outcome.NO_CONNECTION;
    }

    private static int oracleHeaderLength(byte[] b) {
        return (b[12] >> 4 & 0x0F) * 4;
    }

    /**
     * RFC 9293 3.1 options: END stops, NOP is one byte, others kind + length (>= 2, inside the header); MSS (kind 2)
     * is 4 bytes, window scale (RFC 7323 2.2, kind 3) 3 bytes with shifts over 14 read as 14, SACK-permitted
     * (RFC 2018 2, kind 4) 2 bytes, SACK (RFC 2018 3, kind 5) 2 + 8n bytes for 1 to 4 blocks; a later option of a
     * kind replaces an earlier one.
     *
     * @return "mss M ws S sackok B sack L-R ..." (M 0 for none, S -1 for none), or null when malformed
     */
    private static String oracleOptions(byte[] b, int headerLength) {
        int mss = 0;
        int ws = -1;
        boolean sackOk = false;
        String sack = "";
        int i = 20;
        while (i < headerLength) {
            int kind = b[i] & 0xFF;
            if (kind == 0) {
                break;
            }
            if (kind == 1) {
                i += 1;
                continue;
            }
            if (i + 2 > headerLength) {
                return null;
            }
            int len = b[i + 1] & 0xFF;
            if (len < 2 || i + len > headerLength) {
                return null;
            }
            switch (kind) {
                case 2 -> {
                    if (len != 4) {
                        return null;
                    }
                    mss = u16(b, i + 2);
                }
                case 3 -> {
                    if (len != 3) {
                        return null;
                    }
                    ws = Math.min(b[i + 2] & 0xFF, 14);
                }
                case 4 -> {
                    if (len != 2) {
                        return null;
                    }
                    sackOk = true;
                }
                case 5 -> {
                    if (len < 10 || len > 34 || (len - 2) % 8 != 0) {
                        return null;
                    }
                    StringBuilder blocks = new StringBuilder();
                    for (int at = i + 2; at < i + len; at += 8) {
                        blocks.append(' ').append(Integer.toUnsignedString(u32(b, at))).append('-')
                            .append(Integer.toUnsignedString(u32(b, at + 4)));
                    }
                    sack = blocks.toString();
                }
                default -> {
                }
            }
            i += len;
        }
        return "mss " + mss + " ws " + ws + " sackok " + sackOk + " sack" + sack;
    }

    /** The one's-complement sum of the pseudo-header (RFC 9293 3.1) and the segment, folded to 16 bits. */
    private static int oracleSum(byte[] b, int source, int destination) {
        long sum = (source >>> 16) + (source & 0xFFFF) + (destination >>> 16) + (destination & 0xFFFF) + 6 + b.length;
        for (int i = 0; i < b.length; i += 2) {
            int hi = b[i] & 0xFF;
            int lo = i + 1 < b.length ? b[i + 1] & 0xFF : 0;
            sum += hi << 8 | lo;
        }
        while (sum >>> 16 != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) sum;
    }

    private static int u16(byte[] b, int at) {
        return (b[at] & 0xFF) << 8 | b[at + 1] & 0xFF;
    }

    private static int u32(byte[] b, int at) {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | b[at + 3] & 0xFF;
    }
}
