package io.nicbridge.sim.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.idle.BusySpinIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.queue.QueueCode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FrameFifoTest {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    @Test
    void framesComeOutInOrderWithTheirBytesAndFullIsFalse() {
        FrameFifo fifo = new FrameFifo(4, 64);
        MemorySegment src = Arena.ofAuto().allocate(64);
        assertEquals(QueueCode.EMPTY, fifo.peekLength());
        for (int i = 0; i < 4; i++) {
            src.fill((byte) (0x10 + i));
            assertEquals(i, fifo.offer(src, 0, 10 + i), "the slot index");
        }
        assertEquals(QueueCode.FULL, fifo.offer(src, 0, 1), "offer into a full FIFO must return FULL");
        assertEquals(1, fifo.overflows());
        assertEquals(4, fifo.size());
        for (int i = 0; i < 4; i++) {
            assertEquals(10 + i, fifo.peekLength());
            MemorySegment slot = fifo.peekSlot();
            for (int k = 0; k < 10 + i; k++) {
                assertEquals((byte) (0x10 + i), slot.get(ValueLayout.JAVA_BYTE, k));
            }
            assertEquals((byte) (0x10 + i), fifo.buffer().get(ValueLayout.JAVA_BYTE, fifo.peekOffset()));
            fifo.release();
            if (i == 0) {
                assertTrue(fifo.offer(src, 0, 3) >= 0, "a released slot is free again");
            }
        }
        assertEquals(3, fifo.peekLength());
        assertEquals(1, fifo.clear());
        assertEquals(QueueCode.EMPTY, fifo.peekLength());
        assertThrows(IllegalStateException.class, fifo::release);
        assertEquals(0, fifo.size());
    }

    @Test
    void badInputIsRefusedWithAMessage() {
        FrameFifo fifo = new FrameFifo(2, 16);
        MemorySegment src = Arena.ofAuto().allocate(32);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> fifo.offer(src, 0, 17));
        assertTrue(e.getMessage().contains("17") && e.getMessage().contains("16"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> fifo.offer(src, 0, -1));
        assertThrows(IndexOutOfBoundsException.class, () -> fifo.offer(src, 20, 16));
        assertThrows(IllegalArgumentException.class, () -> new FrameFifo(3, 16));
        assertThrows(IllegalArgumentException.class, () -> new FrameFifo(4, 0));
        assertTrue(fifo.offer(src, 0, 0) >= 0, "an empty frame is still a frame");
        assertEquals(0, fifo.peekLength());
    }

    @Test
    void twoProducersOneConsumerLoseNothingDuplicateNothingAndKeepPerProducerOrder() throws Exception {
        FrameFifo fifo = new FrameFifo(1024, 64);
        int perProducer = 1_000_000;
        AtomicLong fullSeen = new AtomicLong();
        Thread[] producers = new Thread[2];
        for (int p = 0; p < 2; p++) {
            int id = p;
            producers[p] = new Thread(() -> {
                MemorySegment frame = Arena.ofConfined().allocate(64);
                IdleStrategy idle = new BusySpinIdle(49);
                for (int seq = 0; seq < perProducer; ) {
                    int length = 9 + (seq & 31);
                    frame.set(INT, 0, id);
                    frame.set(INT, 4, seq);
                    frame.set(ValueLayout.JAVA_BYTE, length - 1, (byte) seq); // last byte checks the length too
                    if (fifo.offer(frame, 0, length) >= 0) {
                        seq++;
                        idle.reset();
                    } else {
                        fullSeen.incrementAndGet();
                        idle.idle();
                    }
                }
            }, "producer-" + p);
        }
        for (Thread t : producers) {
            t.start();
        }
        int[] next = new int[2];
        long received = 0;
        IdleStrategy idle = new BackoffIdle(49, 50, 1_000L, 1_000L);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(45);
        while (received < 2L * perProducer) {
            int length = fifo.peekLength();
            if (length < 0) {
                idle.idle();
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("stalled after " + received + " frames");
                }
                continue;
            }
            idle.reset();
            MemorySegment slot = fifo.peekSlot();
            int id = slot.get(INT, 0);
            int seq = slot.get(INT, 4);
            assertTrue(id == 0 || id == 1, "producer id " + id);
            if (seq != next[id]) {
                throw new AssertionError("producer " + id + ": expected seq " + next[id] + ", got " + seq
                        + " (lost, duplicated or reordered)");
            }
            assertEquals(9 + (seq & 31), length);
            assertEquals((byte) seq, slot.get(ValueLayout.JAVA_BYTE, length - 1));
            next[id]++;
            fifo.release();
            received++;
        }
        for (Thread t : producers) {
            t.join(10_000);
        }
        assertEquals(perProducer, next[0]);
        assertEquals(perProducer, next[1]);
        assertEquals(QueueCode.EMPTY, fifo.peekLength(), "nothing beyond what was sent");
        assertEquals(fullSeen.get(), fifo.overflows());
    }

    @Test
    void offerPeekReleaseAllocateNothing() {
        FrameFifo fifo = new FrameFifo(64, 1536);
        MemorySegment src = Arena.ofAuto().allocate(1536);
        long bytes = Allocations.measure(() -> {
            for (int i = 0; i < 100_000; i++) {
                fifo.offer(src, 0, 60 + (i & 1023));
                if ((i & 1) == 0) {
                    while (fifo.peekLength() >= 0) {
                        fifo.peekSlot();
                        fifo.release();
                    }
                }
            }
            fifo.clear();
        });
        assertTrue(bytes < 1024, "100k offers/peeks/releases allocated " + bytes + " bytes");
    }
}
