package io.nicbridge.bridge.port;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.idle.BusySpinIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.memory.CommSegment;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class LoopbackFramePortTest {
    private static final int MTU = 1514;

    private static CommSegment comm(int buffers) {
        return CommSegment.allocate("loop", LoopbackFramePort.requiredBytes(buffers, MTU));
    }

    @Test
    void aFrameCommittedOnOneEndIsReceivedInPlaceOnTheOther() {
        try (CommSegment comm = comm(4); LoopbackFramePort.Pair pair = LoopbackFramePort.pair("l", comm, 4, MTU)) {
            FramePort a = pair.a();
            FramePort b = pair.b();
            assertEquals(FramePort.NONE, b.poll());
            int h = a.claim();
            MemorySegment tx = a.txBuffer(h);
            assertEquals(MTU, tx.byteSize());
            tx.setString(0, "hello, 21140");
            a.commit(h, 13);
            int r = b.poll();
            assertTrue(r >= 0);
            assertEquals(13, b.rxLength(r));
            assertEquals(FrameStatus.OK, b.rxStatus(r));
            assertEquals("hello, 21140", b.rxBuffer(r).getString(0));
            assertEquals(tx.address(), b.rxBuffer(r).address(), "zero copy: the same buffer");
            b.release(r);
            assertEquals(FramePort.NONE, b.poll());
            assertEquals(FramePort.NONE, a.poll(), "nothing came back the other way");
            assertEquals(1, a.counters().txFrames());
            assertEquals(13, a.counters().txBytes());
            assertEquals(1, b.counters().rxFrames());
            assertEquals(13, b.counters().rxBytes());
        }
    }

    @Test
    void claimReturnsNoneWhenEveryBufferIsInFlightOrHeld() {
        try (CommSegment comm = comm(3); LoopbackFramePort.Pair pair = LoopbackFramePort.pair("l", comm, 3, MTU)) {
            FramePort a = pair.a();
            FramePort b = pair.b();
            for (int i = 0; i < 3; i++) {
                int h = a.claim();
                a.txBuffer(h).set(ValueLayout.JAVA_INT, 0, i);
                a.commit(h, 4);
            }
            assertEquals(FramePort.NONE, a.claim(), "back-pressure");
            assertEquals(1, a.counters().txBackPressure());
            int r0 = b.poll();
            assertEquals(0, b.rxBuffer(r0).get(ValueLayout.JAVA_INT, 0), "FIFO");
            assertEquals(FramePort.NONE, a.claim(), "a polled but unreleased buffer is still held");
            b.release(r0);
            int again = a.claim();
            assertTrue(again >= 0);
            a.abort(again);
            int r1 = b.poll();
            int r2 = b.poll();
            assertEquals(1, b.rxBuffer(r1).get(ValueLayout.JAVA_INT, 0));
            assertEquals(2, b.rxBuffer(r2).get(ValueLayout.JAVA_INT, 0));
            b.release(r2);
            b.release(r1);
        }
    }

    @Test
    void handleMisuseIsRejected() {
        try (CommSegment comm = comm(2); LoopbackFramePort.Pair pair = LoopbackFramePort.pair("l", comm, 2, MTU)) {
            FramePort a = pair.a();
            FramePort b = pair.b();
            assertThrows(IllegalStateException.class, () -> a.commit(0, 10), "not claimed");
            assertThrows(IllegalStateException.class, () -> a.txBuffer(-1));
            int h = a.claim();
            assertThrows(IllegalArgumentException.class, () -> a.commit(h, 0));
            assertThrows(IllegalArgumentException.class, () -> a.commit(h, MTU + 1));
            a.commit(h, MTU);
            assertThrows(IllegalStateException.class, () -> a.commit(h, 10), "already committed");
            assertThrows(IllegalStateException.class, () -> a.abort(h));
            assertThrows(IllegalStateException.class, () -> b.rxBuffer(h), "not polled yet");
            int r = b.poll();
            b.release(r);
            assertThrows(IllegalStateException.class, () -> b.release(r), "double release");
            assertThrows(IllegalStateException.class, () -> b.rxLength(r));
            assertThrows(IllegalArgumentException.class, () -> LoopbackFramePort.pair("x", comm, 0, MTU));
            assertThrows(IllegalStateException.class, () -> LoopbackFramePort.pair("x", comm, 2, MTU), "comm is full");
        }
    }

    @Test
    void awaitTimesOutAndWakesOnArrival() throws Exception {
        try (CommSegment comm = comm(4); LoopbackFramePort.Pair pair = LoopbackFramePort.pair("l", comm, 4, MTU)) {
            assertEquals(FramePort.NONE, pair.b().await(20, TimeUnit.MILLISECONDS));
            Thread sender = new Thread(() -> {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
                int h = pair.a().claim();
                pair.a().commit(h, 60);
            });
            sender.start();
            int r = pair.b().await(10, TimeUnit.SECONDS);
            assertTrue(r >= 0);
            assertEquals(60, pair.b().rxLength(r));
            pair.b().release(r);
            sender.join();
        }
    }

    @Test
    void framesSentToAClosedPortAreDroppedAndCounted() {
        try (CommSegment comm = comm(2); LoopbackFramePort.Pair pair = LoopbackFramePort.pair("l", comm, 2, MTU)) {
            pair.b().close();
            for (int i = 0; i < 5; i++) {
                int h = pair.a().claim();
                assertTrue(h >= 0, "dropped frames give their buffers back");
                pair.a().commit(h, 64);
            }
            assertEquals(5, pair.a().counters().txDrops());
            assertEquals(0, pair.a().counters().txFrames());
            assertThrows(IllegalStateException.class, () -> pair.b().poll());
        }
    }

    /** Found by MisuseFuzzTest: a handle claimed before close still sent a frame after it. Handles die with the port. */
    @Test
    void handlesHeldAtCloseAreVoid() {
        try (CommSegment comm = comm(4); LoopbackFramePort.Pair pair = LoopbackFramePort.pair("l", comm, 4, MTU)) {
            LoopbackFramePort a = pair.a();
            LoopbackFramePort b = pair.b();
            int claimed = a.claim();
            int sent = a.claim();
            a.commit(sent, 20);
            int held = b.poll();
            a.close();
            b.close();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> a.commit(claimed, 20));
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
            assertThrows(IllegalStateException.class, () -> a.txBuffer(claimed));
            assertThrows(IllegalStateException.class, () -> a.abort(claimed));
            assertThrows(IllegalStateException.class, () -> b.rxBuffer(held));
            assertThrows(IllegalStateException.class, () -> b.release(held));
            assertEquals(1, a.counters().txFrames(), "nothing sent after close");
            assertEquals(0, a.counters().txDrops());
        }
    }

    /** Two threads, a ping-pong of 20k frames each way plus a one-way stream of 100k: in order, intact. */
    @Test
    void twoThreadsStreamFramesInOrderWithBackPressure() throws Exception {
        try (CommSegment comm = comm(16); LoopbackFramePort.Pair pair = LoopbackFramePort.pair("l", comm, 16, MTU)) {
            FramePort tx = pair.a();
            FramePort rx = pair.b();
            int frames = 100_000;
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread receiver = new Thread(() -> {
                try {
                    for (int seq = 0; seq < frames; seq++) {
                        int r = rx.await(10, TimeUnit.SECONDS);
                        if (r == FramePort.NONE) {
                            throw new AssertionError("timed out waiting for frame " + seq);
                        }
                        MemorySegment buf = rx.rxBuffer(r);
                        int len = rx.rxLength(r);
                        if (buf.get(ValueLayout.JAVA_INT, 0) != seq || len != 8 + (seq % 1000)) {
                            throw new AssertionError("frame " + seq + " arrived as " + buf.get(ValueLayout.JAVA_INT, 0));
                        }
                        if (buf.get(ValueLayout.JAVA_BYTE, len - 1) != (byte) seq) {
                            throw new AssertionError("frame " + seq + " tail byte wrong");
                        }
                        rx.release(r);
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            receiver.start();
            long backPressure = 0;
            IdleStrategy idle = new BusySpinIdle(49);
            for (int seq = 0; seq < frames && failure.get() == null; seq++) {
                int h;
                idle.reset();
                while ((h = tx.claim()) == FramePort.NONE) {
                    backPressure++;
                    idle.idle();
                }
                MemorySegment buf = tx.txBuffer(h);
                int len = 8 + (seq % 1000);
                buf.set(ValueLayout.JAVA_INT, 0, seq);
                buf.set(ValueLayout.JAVA_BYTE, len - 1, (byte) seq);
                tx.commit(h, len);
            }
            receiver.join();
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertEquals(frames, tx.counters().txFrames());
            assertEquals(frames, rx.counters().rxFrames());
            assertEquals(backPressure, tx.counters().txBackPressure());
            assertEquals(tx.counters().txBytes(), rx.counters().rxBytes());
        }
    }

    @Test
    void pingPongBetweenTwoThreads() throws Exception {
        try (CommSegment comm = comm(2); LoopbackFramePort.Pair pair = LoopbackFramePort.pair("l", comm, 2, MTU)) {
            int rounds = 20_000;
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread echo = new Thread(() -> {
                FramePort b = pair.b();
                try {
                    for (int i = 0; i < rounds; i++) {
                        int r = b.await(10, TimeUnit.SECONDS);
                        if (r == FramePort.NONE) {
                            throw new AssertionError("echo timed out at " + i);
                        }
                        int value = b.rxBuffer(r).get(ValueLayout.JAVA_INT, 0);
                        b.release(r);
                        int h = b.claim();
                        b.txBuffer(h).set(ValueLayout.JAVA_INT, 0, value + 1);
                        b.commit(h, 4);
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            echo.start();
            FramePort a = pair.a();
            for (int i = 0; i < rounds && failure.get() == null; i++) {
                int h = a.claim();
                a.txBuffer(h).set(ValueLayout.JAVA_INT, 0, i * 2);
                a.commit(h, 4);
                int r = a.await(10, TimeUnit.SECONDS);
                assertTrue(r >= 0, "reply " + i);
                assertEquals(i * 2 + 1, a.rxBuffer(r).get(ValueLayout.JAVA_INT, 0));
                a.release(r);
            }
            echo.join();
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
        }
    }

    @Test
    void frameStatusDescribesBits() {
        assertEquals("OK", FrameStatus.describe(FrameStatus.OK));
        assertEquals("CRC_ERROR|TRUNCATED", FrameStatus.describe(FrameStatus.CRC_ERROR | FrameStatus.TRUNCATED));
        assertTrue(FrameStatus.isOk(0));
    }
}
