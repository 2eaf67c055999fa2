package io.nicbridge.protocols.ip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.port.LoopbackFramePort;
import io.nicbridge.protocols.ip.IpCounters.Counter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The IPv4 stack's receive parsers (Ethernet, ARP, IPv4, ICMP, UDP) through its public API only ({@link Ipv4Stack},
 * {@link Udp}, {@link UdpPcb}, {@link EchoListener}), with coverage guidance: frames of any bytes, and valid frames a
 * real stack built (ARP request and reply, echo request and reply, UDP with and without checksum) with any bytes
 * overwritten, cut or padded, their IPv4 and UDP checksums repaired or not, so that the fuzzer reaches every parser.
 * Between frames the stack also pings and sends. An independent parser in this class (its own checksum, its own
 * field reads) decides what each frame must produce:
 * <ul>
 *   <li>no exception escapes; every frame ends in exactly one outcome counter, and counters never go back;</li>
 *   <li>a UDP datagram is delivered exactly when the frame is a well-formed, unfragmented IPv4/UDP datagram for this
 *       host to a bound port with a checksum that is absent or right, and then with the source, ports, offset,
 *       length and bytes the frame holds;</li>
 *   <li>an echo reply is told to the listener exactly when the frame is a well-formed ICMP echo reply for this host,
 *       with its identifier, sequence and data;</li>
 *   <li>everything the stack sends in answer (ARP replies and requests, echo replies, datagrams) is well formed:
 *       from its own addresses, with IPv4, ICMP and UDP checksums that verify.</li>
 * </ul>
 * TCP is not fuzzed here (another module's work in progress). Corpus:
 * {@code src/test/resources/io/nicbridge/protocols/ip/Ipv4StackFuzzTestInputs/hostileFrames/}.
 */
class Ipv4StackFuzzTest {
    private static final int FRAME = 1514;
    private static final int PORT = 6000;
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final long MAC_B = Ipv4StackTest.MAC_B;
    private static final int IP_B = Ipv4StackTest.IP_B;
    /** B's /24 directed broadcast. */
    private static final int DIRECTED = IP_B | 0xFF;

    private static CommSegment comm;
    private static LoopbackFramePort.Pair pair;
    private static List<byte[]> seeds;

    /** What the receivers saw for the frame under test. */
    private static int udpCalls;
    private static int echoCalls;
    private static byte[] current;
    private static int currentLength;

    @FuzzTest(maxDuration = "30s")
    void hostileFrames(FuzzedDataProvider script) {
        setUpOnce();
        Ipv4Stack target = new Ipv4Stack(pair.b(), MAC_B, IP_B, 24, Ipv4Stack.ETHERNET_MTU);
        Udp udp = new Udp(target);
        UdpPcb pcb = udp.bind(PORT, Ipv4StackFuzzTest::onDatagram, script.consumeBoolean());
        target.echoListener(Ipv4StackFuzzTest::onEchoReply);
        MemorySegment buffer = MemorySegment.ofArray(new byte[FRAME + 64]);
        long[] last = new long[Counter.values().length];
        for (int step = 0; step < 24 && script.remainingBytes() > 0; step++) {
            switch (script.consumeInt(0, 5)) {
                case 0 -> target.ping(script.consumeBoolean() ? Ipv4StackTest.IP_A : script.consumeInt(),
                    script.consumeInt(0, 0xFFFF), script.consumeInt(0, 0xFFFF), script.consumeInt(0, 64), 0);
                case 1 -> pcb.send(script.consumeBoolean() ? Ipv4StackTest.IP_A : script.consumeInt(),
                    script.consumeInt(1, 0xFFFF), buffer, 0, script.consumeInt(0, 64), 0);
                case 2 -> receive(target, buffer, script.consumeBytes(FRAME), script);
                default -> receive(target, buffer, mutated(script), script);
            }
            IpCounters c = target.counters();
            for (Counter k : Counter.values()) {
                assertTrue(c.get(k) >= last[k.ordinal()], k + " went back from " + last[k.ordinal()] + " to " + c.get(k));
                last[k.ordinal()] = c.get(k);
            }
            assertEquals(c.get(Counter.RX_FRAMES), c.outcomes(), "every frame ends in one outcome: " + c);
            drainAnswers();
        }
    }

    private static void receive(Ipv4Stack target, MemorySegment buffer, byte[] frame, FuzzedDataProvider script) {
        if (frame.length >= 14 && script.consumeBoolean()) {
            EthernetIpLink.writeMac(MemorySegment.ofArray(frame), 0, script.consumeBoolean() ? MAC_B : 0xFFFF_FFFF_FFFFL);
        }
        MemorySegment.copy(frame, 0, buffer, ValueLayout.JAVA_BYTE, 0, frame.length);
        current = frame;
        currentLength = frame.length;
        udpCalls = 0;
        echoCalls = 0;
        int expectUdp = isDatagramForBoundPort(frame) ? 1 : 0;
        int expectEcho = isEchoReplyForUs(frame) ? 1 : 0;
        target.receive(buffer, frame.length, 0);
        assertEquals(expectUdp, udpCalls, "UDP deliveries of frame " + hex(frame));
        assertEquals(expectEcho, echoCalls, "echo replies told of frame " + hex(frame));
    }

    private static void onDatagram(UdpPcb pcb, int source, int sourcePort, MemorySegment data, int offset, int length,
                                   long now) {
        udpCalls++;
        MemorySegment f = MemorySegment.ofArray(current);
        int u = 14 + (current[14] & 0x0F) * 4;
        assertEquals(PORT, pcb.port());
        assertEquals(f.get(U32, 14 + 12), source, "source address");
        assertEquals(Short.toUnsignedInt(f.get(U16, u)), sourcePort, "source port");
        assertEquals(u + 8, offset, "data offset");
        assertEquals(Short.toUnsignedInt(f.get(U16, u + 4)) - 8, length, "data length");
        assertTrue(offset + length <= currentLength, "data past the frame");
        assertEquals(-1L, MemorySegment.mismatch(data, offset, offset + length, f, offset, offset + length),
            "delivered bytes against the frame's");
    }

    private static void onEchoReply(int source, int identifier, int sequence, MemorySegment data, int offset,
                                    int length, long now) {
        echoCalls++;
        MemorySegment f = MemorySegment.ofArray(current);
        int i = 14 + (current[14] & 0x0F) * 4;
        int total = Short.toUnsignedInt(f.get(U16, 16));
        assertEquals(f.get(U32, 14 + 12), source, "echo reply source");
        assertEquals(Short.toUnsignedInt(f.get(U16, i + 4)), identifier);
        assertEquals(Short.toUnsignedInt(f.get(U16, i + 6)), sequence);
        assertEquals(i + 8, offset);
        assertEquals(total - (i - 14) - 8, length, "echo data length");
        assertEquals(-1L, MemorySegment.mismatch(data, offset, offset + length, f, offset, offset + length));
    }

    // ------------------------------------------------------------------ the independent parser

    /** The IPv4 payload's offset when the frame is a well-formed unfragmented datagram for B, else -1. */
    private static int ipPayload(byte[] b, int protocol) {
        if (b.length < 34) {
            return -1;
        }
        MemorySegment f = MemorySegment.ofArray(b);
        long da = f.get(U32, 0) & 0xFFFF_FFFFL;
        da = da << 16 | Short.toUnsignedInt(f.get(U16, 4));
        if ((da != MAC_B && da != 0xFFFF_FFFF_FFFFL) || Short.toUnsignedInt(f.get(U16, 12)) != 0x0800) {
            return -1;
        }
        int ihl = (b[14] & 0x0F) * 4;
        int total = Short.toUnsignedInt(f.get(U16, 16));
        if ((b[14] & 0xF0) != 0x40 || ihl < 20 || ihl > total || 14 + total > b.length
            || onesComplement(b, 14, ihl, 0) != 0xFFFF) {
            return -1;
        }
        if ((Short.toUnsignedInt(f.get(U16, 20)) & 0x3FFF) != 0 || (b[23] & 0xFF) != protocol) {
            return -1;
        }
        int dst = f.get(U32, 30);
        return dst == IP_B || dst == DIRECTED || dst == -1 ? 14 + ihl : -1;
    }

    private static boolean isDatagramForBoundPort(byte[] b) {
        int u = ipPayload(b, 17);
        if (u < 0) {
            return false;
        }
        MemorySegment f = MemorySegment.ofArray(b);
        int payload = Short.toUnsignedInt(f.get(U16, 16)) - (u - 14);
        if (payload < 8) {
            return false;
        }
        int udpLength = Short.toUnsignedInt(f.get(U16, u + 4));
        if (udpLength < 8 || udpLength > payload || Short.toUnsignedInt(f.get(U16, u + 2)) != PORT) {
            return false;
        }
        if (f.get(U16, u + 6) == 0) {
            return true;
        }
        long pseudo = (f.get(U32, 26) >>> 16) + (f.get(U32, 26) & 0xFFFF) + (f.get(U32, 30) >>> 16)
            + (f.get(U32, 30) & 0xFFFF) + 17 + udpLength;
        return onesComplement(b, u, udpLength, pseudo) == 0xFFFF;
    }

    private static boolean isEchoReplyForUs(byte[] b) {
        int i = ipPayload(b, 1);
        if (i < 0) {
            return false;
        }
        int length = Short.toUnsignedInt(MemorySegment.ofArray(b).get(U16, 16)) - (i - 14);
        return length >= 8 && onesComplement(b, i, length, 0) == 0xFFFF && (b[i] & 0xFF) == 0;
    }

    /** The folded 16-bit ones'-complement sum of {@code length} bytes (odd tail padded with zero), plus {@code start}. */
    private static int onesComplement(byte[] b, int offset, int length, long start) {
        long sum = start;
        for (int i = 0; i + 1 < length; i += 2) {
            sum += ((b[offset + i] & 0xFF) << 8) | (b[offset + i + 1] & 0xFF);
        }
        if ((length & 1) != 0) {
            sum += (b[offset + length - 1] & 0xFF) << 8;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) sum;
    }

    /** What B sent (answers, pings, datagrams) is well formed; then the port is empty again. */
    private static void drainAnswers() {
        for (int h; (h = pair.a().poll()) != LoopbackFramePort.NONE; ) {
            byte[] f = Ipv4StackTest.copy(pair.a().rxBuffer(h), 0, pair.a().rxLength(h));
            pair.a().release(h);
            assertTrue(f.length >= Ipv4Stack.MIN_FRAME, "short frame sent: " + f.length);
            MemorySegment s = MemorySegment.ofArray(f);
            long sa = (s.get(U32, 6) & 0xFFFF_FFFFL) << 16 | Short.toUnsignedInt(s.get(U16, 10));
            assertEquals(MAC_B, sa, "source MAC of a frame B sent");
            int type = Short.toUnsignedInt(s.get(U16, 12));
            if (type == 0x0806) {
                assertEquals(IP_B, s.get(U32, 14 + 14), "ARP sender address");
                continue;
            }
            assertEquals(0x0800, type, "ethertype of a frame B sent");
            assertEquals(0x45, f[14] & 0xFF, "B sends 20-byte IPv4 headers");
            assertEquals(0xFFFF, onesComplement(f, 14, 20, 0), "IPv4 header checksum of a frame B sent");
            assertEquals(IP_B, s.get(U32, 26), "source address of a datagram B sent");
            int total = Short.toUnsignedInt(s.get(U16, 16));
            assertTrue(14 + total <= f.length, "total length " + total + " past the frame");
            if ((f[23] & 0xFF) == 1) {
                assertEquals(0xFFFF, onesComplement(f, 34, total - 20, 0), "ICMP checksum of a message B sent");
            }
        }
        for (int h; (h = pair.b().poll()) != LoopbackFramePort.NONE; ) {
            pair.b().release(h); // nothing sends to B here; keep the ring empty anyway
        }
    }

    // ------------------------------------------------------------------ frames to start from

    /** A seed frame with fuzzer-chosen bytes overwritten, then cut or padded, checksums repaired or not. */
    private static byte[] mutated(FuzzedDataProvider script) {
        byte[] f = seeds.get(script.consumeInt(0, seeds.size() - 1)).clone();
        for (int edits = script.consumeInt(0, 4); edits > 0; edits--) {
            byte[] with = script.consumeBytes(script.consumeInt(1, 4));
            int at = script.consumeInt(0, f.length - 1);
            System.arraycopy(with, 0, f, at, Math.min(with.length, f.length - at));
        }
        int length = script.consumeBoolean() ? f.length : script.consumeInt(0, Math.min(FRAME, f.length + 64));
        f = Arrays.copyOf(f, length);
        if (script.consumeBoolean() && f.length >= 34) {
            repairChecksums(f);
        }
        return f;
    }

    /** Recomputes the IPv4 header checksum and, for UDP and ICMP, the transport checksum over what the frame holds. */
    private static void repairChecksums(byte[] f) {
        MemorySegment s = MemorySegment.ofArray(f);
        int ihl = (f[14] & 0x0F) * 4;
        if (ihl < 20 || 14 + ihl > f.length) {
            return;
        }
        s.set(U16, 24, (short) 0);
        s.set(U16, 24, (short) ~onesComplement(f, 14, ihl, 0));
        int t = 14 + ihl;
        int total = Short.toUnsignedInt(s.get(U16, 16));
        int payload = Math.min(total, f.length - 14) - ihl;
        if ((f[23] & 0xFF) == 17 && payload >= 8) {
            int udpLength = Math.min(Short.toUnsignedInt(s.get(U16, t + 4)), payload);
            if (udpLength >= 8 && s.get(U16, t + 6) != 0) {
                s.set(U16, t + 6, (short) 0);
                long pseudo = (s.get(U32, 26) >>> 16) + (s.get(U32, 26) & 0xFFFF) + (s.get(U32, 30) >>> 16)
                    + (s.get(U32, 30) & 0xFFFF) + 17 + Short.toUnsignedInt(s.get(U16, t + 4));
                int c = ~onesComplement(f, t, udpLength, pseudo) & 0xFFFF;
                s.set(U16, t + 6, (short) (c == 0 ? 0xFFFF : c));
            }
        } else if ((f[23] & 0xFF) == 1 && payload >= 4) {
            s.set(U16, t + 2, (short) 0);
            s.set(U16, t + 2, (short) ~onesComplement(f, t, payload, 0));
        }
    }

    /** Once per JVM: the loopback pair and the valid frames A builds for B (as the jqwik parser test does). */
    private static synchronized void setUpOnce() {
        if (seeds != null) {
            return;
        }
        comm = CommSegment.allocate("ipfuzz", LoopbackFramePort.requiredBytes(16, FRAME));
        pair = LoopbackFramePort.pair("ipfuzz", comm, 16, FRAME);
        Ipv4Stack a = new Ipv4Stack(pair.a(), Ipv4StackTest.MAC_A, Ipv4StackTest.IP_A, 24, Ipv4Stack.ETHERNET_MTU);
        Ipv4Stack b = new Ipv4Stack(pair.b(), MAC_B, IP_B, 24, Ipv4Stack.ETHERNET_MTU);
        List<byte[]> out = new ArrayList<>();
        a.ping(IP_B, 1, 1, 0, 0);
        out.add(takeFrom(pair.b())); // ARP request
        b.receive(MemorySegment.ofArray(out.get(0)), out.get(0).length, 0);
        out.add(takeFrom(pair.a())); // ARP reply
        a.receive(MemorySegment.ofArray(out.get(1)), out.get(1).length, 0);
        a.ping(IP_B, 7, 2, 40, 0);
        out.add(takeFrom(pair.b())); // echo request
        b.receive(MemorySegment.ofArray(out.get(2)), out.get(2).length, 0);
        out.add(takeFrom(pair.a())); // echo reply
        Udp udp = new Udp(a);
        MemorySegment data = MemorySegment.ofArray(new byte[300]);
        for (boolean checksum : new boolean[] {true, false}) {
            UdpPcb p = udp.bind(checksum ? 5000 : 5001, (pcb, src, sp, d, off, len, t) -> { }, checksum);
            for (int len : new int[] {0, 9, 300}) {
                p.send(IP_B, PORT, data, 0, len, 0);
                out.add(takeFrom(pair.b()));
            }
        }
        seeds = out;
    }

    private static byte[] takeFrom(LoopbackFramePort port) {
        int h = port.poll();
        if (h == LoopbackFramePort.NONE) {
            throw new AssertionError("the seed stack sent nothing");
        }
        byte[] f = Ipv4StackTest.copy(port.rxBuffer(h), 0, port.rxLength(h));
        port.release(h);
        return f;
    }

    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < Math.min(b.length, 64); i++) {
            s.append(String.format("%02x", b[i] & 0xFF));
        }
        return s + (b.length > 64 ? "... (" + b.length + " bytes)" : "");
    }
}
