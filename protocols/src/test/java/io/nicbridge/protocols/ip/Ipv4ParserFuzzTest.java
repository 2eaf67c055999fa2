package io.nicbridge.protocols.ip;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.port.LoopbackFramePort;
import io.nicbridge.protocols.ip.IpCounters.Counter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The receive parsers under random and mutated frames: whatever arrives, {@link Ipv4Stack#receive} never throws, and
 * every frame ends in exactly one outcome counter ({@link IpCounters#outcomes()} equals the frames received), so
 * nothing is lost uncounted. Mutated frames start from valid ones (UDP with and without checksum, ICMP echo request
 * and reply, ARP request and reply, built by a real stack) and get byte flips, truncations, padding and overwritten
 * length/header-length/offset fields; half of them get their IPv4 header checksum repaired afterwards so that the
 * mutation reaches the transport parsers instead of stopping at the IPv4 checksum.
 */
class Ipv4ParserFuzzTest {
    private static final int FRAME = 1514;
    private static CommSegment comm;
    private static LoopbackFramePort.Pair pair;
    private static Ipv4Stack sender;
    private static Ipv4Stack target;
    private static List<byte[]> seeds;
    private static MemorySegment buffer;

    @BeforeContainer
    static void setUp() {
        comm = CommSegment.allocate("fuzz", LoopbackFramePort.requiredBytes(16, FRAME));
        pair = LoopbackFramePort.pair("fuzz", comm, 16, FRAME);
        sender = new Ipv4Stack(pair.a(), Ipv4StackTest.MAC_A, Ipv4StackTest.IP_A, 24, Ipv4Stack.ETHERNET_MTU);
        target = new Ipv4Stack(pair.b(), Ipv4StackTest.MAC_B, Ipv4StackTest.IP_B, 24, Ipv4Stack.ETHERNET_MTU);
        new Udp(target).bind(6000, (pcb, src, sp, d, off, len, t) -> { }, true);
        buffer = MemorySegment.ofArray(new byte[FRAME + 64]);
        seeds = seedFrames();
    }

    @AfterContainer
    static void tearDown() {
        System.out.println("fuzzed stack's outcomes: " + target.counters());
        pair.close();
        comm.close();
    }

    /** Valid frames from A to B, taken off B's port before B's stack sees them. */
    private static List<byte[]> seedFrames() {
        java.util.ArrayList<byte[]> out = new java.util.ArrayList<>();
        sender.ping(Ipv4StackTest.IP_B, 1, 1, 0, 0); // ARP request
        out.add(take());
        target.receive(MemorySegment.ofArray(out.get(0)), out.get(0).length, 0); // B answers: an ARP reply to A
        sender.poll(16, 0); // A learns B's MAC from it
        if (sender.ping(Ipv4StackTest.IP_B, 1, 2, 40, 0) != 0) {
            throw new AssertionError("A did not learn B's MAC; " + sender.counters());
        }
        out.add(take()); // ICMP echo request
        Udp udp = new Udp(sender);
        UdpPcb with = udp.bind(5000, (pcb, src, sp, d, off, len, t) -> { }, true);
        UdpPcb without = udp.bind(5001, (pcb, src, sp, d, off, len, t) -> { }, false);
        MemorySegment data = MemorySegment.ofArray(new byte[300]);
        for (int len : new int[] {0, 7, 300}) {
            with.send(Ipv4StackTest.IP_B, 6000, data, 0, len, 0);
            out.add(take());
            without.send(Ipv4StackTest.IP_B, 6000, data, 0, len, 0);
            out.add(take());
        }
        // An echo reply and an ARP reply as B builds them (B answers the request frames).
        target.receive(MemorySegment.ofArray(out.get(1)), out.get(1).length, 0);
        target.receive(MemorySegment.ofArray(out.get(0)), out.get(0).length, 0);
        for (int h2; (h2 = pair.a().poll()) != LoopbackFramePort.NONE; ) {
            out.add(Ipv4StackTest.copy(pair.a().rxBuffer(h2), 0, pair.a().rxLength(h2)));
            pair.a().release(h2);
        }
        return out;
    }

    private static byte[] take() {
        int h = pair.b().poll();
        if (h == LoopbackFramePort.NONE) {
            throw new AssertionError("the sender sent nothing; " + sender.counters());
        }
        byte[] f = Ipv4StackTest.copy(pair.b().rxBuffer(h), 0, pair.b().rxLength(h));
        pair.b().release(h);
        return f;
    }

    @Property(tries = 3000)
    void randomFramesNeverThrowAndAreAllAccountedFor(@ForAll("randomFrames") byte[] frame) {
        receive(frame);
    }

    @Property(tries = 5000)
    void mutatedFramesNeverThrowAndAreAllAccountedFor(@ForAll("mutatedFrames") byte[] frame) {
        receive(frame);
    }

    private static void receive(byte[] frame) {
        MemorySegment.copy(frame, 0, buffer, ValueLayout.JAVA_BYTE, 0, frame.length);
        long before = target.counters().get(Counter.RX_FRAMES);
        target.receive(buffer, frame.length, 0);
        assertEquals(before + 1, target.counters().get(Counter.RX_FRAMES));
        assertEquals(target.counters().get(Counter.RX_FRAMES), target.counters().outcomes(),
            target.counters().toString());
        // The stack's answers (echo replies, ARP replies) land on A's port: drain them so the ring never fills.
        for (int h; (h = pair.a().poll()) != LoopbackFramePort.NONE; ) {
            pair.a().release(h);
        }
    }

    @Provide
    Arbitrary<byte[]> randomFrames() {
        Arbitrary<byte[]> bytes = Arbitraries.bytes().array(byte[].class).ofMinSize(0).ofMaxSize(FRAME);
        Arbitrary<Integer> type = Arbitraries.of(0x0800, 0x0806, 0x86DD, 0x0000);
        return Combinators.combine(bytes, type, Arbitraries.of(true, false)).as((b, t, ours) -> {
            if (b.length >= 14) {
                if (ours) {
                    MemorySegment s = MemorySegment.ofArray(b);
                    EthernetIpLink.writeMac(s, 0, Ipv4StackTest.MAC_B);
                }
                b[12] = (byte) (t >>> 8);
                b[13] = (byte) (int) t;
            }
            return b;
        });
    }

    @Provide
    Arbitrary<byte[]> mutatedFrames() {
        Arbitrary<Integer> seed = Arbitraries.integers().between(0, seeds.size() - 1);
        Arbitrary<List<int[]>> edits = Arbitraries.integers().between(0, 4)
            .flatMap(kind -> Combinators.combine(Arbitraries.integers().between(0, FRAME - 1),
                Arbitraries.integers().between(0, 0xFFFF)).as((pos, val) -> new int[] {kind, pos, val}))
            .list().ofMinSize(1).ofMaxSize(4);
        return Combinators.combine(seed, edits, Arbitraries.of(true, false)).as((i, es, repair) -> {
            byte[] f = seeds.get(i).clone();
            for (int[] e : es) {
                f = mutate(f, e[0], e[1], e[2]);
            }
            if (repair && f.length >= 34 && (f[14] & 0x0F) * 4 >= 20 && 14 + (f[14] & 0x0F) * 4 <= f.length) {
                MemorySegment s = MemorySegment.ofArray(f);
                int hl = (f[14] & 0x0F) * 4;
                s.set(Ipv4Stack.U16, 24, (short) 0);
                s.set(Ipv4Stack.U16, 24, (short) InternetChecksum.finish(InternetChecksum.sum(s, 14, hl, 0)));
            }
            return f;
        });
    }

    /** kind 0: flip a byte; 1: truncate; 2: pad; 3: overwrite a length/offset field; 4: set the IHL nibble. */
    private static byte[] mutate(byte[] f, int kind, int pos, int value) {
        switch (kind) {
            case 0 -> {
                if (f.length > 0) {
                    f[pos % f.length] ^= (byte) (value | 1);
                }
                return f;
            }
            case 1 -> {
                return java.util.Arrays.copyOf(f, pos % (f.length + 1));
            }
            case 2 -> {
                return java.util.Arrays.copyOf(f, Math.min(FRAME, f.length + value % 64));
            }
            case 3 -> {
                int[] fields = {16, 20, 38, 42 - 4, 14 + 20 + 4}; // IPv4 total length, flags/offset, UDP length
                int at = fields[pos % fields.length];
                if (at + 1 < f.length) {
                    f[at] = (byte) (value >>> 8);
                    f[at + 1] = (byte) value;
                }
                return f;
            }
            default -> {
                if (f.length > 14) {
                    f[14] = (byte) (0x40 | (value & 0x0F));
                }
                return f;
            }
        }
    }
}
