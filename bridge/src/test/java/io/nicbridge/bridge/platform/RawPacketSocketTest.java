package io.nicbridge.bridge.platform;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RawPacketSocketTest {
    /** IEEE 802 "local experimental" EtherType: nothing else on the link uses it. */
    private static final short ETHERTYPE = (short) 0x88B5;
    private static final long RECEIVE_TIMEOUT_NANOS = 1_000_000_000L;

    private static VethPair pair;
    private RawPacketSocket a;
    private RawPacketSocket b;
    private Arena arena;

    @BeforeAll
    static void createPair() throws IOException {
        Availability availability = VethPair.availability();
        Requirements.assume(Capability.NET, availability.available(), availability.reason());
        // No IPv4 and no IPv6: the kernel sends nothing on this link by itself.
        pair = VethPair.builder().ipv4(false).create();
    }

    @AfterAll
    static void closePair() {
        if (pair != null) {
            pair.close();
        }
    }

    @BeforeEach
    void openSockets() throws IOException {
        a = RawPacketSocket.open(pair.namespaceA(), pair.interfaceA());
        b = RawPacketSocket.open(pair.namespaceB(), pair.interfaceB());
        arena = Arena.ofConfined();
    }

    @AfterEach
    void closeSockets() {
        a.close();
        b.close();
        arena.close();
    }

    /** dst | src | EtherType 0x88B5 | sequence (4, big-endian) | pattern. */
    private MemorySegment frame(MacAddress dst, MacAddress src, int sequence, int length) {
        MemorySegment f = arena.allocate(length);
        dst.writeTo(f, 0);
        src.writeTo(f, 6);
        f.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 12, ETHERTYPE);
        f.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 14, sequence);
        for (int i = 18; i < length; i++) {
            f.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + sequence));
        }
        return f;
    }

    @Test
    void frameSentInAArrivesByteIdenticalInBAndBack() {
        for (int length : new int[] {60, 64, 1514}) {
            MemorySegment out = frame(pair.macB(), pair.macA(), length, length);
            assertEquals(length, a.send(out, length));
            assertArrayEquals(out.toArray(ValueLayout.JAVA_BYTE), receiveOurs(b, length));

            MemorySegment back = frame(pair.macA(), pair.macB(), -length, length);
            assertEquals(length, b.send(back, length));
            assertArrayEquals(back.toArray(ValueLayout.JAVA_BYTE), receiveOurs(a, length));
        }
    }

    @Test
    void aTapReturnsTheFramesThisEndSendsAndReceivesAndTellsWhichIsWhich() throws IOException {
        try (RawPacketSocket tap = RawPacketSocket.openTap(pair.namespaceA(), pair.interfaceA())) {
            assertTrue(!tap.kernelIgnoresOutgoing());
            MemorySegment out = frame(pair.macB(), pair.macA(), 1, 64);
            assertEquals(64, a.send(out, 64));
            assertArrayEquals(out.toArray(ValueLayout.JAVA_BYTE), receiveOurs(tap, 64));
            assertTrue(tap.lastFrameOutgoing(), "sent from A's end");
            MemorySegment back = frame(pair.macA(), pair.macB(), 2, 100);
            assertEquals(100, b.send(back, 100));
            assertArrayEquals(back.toArray(ValueLayout.JAVA_BYTE), receiveOurs(tap, 100));
            assertTrue(!tap.lastFrameOutgoing(), "arrived at A's end");
            assertEquals(0, tap.outgoingDropped());
        }
    }

    @Test
    void ownOutgoingFramesAreNotReceivedAndTimeoutReturnsMinusOne() {
        assertTrue(a.kernelIgnoresOutgoing() || a.outgoingDropped() == 0);
        MemorySegment out = frame(pair.macB(), pair.macA(), 1, 64);
        a.send(out, 64);
        MemorySegment buf = arena.allocate(2048);
        long start = System.nanoTime();
        assertEquals(-1, a.receive(buf, 50_000_000L), "the sender does not see its own frame");
        long waited = System.nanoTime() - start;
        assertTrue(waited >= 45_000_000L, "waited the timeout, not less: " + waited + " ns");
        assertEquals(-1, a.receive(buf, 0), "timeout 0 only takes what is queued");
        assertEquals(64, b.receive(buf, RECEIVE_TIMEOUT_NANOS));
    }

    @Test
    void hundredFramesArriveInOrderWithoutLossOrDuplicates() {
        int count = 100;
        for (int i = 0; i < count; i++) {
            assertEquals(64, a.send(frame(pair.macB(), pair.macA(), i, 64), 64));
        }
        MemorySegment buf = arena.allocate(2048);
        for (int i = 0; i < count; i++) {
            int n = b.receive(buf, RECEIVE_TIMEOUT_NANOS);
            assertEquals(64, n, "frame " + i);
            assertEquals(i, buf.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 14));
        }
        assertEquals(-1, b.receive(buf, 20_000_000L), "no extra frame");
    }

    @Test
    void fullReceiveBufferDropsAndTheKernelCountsEveryFrame() throws IOException {
        b.statistics();
        int set = b.setReceiveBufferSize(1);
        assertTrue(set > 0 && set < 16_384, "the kernel's minimum receive buffer: " + set);
        int count = 200;
        for (int i = 0; i < count; i++) {
            a.send(frame(pair.macB(), pair.macA(), i, 64), 64);
        }
        MemorySegment buf = arena.allocate(2048);
        int received = 0;
        int last = -1;
        while (b.receive(buf, 20_000_000L) > 0) {
            int sequence = buf.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 14);
            assertTrue(sequence > last, "in order: " + sequence + " after " + last);
            last = sequence;
            received++;
        }
        RawPacketSocket.Statistics stats = b.statistics();
        assertTrue(stats.drops() > 0, "a tiny buffer must overflow: " + stats);
        assertEquals(count, stats.packets(), "every frame reached the socket: " + stats);
        assertEquals(count, received + stats.drops(), "received + dropped = sent: " + stats);
        assertEquals(new RawPacketSocket.Statistics(0, 0), b.statistics(), "reading resets the counters");
        assertTrue(b.setReceiveBufferSize(4 << 20) >= 4 << 20, "root may exceed rmem_max with SO_RCVBUFFORCE");
    }

    @Test
    void longFrameIsCutToTheBufferAndCounted() {
        MemorySegment out = frame(pair.macB(), pair.macA(), 9, 200);
        a.send(out, 200);
        MemorySegment small = arena.allocate(100);
        assertEquals(100, b.receive(small, RECEIVE_TIMEOUT_NANOS));
        assertEquals(1, b.truncatedFrames());
        assertArrayEquals(out.asSlice(0, 100).toArray(ValueLayout.JAVA_BYTE), small.toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void sendAndReceiveAllocateNothingPerFrameOnceCompiled() {
        MemorySegment out = frame(pair.macB(), pair.macA(), 3, 64);
        MemorySegment buf = arena.allocate(2048);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        // Interpreted and C1 code allocate around the downcalls; what counts is the steady state after C2, which
        // typically arrives within ~30,000 iterations. Run 5,000-iteration rounds until one allocates nothing.
        long lastRound = -1;
        for (int round = 0; round < 40; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 5_000; i++) {
                pingOnce(out, buf);
            }
            lastRound = threads.getCurrentThreadAllocatedBytes() - before;
            if (lastRound == 0) {
                return;
            }
        }
        throw new AssertionError("5,000 send+receive pairs still allocated " + lastRound + " bytes after 200,000");
    }

    private void pingOnce(MemorySegment out, MemorySegment buf) {
        if (a.send(out, 64) != 64 || b.receive(buf, RECEIVE_TIMEOUT_NANOS) != 64) {
            throw new AssertionError("frame lost");
        }
    }

    @Test
    void misuseIsRefusedWithAReason() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> a.send(MemorySegment.ofArray(new byte[64]), 64));
        assertThrows(IllegalArgumentException.class, () -> a.send(arena.allocate(64), 65));
        assertThrows(IllegalArgumentException.class, () -> a.receive(MemorySegment.ofArray(new byte[64]), 0));
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
            () -> a.send(arena.allocate(4000), 4000));
        assertTrue(tooLong.getMessage().contains("too long"), tooLong.getMessage());
        // The interface lives in namespace A: the root namespace (this thread) has no such interface.
        IOException notHere = assertThrows(IOException.class, () -> RawPacketSocket.open(pair.interfaceA()));
        assertTrue(notHere.getMessage().contains("no interface '" + pair.interfaceA() + "'"), notHere.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RawPacketSocket.open("an-interface-name-too-long"));
        RawPacketSocket closed = RawPacketSocket.open(pair.namespaceA(), pair.interfaceA());
        closed.close();
        closed.close();
        assertThrows(IllegalStateException.class, () -> closed.send(arena.allocate(64), 64));
    }

    /** Receives until a frame of our EtherType arrives and returns it. */
    private byte[] receiveOurs(RawPacketSocket socket, int expectedLength) {
        MemorySegment buf = arena.allocate(2048);
        long deadline = System.nanoTime() + RECEIVE_TIMEOUT_NANOS;
        while (System.nanoTime() < deadline) {
            int n = socket.receive(buf, deadline - System.nanoTime());
            if (n >= 14 && buf.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 12) == ETHERTYPE) {
                assertEquals(expectedLength, n);
                return buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
            }
        }
        throw new AssertionError("no frame of EtherType 0x88B5 on " + socket + " within 1 s");
    }
}
