package io.nicbridge.bridge.queue;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
        assertEquals(QueueCode.EMPTY, c.peek());
        for (int i = 0; i < 16; i++) {
            assertTrue(p.claim() >= 0);
            p.commit();
        }
        assertEquals(QueueCode.FULL, p.claim());
        assertEquals(0, p.remainingCapacity());
        assertEquals(16, q.sizeAcquire());
        assertEquals(0x0000_0008, counters.get(ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN), 0));
        assertTrue(c.peek() >= 0);
        c.release();
        assertEquals(1, p.remainingCapacity());
    }

    @Test
    void eachResultHasItsOwnCode() {
        SpscDescriptorQueue q = queue(ByteOrder.BIG_ENDIAN);
        q.resetIndices(100);
        SpscDescriptorQueue.Producer p = q.producer();
        SpscDescriptorQueue.Consumer c = q.consumer();
        assertEquals(QueueCode.NOT_HELD, p.claimedOffset());
        assertEquals(QueueCode.NOT_HELD, c.peekedOffset());
        assertEquals(QueueCode.EMPTY, c.peek(), "nothing published");
        long slot = p.claim();
        assertEquals(slot, p.claimedOffset());
        ValueLayout.OfInt word = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);

        counters.set(word, 32, 100 + 1000); // the consumer claims to have taken 1000 entries never produced
        p.commit();
        for (int i = 1; i < 16; i++) {
            assertTrue(p.claim() >= 0);
            p.commit();
        }
        assertEquals(QueueCode.PEER_CORRUPT, p.claim(), "a corrupt consumer index is not FULL");
        assertEquals(1, p.protocolErrors());
        counters.set(word, 32, 100);
        assertEquals(QueueCode.FULL, p.claim(), "a sane consumer index that has not moved: back-pressure");
        assertEquals(1, p.protocolErrors());

        counters.set(word, 0, 100 - 5); // the producer claims to be 5 behind the consumer: 2^32 - 5 available
        assertEquals(QueueCode.PEER_CORRUPT, c.peek(), "a corrupt producer index is not EMPTY");
        assertEquals(1, c.protocolErrors());
        assertEquals(QueueCode.NOT_HELD, c.peekedOffset(), "nothing was consumed");
    }

    @Test
    void describeNamesEveryCode() {
        assertEquals("FULL", QueueCode.describe(QueueCode.FULL));
        assertEquals("EMPTY", QueueCode.describe(QueueCode.EMPTY));
        assertEquals("PEER_CORRUPT", QueueCode.describe(QueueCode.PEER_CORRUPT));
        assertEquals("NOT_HELD", QueueCode.describe(QueueCode.NOT_HELD));
        assertEquals("64", QueueCode.describe(64));
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
