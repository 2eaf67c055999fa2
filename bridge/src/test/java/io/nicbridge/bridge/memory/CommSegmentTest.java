package io.nicbridge.bridge.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CommSegmentTest {
    private static final long PAGE = MemoryLocking.pageSize();

    @Test
    void allocatesWholeZeroedPagesAtAPageBoundary() {
        try (CommSegment comm = CommSegment.allocate("t", 100)) {
            assertEquals(PAGE, comm.capacity());
            assertEquals(0, comm.segment().address() % PAGE);
            assertTrue(comm.segment().isNative());
            for (long i = 0; i < comm.capacity(); i += 8) {
                assertEquals(0L, comm.segment().get(ValueLayout.JAVA_LONG, i));
            }
        }
        try (CommSegment comm = CommSegment.allocate("t", 3 * PAGE + 1)) {
            assertEquals(4 * PAGE, comm.capacity());
        }
    }

    @Test
    void pinningMatchesWhatTheProbeSays() {
        MemoryLocking.Status status = MemoryLocking.probe();
        try (CommSegment comm = CommSegment.allocate("t", PAGE)) {
            assertEquals(status.permitted(), comm.isPinned(), status.describe());
            assertEquals(status.permitted() ? 0 : status.errno(), comm.lockErrno());
        }
    }

    @Test
    void carveHonoursAlignmentAndNeverOverlaps() {
        try (CommSegment comm = CommSegment.allocate("t", 2 * PAGE)) {
            MemorySegment a = comm.carve(3, 1);
            MemorySegment b = comm.carve(10, 64);
            MemorySegment c = comm.carve(1, 8);
            MemorySegment d = comm.carve(100, PAGE);
            assertEquals(comm.segment().address(), a.address());
            assertEquals(0, b.address() % 64);
            assertEquals(64, b.address() - a.address(), "padding only up to the alignment");
            assertEquals(0, c.address() % 8);
            assertTrue(c.address() >= b.address() + 10);
            assertEquals(0, d.address() % PAGE);
            assertEquals(PAGE + 100, comm.used());
            assertEquals(PAGE - 100, comm.remaining());
            assertEquals(10, b.byteSize());
            assertEquals(0, b.maxByteAlignment() % 64);
        }
    }

    @Test
    void carveRejectsBadArgumentsAndExhaustionWithMessages() {
        try (CommSegment comm = CommSegment.allocate("rings", PAGE)) {
            assertThrows(IllegalArgumentException.class, () -> comm.carve(0, 8));
            assertThrows(IllegalArgumentException.class, () -> comm.carve(-1, 8));
            IllegalArgumentException align = assertThrows(IllegalArgumentException.class, () -> comm.carve(8, 3));
            assertTrue(align.getMessage().contains("power of two"), align.getMessage());
            assertThrows(IllegalArgumentException.class, () -> comm.carve(8, 0));
            assertThrows(IllegalArgumentException.class, () -> comm.carve(8, PAGE * 2));
            comm.carve(PAGE - 8, 1);
            IllegalStateException full = assertThrows(IllegalStateException.class, () -> comm.carve(16, 8));
            assertTrue(full.getMessage().contains("'rings' is full"), full.getMessage());
            assertThrows(IllegalStateException.class, () -> comm.carve(Long.MAX_VALUE, 1));
            assertEquals(8, comm.carve(8, 8).byteSize(), "the exact rest still fits");
        }
        assertThrows(IllegalArgumentException.class, () -> CommSegment.allocate("t", 0));
        assertThrows(IllegalArgumentException.class, () -> CommSegment.allocate("t", Long.MAX_VALUE));
    }

    @Test
    void closeIsIdempotentAndMakesEveryCarvedSliceInaccessible() {
        CommSegment comm = CommSegment.allocate("t", PAGE);
        MemorySegment slice = comm.carve(64, 8);
        slice.set(ValueLayout.JAVA_INT, 0, 42);
        comm.close();
        comm.close();
        assertFalse(comm.isOpen());
        assertThrows(IllegalStateException.class, () -> slice.get(ValueLayout.JAVA_INT, 0));
        assertThrows(IllegalStateException.class, () -> comm.carve(8, 8));
    }

    @Test
    void refusedMlockLeavesAUsableUnpinnedSegmentAndWarnsOnce() {
        AtomicInteger locks = new AtomicInteger();
        AtomicInteger unlocks = new AtomicInteger();
        MemoryLocker refusing = new MemoryLocker() {
            @Override
            public int lock(MemorySegment segment) {
                locks.incrementAndGet();
                return NativeMemory.ENOMEM;
            }

            @Override
            public int unlock(MemorySegment segment) {
                unlocks.incrementAndGet();
                return 0;
            }
        };
        try (CommSegment a = CommSegment.allocate("a", PAGE, refusing);
             CommSegment b = CommSegment.allocate("b", PAGE, refusing)) {
            assertFalse(a.isPinned());
            assertFalse(b.isPinned());
            assertEquals(NativeMemory.ENOMEM, a.lockErrno());
            assertTrue(MemoryLocking.warned(), "the process-wide warning was logged");
            a.carve(16, 8).set(ValueLayout.JAVA_LONG, 8, -1L);
            assertEquals(-1L, a.segment().get(ValueLayout.JAVA_LONG, 8));
        }
        assertEquals(2, locks.get());
        assertEquals(0, unlocks.get(), "never unlock what was not locked");
        assertFalse(MemoryLocking.warnOnce("c", 1, NativeMemory.EPERM), "a second refusal does not warn again");
    }

    @Test
    void probeReportsLimitsAndPageSize() {
        MemoryLocking.Status s = MemoryLocking.probe();
        assertEquals(PAGE, s.pageSize());
        assertTrue(s.softLimit() >= -1 && s.hardLimit() >= -1, s.describe());
        assertTrue(s.describe().contains("RLIMIT_MEMLOCK soft"), s.describe());
        assertEquals(s.permitted(), s.errno() == 0);
    }
}
