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
