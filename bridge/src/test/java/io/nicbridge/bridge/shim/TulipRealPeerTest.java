package io.nicbridge.bridge.shim;

import static io.nicbridge.contract.Dec21140.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.platform.RawPacketSocket;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shim against a peer that is not ours: a plain Linux raw socket at the other end of the veth pair. What our
 * driver sends arrives there byte for byte (padded to 60 as a MAC pads); what the raw socket sends arrives through
 * the card with the RDES0 status a 21140 gives it, or is filtered and counted.
 */
class TulipRealPeerTest {
    static final long TIMEOUT = TimeUnit.SECONDS.toNanos(5);

    VethPair veth;
    ShimCard card;
    TulipDriver driver;
    RawPacketSocket peer;
    Arena arena;
    MemorySegment buf;

    /** Opens the card on {@code target}: {@code afpacket} or {@code afxdp} (the same contract, another transport). */
    void open(String target) throws Exception {
        ShimTestSupport.assumeShimAndVeth(target);
        veth = VethPair.builder().ipv4(false).create();
        card = ShimTestSupport.card(target, veth, true, "");
        driver = ShimTestSupport.driver(card, TulipConfig.defaults());
        peer = RawPacketSocket.open(veth.namespaceB(), veth.interfaceB());
        arena = Arena.ofConfined();
        buf = arena.allocate(4096, 8);
    }

    @AfterEach
    void close() {
        if (peer != null) {
            peer.close();
        }
        if (driver != null) {
            driver.close();
        }
        if (card != null) {
            card.close();
        }
        if (veth != null) {
            veth.close();
        }
        if (arena != null) {
            arena.close();
        }
    }

    static byte[] frame(MacAddress dst, MacAddress src, int length, int seed) {
        byte[] f = new byte[length];
        MemorySegment s = MemorySegment.ofArray(f);
        dst.writeTo(s, 0);
        src.writeTo(s, 6);
        f[12] = (byte) 0x88;
        f[13] = (byte) 0xB5;
        for (int i = 14; i < length; i++) {
            f[i] = (byte) (seed * 31 + i);
        }
        return f;
    }

    @ParameterizedTest
    @ValueSource(strings = {"afpacket", "afxdp"})
    void framesTheDriverSendsReachAPlainRawSocketByteForByte(String target) throws Exception {
        open(target);
        for (int length : new int[] {20, 59, 60, 64, 100, 1000, 1514}) {
            byte[] expected = frame(veth.macB(), veth.macA(), length, length);
            int h = driver.claim();
            assertNotEquals(FramePort.NONE, h);
            MemorySegment.copy(expected, 0, driver.txBuffer(h), ValueLayout.JAVA_BYTE, 0, length);
            driver.commit(h, length);
            int n = peer.receive(buf, TIMEOUT);
            int onWire = Math.max(length, ETH_MIN_FRAME_NOFCS);
            assertEquals(onWire, n, "a frame of " + length + " bytes is padded to 60 by the card");
            byte[] got = buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
            byte[] padded = new byte[onWire];
            System.arraycopy(expected, 0, padded, 0, length);
            assertArrayEquals(padded, got, "frame of " + length + " bytes");
        }
        long deadline = System.nanoTime() + TIMEOUT;
        IdleStrategy idle = new BackoffIdle();
        while (driver.counters().txFrames() < 7) {
            driver.transmitInFlight();
            assertTrue(System.nanoTime() < deadline, "completions: " + driver.counters());
            idle.idle();
        }
        assertEquals(7, card.statistics().txFrames());
    }

    @ParameterizedTest
    @ValueSource(strings = {"afpacket", "afxdp"})
    void framesARawSocketSendsArriveWithTheStatusA21140Gives(String target) throws Exception {
        open(target);
        MacAddress other = MacAddress.parse("02:00:00:00:77:77");
        MacAddress group = MacAddress.parse("01:00:5e:00:00:42");
        long filteredBefore = card.statistics().rxDropFilter();
        int[] lengths = {64, 1514, 20};
        // to another station and to a group we did not join: filtered and counted, never delivered
        inject(frame(other, veth.macB(), 64, 1));
        inject(frame(group, veth.macB(), 64, 2));
        for (int length : lengths) {
            inject(frame(veth.macA(), veth.macB(), length, length));
        }
        inject(frame(MacAddress.BROADCAST, veth.macB(), 100, 9));
        for (int length : lengths) {
            int h = driver.await(TIMEOUT, TimeUnit.NANOSECONDS);
            assertNotEquals(FramePort.NONE, h, "frame of " + length + " bytes");
            int rdes0 = driver.rxDescriptorStatus(h);
            int onWire = Math.max(length, ETH_MIN_FRAME_NOFCS);
            assertEquals(RDES0_FS | RDES0_LS, rdes0 & (RDES0_FS | RDES0_LS | RDES0_ES | RDES0_OWN),
                "one buffer, no error: 0x" + Integer.toHexString(rdes0));
            assertEquals(onWire + ETH_FCS_LEN, Dec21140DescriptorRing.frameLength(rdes0), "FL counts the FCS");
            assertEquals(RDES0_FT, rdes0 & RDES0_FT, "Ethernet II type field (> 1500)");
            assertEquals(0, rdes0 & RDES0_MF, "unicast");
            assertEquals(FrameStatus.OK, driver.rxStatus(h));
            MemorySegment rx = driver.rxBuffer(h);
            byte[] sent = frame(veth.macA(), veth.macB(), length, length);
            assertArrayEquals(sent, rx.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE));
            CRC32 crc = new CRC32();
            crc.update(rx.asSlice(0, onWire).asByteBuffer());
            assertEquals((int) crc.getValue(), rx.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(
                ByteOrder.LITTLE_ENDIAN), onWire), "the card computed and stored the FCS");
            driver.release(h);
        }
        int h = driver.await(TIMEOUT, TimeUnit.NANOSECONDS);
        assertNotEquals(FramePort.NONE, h, "broadcast");
        assertEquals(RDES0_MF, driver.rxDescriptorStatus(h) & RDES0_MF, "broadcast is a multicast frame");
        driver.release(h);
        assertEquals(FramePort.NONE, driver.poll());
        assertEquals(2, card.statistics().rxDropFilter() - filteredBefore, card.statistics().toString());
        assertEquals(4, driver.counters().rxFrames());
    }

    private void inject(byte[] frame) {
        MemorySegment.copy(frame, 0, buf, ValueLayout.JAVA_BYTE, 0, frame.length);
        assertEquals(frame.length, peer.send(buf, frame.length));
    }
}
