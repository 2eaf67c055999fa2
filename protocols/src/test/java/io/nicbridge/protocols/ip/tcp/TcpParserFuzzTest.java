package io.nicbridge.protocols.ip.tcp;

import static io.nicbridge.protocols.ip.tcp.SegmentPipe.A_ADDRESS;
import static io.nicbridge.protocols.ip.tcp.SegmentPipe.B_ADDRESS;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nicbridge.protocols.ip.tcp.TcpCounters.Counter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Example;

/**
 * The TCP receive parser under malformed and mutated segments: {@link Tcp#onSegment} never throws, each segment ends
 * in exactly one outcome counter, and each kind of malformation lands in its own counter. Seeds are the segments of a
 * real exchange (SYN with MSS, SYN-ACK, data, FIN, RST) recorded off a {@link SegmentPipe}; mutations flip bytes,
 * truncate, overwrite the data offset and the options, and half get their checksum repaired so the mutation reaches
 * the option and state-machine code.
 */
class TcpParserFuzzTest {
    private static final List<byte[]> SEEDS = seeds();

    private static List<byte[]> seeds() {
        List<byte[]> out = new ArrayList<>();
        try (SegmentPipe pipe = new SegmentPipe(SegmentPipe.testConfig(), SegmentPipe.testConfig(), 3)) {
            StreamApp server = new StreamApp().send(StreamApp.pattern(3000, 1), true);
            StreamApp client = new StreamApp().send(StreamApp.pattern(2000, 2), true);
            pipe.b.listen(80, server);
            pipe.a.connect(B_ADDRESS, 80, client, pipe.now);
            pipe.runUntil(() -> client.closed != null || client.endOfStream, 10_000_000_000L, "the seed exchange");
            for (SegmentPipe.Seg s : pipe.sentBy(true)) {
                byte[] data = StreamApp.pattern(s.dataLength(), 3);
                out.add(Segments.build(A_ADDRESS, B_ADDRESS, s.srcPort(), s.dstPort(), s.seq(), s.ack(), s.flags(),
                    s.window(), data));
            }
        }
        // A SYN with every option Linux sends (MSS, SACK-permitted, timestamps, NOP, window scale): 40-byte header.
        byte[] syn = new byte[40];
        MemorySegment m = MemorySegment.ofArray(syn);
        TcpHeader.write(m, 0, 40000, 80, 12345, 0, TcpHeader.SYN, 64240, 1460);
        m.set(TcpHeader.U8, 12, (byte) (10 << 4));
        byte[] options = {2, 4, 5, (byte) 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 10};
        MemorySegment.copy(MemorySegment.ofArray(options), 0, m, 20, options.length);
        TcpHeader.checksum(m, 0, 40, A_ADDRESS, B_ADDRESS);
        out.add(syn);
        return out;
    }

    @Provide
    Arbitrary<byte[]> mutated() {
        return Arbitraries.integers().between(0, SEEDS.size() - 1).flatMap(i -> Arbitraries.integers()
            .between(0, Integer.MAX_VALUE).list().ofMinSize(1).ofMaxSize(8).map(rs -> mutate(SEEDS.get(i), rs)));
    }

    private static byte[] mutate(byte[] seed, List<Integer> rs) {
        byte[] b = seed.clone();
        for (int r : rs) {
            switch (r % 6) {
                case 0 -> {
                    if (b.length > 0) {
                        b[(r >>> 3) % b.length] ^= (byte) (1 << (r >>> 20) % 8);
                    }
                }
                case 1 -> b = java.util.Arrays.copyOf(b, Math.max(0, b.length - 1 - (r >>> 3) % 24));
                case 2 -> {
                    if (b.length > 12) {
                        b[12] = (byte) ((r >>> 3) & 0xF0);
                    }
                }
                case 3 -> {
                    if (b.length > 21) {
                        b[20 + (r >>> 3) % Math.min(b.length - 20, 20)] = (byte) (r >>> 12);
                    }
                }
                case 4 -> b = java.util.Arrays.copyOf(b, b.length + (r >>> 3) % 16);
                default -> {
                    if (b.length > 13) {
                        b[13] = (byte) (r >>> 3);
                    }
                }
            }
        }
        if (rs.getFirst() % 2 == 0 && b.length >= 20) {
            MemorySegment m = MemorySegment.ofArray(b);
            m.set(TcpHeader.U16, 16, (short) 0);
            TcpHeader.checksum(m, 0, b.length, A_ADDRESS, B_ADDRESS);
        }
        return b;
    }

    @Property(tries = 3000)
    void neverThrowsAndEverySegmentHasOneOutcome(@ForAll("mutatedLists") List<byte[]> segments) {
        try (Arena arena = Arena.ofConfined(); SegmentPipe pipe = new SegmentPipe(SegmentPipe.testConfig(),
                SegmentPipe.testConfig(), 5)) {
            pipe.b.listen(80, new StreamApp());
            MemorySegment frame = arena.allocate(2048);
            for (byte[] s : segments) {
                MemorySegment.copy(MemorySegment.ofArray(s), 0, frame, 100, s.length);
                pipe.b.onSegment(frame, 100, s.length, A_ADDRESS, B_ADDRESS, pipe.now);
                pipe.run(100_000);
            }
            TcpCounters c = pipe.b.counters();
            assertEquals(c.get(Counter.SEGMENTS_RECEIVED), c.outcomes(), c.toString());
        }
    }

    @Provide
    Arbitrary<List<byte[]>> mutatedLists() {
        return mutated().list().ofMinSize(1).ofMaxSize(6);
    }

    @Example
    void eachMalformationHasItsCounter() {
        try (SegmentPipe pipe = new SegmentPipe(SegmentPipe.testConfig(), SegmentPipe.testConfig(), 5)) {
            pipe.b.listen(80, new StreamApp());
            byte[] good = Segments.build(A_ADDRESS, B_ADDRESS, 40000, 80, 1, 0, TcpHeader.SYN, 1000, new byte[0]);
            byte[] badSum = good.clone();
            badSum[4] ^= 1;
            feed(pipe, badSum);
            feed(pipe, java.util.Arrays.copyOf(good, 19));
            byte[] badOffset = good.clone();
            badOffset[12] = (byte) (4 << 4);
            fix(badOffset);
            feed(pipe, badOffset);
            byte[] offsetPastEnd = good.clone();
            offsetPastEnd[12] = (byte) (6 << 4);
            fix(offsetPastEnd);
            feed(pipe, offsetPastEnd);
            byte[] overrun = java.util.Arrays.copyOf(good, 24);
            overrun[12] = (byte) (6 << 4);
            overrun[20] = 8; // timestamps, length 10: past the 24-byte header
            overrun[21] = 10;
            fix(overrun);
            feed(pipe, overrun);
            byte[] shortMss = java.util.Arrays.copyOf(good, 24);
            shortMss[12] = (byte) (6 << 4);
            shortMss[20] = 2;
            shortMss[21] = 3;
            fix(shortMss);
            feed(pipe, shortMss);
            byte[] zeroLengthOption = java.util.Arrays.copyOf(good, 24);
            zeroLengthOption[12] = (byte) (6 << 4);
            zeroLengthOption[20] = 30;
            zeroLengthOption[21] = 0;
            fix(zeroLengthOption);
            feed(pipe, zeroLengthOption);
            TcpCounters c = pipe.b.counters();
            assertEquals(1, c.get(Counter.BAD_CHECKSUM), c.toString());
            assertEquals(1, c.get(Counter.BAD_LENGTH), c.toString());
            assertEquals(2, c.get(Counter.BAD_OFFSET), c.toString());
            assertEquals(3, c.get(Counter.BAD_OPTIONS), c.toString());
            assertEquals(0, c.get(Counter.ACCEPTED), "nothing malformed reached the listener");
            assertEquals(0, pipe.sentBy(false).size(), "nothing answered");
        }
    }

    private static void fix(byte[] b) {
        MemorySegment m = MemorySegment.ofArray(b);
        m.set(TcpHeader.U16, 16, (short) 0);
        TcpHeader.checksum(m, 0, b.length, A_ADDRESS, B_ADDRESS);
    }

    private static void feed(SegmentPipe pipe, byte[] s) {
        pipe.b.onSegment(MemorySegment.ofArray(s), 0, s.length, A_ADDRESS, B_ADDRESS, pipe.now);
    }
}
