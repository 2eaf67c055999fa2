package io.nicbridge.bridge.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.port.FramePort;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A transmit burst on the native shim ({@code tx=send}, inline): the frames committed in it cost the sending card one
 * doorbell (one kick, so one card round and one {@code sendmmsg}), nothing leaves before the burst ends, and all of
 * them reach the peer whole and in commit order.
 */
class ShimTransmitBurstTest {
    VethPair veth;
    ShimCard cardA;
    ShimCard cardB;
    TulipDriver driverA;
    TulipDriver driverB;

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {driverA, driverB, cardA, cardB, veth}) {
            if (c != null) {
                c.close();
            }
        }
    }

    private void commit(int tag, int length) {
        int h = driverA.claim();
        assertNotEquals(FramePort.NONE, h);
        MemorySegment f = driverA.txBuffer(h);
        MacAddress.write(driverB.stationAddress().value(), f, 0);
        MacAddress.write(driverA.stationAddress().value(), f, 6);
        f.set(ValueLayout.JAVA_BYTE, 12, (byte) 0x88);
        f.set(ValueLayout.JAVA_BYTE, 13, (byte) 0xB5);
        f.asSlice(14, length - 14).fill((byte) tag);
        driverA.commit(h, length);
    }

    @Test
    void aBurstIsOneKickAndItsFramesArriveWholeInOrder() throws Exception {
        ShimTestSupport.assumeShimAndVeth();
        veth = VethPair.builder().ipv4(false).create();
        cardA = ShimTestSupport.card(veth, true, "mode=inline&tx=send");
        cardB = ShimTestSupport.card(veth, false, "mode=inline");
        driverA = ShimTestSupport.driver(cardA, TulipConfig.defaults());
        driverB = ShimTestSupport.driver(cardB, TulipConfig.defaults());
        int[] lengths = {60, 1514, 200, 1514, 1000, 61, 1514};
        long kicks = cardA.statistics().kicks();
        long sent = cardA.statistics().txFrames();
        driverA.beginTransmitBurst();
        for (int i = 0; i < lengths.length; i++) {
            commit(i + 1, lengths[i]);
        }
        cardB.waitForWork(TimeUnit.MILLISECONDS.toNanos(20));
        assertEquals(FramePort.NONE, driverB.poll(), "nothing leaves before the burst ends");
        assertEquals(sent, cardA.statistics().txFrames());
        driverA.endTransmitBurst();
        assertEquals(kicks + 1, cardA.statistics().kicks(), "one doorbell for the burst");
        assertEquals(sent + lengths.length, cardA.statistics().txFrames(), "every frame of it sent in that round");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (int i = 0; i < lengths.length; i++) {
            int h;
            while ((h = driverB.poll()) == FramePort.NONE && System.nanoTime() < deadline) {
                cardB.waitForWork(TimeUnit.MILLISECONDS.toNanos(100));
            }
            assertNotEquals(FramePort.NONE, h, "frame " + i + " arrived");
            MemorySegment f = driverB.rxBuffer(h);
            assertEquals(Math.max(60, lengths[i]), driverB.rxLength(h), "frame " + i + ": in order, whole");
            for (int at = 14; at < lengths[i]; at++) {
                if (f.get(ValueLayout.JAVA_BYTE, at) != (byte) (i + 1)) {
                    throw new AssertionError("frame " + i + " byte " + at + " differs");
                }
            }
            driverB.release(h);
        }
        assertEquals(0, cardA.statistics().txDropKernel());
    }
}
