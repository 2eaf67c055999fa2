package io.nicbridge.bridge.shim;

import static io.nicbridge.contract.Sba200Unet.INLINE_MAX;
import static io.nicbridge.contract.Sba200Unet.TX_STATUS_BAD_CHANNEL;
import static io.nicbridge.contract.Sba200Unet.TX_STATUS_BAD_DESC;
import static io.nicbridge.contract.Sba200Unet.TX_STATUS_SEG_BOUNDS;
import static io.nicbridge.contract.Sba200Unet.TX_STATUS_SENT;
import static io.nicbridge.contract.Sba200Unet.TX_STATUS_TOO_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.unet.Endpoint;
import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.bridge.driver.unet.UnetKernelDriver;
import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.platform.RawPacketSocket;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.queue.QueueCode;
import io.nicbridge.bridge.spi.Backends;
import io.nicbridge.contract.NicShim;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The direct-access U-Net endpoint ({@link XskUnetEndpoint}): the {@link Endpoint} API on the XSK rings themselves.
 * Two of them on a veth pair run the U-Net API exchange the shim-served endpoints run ({@link UnetOverShimTest});
 * one of them against a shim-served SBA-200 U-Net endpoint on AF_PACKET interoperates both ways byte for byte, and a
 * raw socket sees its frames in U-Net over Ethernet's format exactly as the card writes them. Skipped with the reason
 * without root or AF_XDP.
 */
class XskUnetEndpointTest {
    static final int CHANNEL = 0;
    static final int VCI_A_TO_B = 100;
    static final int VCI_B_TO_A = 101;
    static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);
    static final long SEGMENT = 1024 * 1024;
    static final int CHUNK = 2048;
    /** Receive chunks start here: below, messages are composed. */
    static final long RX_AREA = 256 * 1024;
    /** The default RX (= FILL) ring size. */
    static final int RX_CHUNKS = NicShim.DEFAULT_RING_FRAMES;

    VethPair veth;
    XskUnetEndpoint directA;
    XskUnetEndpoint directB;
    ShimCard cardB;
    UnetKernelDriver kernelB;
    CommSegment segB;

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {directA, directB, kernelB, cardB, segB, veth}) {
            if (c != null) {
                c.close();
            }
        }
    }

    static String dashed(Object mac) {
        return mac.toString().replace(':', '-');
    }

    XskUnetEndpoint direct(boolean a) {
        String spec = "shim:afxdp?if=" + (a ? veth.interfaceA() : veth.interfaceB()) + "&card=unet-direct&netns="
            + (a ? veth.namespaceA() : veth.namespaceB()).name() + "&peer=" + dashed(a ? veth.macB() : veth.macA());
        XskUnetEndpoint ep = ShimBackendProvider.openUnetEndpoint(spec, SEGMENT);
        ep.openChannel(CHANNEL, 0, a ? VCI_A_TO_B : VCI_B_TO_A, a ? VCI_B_TO_A : VCI_A_TO_B);
        assertEquals(RX_CHUNKS, ep.postReceiveBuffers(RX_AREA, RX_CHUNKS, CHUNK), "the RX ring's worth");
        return ep;
    }

    /** B: the shim's SBA-200 card on AF_PACKET, its kernel driver and one endpoint. */
    UnetEndpoint shimPeer() throws Exception {
        cardB = (ShimCard) Backends.open("shim:afpacket?if=" + veth.interfaceB() + "&card=sba200&netns="
            + veth.namespaceB().name() + "&peer=" + dashed(veth.macA()));
        kernelB = UnetKernelDriver.open(cardB, cardB.bcr(), cardB.progress());
        segB = CommSegment.allocate("b", 256 * 1024);
        UnetEndpoint b = kernelB.createEndpoint(0, segB, 64);
        kernelB.openChannel(b, CHANNEL, 0, VCI_B_TO_A, VCI_A_TO_B);
        b.postReceiveBuffers(128 * 1024, 32, 1024);
        return b;
    }

    static void fill(MemorySegment s, long at, int n, int seed) {
        for (int i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, at + i, (byte) (seed + 13 * i));
        }
    }

    /** Every size both ways: bytes, inline-ness, and the completions. */
    static void exchange(Endpoint a, Endpoint b) throws InterruptedException {
        int[] sizes = {1, 8, 40, 41, 100, 1000, 1492};
        MemorySegment dst = MemorySegment.ofArray(new byte[2048]);
        for (Endpoint[] dir : new Endpoint[][] {{a, b}, {b, a}}) {
            Endpoint from = dir[0];
            Endpoint to = dir[1];
            long sentBefore = from.sendCompletions(TX_STATUS_SENT);
            for (int len : sizes) {
                fill(from.segment(), 0, len, len);
                boolean sent = len <= INLINE_MAX ? from.sendInline(CHANNEL, from.segment(), 0, len)
                    : from.send(CHANNEL, 0, len);
                assertTrue(sent, "send queue has room");
                long d = to.await(TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
                assertTrue(d >= 0, "length " + len + " arrived");
                assertEquals(CHANNEL, to.channel(d));
                assertFalse(to.isError(d), "length " + len + " error " + to.errorCode(d));
                assertEquals(len <= INLINE_MAX, to.isInline(d), "single-cell optimisation at " + len);
                assertEquals(len, to.length(d));
                assertEquals(len, to.copyTo(d, dst, 0));
                assertArrayEquals(from.segment().asSlice(0, len).toArray(ValueLayout.JAVA_BYTE),
                    dst.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE), "length " + len);
                if (to instanceof XskUnetEndpoint && !to.isInline(d)) {
                    assertEquals(1, to.bufferCount(d));
                    assertArrayEquals(dst.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE), // zero-copy receive
                        to.segment().asSlice(to.bufferOffset(d, 0), to.bufferLength(d, 0))
                            .toArray(ValueLayout.JAVA_BYTE), "the buffer in the segment holds the message");
                }
                to.release(d);
            }
            long deadline = System.nanoTime() + TIMEOUT_NANOS;
            IdleStrategy idle = new BackoffIdle();
            while (from.sendCompletions(TX_STATUS_SENT) - sentBefore < sizes.length
                && System.nanoTime() < deadline) {
                from.reapSends();
                idle.idle();
            }
            assertEquals(sizes.length, from.sendCompletions(TX_STATUS_SENT) - sentBefore);
            assertEquals(0, from.sendsInFlight());
        }
    }

    @Test
    void twoDirectEndpointsExchangeInlineAndBufferedMessagesBothWays() throws Exception {
        ShimTestSupport.assumeShimAndVeth("afxdp");
        veth = VethPair.builder().ipv4(false).create();
        directA = direct(true);
        directB = direct(false);
        assertTrue(directA.xdpInfo().running(), directA.toString());
        exchange(directA, directB);
        assertEquals(7, directA.received());
        assertEquals(7, directB.received());
        assertEquals(0, directA.rxDropNoChannel() + directA.rxDropBadFrame());
    }

    @Test
    void roundTripsAllocateNothingOnTheHotPath() throws Exception {
        ShimTestSupport.assumeShimAndVeth("afxdp");
        veth = VethPair.builder().ipv4(false).create();
        directA = direct(true);
        directB = direct(false);
        com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long self = Thread.currentThread().threadId();
        roundTrips(15_000); // warm-up: past C2's compile thresholds, so escape analysis has done its work
        long before = threads.getThreadAllocatedBytes(self);
        roundTrips(5_000);
        long allocated = threads.getThreadAllocatedBytes(self) - before;
        // Any object allocated per round trip is at least 16 bytes, 80 000 over 5000; what is left below one byte
        // per round trip is the JIT's own (an OSR transition, a deoptimisation), not the path's: seen 2-4 KB here.
        assertTrue(allocated < 5_000, allocated + " bytes allocated over 5000 round trips (send, poll, copy,"
            + " release, reap on both endpoints)");
    }

    /** A sends 64 B, B takes it and sends it back, A takes the echo: all on this thread, spinning on poll. */
    void roundTrips(int n) {
        MemorySegment dst = MemorySegment.ofArray(new byte[2048]);
        for (int i = 0; i < n; i++) {
            oneWay(directA, directB, dst);
            oneWay(directB, directA, dst);
        }
    }

    static void oneWay(XskUnetEndpoint from, XskUnetEndpoint to, MemorySegment dst) {
        if (!from.send(CHANNEL, 0, 64)) {
            throw new AssertionError("send queue full");
        }
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        long d;
        while ((d = to.poll()) < 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("a round trip was lost");
            }
            Thread.onSpinWait();
        }
        to.copyTo(d, dst, 0);
        to.release(d);
        from.reapSends();
    }

    @Test
    void aDirectEndpointAndAShimSba200EndpointInteroperateByteForByte() throws Exception {
        ShimTestSupport.assumeShimAndVeth("afxdp");
        veth = VethPair.builder().ipv4(false).create();
        directA = direct(true);
        UnetEndpoint b = shimPeer();
        exchange(directA, b);
        ShimStatistics s = cardB.statistics();
        assertEquals(0, s.rxDropNoChannel() + s.rxDropBadFrame() + s.rxMissed(), s.toString());
    }

    @Test
    void aRawSocketSeesTheCardsFrameFormatAndUnknownChannelsAreDroppedAndCounted() throws Exception {
        ShimTestSupport.assumeShimAndVeth("afxdp");
        veth = VethPair.builder().ipv4(false).create();
        directA = direct(true);
        // B has no XDP program, so a packet socket on it sees every frame A sends.
        try (RawPacketSocket tap = RawPacketSocket.open(veth.namespaceB(), veth.interfaceB());
             Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(2048);
            fill(directA.segment(), 0, 300, 7);
            assertTrue(directA.send(CHANNEL, 0, 300));
            int n = tap.receive(buf, TIMEOUT_NANOS);
            assertEquals(14 + NicShim.UNET_TAG_SIZE + 300, n, "one frame: header, tag, PDU, no padding");
            MemorySegment expected = MemorySegment.ofArray(new byte[n]);
            veth.macB().writeTo(expected, 0);
            veth.macA().writeTo(expected, 6);
            ValueLayout.OfShort be16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
            expected.set(be16, 12, (short) NicShim.UNET_ETHERTYPE_DEFAULT);
            // Cell header: VPI 0, VCI, PTI 001 (the PDU's last cell), CLP 0; then the length and two zero bytes.
            expected.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 14, VCI_A_TO_B << 4 | 0x2);
            expected.set(be16, 18, (short) 300);
            MemorySegment.copy(directA.segment(), 0, expected, 22, 300);
            assertArrayEquals(expected.toArray(ValueLayout.JAVA_BYTE),
                buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), "the frame, byte for byte");

            // Into A: a frame on a VCI nobody opened, one of another EtherType, one whose tag claims more than it
            // carries - each dropped and counted, the chunk back on FILL, nothing delivered.
            veth.macA().writeTo(buf, 0);
            veth.macB().writeTo(buf, 6);
            buf.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 14, (999 << 4) | 0x2);
            assertEquals(n, tap.send(buf, n));
            buf.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 14, (VCI_B_TO_A << 4) | 0x2);
            buf.set(be16, 18, (short) 301);
            assertEquals(n, tap.send(buf, n));
            buf.set(be16, 12, (short) 0x0800);
            assertEquals(n, tap.send(buf, n));
            long deadline = System.nanoTime() + TIMEOUT_NANOS;
            IdleStrategy idle = new BackoffIdle();
            while (directA.rxDropNoChannel() + directA.rxDropBadFrame() + directA.rxDropFilter() < 3) {
                assertTrue(System.nanoTime() < deadline, "drops not counted: no channel "
                    + directA.rxDropNoChannel() + ", bad " + directA.rxDropBadFrame() + ", filter "
                    + directA.rxDropFilter());
                assertTrue(directA.poll() < 0, "nothing delivered");
                idle.idle();
            }
            assertEquals(1, directA.rxDropNoChannel());
            assertEquals(1, directA.rxDropBadFrame());
            assertEquals(1, directA.rxDropFilter());

            // The receive chunks went back: a good frame still arrives.
            buf.set(be16, 12, (short) NicShim.UNET_ETHERTYPE_DEFAULT);
            buf.set(be16, 18, (short) 300);
            assertEquals(n, tap.send(buf, n));
            long d = directA.await(TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
            assertTrue(d >= 0);
            assertEquals(300, directA.length(d));
            directA.release(d);
        }
    }

    @Test
    void anInPlaceSendUsesTheRoomInFrontOfTheMessageAndCopiesNothing() throws Exception {
        ShimTestSupport.assumeShimAndVeth("afxdp");
        veth = VethPair.builder().ipv4(false).create();
        directA = direct(true);
        directB = direct(false);
        MemorySegment dst = MemorySegment.ofArray(new byte[2048]);
        for (int len : new int[] {1, 100, 1492}) {
            int offset = CHUNK + XskUnetEndpoint.FRAME_OVERHEAD; // chunk 1, header room in front
            fill(directA.segment(), offset, len, len + 3);
            assertTrue(directA.sendInPlace(CHANNEL, offset, len));
            long d = directB.await(TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
            assertTrue(d >= 0, len + " B in place arrived");
            assertEquals(len, directB.copyTo(d, dst, 0));
            assertArrayEquals(directA.segment().asSlice(offset, len).toArray(ValueLayout.JAVA_BYTE),
                dst.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE), len + " B");
            directB.release(d);
            // The room in front now holds the frame's header: the peer's address first.
            byte[] mac = new byte[6];
            MemorySegment.copy(directA.segment(), ValueLayout.JAVA_BYTE, CHUNK, mac, 0, 6);
            MemorySegment expected = MemorySegment.ofArray(new byte[6]);
            veth.macB().writeTo(expected, 0);
            assertArrayEquals(expected.toArray(ValueLayout.JAVA_BYTE), mac);
            long deadline = System.nanoTime() + TIMEOUT_NANOS;
            int status;
            while ((status = directA.pollSendCompletion()) == QueueCode.EMPTY) {
                assertTrue(System.nanoTime() < deadline, "no completion");
                Thread.yield();
            }
            assertEquals(TX_STATUS_SENT, status);
        }
        // No room in front, or the message crossing into the next chunk: the card's SEG_BOUNDS, nothing sent.
        assertTrue(directA.sendInPlace(CHANNEL, 10, 20));
        assertTrue(directA.sendInPlace(CHANNEL, CHUNK + 22, CHUNK - 21));
        assertTrue(directA.sendInPlace(CHANNEL, (int) SEGMENT - 5, 10));
        assertEquals(TX_STATUS_SEG_BOUNDS, directA.pollSendCompletion());
        assertEquals(TX_STATUS_SEG_BOUNDS, directA.pollSendCompletion());
        assertEquals(TX_STATUS_SEG_BOUNDS, directA.pollSendCompletion());
        assertEquals(QueueCode.EMPTY, directB.await(100, TimeUnit.MILLISECONDS));
    }

    @Test
    void aKickBatchKicksOncePerBatchAndWhenTheOwnerWaits() throws Exception {
        ShimTestSupport.assumeShimAndVeth("afxdp");
        veth = VethPair.builder().ipv4(false).create();
        directA = direct(true);
        directB = direct(false);
        assertThrows(IllegalArgumentException.class, () -> directA.kickBatch(0));
        assertThrows(IllegalArgumentException.class, () -> directA.kickBatch(NicShim.DEFAULT_RING_FRAMES + 1));
        directA.kickBatch(16);
        long before = directA.kicks();
        for (int i = 0; i < 40; i++) {
            assertTrue(directA.send(CHANNEL, 0, 100));
        }
        assertEquals(before + 2, directA.kicks(), "two full batches kicked, 8 frames wait");
        int got = 0;
        long d;
        while ((d = directB.await(200, TimeUnit.MILLISECONDS)) >= 0) {
            directB.release(d);
            got++;
        }
        assertEquals(32, got, "the 8 of the third batch wait for their kick");
        assertEquals(QueueCode.EMPTY, directA.poll()); // the owner polls: what waits is kicked
        assertEquals(before + 3, directA.kicks());
        while (got < 40 && (d = directB.await(TIMEOUT_NANOS, TimeUnit.NANOSECONDS)) >= 0) {
            directB.release(d);
            got++;
        }
        assertEquals(40, got);
    }

    @Test
    void misuseIsRefusedOrCompletesWithTheCardsStatus() throws Exception {
        ShimTestSupport.assumeShimAndVeth("afxdp");
        veth = VethPair.builder().ipv4(false).create();
        directA = direct(true);
        assertThrows(IllegalArgumentException.class, () -> directA.send(64, 0, 10));
        assertThrows(IllegalArgumentException.class, () -> directA.send(CHANNEL, 0, 70_000));
        assertThrows(IllegalArgumentException.class, () -> directA.sendInline(CHANNEL, directA.segment(), 0, 41));
        assertThrows(IllegalArgumentException.class, () -> directA.postReceiveBuffers(0, 1, 1024));
        assertThrows(IllegalArgumentException.class, () -> directA.postReceiveBuffers(100, 1, CHUNK));
        assertThrows(IllegalArgumentException.class, () -> directA.postReceiveBuffers(SEGMENT - CHUNK, 2, CHUNK));
        assertThrows(IllegalArgumentException.class, () -> directA.openChannel(CHANNEL, 0, 200, 201));
        assertThrows(IllegalArgumentException.class, () -> directA.openChannel(1, 0, 5, 201));
        assertThrows(IllegalArgumentException.class, () -> directA.openChannel(1, 0, 200, VCI_B_TO_A));
        assertEquals(0, directA.postReceiveBuffers(0, 8, CHUNK), "FILL already holds the RX ring's worth");

        assertTrue(directA.send(5, 0, 10), "a closed channel is the card's verdict, not an exception");
        assertTrue(directA.send(CHANNEL, (int) SEGMENT - 10, 11));
        assertTrue(directA.send(CHANNEL, 0, directA.maxMessage() + 1));
        assertTrue(directA.sendInline(CHANNEL, directA.segment(), 0, 0));
        assertEquals(TX_STATUS_BAD_CHANNEL, directA.pollSendCompletion());
        assertEquals(TX_STATUS_SEG_BOUNDS, directA.pollSendCompletion());
        assertEquals(TX_STATUS_TOO_LONG, directA.pollSendCompletion());
        assertEquals(TX_STATUS_BAD_DESC, directA.pollSendCompletion(), "AAL5's length 0 is 'abort', refused");
        assertEquals(QueueCode.EMPTY, directA.pollSendCompletion());

        assertEquals(QueueCode.EMPTY, directA.poll());
        assertThrows(IllegalArgumentException.class, () -> directA.length(0));
        assertThrows(IllegalArgumentException.class, () -> directA.release(0));
        directA.close();
        assertThrows(IllegalStateException.class, directA::poll);
    }

    @Test
    void specsThatAreNotADirectEndpointAreRefusedWithTheReason() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> ShimBackendProvider.openUnetEndpoint("shim:afpacket?if=lo&card=unet-direct", SEGMENT));
        assertTrue(e.getMessage().contains("card=unet-direct"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> ShimBackendProvider.openUnetEndpoint("shim:afxdp?if=lo&card=unet-direct&mode=inline", SEGMENT));
        assertTrue(e.getMessage().contains("unknown parameter 'mode'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> ShimBackendProvider.openUnetEndpoint("shim:afxdp?card=unet-direct", SEGMENT));
        assertTrue(e.getMessage().contains("interface is missing"), e.getMessage());
    }
}
