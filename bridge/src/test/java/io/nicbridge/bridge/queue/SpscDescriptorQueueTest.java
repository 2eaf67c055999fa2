package io.nicbridge.bridge.queue;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class SpscDescriptorQueueTest {
    private Arena arena;
    private MemorySegment slots;
    private MemorySegment counters;

    @BeforeEach
    void setUp() {
        arena = Arena.ofConfined();
        slots = arena.allocate(16 * 32, 64);
        counters = arena.allocate(64, 64);
    }

    @AfterEach
    void tearDown() {
        arena.close();
    }

    private SpscDescriptorQueue queue(ByteOrder order) {
        return new SpscDescriptorQueue(slots, 0, 32, 16, counters, 0, 32, order);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 0x7FFF_FFF8, 0xFFFF_FFF0, 0xFFFF_FFFF})
    void freeRunningIndicesWrapCorrectly(int start) {
        SpscDescriptorQueue q = queue(ByteOrder.LITTLE_ENDIAN);
        q.resetIndices(start);
        SpscDescriptorQueue.Producer p = q.producer();
        SpscDescriptorQueue.Consumer c = q.consumer();
        int next = 0;
        int expected = 0;
        for (int round = 0; round < 5; round++) {
            int batch = 1 + round * 4; // 1, 5, 9, 13, 17 > capacity: hits full
            for (int k = 0; k < batch; k++) {
                long s = p.claim();
                if (s < 0) {
                    assertEquals(16, p.index() - c.index(), "only a full queue refuses");
                    break;
                }
                assertEquals(q.slotOffset(start + next), s);
                q.putInt(s, next++);
                p.commit();
            }
            long s;
            while ((s = c.peek()) >= 0) {
                assertEquals(expected++, q.getInt(s));
                c.release();
            }
        }
        assertEquals(next, expected);
        assertEquals(start + next, q.producerIndexAcquire());
        assertEquals(start + next, q.consumerIndexAcquire());
        assertEquals(0, q.sizeAcquire());
        assertEquals(next, p.produced());
        assertEquals(next, c.consumed());
    }

    @Test
    void fullAndEmptyAreExact() {
        SpscDescriptorQueue q = queue(ByteOrder.BIG_ENDIAN);
        q.resetIndices(0xFFFF_FFF8);
        SpscDescriptorQueue.Producer p = q.producer();
        SpscDescriptorQueue.Consumer c = q.consumer();
        assertEquals(-1, c.peek());
        for (int i = 0; i < 16; i++) {
            assertTrue(p.claim() >= 0);
            p.commit();
        }
        assertEquals(-1, p.claim());
        assertEquals(0, p.remainingCapacity());
        assertEquals(16, q.sizeAcquire());
        assertEquals(0x0000_0008, counters.get(ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN), 0));
        assertTrue(c.peek() >= 0);
        c.release();
        assertEquals(1, p.remainingCapacity());
    }

    @Test
    void misuseAndBadGeometry() {
        SpscDescriptorQueue q = queue(ByteOrder.LITTLE_ENDIAN);
        assertThrows(IllegalStateException.class, () -> q.producer().commit());
        assertThrows(IllegalStateException.class, () -> q.consumer().release());
        assertThrows(IllegalArgumentException.class,
                () -> new SpscDescriptorQueue(slots, 0, 32, 12, counters, 0, 4, ByteOrder.LITTLE_ENDIAN));
        assertThrows(IllegalArgumentException.class,
                () -> new SpscDescriptorQueue(slots, 0, 30, 16, counters, 0, 4, ByteOrder.LITTLE_ENDIAN));
        assertThrows(IllegalArgumentException.class,
                () -> new SpscDescriptorQueue(slots, 0, 32, 32, counters, 0, 4, ByteOrder.LITTLE_ENDIAN));
        assertThrows(IllegalArgumentException.class,
                () -> new SpscDescriptorQueue(slots, 0, 32, 16, counters, 62, 4, ByteOrder.LITTLE_ENDIAN));
        assertThrows(IllegalArgumentException.class,
                () -> new SpscDescriptorQueue(slots, 0, 32, 16, slots, 8, 8, ByteOrder.LITTLE_ENDIAN));
    }
}
