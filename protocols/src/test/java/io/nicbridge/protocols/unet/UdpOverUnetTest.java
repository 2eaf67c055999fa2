package io.nicbridge.protocols.unet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.protocols.ip.IpCounters.Counter;
import io.nicbridge.protocols.ip.InternetChecksum;
import io.nicbridge.protocols.ip.Ipv4Address;
import io.nicbridge.protocols.ip.Ipv4Stack;
import io.nicbridge.protocols.ip.SharedBuffers;
import io.nicbridge.protocols.ip.Udp;
import io.nicbridge.protocols.ip.UdpPcb;
import io.nicbridge.protocols.ip.UnetIpLink;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.testbed.UnetLinkTestbed;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * IP and UDP over a U-Net channel on two emulated SBA-200s through the ATM switch (the card engine run inline by the
 * links' polls): the same {@link Ipv4Stack} as on Ethernet, on a {@link UnetIpLink} - the channel is the route, MTU
 * 9 KB, no ARP - with the per-channel pcb cache, the checksum fused with the copy out of the segment, and
 * scatter-gather sends of reference-counted blocks of the communication segment.
 */
class UdpOverUnetTest {
    static final int IP_A = Ipv4Address.parse("10.17.0.1");
    static final int IP_B = Ipv4Address.parse("10.17.0.2");
    static final int BLOCKS = 24;
    static final int BLOCK = 1024;

    UnetLinkTestbed tb;
    Ipv4Stack a;
    Ipv4Stack b;
    Udp udpA;
    Udp udpB;
    SharedBuffers poolA;
    long now;

    @BeforeEach
    void setUp() {
        tb = UnetLinkTestbed.builder(EngineMode.INLINE).buffers(Ipv4Stack.UNET_MTU, 8, 24)
                .extraSegment(SharedBuffers.bytesNeeded(BLOCKS, BLOCK)).build();
        UnetIpLink la = new UnetIpLink(tb.link(0)).route(IP_B, 1);
        UnetIpLink lb = new UnetIpLink(tb.link(1)).route(IP_A, 0);
        poolA = new SharedBuffers("a", tb.endpoint(0).segment(), tb.linkArea(), BLOCKS, BLOCK);
        la.sharedBuffers(poolA);
        a = new Ipv4Stack(la, IP_A, 24, Ipv4Stack.UNET_MTU);
        b = new Ipv4Stack(lb, IP_B, 24, Ipv4Stack.UNET_MTU);
        udpA = new Udp(a);
        udpB = new Udp(b);
    }

    @AfterEach
    void tearDown() {
        tb.close();
    }

    void pump() {
        for (int i = 0; i < 200; i++) {
            now += 1_000;
            a.poll(64, now);
            b.poll(64, now);
        }
    }

    static byte[] copy(MemorySegment s, long off, int len) {
        return s.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE);
    }

    static byte[] pattern(int length, int seed) {
        byte[] m = new byte[length];
        for (int i = 0; i < length; i++) {
            m[i] = (byte) (i * 31 + seed);
        }
        return m;
    }

    @Test
    void echoesUpToTheNineKilobyteMtuWithAndWithoutChecksumAndTheChannelIsTheRoute() {
        for (boolean checksum : new boolean[] {true, false}) {
            int port = checksum ? 5000 : 5001;
            List<byte[]> back = new ArrayList<>();
            UdpPcb pa = udpA.bind(port, (pcb, src, sp, d, off, len, t) -> back.add(copy(d, off, len)), checksum);
            udpB.bind(port + 1000, (pcb, src, sp, d, off, len, t) -> {
                assertEquals(IP_A, src);
                assertEquals(port, sp);
                assertEquals(0, pcb.send(src, sp, d, off, len, t)); // echo
            }, checksum);
            byte[] msg = pattern(udpA.maxPayload(), 7);
            MemorySegment m = MemorySegment.ofArray(msg);
            int[] sizes = {0, 1, 40, 1472, 4096, udpA.maxPayload()};
            for (int len : sizes) {
                assertEquals(0, pa.send(IP_B, port + 1000, m, 0, len, now), "no ARP on a channel: sent at once");
                pump();
            }
            assertEquals(sizes.length, back.size());
            for (int i = 0; i < sizes.length; i++) {
                assertArrayEquals(java.util.Arrays.copyOf(msg, sizes[i]), back.get(i));
            }
            assertThrows(IllegalArgumentException.class, () -> pa.send(IP_B, port + 1000, m, 0, msg.length + 1, now),
                    "no send-side fragmentation past the 9 KB MTU");
        }
        assertEquals(9 * 1024 - 28, udpA.maxPayload());
        assertEquals(Ipv4Stack.NO_ROUTE, udpA.bind(7, (p, s, sp, d, o, l, t) -> { }, true)
                .send(Ipv4Address.parse("10.17.0.3"), 7, MemorySegment.ofArray(new byte[1]), 0, 1, now));
        assertEquals(0, a.counters().get(Counter.ARP_REQUESTS_SENT));
        assertEquals(0, a.counters().dropped() + b.counters().dropped(), a.counters() + " / " + b.counters());
        assertEquals(0L, a.mac());
    }

    @Test
    void thePcbCacheOfTheChannelServesEveryDatagramAfterTheFirstToAPort() {
        int[] got = {0};
        udpB.bind(9000, (pcb, src, sp, d, off, len, t) -> got[0]++, true);
        udpB.bind(9001, (pcb, src, sp, d, off, len, t) -> got[0]++, true);
        UdpPcb pa = udpA.bind(9000, (p, s, sp, d, o, l, t) -> { }, true);
        MemorySegment m = MemorySegment.ofArray(new byte[64]);
        for (int i = 0; i < 10; i++) {
            assertEquals(0, pa.send(IP_B, 9000, m, 0, 64, now));
            pump();
        }
        assertEquals(10, got[0]);
        assertEquals(9, udpB.pcbCacheHits());
        assertEquals(1, udpB.pcbCacheMisses());
        assertEquals(0, pa.send(IP_B, 9001, m, 0, 64, now)); // another port on the same channel: a miss, re-cached
        pump();
        assertEquals(0, pa.send(IP_B, 9001, m, 0, 64, now));
        pump();
        assertEquals(10, udpB.pcbCacheHits());
        assertEquals(2, udpB.pcbCacheMisses());
    }

    @Test
    void aReceiveAreaGetsTheDatagramCopiedWithItsChecksumCheckedInTheSamePass() {
        MemorySegment area = Arena.ofAuto().allocate(2048);
        List<String> seen = new ArrayList<>();
        udpB.bind(7000, (pcb, src, sp, d, off, len, t) -> {
            assertEquals(area, d);
            assertEquals(100, off);
            seen.add(len + ":" + java.util.Arrays.hashCode(copy(d, off, len)));
        }, true, area, 100, 1500);
        UdpPcb pa = udpA.bind(7000, (p, s, sp, d, o, l, t) -> { }, true);
        byte[] msg = pattern(1500, 3);
        assertEquals(0, pa.send(IP_B, 7000, MemorySegment.ofArray(msg), 0, 1500, now));
        assertEquals(0, pa.send(IP_B, 7000, MemorySegment.ofArray(msg), 0, 1501 - 1, now));
        pump();
        assertEquals(List.of("1500:" + java.util.Arrays.hashCode(msg), "1500:" + java.util.Arrays.hashCode(msg)), seen);
        assertEquals(0, pa.send(IP_B, 7000, MemorySegment.ofArray(pattern(1501, 3)), 0, 1501, now));
        pump();
        assertEquals(1, b.counters().get(Counter.UDP_TOO_LONG), "longer than the area: dropped, counted");

        // A datagram corrupted after its checksum was computed (past the AAL5 CRC, e.g. in host memory): the fused
        // copy finds it and nothing is delivered.
        MemorySegment dgram = Arena.ofAuto().allocate(20 + 8 + 64);
        byte[] data = pattern(64, 9);
        dgram.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x45);
        dgram.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 2, (short) 92);
        dgram.set(ValueLayout.JAVA_BYTE, 8, (byte) 64);
        dgram.set(ValueLayout.JAVA_BYTE, 9, (byte) 17);
        var u32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
        var u16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
        dgram.set(u32, 12, IP_A);
        dgram.set(u32, 16, IP_B);
        dgram.set(u16, 10, (short) InternetChecksum.finish(InternetChecksum.sum(dgram, 0, 20, 0)));
        dgram.set(u16, 20, (short) 7000);
        dgram.set(u16, 22, (short) 7000);
        dgram.set(u16, 24, (short) 72);
        MemorySegment.copy(MemorySegment.ofArray(data), 0, dgram, 28, 64);
        long sum = InternetChecksum.sum(dgram, 20, 72, InternetChecksum.pseudoHeader(IP_A, IP_B, 17, 72));
        dgram.set(u16, 26, (short) InternetChecksum.finish(sum));
        b.receive(dgram, 92, now);
        assertEquals(3, seen.size(), "the intact datagram is delivered");
        dgram.set(ValueLayout.JAVA_BYTE, 60, (byte) (dgram.get(ValueLayout.JAVA_BYTE, 60) ^ 0x10));
        b.receive(dgram, 92, now);
        assertEquals(3, seen.size(), "the corrupted one is not");
        assertEquals(1, b.counters().get(Counter.UDP_BAD_CHECKSUM));
    }

    @Test
    void aDatagramGathersBlocksOfTheSegmentWhichStayReferencedUntilTheCardHasSentThem() {
        List<byte[]> got = new ArrayList<>();
        udpB.bind(8000, (pcb, src, sp, d, off, len, t) -> got.add(copy(d, off, len)), true);
        UdpPcb pa = udpA.bind(8000, (p, s, sp, d, o, l, t) -> { }, true);
        int[] blocks = new int[3];
        int[] lengths = {333, 1024, 101}; // odd lengths: the checksum of the later blocks starts at odd positions
        byte[] expected = new byte[333 + 1024 + 101];
        int at = 0;
        for (int i = 0; i < 3; i++) {
            blocks[i] = poolA.allocate();
            byte[] p = pattern(lengths[i], 11 * i + 1);
            MemorySegment.copy(MemorySegment.ofArray(p), 0, poolA.buffer(blocks[i]), 0, lengths[i]);
            System.arraycopy(p, 0, expected, at, p.length);
            at += p.length;
        }
        long sentBefore = tb.endpoint(0).sendCompletions(io.nicbridge.contract.Sba200Unet.TX_STATUS_SENT);
        assertEquals(0, pa.sendBlocks(IP_B, 8000, poolA, blocks, lengths, 3, now));
        for (int blk : blocks) {
            assertEquals(2, poolA.referenceCount(blk), "the application's reference and the card's");
            poolA.release(blk); // the application is done with them at once
            assertEquals(1, poolA.referenceCount(blk), "still read by the card: not free");
        }
        assertEquals(BLOCKS - 3, poolA.available());
        pump();
        assertEquals(1, got.size());
        assertArrayEquals(expected, got.get(0));
        assertTrue(tb.endpoint(0).sendCompletions(io.nicbridge.contract.Sba200Unet.TX_STATUS_SENT) > sentBefore);
        for (int blk : blocks) {
            assertEquals(0, poolA.referenceCount(blk), "the completion dropped the card's reference");
        }
        assertEquals(BLOCKS, poolA.available());
        assertEquals(0, b.counters().get(Counter.UDP_BAD_CHECKSUM));
        assertThrows(IllegalStateException.class, () -> poolA.release(blocks[0]), "a double free");
        assertThrows(IllegalStateException.class, () -> pa.sendBlocks(IP_B, 8000, poolA, blocks, lengths, 3, now),
                "sending a free block");
        assertEquals(BLOCKS, poolA.available(), "a rejected call changes nothing");
    }

    /**
     * Random datagrams of 1..5 blocks, blocks shared by several datagrams in flight at once, the application dropping
     * its references at random times, sends refused for want of buffers: at the end every datagram arrived intact,
     * every block is free exactly once (no leak: all free; no double free: the pool would have thrown), and a block
     * never changed while a datagram that gathered it was in flight (the received bytes prove it).
     */
    @Test
    void randomSharingNeitherLeaksNorFreesABlockTwiceNorReusesOneInFlight() {
        for (long seed = 1; seed <= 3; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            List<byte[]> got = new ArrayList<>();
            int port = 8100 + (int) seed;
            udpB.bind(port, (pcb, src, sp, d, off, len, t) -> got.add(copy(d, off, len)), seed != 2);
            UdpPcb pa = udpA.bind(port, (p, s, sp, d, o, l, t) -> { }, seed != 2);
            List<byte[]> sent = new ArrayList<>();
            int[] held = new int[BLOCKS];
            int heldCount = 0;
            int[] tag = new int[BLOCKS];
            int[] blocks = new int[5];
            int[] lengths = new int[5];
            for (int step = 0; step < 400; step++) {
                int op = rnd.nextInt(10);
                if (op < 3) { // the application takes and fills a block
                    int blk = poolA.allocate();
                    if (blk != SharedBuffers.NONE) {
                        tag[blk] = step;
                        byte[] p = pattern(BLOCK, step);
                        MemorySegment.copy(MemorySegment.ofArray(p), 0, poolA.buffer(blk), 0, BLOCK);
                        held[heldCount++] = blk;
                    }
                } else if (op < 7 && heldCount > 0) { // a datagram of held blocks (repeats allowed)
                    int n = 1 + rnd.nextInt(5);
                    java.io.ByteArrayOutputStream expect = new java.io.ByteArrayOutputStream();
                    for (int i = 0; i < n; i++) {
                        blocks[i] = held[rnd.nextInt(heldCount)];
                        lengths[i] = 1 + rnd.nextInt(BLOCK);
                        expect.write(pattern(BLOCK, tag[blocks[i]]), 0, lengths[i]);
                    }
                    if (expect.size() <= udpA.maxPayload()) {
                        int r = pa.sendBlocks(IP_B, port, poolA, blocks, lengths, n, now);
                        if (r == 0) {
                            sent.add(expect.toByteArray());
                            b.poll(64, now); // the receiver keeps up (UDP has no flow control: the card would drop)
                        } else {
                            assertEquals(Ipv4Stack.NO_BUFFER, r);
                        }
                    }
                } else if (op < 9 && heldCount > 0) { // the application drops one of its references
                    int i = rnd.nextInt(heldCount);
                    poolA.release(held[i]);
                    held[i] = held[--heldCount];
                } else {
                    now += 1_000;
                    a.poll(64, now);
                    b.poll(64, now);
                }
            }
            while (heldCount > 0) {
                poolA.release(held[--heldCount]);
            }
            pump();
            assertEquals(sent.size(), got.size(), "seed " + seed);
            for (int i = 0; i < sent.size(); i++) {
                assertArrayEquals(sent.get(i), got.get(i), "seed " + seed + " datagram " + i);
            }
            assertEquals(BLOCKS, poolA.available(), "seed " + seed + ": a leak");
            assertEquals(poolA.allocations(), poolA.frees(), "seed " + seed);
            for (int blk = 0; blk < BLOCKS; blk++) {
                assertEquals(0, poolA.referenceCount(blk));
            }
            assertTrue(sent.size() > 50, "seed " + seed + ": only " + sent.size() + " datagrams");
        }
        assertEquals(0, a.counters().dropped() + b.counters().dropped(), a.counters() + " / " + b.counters());
    }

    @Test
    void anAbortedFrameGivesItsBlocksReferencesBack() {
        int blk = poolA.allocate();
        int h = a.claim(IP_B, now);
        assertTrue(h >= 0);
        a.link().attach(h, poolA, blk, 100);
        assertEquals(2, poolA.referenceCount(blk));
        a.abort(h);
        assertEquals(1, poolA.referenceCount(blk));
        poolA.release(blk);
        assertEquals(BLOCKS, poolA.available());
    }

    @Test
    void gatherMisuseIsRefusedAndChangesNothing() {
        var gather = tb.link(0).capability(io.nicbridge.bridge.driver.unet.UnetGather.class);
        int h = tb.link(0).claim(1);
        long size = gather.segment().byteSize();
        assertThrows(IllegalArgumentException.class, () -> gather.attach(h, (int) size - 10, 20, 0), "past the segment");
        assertThrows(IllegalArgumentException.class, () -> gather.attach(h, 0, 0, 0), "empty");
        assertThrows(IllegalArgumentException.class, () -> gather.attach(h, 0, Ipv4Stack.UNET_MTU, 0), "past the mtu");
        for (int i = 0; i < io.nicbridge.bridge.driver.unet.UnetGather.MAX_ATTACHED; i++) {
            gather.attach(h, 64 * i, 64, i);
        }
        assertEquals(5 * 64, gather.attachedBytes(h));
        assertThrows(IllegalStateException.class, () -> gather.attach(h, 0, 64, 9), "a sixth range");
        assertThrows(IllegalArgumentException.class, () -> tb.link(0).commit(h, Ipv4Stack.UNET_MTU),
                "head and ranges past the mtu");
        List<Integer> back = new ArrayList<>();
        gather.completionListener(back::add);
        tb.link(0).abort(h);
        assertEquals(List.of(0, 1, 2, 3, 4), back, "an abort hands every token back at once");
        assertThrows(IllegalStateException.class, () -> gather.attach(h, 0, 64, 0), "not claimed any more");
    }

    @Test
    void onEthernetSendBlocksCopiesTheBlocksAndKeepsNoReference() {
        io.nicbridge.bridge.memory.CommSegment comm = io.nicbridge.bridge.memory.CommSegment.allocate("eth",
                io.nicbridge.bridge.port.LoopbackFramePort.requiredBytes(16, 1514));
        var pair = io.nicbridge.bridge.port.LoopbackFramePort.pair("eth", comm, 16, 1514);
        try (Arena arena = Arena.ofConfined()) {
            Ipv4Stack ea = new Ipv4Stack(pair.a(), 0x02_00_00_00_00_0AL, IP_A, 24, Ipv4Stack.ETHERNET_MTU);
            Ipv4Stack eb = new Ipv4Stack(pair.b(), 0x02_00_00_00_00_0BL, IP_B, 24, Ipv4Stack.ETHERNET_MTU);
            SharedBuffers pool = new SharedBuffers("eth", arena.allocate(SharedBuffers.bytesNeeded(4, 512), 64), 0, 4,
                    512);
            assertEquals(0, ea.link().gatherLimit(pool), "Ethernet has no scatter-gather");
            List<byte[]> got = new ArrayList<>();
            new Udp(eb).bind(4000, (pcb, src, sp, d, off, len, t) -> got.add(copy(d, off, len)), true);
            UdpPcb pe = new Udp(ea).bind(4000, (p, s, sp, d, o, l, t) -> { }, true);
            int x = pool.allocate();
            int y = pool.allocate();
            MemorySegment.copy(MemorySegment.ofArray(pattern(512, 1)), 0, pool.buffer(x), 0, 512);
            MemorySegment.copy(MemorySegment.ofArray(pattern(512, 2)), 0, pool.buffer(y), 0, 512);
            int[] blocks = {x, y, x};
            int[] lengths = {7, 512, 300};
            assertEquals(Ipv4Stack.ARP_PENDING, pe.sendBlocks(IP_B, 4000, pool, blocks, lengths, 3, 0));
            for (int i = 0; i < 10; i++) {
                ea.poll(64, i);
                eb.poll(64, i);
            }
            assertEquals(0, pe.sendBlocks(IP_B, 4000, pool, blocks, lengths, 3, 20));
            assertEquals(1, pool.referenceCount(x), "copied: no reference kept");
            for (int i = 0; i < 10; i++) {
                ea.poll(64, 30 + i);
                eb.poll(64, 30 + i);
            }
            byte[] expected = new byte[7 + 512 + 300];
            System.arraycopy(pattern(512, 1), 0, expected, 0, 7);
            System.arraycopy(pattern(512, 2), 0, expected, 7, 512);
            System.arraycopy(pattern(512, 1), 0, expected, 519, 300);
            assertEquals(1, got.size());
            assertArrayEquals(expected, got.get(0));
            assertEquals(0, eb.counters().get(Counter.UDP_BAD_CHECKSUM));
        } finally {
            pair.close();
            comm.close();
        }
    }

    /** Random bytes as U-Net datagrams: never a throw, and every frame ends in exactly one counter. */
    @Test
    void randomDatagramsFromAChannelAreDroppedAndCountedNeverThrown() {
        udpB.bind(6000, (pcb, src, sp, d, off, len, t) -> { }, true);
        SplittableRandom rnd = new SplittableRandom(17);
        MemorySegment frame = Arena.ofAuto().allocate(2048);
        var u16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
        for (int i = 0; i < 20_000; i++) {
            int length = rnd.nextInt(200);
            for (int k = 0; k < length; k++) {
                frame.set(ValueLayout.JAVA_BYTE, k, (byte) rnd.nextInt(256));
            }
            if (length >= 20 && rnd.nextBoolean()) { // plausible headers, so the deeper parsers get exercised
                frame.set(ValueLayout.JAVA_BYTE, 0, (byte) (0x45 + rnd.nextInt(3)));
                frame.set(u16, 2, (short) (rnd.nextBoolean() ? length : rnd.nextInt(300)));
                frame.set(u16, 6, (short) 0);
                frame.set(ValueLayout.JAVA_BYTE, 9, (byte) (rnd.nextBoolean() ? 17 : 1));
                frame.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 16, IP_B);
                frame.set(u16, 10, (short) 0);
                frame.set(u16, 10, (short) InternetChecksum.finish(InternetChecksum.sum(frame, 0, 20, 0)));
                if (length >= 28) {
                    frame.set(u16, 22, (short) 6000);
                }
            }
            b.receive(frame, length, i);
        }
        assertEquals(b.counters().get(Counter.RX_FRAMES), b.counters().outcomes(), b.counters().toString());
        assertTrue(b.counters().get(Counter.UDP_BAD_CHECKSUM) + b.counters().get(Counter.UDP_BAD_LENGTH) > 0,
                b.counters().toString());
    }
}
