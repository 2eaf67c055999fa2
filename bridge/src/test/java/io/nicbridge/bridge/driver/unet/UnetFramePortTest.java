package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.bridge.driver.unet.UnetFixture.bytes;
import static io.nicbridge.bridge.driver.unet.UnetFixture.fill;
import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The card-independent FramePort contract over U-Net endpoints. */
class UnetFramePortTest {
    private static final int MAX = 2048;
    private final UnetFixture f = new UnetFixture();
    private UnetFramePort left;
    private UnetFramePort right;

    @BeforeEach
    void open() {
        UnetEndpoint a = f.endpoint(0, 128 * 1024);
        UnetEndpoint b = f.endpoint(1, 128 * 1024);
        f.connect(a, 0, b, 0, 100, 101);
        left = new UnetFramePort("left", f.kernel, a, 0, 0, MAX, 4, 8, 4);
        right = new UnetFramePort("right", f.kernel, b, 0, 0, MAX, 4, 8, 4);
    }

    @AfterEach
    void close() {
        left.close();
        right.close();
        f.close();
    }

    @Test
    void framesOfEverySizeArriveIntactAndLongOnesInPlace() {
        for (int len : new int[] {1, 4, 39, 40, 41, 48, 100, 1500, MAX}) {
            int h = left.claim();
            assertNotEquals(FramePort.NONE, h);
            fill(left.txBuffer(h), 0, len, len);
            left.commit(h, len);
            int r = right.poll();
            assertNotEquals(FramePort.NONE, r, "length " + len);
            assertEquals(len, right.rxLength(r));
            assertEquals(FrameStatus.OK, right.rxStatus(r));
            MemorySegment want = MemorySegment.ofArray(new byte[len]);
            fill(want, 0, len, len);
            assertArrayEquals(bytes(want, 0, len), bytes(right.rxBuffer(r), 0, len), "length " + len);
            long base = right.endpoint().segment().address();
            long at = right.rxBuffer(r).address() - base;
            if (len > INLINE_MAX) {
                assertTrue(at >= 4L * MAX && at < 12L * MAX, "zero copy: the frame is read in its receive buffer");
            }
            right.release(r);
        }
        assertEquals(9, left.counters().txFrames());
        assertEquals(9, right.counters().rxFrames());
    }

    @Test
    void claimIsBackPressuredAndHeldFramesBackPressureTheReceiver() {
        f.card.holdTransmit = true;
        int[] h = new int[4];
        for (int i = 0; i < 4; i++) {
            h[i] = left.claim();
            left.commit(h[i], 100);
        }
        assertEquals(FramePort.NONE, left.claim(), "every TX buffer in flight");
        assertEquals(1, left.counters().txBackPressure());
        f.card.resumeTransmit();
        int[] r = new int[4];
        for (int i = 0; i < 4; i++) {
            r[i] = right.poll();
            assertNotEquals(FramePort.NONE, r[i]);
        }
        int c = left.claim();
        left.commit(c, 50);
        assertEquals(FramePort.NONE, right.poll(), "the application holds every RX handle");
        right.release(r[0]);
        int next = right.poll();
        assertEquals(50, right.rxLength(next));
    }

    @Test
    void handleMisuseIsRejected() {
        assertThrows(IllegalStateException.class, () -> left.commit(0, 10));
        assertThrows(IllegalStateException.class, () -> left.txBuffer(3));
        int h = left.claim();
        assertThrows(IllegalArgumentException.class, () -> left.commit(h, 0));
        assertThrows(IllegalArgumentException.class, () -> left.commit(h, MAX + 1));
        left.abort(h);
        assertThrows(IllegalStateException.class, () -> left.abort(h));
        assertThrows(IllegalStateException.class, () -> right.release(0));
        assertThrows(IllegalStateException.class, () -> right.rxBuffer(-1));
        UnetEndpoint c = f.endpoint(2, 64 * 1024);
        assertThrows(IllegalArgumentException.class, () -> new UnetFramePort("x", f.kernel, c, 3, 0, MAX, 1, 1, 1),
                "channel not open");
    }

    @Test
    void cardErrorsBecomeFrameStatusBits() {
        f.card.failNextReceive(RX_ERR_CRC);
        int h = left.claim();
        left.commit(h, 300);
        int r = right.poll();
        assertEquals(FrameStatus.CRC_ERROR, right.rxStatus(r));
        right.release(r);
        assertEquals(1, right.counters().rxErrors());
    }

    @Test
    void awaitTimesOutAndWakesOnArrival() throws Exception {
        assertEquals(FramePort.NONE, right.await(10, TimeUnit.MILLISECONDS));
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            }
            int h = left.claim();
            left.commit(h, 77);
        });
        t.start();
        int r = right.await(5, TimeUnit.SECONDS);
        t.join();
        assertEquals(77, right.rxLength(r));
        right.release(r);
    }

    @Test
    void framesSentToAClosedPortAreDroppedByTheCard() {
        right.close();
        int h = left.claim();
        left.commit(h, 64);
        assertEquals(1, f.kernel.readStatistics().dropUnknownVci());
        assertThrows(IllegalStateException.class, right::poll);
        right.close(); // idempotent
    }
}
