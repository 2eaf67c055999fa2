package io.nicbridge.bench.pingpong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.LoopbackFramePort;
import io.nicbridge.bridge.port.PortCounters;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The flood's bookkeeping on an in-memory wire that loses, duplicates, reorders and corrupts frames on purpose. */
class OneWayFloodTest {
    private static final int MTU = 1514;
    private static final int BUFFERS = 64;
    private static final ValueLayout.OfInt SEQ = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * A sending port in front of a loopback wire that rewrites sequence numbers as it commits: frame 3 goes out as a
     * second 2 (a duplicate, and 3 is lost), 10 and 11 swap numbers (11 arrives before 10: one reordered), 20 is
     * dropped, 30 carries a number outside the flood (foreign, and 30 is lost).
     */
    private static final class FaultyWire implements FramePort {
        private final FramePort inner;
        private int committed;

        FaultyWire(FramePort inner) {
            this.inner = inner;
        }

        @Override
        public void commit(int handle, int length) {
            int k = committed++;
            MemorySegment b = inner.txBuffer(handle);
            switch (k) {
                case 3 -> b.set(SEQ, PingPongFrames.SEQ_OFFSET, 2);
                case 10 -> b.set(SEQ, PingPongFrames.SEQ_OFFSET, 11);
                case 11 -> b.set(SEQ, PingPongFrames.SEQ_OFFSET, 10);
                case 30 -> b.set(SEQ, PingPongFrames.SEQ_OFFSET, Integer.MAX_VALUE - 1);
                default -> { }
            }
            if (k == 20) {
                inner.abort(handle);
            } else {
                inner.commit(handle, length);
            }
        }

        @Override public String name() { return "faulty-" + inner.name(); }
        @Override public int maxFrameLength() { return inner.maxFrameLength(); }
        @Override public int claim() { return inner.claim(); }
        @Override public MemorySegment txBuffer(int handle) { return inner.txBuffer(handle); }
        @Override public void abort(int handle) { inner.abort(handle); }
        @Override public int poll() { return inner.poll(); }
        @Override public int await(long timeout, TimeUnit unit) throws InterruptedException {
            return inner.await(timeout, unit);
        }
        @Override public MemorySegment rxBuffer(int handle) { return inner.rxBuffer(handle); }
        @Override public int rxLength(int handle) { return inner.rxLength(handle); }
        @Override public int rxStatus(int handle) { return inner.rxStatus(handle); }
        @Override public void release(int handle) { inner.release(handle); }
        @Override public PortCounters counters() { return inner.counters(); }
        @Override public void close() { inner.close(); }
    }

    @Test
    void everyFrameIsAccountedForAsReceivedLostDuplicatedReorderedOrForeign() throws Exception {
        try (CommSegment comm = CommSegment.allocate("flood", LoopbackFramePort.requiredBytes(BUFFERS, MTU));
             LoopbackFramePort.Pair pair = LoopbackFramePort.pair("flood", comm, BUFFERS, MTU)) {
            OneWayFlood.SeenMap seen = new OneWayFlood.SeenMap(TimeUnit.MILLISECONDS.toNanos(30));
            OneWayFlood.Result r = OneWayFlood.run(new FaultyWire(pair.a()), 2, 1, null, pair.b(), FrameWait.BLOCK,
                64, TimeUnit.MILLISECONDS.toNanos(30), seen);
            assertTrue(r.sent() > 31, "the flood got past the faults: " + r);
            assertEquals(1, r.duplicates(), r.toString());
            assertEquals(1, r.reordered(), r.toString());
            assertEquals(1, r.foreign(), r.toString());
            assertEquals(3, r.lost(), "3 (overwritten by the duplicate), 20 (dropped), 30 (foreign): " + r);
            // Received counts every good flood frame including the duplicate; the dropped and foreign are not in it.
            assertEquals(r.sent() - 2, r.received(), r.toString());
            assertEquals(r.sent() - 3, r.distinct(), r.toString());
            assertTrue(r.framesPerSecond() > 0 && r.megabitsPerSecond() > 0, r.toString());
        }
    }

    @Test
    void aCleanWireLosesNothingAndTheMapIsReusedAcrossRuns() throws Exception {
        try (CommSegment comm = CommSegment.allocate("flood", LoopbackFramePort.requiredBytes(BUFFERS, MTU));
             LoopbackFramePort.Pair pair = LoopbackFramePort.pair("flood", comm, BUFFERS, MTU)) {
            OneWayFlood.SeenMap seen = new OneWayFlood.SeenMap(TimeUnit.MILLISECONDS.toNanos(20));
            for (int size : new int[] {64, 1514}) {
                OneWayFlood.Result r = OneWayFlood.run(pair.a(), 2, 1, null, pair.b(),
                    new FrameWait(TimeUnit.MICROSECONDS.toNanos(5), null), size, TimeUnit.MILLISECONDS.toNanos(20),
                    seen);
                assertTrue(r.sent() > 0, r.toString());
                assertEquals(0, r.lost(), r.toString());
                assertEquals(r.sent(), r.distinct(), r.toString());
                assertEquals(0, r.duplicates() + r.reordered() + r.foreign(), r.toString());
                assertEquals(size, r.frameBytes());
            }
        }
    }

    /**
     * The measuring loops allocate nothing per frame: a longer flood (thousands more frames) and a longer ping-pong
     * allocate, on the measuring thread, no more than a shorter one (thread start, result and a progress line are
     * per run, not per frame).
     */
    @Test
    void theMeasuredLoopsAllocateNothingPerFrame() throws Exception {
        com.sun.management.ThreadMXBean mx =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        try (CommSegment comm = CommSegment.allocate("alloc", LoopbackFramePort.requiredBytes(BUFFERS, MTU));
             LoopbackFramePort.Pair pair = LoopbackFramePort.pair("alloc", comm, BUFFERS, MTU)) {
            OneWayFlood.SeenMap seen = new OneWayFlood.SeenMap(TimeUnit.MILLISECONDS.toNanos(200));
            long[] bytes = new long[3];
            OneWayFlood.Result[] runs = new OneWayFlood.Result[3];
            // The first warms the JIT up; the third is the longer flood, lengthened (up to 2.4 s) until it has sent
            // 1000 frames more than the second: on a loaded machine 150 ms once sent fewer than 20 ms had.
            long[] millis = {60, 20, 150};
            for (int i = 0; i < 3; i++) {
                do {
                    long before = mx.getCurrentThreadAllocatedBytes();
                    runs[i] = OneWayFlood.run(pair.a(), 2, 1, null, pair.b(), FrameWait.BLOCK, 64,
                        TimeUnit.MILLISECONDS.toNanos(millis[i]), seen);
                    bytes[i] = mx.getCurrentThreadAllocatedBytes() - before;
                    millis[i] *= 2;
                } while (i == 2 && runs[2].sent() - runs[1].sent() <= 1000 && millis[2] <= 2400);
            }
            long extraFrames = runs[2].sent() - runs[1].sent();
            assertTrue(extraFrames > 1000, "the longer flood sent more: " + runs[1] + " " + runs[2]);
            assertTrue(bytes[2] - bytes[1] < 32 * 1024, "flood sender: " + bytes[1] + " B for " + runs[1].sent()
                + " frames, " + bytes[2] + " B for " + runs[2].sent());

            org.HdrHistogram.Histogram h = RttSummary.newHistogram();
            Progress quiet = new Progress("alloc", Long.MAX_VALUE, new java.io.PrintStream(
                java.io.OutputStream.nullOutputStream()));
            int[] counts = {3000, 1000, 6000};
            Thread echo = Thread.ofPlatform().daemon().start(() ->
                new FrameEcho(pair.b(), 2, null, FrameWait.BLOCK).run(3000 + 1000 + 6000));
            for (int i = 0; i < 3; i++) {
                long before = mx.getCurrentThreadAllocatedBytes();
                PingPongLoops.client(pair.a(), FrameWait.BLOCK, 1, 2, 64, 0, counts[i], h, quiet);
                bytes[i] = mx.getCurrentThreadAllocatedBytes() - before;
            }
            echo.join(5_000);
            assertEquals(10_000, h.getTotalCount());
            assertTrue(bytes[2] - bytes[1] < 32 * 1024, "ping-pong client: " + bytes[1] + " B for 1000 round trips, "
                + bytes[2] + " B for 6000");
        }
    }

    @Test
    void badInputIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new OneWayFlood.SeenMap(TimeUnit.SECONDS.toNanos(400)));
        assertThrows(IllegalArgumentException.class, () -> new FrameWait(-1, null));
        assertEquals(0, FrameWait.parseSpinNanos("block"));
        assertEquals(50_000, FrameWait.parseSpinNanos("spin"));
        assertEquals(7_000, FrameWait.parseSpinNanos("spin:7"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> FrameWait.parseSpinNanos("spin:0"));
        assertTrue(e.getMessage().contains("expected block, spin or spin:MICROS"), e.getMessage());
    }
}
