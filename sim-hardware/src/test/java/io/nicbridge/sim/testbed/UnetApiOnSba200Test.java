package io.nicbridge.sim.testbed;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.driver.unet.DirectAccess;
import io.nicbridge.bridge.driver.unet.UnetCardStatistics;
import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.bridge.queue.QueueCode;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import io.nicbridge.sim.fault.FaultPlan;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The bridge's U-Net API driving the emulated SBA-200s across the emulated ATM switch. */
class UnetApiOnSba200Test {
    private static final int RX_AREA = 128 * 1024;
    private static final long LIMIT = 1_000_000_000L;

    private static void fill(MemorySegment s, long at, int n, int seed) {
        for (int i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, at + i, (byte) (seed + 13 * i));
        }
    }

    private static byte[] bytes(MemorySegment s, long at, int n) {
        return s.asSlice(at, n).toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void inlineEngineCarriesSingleCellAndBufferMessagesBothWays() {
        try (UnetApiTestbed t = UnetApiTestbed.builder(EngineMode.INLINE).build()) {
            UnetEndpoint a = t.a();
            UnetEndpoint b = t.b();
            a.postReceiveBuffers(RX_AREA, 32, 1024);
            b.postReceiveBuffers(RX_AREA, 32, 1024);
            MemorySegment dst = MemorySegment.ofArray(new byte[8192]);
            for (int len : new int[] {1, 40, 41, 44, 48, 1000, 5120}) {
                fill(a.segment(), 0, len, len);
                if (len <= INLINE_MAX) {
                    assertTrue(a.sendInline(UnetApiTestbed.CHANNEL, a.segment(), 0, len));
                } else {
                    assertTrue(a.send(UnetApiTestbed.CHANNEL, 0, len));
                }
                t.engine().poll();
                long d = b.poll();
                assertTrue(d >= 0, "length " + len);
                assertFalse(b.isError(d), "length " + len + " error " + b.errorCode(d));
                assertEquals(len <= INLINE_MAX, b.isInline(d), "single-cell optimisation at length " + len);
                assertEquals(len, b.copyTo(d, dst, 0));
                assertArrayEquals(bytes(a.segment(), 0, len), bytes(dst, 0, len), "length " + len);
                b.release(d);
            }
            a.reapSends();
            assertEquals(7, a.sendCompletions(TX_STATUS_SENT));
            UnetCardStatistics s = t.kernelA().readStatistics();
            long cells = 0;
            for (int len : new int[] {1, 40, 41, 44, 48, 1000, 5120}) {
                cells += (len + AAL5_TRAILER_SIZE + CELL_PAYLOAD - 1) / CELL_PAYLOAD;
            }
            assertEquals(cells, s.cellsTx(), "AAL5 segmentation: ceil((len + 8) / 48) cells each");
            assertEquals(cells, t.kernelB().readStatistics().cellsRx());
        }
    }

    @Test
    void virtualTimeRoundTripIsTheCardAndFiberModelAndSteppedAtFortyBytes() {
        long rtt40 = virtualRtt(40);
        long rtt44 = virtualRtt(44);
        long rtt88 = virtualRtt(88);
        long rtt92 = virtualRtt(92);
        assertEquals(rtt44, rtt88, "44 and 88 bytes both take two cells");
        assertTrue(rtt44 - rtt40 > rtt92 - rtt88,
                "the single-cell step (" + (rtt44 - rtt40) + " ns) exceeds the next cell's cost (" + (rtt92 - rtt88) + " ns)");
        assertEquals(virtualRtt(40), rtt40, "deterministic");
    }

    private static long virtualRtt(int size) {
        try (UnetApiTestbed t = UnetApiTestbed.builder(EngineMode.VIRTUAL).build()) {
            VirtualTimeEngine v = t.virtualEngine();
            UnetEndpoint a = t.a();
            UnetEndpoint b = t.b();
            a.postReceiveBuffers(RX_AREA, 16, 1024);
            b.postReceiveBuffers(RX_AREA, 16, 1024);
            v.runUntilIdle();
            long start = v.timeBase().nanoTime();
            send(a, size);
            assertTrue(v.runUntil(() -> b.poll() >= 0, start + LIMIT));
            b.release(b.poll());
            send(b, size);
            assertTrue(v.runUntil(() -> a.poll() >= 0, start + LIMIT));
            long rtt = v.timeBase().nanoTime() - start;
            a.release(a.poll());
            return rtt;
        }
    }

    private static void send(UnetEndpoint ep, int size) {
        if (size <= INLINE_MAX) {
            assertTrue(ep.sendInline(UnetApiTestbed.CHANNEL, ep.segment(), 0, size));
        } else {
            assertTrue(ep.send(UnetApiTestbed.CHANNEL, 0, size));
        }
    }

    @Test
    void upcallsThroughTheCardsInterruptLineInVirtualTime() {
        try (UnetApiTestbed t = UnetApiTestbed.builder(EngineMode.VIRTUAL).build()) {
            VirtualTimeEngine v = t.virtualEngine();
            UnetEndpoint a = t.a();
            UnetEndpoint b = t.b();
            List<Integer> atA = new ArrayList<>();
            b.upcall((ep, d) -> ep.sendInline(UnetApiTestbed.CHANNEL, ep.segment(), 0, ep.length(d)), UPCALL_NONEMPTY);
            a.upcall((ep, d) -> atA.add(ep.length(d)), UPCALL_NONEMPTY);
            for (int i = 1; i <= 10; i++) {
                assertTrue(a.sendInline(UnetApiTestbed.CHANNEL, a.segment(), 0, i));
            }
            v.runUntilIdle();
            assertEquals(List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), atA);
            assertTrue(b.upcalls() >= 1 && b.upcalls() <= 10);
            assertEquals(10, b.upcallMessages());
            assertTrue(t.kernelB().interruptEdges() >= 1, "the card's SBus interrupt drove the upcalls");
        }
    }

    @Test
    void blockingReceiveWithTheThreadedEngine() throws Exception {
        try (UnetApiTestbed t = UnetApiTestbed.builder(EngineMode.THREADED).build()) {
            UnetEndpoint a = t.a();
            UnetEndpoint b = t.b();
            assertEquals(QueueCode.EMPTY, b.await(5, TimeUnit.MILLISECONDS));
            assertTrue(a.sendInline(UnetApiTestbed.CHANNEL, a.segment(), 0, 16));
            long d = b.await(5, TimeUnit.SECONDS);
            assertTrue(d >= 0);
            assertEquals(16, b.length(d));
            b.release(d);
        }
    }

    @Test
    void aLostOrCorruptedCellFailsTheCrcOrLengthCheckAndIsSurfaced() {
        // b's downlink drops its 3rd cell and corrupts a payload bit of its 6th
        FaultPlan plan = FaultPlan.parse("drop@3 corrupt@6:100");
        try (UnetApiTestbed t = UnetApiTestbed.builder(EngineMode.INLINE)
                .switchOptions(sw -> sw.downlinkFaults(1, plan)).build()) {
            UnetEndpoint a = t.a();
            UnetEndpoint b = t.b();
            b.postReceiveBuffers(RX_AREA, 32, 1024);
            fill(a.segment(), 0, 130, 1);
            int errors = 0;
            for (int i = 0; i < 3; i++) { // 3 cells each: cells 1-3, 4-6, 7-9
                a.send(UnetApiTestbed.CHANNEL, 0, 130);
                t.engine().poll();
                for (long d = b.poll(); d >= 0; d = b.poll()) {
                    if (b.isError(d)) {
                        errors++;
                        assertTrue(b.errorCode(d) == RX_ERR_CRC || b.errorCode(d) == RX_ERR_LENGTH,
                                "error code " + b.errorCode(d));
                    }
                    b.release(d);
                }
            }
            assertTrue(errors >= 1, "the damaged PDUs were not delivered as good ones");
            assertEquals(errors, b.receiveErrors(RX_ERR_CRC) + b.receiveErrors(RX_ERR_LENGTH));
            UnetCardStatistics s = t.kernelB().readStatistics();
            assertEquals(errors, s.aal5CrcErrors() + s.lengthErrors());
        }
    }

    @Test
    void directAccessAcrossTheSwitch() {
        try (UnetApiTestbed t = UnetApiTestbed.builder(EngineMode.INLINE).build()) {
            UnetEndpoint a = t.a();
            UnetEndpoint b = t.b();
            b.postReceiveBuffers(RX_AREA, 32, 1024);
            DirectAccess.Window w = new DirectAccess.Window(b, 4096, 65536);
            fill(a.segment(), DirectAccess.HEADER_SIZE, 3000, 4);
            assertTrue(DirectAccess.send(a, UnetApiTestbed.CHANNEL, 0, 12345, 3000));
            t.engine().poll();
            long d = b.poll();
            assertEquals(DirectAccess.PLACED, w.place(d));
            b.release(d);
            assertArrayEquals(bytes(a.segment(), DirectAccess.HEADER_SIZE, 3000), bytes(b.segment(), 4096 + 12345, 3000));
        }
    }

    @Test
    void theRealCardEnforcesSegmentBoundsOnSendAndOnFreeBuffers() {
        try (UnetApiTestbed t = UnetApiTestbed.builder(EngineMode.INLINE).segmentBytes(64 * 1024).build()) {
            UnetEndpoint a = t.a();
            UnetEndpoint b = t.b();
            assertTrue(a.send(UnetApiTestbed.CHANNEL, 64 * 1024 - 10, 100));
            t.engine().poll();
            assertEquals(TX_STATUS_SEG_BOUNDS, a.pollSendCompletion());
            assertEquals(EP_SEGFAULT, a.status() & EP_SEGFAULT);
            assertTrue(a.send(UnetApiTestbed.CHANNEL + 1, 0, 100));
            t.engine().poll();
            assertEquals(TX_STATUS_BAD_CHANNEL, a.pollSendCompletion());
            assertTrue(b.offerFreeBufferUnchecked(64 * 1024, 1024)); // just past b's segment
            assertTrue(a.send(UnetApiTestbed.CHANNEL, 0, 500));
            t.engine().poll();
            long d = b.poll();
            assertTrue(d >= 0);
            assertTrue(b.isError(d));
            assertEquals(RX_ERR_DMA, b.errorCode(d), "error code " + b.errorCode(d));
            b.releaseKeepBuffers(d);
        }
    }

    @Test
    void kernelEmulatedEndpointsAcrossTheSwitch() {
        try (UnetApiTestbed t = UnetApiTestbed.builder(EngineMode.INLINE).build()) {
            t.a().postReceiveBuffers(RX_AREA, 32, 1024);
            t.b().postReceiveBuffers(RX_AREA, 32, 1024);
            try (var muxA = new io.nicbridge.bridge.driver.unet.EmulatedEndpointMux(t.a(), 900, 0);
                 var muxB = new io.nicbridge.bridge.driver.unet.EmulatedEndpointMux(t.b(), 900, 0)) {
                var telnet = muxA.create(1, 4096, 4);
                var sshd = muxB.create(22, 4096, 4);
                var telnetd = muxB.create(23, 4096, 4);
                muxA.openChannel(telnet, 0, UnetApiTestbed.CHANNEL, 23);
                muxB.openChannel(telnetd, 0, UnetApiTestbed.CHANNEL, 1);
                muxB.openChannel(sshd, 0, UnetApiTestbed.CHANNEL, 1);
                telnetd.postReceiveBuffers(0, 4, 1024);
                fill(telnet.segment(), 0, 900, 3);
                assertTrue(telnet.send(0, 0, 700));
                t.engine().poll();
                muxB.pump();
                assertEquals(QueueCode.EMPTY, sshd.poll());
                long d = telnetd.poll();
                assertEquals(700, telnetd.length(d));
                assertEquals(0, telnetd.channel(d));
                byte[] got = new byte[700];
                telnetd.copyTo(d, MemorySegment.ofArray(got), 0);
                assertArrayEquals(bytes(telnet.segment(), 0, 700), got);
                telnetd.release(d);
            }
        }
    }

    @Test
    void framePortOverTheRealCard() throws Exception {
        try (UnetApiTestbed t = UnetApiTestbed.builder(EngineMode.INLINE).build()) {
            var left = new io.nicbridge.bridge.driver.unet.UnetFramePort("left", t.kernelA(), t.a(), UnetApiTestbed.CHANNEL, 0,
                    2048, 4, 16, 4);
            var right = new io.nicbridge.bridge.driver.unet.UnetFramePort("right", t.kernelB(), t.b(), UnetApiTestbed.CHANNEL,
                    0, 2048, 4, 16, 4);
            for (int len : new int[] {20, 40, 41, 1500, 2048}) {
                int h = left.claim();
                fill(left.txBuffer(h), 0, len, len);
                left.commit(h, len);
                t.engine().poll();
                int r = right.poll();
                assertTrue(r >= 0, "length " + len);
                assertEquals(len, right.rxLength(r));
                assertEquals(0, right.rxStatus(r));
                MemorySegment want = MemorySegment.ofArray(new byte[len]);
                fill(want, 0, len, len);
                assertArrayEquals(bytes(want, 0, len), bytes(right.rxBuffer(r), 0, len));
                right.release(r);
            }
            right.close();
            left.close();
        }
    }
}
