package io.nicbridge.bridge.shim;

import static io.nicbridge.contract.Sba200Unet.INLINE_MAX;
import static io.nicbridge.contract.Sba200Unet.TX_STATUS_SENT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.bridge.driver.unet.UnetKernelDriver;
import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.platform.RawPacketSocket;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.spi.Backends;
import io.nicbridge.contract.NicShim;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * U-Net over Ethernet: the U-Net kernel driver and endpoint API of the SBA-200, unchanged, on two shim-served
 * SBA-200 contracts at the two ends of a veth pair; each PDU is one Ethernet frame tagged with its cell header and
 * length (nicshim.h). A plain raw socket on the wire checks the frame format.
 */
class UnetOverShimTest {
    static final int RX_AREA = 128 * 1024;
    static final int CHANNEL = 0;
    static final int VCI_A_TO_B = 100;
    static final int VCI_B_TO_A = 101;
    static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

    VethPair veth;
    ShimCard cardA;
    ShimCard cardB;
    UnetKernelDriver kernelA;
    UnetKernelDriver kernelB;
    CommSegment segA;
    CommSegment segB;
    UnetEndpoint a;
    UnetEndpoint b;

    @BeforeEach
    void assumeShim() {
        ShimTestSupport.assumeShimAndVeth();
    }

    /** @param mode {@code afpacket/threaded}: the shim target (afpacket or afxdp) and the card mode */
    void open(String mode) throws Exception {
        open(mode, mode.substring(0, mode.indexOf('/')));
    }

    /** @param targetB B's shim target (A's is in {@code mode}) */
    void open(String mode, String targetB) throws Exception {
        String target = mode.substring(0, mode.indexOf('/'));
        String cardMode = mode.substring(mode.indexOf('/') + 1);
        ShimTestSupport.assumeShimAndVeth(target);
        veth = VethPair.builder().ipv4(false).create();
        cardA = (ShimCard) Backends.open("shim:" + target + "?if=" + veth.interfaceA() + "&card=sba200&netns="
            + veth.namespaceA().name() + "&mode=" + cardMode + "&peer=" + dashed(veth.macB().toString()));
        cardB = (ShimCard) Backends.open("shim:" + targetB + "?if=" + veth.interfaceB() + "&card=sba200&netns="
            + veth.namespaceB().name() + "&mode=" + cardMode + "&peer=" + dashed(veth.macA().toString()));
        kernelA = UnetKernelDriver.open(cardA, cardA.bcr(), cardA.progress());
        kernelB = UnetKernelDriver.open(cardB, cardB.bcr(), cardB.progress());
        segA = CommSegment.allocate("a", 256 * 1024);
        segB = CommSegment.allocate("b", 256 * 1024);
        a = kernelA.createEndpoint(0, segA, 64);
        b = kernelB.createEndpoint(0, segB, 64);
        kernelA.openChannel(a, CHANNEL, 0, VCI_A_TO_B, VCI_B_TO_A);
        kernelB.openChannel(b, CHANNEL, 0, VCI_B_TO_A, VCI_A_TO_B);
        a.postReceiveBuffers(RX_AREA, 32, 1024);
        b.postReceiveBuffers(RX_AREA, 32, 1024);
    }

    static String dashed(String mac) {
        return mac.replace(':', '-');
    }

    @AfterEach
    void close() {
        for (AutoCloseable c : new AutoCloseable[] {kernelA, kernelB, cardA, cardB, segA, segB, veth}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }
        }
    }

    static void fill(MemorySegment s, long at, int n, int seed) {
        for (int i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, at + i, (byte) (seed + 13 * i));
        }
    }

    @ParameterizedTest
    @CsvSource({"afpacket/threaded", "afpacket/inline", "afxdp/threaded", "afxdp/inline"})
    void inlineAndBufferedMessagesCrossBothWaysWithTheirBytes(String mode) throws Exception {
        open(mode);
        int[] sizes = {1, 8, 40, 41, 100, 1000, 1492};
        MemorySegment dst = MemorySegment.ofArray(new byte[2048]);
        for (UnetEndpoint[] dir : new UnetEndpoint[][] {{a, b}, {b, a}}) {
            UnetEndpoint from = dir[0];
            UnetEndpoint to = dir[1];
            for (int len : sizes) {
                fill(from.segment(), 0, len, len);
                boolean sent = len <= INLINE_MAX ? from.sendInline(CHANNEL, from.segment(), 0, len)
                    : from.send(CHANNEL, 0, len);
                assertTrue(sent, "send queue has room");
                long d = to.await(TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
                assertTrue(d >= 0, "length " + len + " arrived");
                assertFalse(to.isError(d), "length " + len + " error " + to.errorCode(d));
                assertEquals(len <= INLINE_MAX, to.isInline(d), "single-cell optimisation at " + len);
                assertEquals(len, to.copyTo(d, dst, 0));
                assertArrayEquals(from.segment().asSlice(0, len).toArray(ValueLayout.JAVA_BYTE),
                    dst.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE), "length " + len);
                to.release(d);
            }
        }
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        IdleStrategy idle = new BackoffIdle();
        while (a.sendCompletions(TX_STATUS_SENT) < sizes.length && System.nanoTime() < deadline) {
            a.reapSends();
            idle.idle();
        }
        assertEquals(sizes.length, a.sendCompletions(TX_STATUS_SENT));
        ShimStatistics s = cardB.statistics();
        assertEquals(sizes.length, s.rxFrames(), s.toString());
        assertEquals(sizes.length, s.txFrames(), s.toString());
        assertEquals(0, s.rxDropNoChannel() + s.rxMissed() + s.busErrors(), s.toString());
    }

    @ParameterizedTest
    @CsvSource({"afpacket/threaded", "afpacket/inline", "afxdp/threaded", "afxdp/inline"})
    void anEndpointComesAndGoesWhileAnotherKeepsTalking(String mode) throws Exception {
        open(mode);
        try (CommSegment extra = CommSegment.allocate("extra", 64 * 1024)) {
            UnetEndpoint second = kernelA.createEndpoint(1, extra, 16);
            kernelA.destroyEndpoint(second); // EP_DESTROY, then its memory leaves the DMA space: no link restart
            assertEquals(0, cardA.linkRestarts(), "the card let go of the endpoint's memory at EP_DESTROY");
            MemorySegment dst = MemorySegment.ofArray(new byte[2048]);
            fill(a.segment(), 0, 500, 3);
            assertTrue(a.send(CHANNEL, 0, 500));
            long d = b.await(TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
            assertTrue(d >= 0, "endpoint 0 still works");
            assertEquals(500, b.copyTo(d, dst, 0));
            b.release(d);
        }
    }

    @ParameterizedTest
    @CsvSource({"afpacket/threaded", "afxdp/threaded"})
    void framesCarryTheTaggedFormatAndUnknownChannelsAreDroppedAndCounted(String mode) throws Exception {
        // B stays on AF_PACKET: an XDP program on B would redirect every frame into its socket before any packet
        // socket (the tap) sees it, and AF_XDP's own transmissions skip the sender's taps (__dev_direct_xmit).
        open(mode, "afpacket");
        try (RawPacketSocket tap = RawPacketSocket.open(veth.namespaceB(), veth.interfaceB());
             Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(2048);
            fill(a.segment(), 0, 300, 7);
            assertTrue(a.send(CHANNEL, 0, 300));
            int n = tap.receive(buf, TIMEOUT_NANOS);
            assertEquals(14 + NicShim.UNET_TAG_SIZE + 300, n, "one frame: header, tag, PDU");
            assertEquals(veth.macB().value(), io.nicbridge.bridge.driver.tulip.MacAddress.read(buf, 0));
            assertEquals(NicShim.UNET_ETHERTYPE_DEFAULT & 0xFFFF,
                buf.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 12) & 0xFFFF);
            int header = buf.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 14);
            assertEquals(VCI_A_TO_B, (header >>> 4) & 0xFFFF, "the tag's VCI is the channel's TX VCI");
            assertEquals(300, buf.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 18) & 0xFFFF);
            assertArrayEquals(a.segment().asSlice(0, 300).toArray(ValueLayout.JAVA_BYTE),
                buf.asSlice(22, 300).toArray(ValueLayout.JAVA_BYTE));
            long d = b.await(TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
            assertTrue(d >= 0);
            b.release(d);

            // A frame on a VCI nobody opened, into A (the card on the target under test): dropped and counted, the
            // endpoint sees nothing.
            veth.macA().writeTo(buf, 0);
            veth.macB().writeTo(buf, 6);
            buf.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 14, (999 << 4) | 0x2);
            assertEquals(n, tap.send(buf, n));
            long deadline = System.nanoTime() + TIMEOUT_NANOS;
            IdleStrategy idle = new BackoffIdle();
            while (cardA.statistics().rxDropNoChannel() == 0) {
                assertTrue(System.nanoTime() < deadline, "unknown VCI not counted: " + cardA.statistics());
                idle.idle();
            }
            assertTrue(a.poll() < 0, "nothing delivered for the unknown channel");
        }
    }
}
