package io.nicbridge.bridge.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class BufferPoolTest {
    @Test
    void claimsEveryBufferOnceThenReportsEmpty() {
        try (CommSegment comm = CommSegment.allocate("t", 1 << 17)) {
            BufferPool pool = comm.carvePool("frames", 70, 1514, 64);
            assertEquals(70, pool.capacity());
            assertEquals(1536, pool.stride());
            BitSet seen = new BitSet();
            for (int i = 0; i < 70; i++) {
                int h = pool.claim();
                assertTrue(h >= 0 && h < 70);
                assertFalse(seen.get(h), "claimed twice: " + h);
                seen.set(h);
                assertTrue(pool.isClaimed(h));
            }
            assertEquals(BufferPool.NONE, pool.claim(), "empty pool is back-pressure, not an exception");
            assertEquals(0, pool.available());
            pool.release(33);
            assertEquals(1, pool.available());
            assertEquals(33, pool.claim());
        }
    }

    @Test
    void buffersAreDistinctAlignedCachedSlices() {
        try (CommSegment comm = CommSegment.allocate("t", 1 << 16)) {
            BufferPool pool = comm.carvePool("frames", 8, 100, 128);
            for (int i = 0; i < 8; i++) {
                MemorySegment b = pool.buffer(i);
                assertEquals(100, b.byteSize());
                assertEquals(0, b.address() % 128);
                assertEquals(pool.memory().address() + pool.offsetOf(i), b.address());
                assertTrue(b == pool.buffer(i), "cached, not re-sliced");
                b.fill((byte) i);
            }
            for (int i = 0; i < 8; i++) {
                assertEquals((byte) i, pool.buffer(i).get(ValueLayout.JAVA_BYTE, 99), "no overlap");
            }
        }
    }

    @Test
    void misuseIsRejected() {
        try (CommSegment comm = CommSegment.allocate("t", 4096)) {
            BufferPool pool = comm.carvePool("p", 4, 16, 16);
            int h = pool.claim();
            pool.release(h);
            IllegalStateException twice = assertThrows(IllegalStateException.class, () -> pool.release(h));
            assertTrue(twice.getMessage().contains("not claimed"), twice.getMessage());
            assertEquals(4, pool.available(), "a double release does not create a buffer");
            assertThrows(IndexOutOfBoundsException.class, () -> pool.release(4));
            assertThrows(IndexOutOfBoundsException.class, () -> pool.buffer(-1));
            assertThrows(IllegalArgumentException.class, () -> comm.carvePool("p", 0, 16, 16));
            assertThrows(IllegalArgumentException.class, () -> comm.carvePool("p", 1, 0, 16));
            assertThrows(IllegalArgumentException.class, () -> comm.carvePool("p", 1, 16, 12));
            assertThrows(IllegalArgumentException.class,
                () -> new BufferPool("p", comm.segment().asSlice(0, 100), 2, 64, 64));
            assertThrows(IllegalArgumentException.class,
                () -> new BufferPool("p", comm.segment(), 2, 65, 64));
        }
    }

    @Test
    void twoThreadsNeverHoldTheSameBuffer() throws Exception {
        try (CommSegment comm = CommSegment.allocate("t", 1 << 16)) {
            BufferPool pool = comm.carvePool("p", 100, 64, 64);
            AtomicIntegerArray owner = new AtomicIntegerArray(100);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Runnable worker = () -> {
                int me = (int) Thread.currentThread().threadId();
                int[] held = new int[60];
                try {
                    for (int round = 0; round < 2_000; round++) {
                        int n = 0;
                        for (; n < held.length; n++) {
                            int h = pool.claim();
                            if (h == BufferPool.NONE) {
                                break;
                            }
                            if (!owner.compareAndSet(h, 0, me)) {
                                throw new AssertionError("buffer " + h + " handed out twice");
                            }
                            held[n] = h;
                        }
                        for (int i = 0; i < n; i++) {
                            owner.set(held[i], 0);
                            pool.release(held[i]);
                        }
                        Thread.yield();
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            };
            Thread a = new Thread(worker);
            Thread b = new Thread(worker);
            a.start();
            b.start();
            a.join();
            b.join();
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertEquals(100, pool.available());
        }
    }
}
